/// @file
/// `coreactor/Actor.hpp` — what a user writes: an Actor (and the
/// ReceiveContext it works through, coreactor/ReceiveContext.hpp, which this
/// header brings in).
//
//   struct Counter : coreactor::Actor {
//     int count = 0;
//     void receive(coreactor::ReceiveContext& ctx) override {
//       if (ctx.is<Increment>()) ++count;
//       else if (ctx.is<Get>()) ctx.reply(count);
//     }
//   };
//   ActorRef counter = system->spawn<Counter>("counter");
//
// Every call here runs on the actor's own isolate, inside one of its turns or
// hooks: an actor is never entered by two threads, and needs no lock.
//
// Lifecycle (requirement A5): preStart before the first message; postStop after the
// last, once its children have stopped. On a failure the parent's supervisor
// strategy decides (requirement A6): resume (keep state, skip the message), restart
// (preRestart on the old instance, a new instance, postRestart; same
// reference, same mailbox), stop, or escalate to the grandparent.
// A throw from receive never reaches the dispatcher (requirement D10).
#pragma once

#include <chrono>
#include <coroutine>
#include <cstddef>
#include <cstring>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreactor/ActorOptions.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/Error.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/Router.hpp"
#include "coreactor/Schedule.hpp"
#include "coreactor/SupervisorStrategy.hpp"
#include "coreactor/detail/ActorAllocation.hpp"
#include "coreactor/detail/InlineFunction.hpp"

namespace spdlog {
class logger;
}

namespace coreactor {

class ActorSystem;
class AsyncActor;
class Isolate;
class ReceiveContext;
namespace detail {
class ActorCell;
class CellLifecycle;
class CellTurn;
class SystemCore;
template <class R>
class AskAwaiter;
class DelayAwaiter;
/// What an ask from an actor runs inside a turn of that actor, with the
/// reply (nullptr when there is none) and the error (empty on a reply). One
/// of up to 48 bytes is kept without an allocation.
using AskContinuation = InlineFunction<void(ReceiveContext&, Message*, std::error_code), 48>;
}  // namespace detail

// ---- messages the runtime understands ----------------------------------------

/// Stops the receiver once it reaches this message: what was queued before it
/// is handled first (a graceful stop, processed in order).
struct PoisonPill {};
template <>
inline constexpr bool detail::kHandledByCell<PoisonPill> = true;
template <>
inline constexpr bool detail::kRoutedSpecially<PoisonPill> = true;  // it stops a router

/// Sent to every watcher when a watched actor has fully stopped (requirement A5).
struct Terminated {
  ActorRef actor;  ///< the watched actor, now stopped
};

/// Sent to an actor that moved an actor (ReceiveContext::move) when the move
/// has ended: done (error empty), or why not (ErrDead, ErrNotMovable, ...).
struct Moved {
  ActorRef actor;         ///< the actor it moved
  std::size_t isolate;    ///< where to
  std::error_code error;  ///< empty: it is there; else why it did not move
};

/// What an actor with a receive timeout (ReceiveContext::setReceiveTimeout)
/// gets once it has had no message for that long; again after each further
/// idle stretch of that length, until a message comes or it cancels.
struct ReceiveTimeout {};

// ---- the actor -----------------------------------------------------------------

/// The base of every actor: override receive(), and the lifecycle hooks you
/// need. Every call on it runs on the actor's own isolate, one at a time.
/// Its objects' memory comes from a per-thread cache (detail::ActorAllocation).
class Actor : public detail::ActorAllocation {
 public:
  virtual ~Actor() = default;

  /// Handles the current message: ctx.message(), ctx.get<T>(), ctx.sender().
  virtual void receive(ReceiveContext& ctx) = 0;

  /// Before the first message. A throw (or one from the constructor) stops the
  /// actor: it is logged and published as a DispatcherError, not supervised.
  virtual void preStart(ReceiveContext& ctx) { static_cast<void>(ctx); }
  /// After the last message, once the children have stopped. A throw is
  /// logged and published as a DispatcherError; the stop goes on.
  virtual void postStop(ReceiveContext& ctx) { static_cast<void>(ctx); }
  /// On the failed instance, before it is replaced. The default stops its children.
  virtual void preRestart(ReceiveContext& ctx, const std::exception_ptr& cause);
  /// On the new instance. The default calls preStart.
  virtual void postRestart(ReceiveContext& ctx, const std::exception_ptr& cause);
  /// How this actor supervises its children; asked on each child failure.
  virtual SupervisorStrategy supervisorStrategy() { return SupervisorStrategy::defaultStrategy(); }
};

/// Makes a fresh instance: at spawn, and again at each restart. Holds any
/// callable returning std::unique_ptr<Actor> (a lambda, a std::function),
/// like a std::function, in 16 bytes instead of 32: every actor keeps one
/// for its restarts, and an idle actor is mostly its cell. A trivially
/// copyable callable of up to 8 bytes (a lambda capturing nothing, or one
/// pointer: what spawn<A>(arg) makes) is held inline; a larger one takes
/// one heap allocation. Copyable and movable.
class ActorFactory {
 public:
  /// Holds nothing; calling it throws std::bad_function_call.
  ActorFactory() noexcept = default;
  /// Holds `f`, a callable with no arguments returning std::unique_ptr<Actor>.
  template <class F, class D = std::decay_t<F>>
  requires(!std::is_same_v<D, ActorFactory> && std::is_copy_constructible_v<D> &&
           std::is_convertible_v<std::invoke_result_t<D&>, std::unique_ptr<Actor>>)
      ActorFactory(F&& f)  // NOLINT(google-explicit-constructor): as std::function converts
      : ops_(&kOps<D>) {
    if constexpr (kInline<D>) {
      ::new (static_cast<void*>(storage_)) D(std::forward<F>(f));
    } else {
      *reinterpret_cast<D**>(storage_) = new D(std::forward<F>(f));
    }
  }
  /// Holds a copy of `other`'s callable (a heap one is copied to the heap).
  ActorFactory(const ActorFactory& other) : ops_(other.ops_) {
    if (ops_ != nullptr) ops_->copy(other.storage_, storage_);
  }
  /// Takes `other`'s callable; `other` is left empty.
  ActorFactory(ActorFactory&& other) noexcept : ops_(std::exchange(other.ops_, nullptr)) {
    std::memcpy(storage_, other.storage_, sizeof storage_);  // inline: trivially copyable
  }
  /// Holds `other`'s callable (copied or moved in); the old one is freed.
  ActorFactory& operator=(ActorFactory other) noexcept {
    std::swap(ops_, other.ops_);
    unsigned char held[sizeof storage_];
    std::memcpy(held, storage_, sizeof storage_);
    std::memcpy(storage_, other.storage_, sizeof storage_);
    std::memcpy(other.storage_, held, sizeof storage_);
    return *this;
  }
  ~ActorFactory() {
    if (ops_ != nullptr) ops_->destroy(storage_);
  }

  /// Makes an instance. Throws std::bad_function_call when empty, and
  /// whatever the callable throws.
  std::unique_ptr<Actor> operator()() const {
    if (ops_ == nullptr) throw std::bad_function_call();
    return ops_->make(storage_);
  }
  /// True when it holds a callable.
  explicit operator bool() const noexcept { return ops_ != nullptr; }

 private:
  struct Ops {
    std::unique_ptr<Actor> (*make)(const unsigned char* storage);
    void (*copy)(const unsigned char* from, unsigned char* to);
    void (*destroy)(unsigned char* storage) noexcept;
  };
  template <class D>
  static constexpr bool kInline =
      sizeof(D) <= 8 &&
      alignof(D) <= 8 && std::is_trivially_copyable_v<D>&& std::is_trivially_destructible_v<D>;
  template <class D>
  static D& held(const unsigned char* storage) noexcept {
    if constexpr (kInline<D>) {
      return *std::launder(reinterpret_cast<D*>(const_cast<unsigned char*>(storage)));
    } else {
      return **reinterpret_cast<D* const*>(storage);
    }
  }
  template <class D>
  static constexpr Ops kOps{
      [](const unsigned char* s) { return std::unique_ptr<Actor>(held<D>(s)()); },
      [](const unsigned char* from, unsigned char* to) {
        if constexpr (kInline<D>) {
          std::memcpy(to, from, 8);
        } else {
          *reinterpret_cast<D**>(to) = new D(held<D>(from));
        }
      },
      [](unsigned char* s) noexcept {
        if constexpr (!kInline<D>) delete *reinterpret_cast<D**>(s);
      }};

  const Ops* ops_ = nullptr;
  alignas(8) unsigned char storage_[8] = {};
};

namespace detail {
/// A factory making an A from copies of `args`, taken now: each restart
/// builds the new instance from the same values (spawn<A>(name, options, args...)).
template <class A, class... Args>
ActorFactory makeFactory(Args&... args) {
  if constexpr (sizeof...(Args) == 0) {
    return [] { return std::unique_ptr<Actor>(std::make_unique<A>()); };
  } else {
    return
        [... captured = args] { return std::unique_ptr<Actor>(std::make_unique<A>(captured...)); };
  }
}
}  // namespace detail

/// An actor whose receive is a function (handy in tests and small programs).
class FunctionActor final : public Actor {
 public:
  /// The handler: called for each message, as Actor::receive.
  using Receive = std::function<void(ReceiveContext&)>;
  /// An actor that hands every message to `receive`.
  explicit FunctionActor(Receive receive) : receive_(std::move(receive)) {}
  void receive(ReceiveContext& ctx) override { receive_(ctx); }

 private:
  Receive receive_;
};

// ---- spawning --------------------------------------------------------------------

/// The spawn calls, written once for the two owners that spawn: an actor's
/// context (ReceiveContext: a child of that actor) and the system
/// (ActorSystem: a top-level actor). `Owner` provides
/// `ActorRef spawnWith(std::string, ActorFactory, ActorOptions)`.
/// Where each owner may be called from, and what it throws, is the owner's
/// (ReceiveContext: on the actor's isolate, ErrDuplicateName; ActorSystem:
/// any thread, ErrDuplicateName, ErrIsolateOutOfRange,
/// ErrActorSystemNotStarted). The actor starts asynchronously: preStart
/// runs on its isolate before its first message. A name left empty gets a
/// generated one ("$1", "$2", ...).
template <class Owner>
class SpawnCalls {
 public:
  /// Spawns an `A` made from copies of `args` (taken now: each restart
  /// builds the new instance from the same values).
  template <class A, class... Args>
  ActorRef spawn(std::string name, ActorOptions options, Args&&... args) {
    return owner().spawnWith(std::move(name), detail::makeFactory<A>(args...), std::move(options));
  }
  /// spawn() with the default options.
  template <class A>
  ActorRef spawn(std::string name) {
    return spawn<A>(std::move(name), ActorOptions::create());
  }
  /// Spawns a FunctionActor that hands every message to `receive`.
  ActorRef spawn(std::string name, FunctionActor::Receive receive,
                 ActorOptions options = ActorOptions::create()) {
    return owner().spawnWith(
        std::move(name), ActorFactory([receive = std::move(receive)] {
          return std::unique_ptr<Actor>(std::make_unique<FunctionActor>(receive));
        }),
        std::move(options));
  }
  /// Spawns an actor that `factory` makes (at spawn and at each restart).
  ActorRef spawn(std::string name, ActorFactory factory,
                 ActorOptions options = ActorOptions::create()) {
    return owner().spawnWith(std::move(name), std::move(factory), std::move(options));
  }

  /// Spawns a pool (coreactor/Router.hpp): a router named `name` whose
  /// routees are `A`s made from copies of `args`, spread over the isolates
  /// as `options` says, and supervised by the router. Returns the router's
  /// reference. Throws ErrInvalidPoolSize, ErrInvalidResizer,
  /// ErrInvalidOption (a routee dispatcher shared over several isolates),
  /// and what spawn throws.
  template <class A, class... Args>
  ActorRef spawnPool(std::string name, RouterOptions options, Args&&... args) {
    return owner().spawnRouterWith(std::move(name), std::move(options),
                                   detail::makeFactory<A>(args...), {});
  }
  /// A pool whose routees `routee` makes.
  ActorRef spawnPool(std::string name, RouterOptions options, ActorFactory routee) {
    return owner().spawnRouterWith(std::move(name), std::move(options), std::move(routee), {});
  }
  /// Spawns a group: a router named `name` in front of `routees` (actors
  /// of this system, or of another rank), which it watches and lets go of
  /// when they stop. Throws ErrInvalidPoolSize for none, ErrInvalidOption
  /// for a reference that is none or another system's, or for
  /// smallest-mailbox routing, and ErrInvalidResizer for a resizer.
  ActorRef spawnGroup(std::string name, RouterOptions options, std::vector<ActorRef> routees) {
    return owner().spawnRouterWith(std::move(name), std::move(options), ActorFactory(),
                                   std::move(routees));
  }

 private:
  Owner& owner() noexcept { return static_cast<Owner&>(*this); }
};

}  // namespace coreactor

// The context every handler is given: complete wherever an Actor is.
#include "coreactor/ReceiveContext.hpp"
