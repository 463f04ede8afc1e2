/// @file
/// `coreactor/Router.hpp` — routers: one reference in front of many actors
/// (its routees), and the messages that steer them (docs/routers.md).
//
//   ActorRef pool = system->spawnPool<Worker>("workers", RouterOptions::roundRobin());
//   pool.tell(Job{...});           // one routee gets it
//   pool.tell(Broadcast(Stop{}));  // every routee gets a copy
//
// A router is an ActorRef: told, asked, passed in messages, watched and
// stopped like any. It is not an actor that messages pass through: the
// sender's own thread picks the routee as it sends (the sender's isolate,
// for an actor), so a routed tell costs one pick more than a direct one and
// no extra hop. Behind the reference stands the router's head, an actor that
// owns the routees (a pool spawns and supervises them; a group is given
// them), answers GetRoutees and AdjustPoolSize, runs the resizer, and does
// the work of the logics that wait for replies (scatter-gather,
// tail-chopping). Stopping the router (ctx.stop(router), PoisonPill) stops
// the head, and with a pool its routees; watchers get Terminated{router}.
#pragma once

#include <array>
#include <bit>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <functional>
#include <memory>
#include <new>
#include <string_view>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/SupervisorStrategy.hpp"
#include "coreactor/detail/Fnv.hpp"

namespace coreactor {

/// How a router picks the routee of a message (docs/routers.md has the cost of each).
enum class RoutingLogic : std::uint8_t {
  RoundRobin,       ///< each in turn (a turn counter per isolate: no shared write)
  Random,           ///< uniformly at random
  ConsistentHash,   ///< by the message's key: one key, one routee while the size holds
  SmallestMailbox,  ///< the routee with the fewest queued messages (pools only)
  Broadcast,        ///< every routee gets a copy
  ScatterGather,    ///< asks every routee; the first reply goes to the sender
  TailChopping,     ///< asks one routee, then another after each interval; first reply wins
};

// ---- messages a router understands ----------------------------------------------

/// Sends `message` to every routee of the router it is told to, whatever
/// its logic. The message must be copyable (one copy per routee).
struct Broadcast {
  /// Wraps `m` (any copyable message).
  template <class M>
  requires(!std::is_same_v<std::decay_t<M>, Broadcast>) explicit Broadcast(M&& m)
      : message(std::forward<M>(m)) {}
  Message message;  ///< what each routee gets
};

/// A message with its key, for a consistent-hash router (the routee gets
/// `message` alone). The other way to give keys: RouterOptions::withHashKey.
struct HashKeyed {
  /// `m` keyed by `key`.
  template <class M>
  HashKeyed(std::uint64_t key, M&& m) : key(key), message(std::forward<M>(m)) {}
  /// `m` keyed by a string (hashed with a fixed 64-bit FNV-1a: the same
  /// string maps to the same routee in every run).
  template <class M>
  HashKeyed(std::string_view key, M&& m) : key(hashKey(key)), message(std::forward<M>(m)) {}
  /// The fixed hash of a string key.
  static std::uint64_t hashKey(std::string_view key) noexcept { return detail::fnv1a(key); }
  std::uint64_t key;  ///< the key
  Message message;    ///< what the routee gets
};

/// Asks a router for its routees; the answer is Routees.
struct GetRoutees {};
/// The routees of a router, in their order.
struct Routees {
  std::vector<ActorRef> routees;  ///< the routees now
};
/// Grows (positive) or shrinks (negative) a pool by `change` routees,
/// within its bounds (a resizer's, else at least 1). A group ignores it.
struct AdjustPoolSize {
  int change;  ///< routees to add (> 0) or stop (< 0)
};

namespace detail {
/// The class and the type of a pointer to a data member.
template <class M>
struct MemberTraits;
template <class C, class T>
struct MemberTraits<T C::*> {
  using Class = C;
  using Type = T;
};
/// An enum's underlying type, or T itself.
template <class T, bool = std::is_enum_v<T>>
struct UnderlyingOrT {
  using Type = T;
};
template <class T>
struct UnderlyingOrT<T, true> {
  using Type = std::underlying_type_t<T>;
};
template <class T>
using UnderlyingOr = typename UnderlyingOrT<T>::Type;

template <>
inline constexpr bool kRoutedSpecially<Broadcast> = true;
template <>
inline constexpr bool kRoutedSpecially<HashKeyed> = true;
template <>
inline constexpr bool kRoutedSpecially<GetRoutees> = true;
template <>
inline constexpr bool kRoutedSpecially<AdjustPoolSize> = true;
}  // namespace detail

// ---- options ------------------------------------------------------------------------

/// How a pool grows and shrinks with its load (RouterOptions::withResizer).
/// Every interval the router's head counts the routees under pressure
/// (pressureThreshold or more messages queued): all of them pressed grows
/// the pool by ceil(rampUp x size); fewer than backoffThreshold x size
/// pressed shrinks it by ceil(backoffRate x size); always within
/// [lower, upper]. Its decisions are counted in the metrics
/// (coreactor_router_resizes_total).
class ResizerOptions {
 public:
  /// A pool of `lower` to `upper` routees. Throws ErrInvalidResizer for
  /// lower > upper, an upper of 0, or an upper past the pool limit.
  static ResizerOptions create(std::size_t lower, std::size_t upper);
  /// Queued messages that make a routee count as pressed (default 1). ErrInvalidResizer for 0.
  ResizerOptions withPressureThreshold(std::size_t messages) const;
  /// The growth step as a fraction of the size (default 0.2). ErrInvalidResizer outside (0, 1].
  ResizerOptions withRampUp(double rate) const;
  /// Shrink below this fraction of routees pressed (default 0.3), by this
  /// fraction (default 0.1). ErrInvalidResizer outside [0, 1].
  ResizerOptions withBackoff(double threshold, double rate) const;
  /// How often the head looks (default 100 ms). ErrInvalidResizer if not positive.
  ResizerOptions withInterval(std::chrono::nanoseconds interval) const;

  std::size_t lower() const noexcept { return lower_; }                     ///< the least routees
  std::size_t upper() const noexcept { return upper_; }                     ///< the most routees
  std::size_t pressureThreshold() const noexcept { return pressure_; }      ///< see above
  double rampUp() const noexcept { return rampUp_; }                        ///< see above
  double backoffThreshold() const noexcept { return backoffThreshold_; }    ///< see above
  double backoffRate() const noexcept { return backoffRate_; }              ///< see above
  std::chrono::nanoseconds interval() const noexcept { return interval_; }  ///< see above

 private:
  std::size_t lower_ = 1;
  std::size_t upper_ = 1;
  std::size_t pressure_ = 1;
  double rampUp_ = 0.2;
  double backoffThreshold_ = 0.3;
  double backoffRate_ = 0.1;
  std::chrono::nanoseconds interval_ = std::chrono::milliseconds(100);
};

/// A router's logic and, for a pool, its routees: how many, with which
/// options, under which supervision. An immutable value: each with...()
/// returns a changed copy.
class RouterOptions {
 public:
  /// The most routees a router may have.
  static constexpr std::size_t kMaxRoutees = std::size_t{1} << 20;

  /// Round-robin routing.
  static RouterOptions roundRobin() { return RouterOptions(RoutingLogic::RoundRobin); }
  /// Random routing.
  static RouterOptions random() { return RouterOptions(RoutingLogic::Random); }
  /// Consistent-hash routing: each message needs a key (HashKeyed, or
  /// withHashKey for its type); one without is ErrNoRouteKey at the tell.
  static RouterOptions consistentHash() { return RouterOptions(RoutingLogic::ConsistentHash); }
  /// Smallest-mailbox routing (a pool's routees publish their queue depth).
  static RouterOptions smallestMailbox() { return RouterOptions(RoutingLogic::SmallestMailbox); }
  /// Broadcast routing: every routee gets a copy of every message.
  static RouterOptions broadcast() { return RouterOptions(RoutingLogic::Broadcast); }
  /// Scatter-gather: each message is asked of every routee; the first reply
  /// goes to the sender, within `within` (ErrInvalidTimeout if not positive).
  static RouterOptions scatterGather(std::chrono::nanoseconds within);
  /// Tail-chopping: asked of one random routee, then of another each
  /// `interval` while none replied; the first reply goes to the sender,
  /// within `within` (ErrInvalidTimeout if either is not positive).
  static RouterOptions tailChopping(std::chrono::nanoseconds within,
                                    std::chrono::nanoseconds interval);

  /// A pool: `k` routees on each isolate (the default, with k = 1).
  /// ErrInvalidPoolSize for 0, or past kMaxRoutees in all.
  RouterOptions withPerIsolate(std::size_t k) const;
  /// A pool: `n` routees, spread over the isolates one after another.
  /// ErrInvalidPoolSize for 0 or past kMaxRoutees.
  RouterOptions withSize(std::size_t n) const;
  /// The options each routee of a pool is spawned with (its isolate is the pool's choice).
  RouterOptions withRouteeOptions(ActorOptions options) const;
  /// How the pool supervises its routees (default: restart, one for one).
  RouterOptions withSupervisorStrategy(SupervisorStrategy strategy) const;
  /// A pool that grows and shrinks with its load.
  RouterOptions withResizer(ResizerOptions resizer) const;
  /// For consistent hashing: the key of a message of type T is `key(t)`,
  /// a std::uint64_t or anything convertible to std::string_view.
  template <class T, class F>
  RouterOptions withHashKey(F key) const {
    using V = std::decay_t<T>;
    RouterOptions o = *this;
    HashKeyOf k{detail::MessageAccess::typeOf<V>(),
                [key](const Message& m) { return keyOfValue(key, *m.get<V>()); },
                {},
                {}};
    if constexpr (detail::MessageAccess::kWord<V>) {
      if constexpr (std::is_empty_v<F> && std::is_default_constructible_v<F>) {
        // A function with no state (a lambda that captures nothing): made
        // where it is called, behind a plain pointer.
        k.wordKeyCall = [](std::uint64_t word) { return keyOfWord<V>(F{}, word); };
      } else {
        k.wordKey = [key](std::uint64_t word) { return keyOfWord<V>(key, word); };
      }
    }
    o.keys_.push_back(std::move(k));
    return o;
  }

  /// For consistent hashing: the key of a message of type V is its
  /// integer (or enum) member `Member`, as `withHashKey<&Order::customer>()`.
  /// The same key as withHashKey<V> with a function that returns that
  /// member; for a word-sized V, a tell's pick reads it from the word with
  /// no call (docs/routers.md).
  template <auto Member>
  RouterOptions withHashKey() const {
    using Traits = detail::MemberTraits<decltype(Member)>;
    using V = typename Traits::Class;
    using F = typename Traits::Type;
    static_assert(std::is_integral_v<F> || std::is_enum_v<F>,
                  "withHashKey<&V::member>: the member is an integer or an enum");
    RouterOptions o = withHashKey<V>([](const V& value) { return value.*Member; });
    if constexpr (detail::MessageAccess::kWord<V>) {
      // Where the member's bytes sit in the word (a word holds the value's
      // bytes from its lowest byte up): shifted to the top, then down.
      const V probe = std::bit_cast<V>(std::array<unsigned char, sizeof(V)>{});
      const auto offset =
          static_cast<std::uint32_t>(reinterpret_cast<const unsigned char*>(&(probe.*Member)) -
                                     reinterpret_cast<const unsigned char*>(&probe));
      HashKeyOf& k = o.keys_.back();
      k.field.left = static_cast<std::uint8_t>(64 - 8 * (offset + sizeof(F)));
      k.field.right = static_cast<std::uint8_t>(64 - 8 * sizeof(F));
      k.field.isSigned =
          std::is_signed_v<F> || (std::is_enum_v<F> && std::is_signed_v<detail::UnderlyingOr<F>>);
      k.field.inWord = true;
    }
    return o;
  }

  /// A key function of one message type.
  struct HashKeyOf {
    const detail::MessageType* type;                   ///< the type it keys
    std::function<std::uint64_t(const Message&)> key;  ///< the key of a message of it
    /// The same key of a word-sized message from its 64-bit word (empty
    /// for other types, and when wordKeyCall is set): a tell of a word
    /// builds no Message for its key.
    std::function<std::uint64_t(std::uint64_t)> wordKey;
    /// A key that is an integer member of a word-sized type
    /// (withHashKey<&V::member>): where it sits in the word.
    struct Field {
      std::uint8_t left = 0;   ///< the word shifted left by this puts the member on top
      std::uint8_t right = 0;  ///< then shifted right by this, the member alone
      bool isSigned = false;   ///< the right shift keeps the sign (as the function's cast does)
      bool inWord = false;     ///< set: the key is read from the word
      /// The key of a word of the type: what `key` returns for its message.
      std::uint64_t of(std::uint64_t word) const noexcept {
        const std::uint64_t top = word << left;
        return isSigned ? static_cast<std::uint64_t>(static_cast<std::int64_t>(top) >> right)
                        : top >> right;
      }
    };
    Field field;  ///< see Field
    /// wordKey as a plain function, set instead of it when the key
    /// function has no state: a tell's pick makes one call through it, not
    /// a std::function's two.
    std::uint64_t (*wordKeyCall)(std::uint64_t) = nullptr;
  };

  RoutingLogic logic() const noexcept { return logic_; }  ///< the logic
  /// Routees per isolate (0 when withSize was used).
  std::size_t perIsolate() const noexcept { return perIsolate_; }
  /// Routees in all (0 when withPerIsolate, or neither, was used).
  std::size_t size() const noexcept { return size_; }
  const ActorOptions& routeeOptions() const noexcept { return routee_; }  ///< see above
  /// How the pool supervises its routees.
  const SupervisorStrategy& supervisorStrategy() const noexcept { return strategy_; }
  /// The resizer, or null.
  const std::shared_ptr<const ResizerOptions>& resizer() const noexcept { return resizer_; }
  std::chrono::nanoseconds within() const noexcept { return within_; }       ///< see above
  std::chrono::nanoseconds interval() const noexcept { return interval_; }   ///< see above
  const std::vector<HashKeyOf>& hashKeys() const noexcept { return keys_; }  ///< see above

 private:
  explicit RouterOptions(RoutingLogic logic) : logic_(logic) {}
  /// withHashKey's key of `value`: `key(value)`, or the hash of the text it returns.
  template <class F, class V>
  static std::uint64_t keyOfValue(const F& key, const V& value) {
    if constexpr (std::is_convertible_v<decltype(key(value)), std::string_view>) {
      return HashKeyed::hashKey(key(value));
    } else {
      return static_cast<std::uint64_t>(key(value));
    }
  }
  /// keyOfValue of the V whose bytes a word carries (a word travels as its
  /// bytes: the key reads them back as the value).
  template <class V, class F>
  static std::uint64_t keyOfWord(const F& key, std::uint64_t word) {
    alignas(V) unsigned char bytes[sizeof(V)];
    std::memcpy(bytes, &word, sizeof(V));
    return keyOfValue(key, *std::launder(reinterpret_cast<const V*>(bytes)));
  }
  RoutingLogic logic_;
  std::size_t perIsolate_ = 1;
  std::size_t size_ = 0;
  ActorOptions routee_ = ActorOptions::create();
  SupervisorStrategy strategy_ = SupervisorStrategy::defaultStrategy();
  std::shared_ptr<const ResizerOptions> resizer_;
  std::chrono::nanoseconds within_{0};
  std::chrono::nanoseconds interval_{0};
  std::vector<HashKeyOf> keys_;
};

}  // namespace coreactor
