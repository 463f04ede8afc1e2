// The routers of a system, as senders read them (coreactor/Router.hpp).
//
// A router's reference names no isolate: its isolate field holds
// Routers::kIsolate and its slot a RouterState here. A tell to it picks a
// routee on the sender's thread (runtime/route/Route.cpp) from what the
// router's head (runtime/route/RouterHead.cpp) keeps here: the routees'
// ids, one writer (the head) and any number of readers (every sender).
//
// Nothing here is freed while the system lives: a sender may still read a
// router that stopped a moment ago, or an array of routees its pool just
// outgrew. A stopped router keeps its state (a few hundred bytes and its
// arrays) until the system ends; routers are meant to live long.
#pragma once

#include <algorithm>
#include <array>
#include <atomic>
#include <cstdint>
#include <deque>
#include <memory>
#include <mutex>
#include <vector>

#include "coreactor/Router.hpp"

namespace coreactor::detail {

class ActorCell;

/// Lamping and Veach's jump consistent hash: a bucket in [0, n) for `key`.
/// Going from n to n + 1 buckets moves only the keys the new bucket takes.
inline std::uint32_t jumpHash(std::uint64_t key, std::uint32_t n) noexcept {
  std::int64_t bucket = -1;
  std::int64_t next = 0;
  while (next < static_cast<std::int64_t>(n)) {
    bucket = next;
    key = key * 2862933555777941757ull + 1;
    next = static_cast<std::int64_t>(
        static_cast<double>(bucket + 1) *
        (static_cast<double>(1ll << 31) / static_cast<double>((key >> 33) + 1)));
  }
  return static_cast<std::uint32_t>(bucket);
}

/// The queue depth a routee of a smallest-mailbox pool (or a pool with a
/// resizer) publishes at the end of each of its turns, and senders raise
/// as they route to it. Its address stays put for the system's life.
struct alignas(64) RouteeGauge {
  std::atomic<std::uint32_t> depth{0};
};

/// One routee as senders read it.
struct RouteeSlot {
  std::atomic<std::uint64_t> id{0};
  std::atomic<RouteeGauge*> gauge{nullptr};
};

/// The routees of one router up to a capacity. A larger pool gets a new
/// array; the old one stays readable.
struct RouteeArray {
  explicit RouteeArray(std::size_t n) : capacity(n), slots(new RouteeSlot[n]) {}
  std::size_t capacity;
  std::unique_ptr<RouteeSlot[]> slots;
};

/// One isolate's round-robin turn and random state, on a line of its own:
/// senders of one isolate write only theirs. An isolate's cursor also
/// holds its view of the routees: the cell of each routee that lives on
/// it (null for the others), so that a routed tell from there reaches its
/// routee with no look-up by id. Only that isolate's thread reads or makes
/// its view (Route.cpp); the shared cursor of other threads has none.
struct RouterState;

struct alignas(64) RouterCursor {
  std::atomic<std::uint64_t> turn{0};
  std::atomic<std::uint64_t> random{0};
  // The view holds while the router's version and the isolate's
  // IsolateRuntime::cellsChanged are the ones it was made at: no routee
  // changed, and no cell here stopped, left or arrived since. A version of
  // 0: no view (the router versions start at 1).
  std::uint64_t viewVersion = 0;
  std::uint64_t viewEpoch = 0;
  // The router's version (RouterState::version), kept here by
  // RouterState::bump: a sender checks its view on this line alone.
  std::atomic<std::uint64_t> version{1};
  std::unique_ptr<ActorCell*[]> cells;
  std::uint32_t cellCount = 0;  // the routee count the view was made for (> 0)
  std::uint32_t cellCapacity = 0;
  // The random logic's next routee of the view (below cellCount), drawn
  // one message ahead: a pick is then a load, and the draw's shifts and
  // multiply run beside the tell instead of before it (bench router/random
  // against router/direct: 1.6x -> 1.42x, round-robin's 1.40x).
  std::uint32_t randomAhead = 0;
  // The router this cursor is of, and its logic: a sender that found the
  // cursor first (IsolateRuntime::routerHits) reads them here.
  RouterState* state = nullptr;
  RoutingLogic logic = RoutingLogic::RoundRobin;
};

/// One router. Set up once by the thread that made it, before its
/// reference exists; then the routees change by the head alone. On lines
/// of its own, 256 bytes: a sender finds it by a shift.
struct RouterState {
  /// kOpen while the router lives; 0 once its head has stopped.
  std::atomic<std::uint32_t> generation{0};
  static constexpr std::uint32_t kOpen = 1;
  RoutingLogic logic = RoutingLogic::RoundRobin;
  bool gauged = false;  // its routees publish their depth (RouteeGauge)
  std::uint64_t headId = 0;
  std::atomic<RouteeArray*> routees{nullptr};
  std::atomic<std::uint32_t> count{0};
  /// Bumped by the head after each change of the routees or their count:
  /// the isolates' views of the routees (RouterCursor) are made anew.
  std::atomic<std::uint64_t> version{1};
  std::unique_ptr<RouterCursor[]> cursors;  // one per isolate, and one for other threads
  std::uint32_t cursorCount = 0;
  std::vector<RouterOptions::HashKeyOf> keys;
  // The type whose key is a member read from its word (HashKeyOf::Field),
  // and where: a consistent-hash pick of a word of it makes no call. Null
  // for none.
  const MessageType* fieldType = nullptr;
  RouterOptions::HashKeyOf::Field field;
  // The head's alone: every array it had (the last is `routees`), its gauges.
  std::vector<std::unique_ptr<RouteeArray>> arrays;
  std::deque<RouteeGauge> gauges;
  std::uint64_t nextName = 0;  // a pool's routees are "$0", "$1", ...
  // Consistent hashing: a (mixed) key falls in one of kSlots slots, and a
  // slot's routee is the jump hash of the slot over the routee count. The
  // head keeps the routee of every slot here as the count changes
  // (setCount), so that a pick reads one entry instead of running the
  // jump's divisions; an entry not below the count a sender read (a resize
  // under way) is computed instead. A byte an entry, for pools of up to
  // kSlotRoutees (4 KiB: 64 cache lines, so that more of the table stays
  // in the first-level cache beside the mailboxes a flood fills);
  // larger pools compute every pick. Null for the other logics.
  static constexpr std::uint32_t kSlotBits = 12;
  static constexpr std::uint32_t kSlots = 1u << kSlotBits;
  static constexpr std::uint32_t kSlotRoutees = 255;
  std::unique_ptr<std::atomic<std::uint8_t>[]> slots;

  /// The routee of a mixed key (Route.cpp, mixKey) among `n` > 0.
  std::uint32_t hashed(std::uint64_t key, std::uint32_t n) const noexcept {
    const auto slot = static_cast<std::uint32_t>(key >> (64 - kSlotBits));
    if (n <= kSlotRoutees && slots != nullptr) {
      const std::uint32_t at = slots[slot].load(std::memory_order_relaxed);
      if (at < n) return at;
    }
    return jumpHash(slotKey(slot), n);
  }
  /// The routee count becomes `n` (the slots first, then the count).
  void setCount(std::uint32_t n) {
    if (slots != nullptr && n > 0 && n <= kSlotRoutees) {
      for (std::uint32_t s = 0; s < kSlots; ++s) {
        slots[s].store(static_cast<std::uint8_t>(jumpHash(slotKey(s), n)),
                       std::memory_order_relaxed);
      }
    }
    count.store(n, std::memory_order_release);
    bump();
  }
  static std::uint64_t slotKey(std::uint32_t slot) noexcept {
    return (slot + 1) * 0x9E3779B97F4A7C15ull;
  }

  /// The routee at `i` < count, or 0.
  std::uint64_t routee(std::uint32_t i) const noexcept {
    return routees.load(std::memory_order_acquire)->slots[i].id.load(std::memory_order_relaxed);
  }
  /// The head's: routee `i` becomes `id` (growing the array when needed).
  void setRoutee(std::uint32_t i, std::uint64_t id, RouteeGauge* gauge) {
    RouteeArray* now = routees.load(std::memory_order_relaxed);
    if (now == nullptr || i >= now->capacity) {
      const std::size_t capacity = now == nullptr ? 8 : now->capacity * 2;
      auto bigger = std::make_unique<RouteeArray>(std::max<std::size_t>(capacity, i + 1));
      // Every routee set so far, counted or not yet: a pool sets its
      // routees before it publishes their count.
      const std::size_t n = now == nullptr ? 0 : now->capacity;
      for (std::size_t k = 0; k < n; ++k) {
        bigger->slots[k].id.store(now->slots[k].id.load(std::memory_order_relaxed),
                                  std::memory_order_relaxed);
        bigger->slots[k].gauge.store(now->slots[k].gauge.load(std::memory_order_relaxed),
                                     std::memory_order_relaxed);
      }
      now = bigger.get();
      arrays.push_back(std::move(bigger));
      routees.store(now, std::memory_order_release);
    }
    now->slots[i].gauge.store(gauge, std::memory_order_relaxed);
    now->slots[i].id.store(id, std::memory_order_release);
    bump();
  }
  /// After a change of the routees or their count, or the head's stop: a
  /// new version, here and in every cursor, so that the views go stale.
  void bump() noexcept {
    const std::uint64_t now = version.fetch_add(1, std::memory_order_release) + 1;
    for (std::uint32_t i = 0; i < cursorCount; ++i) {
      cursors[i].version.store(now, std::memory_order_release);
    }
  }
  /// A new gauge for a routee (gauged routers only), or null.
  RouteeGauge* newGauge() {
    if (!gauged) return nullptr;
    return &gauges.emplace_back();
  }
};

/// Every router of a system, by slot: chunks that are made on first use
/// and never move or go while the system lives.
class RouterTable {
 public:
  static constexpr std::uint32_t kChunkBits = 8;
  static constexpr std::uint32_t kChunk = 1u << kChunkBits;
  static constexpr std::uint32_t kChunks = 4096;  // 1M routers in a system's life

  /// True once any router was made: the send path looks here only then.
  bool any() const noexcept { return any_.load(std::memory_order_acquire); }

  /// A fresh state's slot, or kFull. Any thread.
  std::uint32_t open() {
    std::lock_guard<std::mutex> lock(mutex_);
    if (next_ >= kChunk * kChunks) return kFull;
    const std::uint32_t slot = next_++;
    auto& chunk = chunks_[slot >> kChunkBits];
    if (chunk.load(std::memory_order_relaxed) == nullptr) {
      owned_.push_back(std::make_unique<Chunk>());
      chunk.store(owned_.back().get(), std::memory_order_release);
    }
    any_.store(true, std::memory_order_release);
    return slot;
  }
  static constexpr std::uint32_t kFull = ~std::uint32_t{0};

  /// The state of `slot`, open or not. Precondition: open() gave it.
  RouterState& at(std::uint32_t slot) noexcept {
    return chunks_[slot >> kChunkBits].load(std::memory_order_acquire)->states[slot & (kChunk - 1)];
  }
  /// The living router of `slot` and `generation`, or null.
  RouterState* find(std::uint32_t slot, std::uint32_t generation) noexcept {
    if ((slot >> kChunkBits) >= kChunks) return nullptr;
    Chunk* chunk = chunks_[slot >> kChunkBits].load(std::memory_order_acquire);
    if (chunk == nullptr) return nullptr;
    RouterState& state = chunk->states[slot & (kChunk - 1)];
    if (state.generation.load(std::memory_order_acquire) != generation) return nullptr;
    return &state;
  }

 private:
  struct Chunk {
    std::array<RouterState, kChunk> states;
  };
  std::atomic<bool> any_{false};
  std::mutex mutex_;
  std::uint32_t next_ = 0;
  std::array<std::atomic<Chunk*>, kChunks> chunks_{};
  std::vector<std::unique_ptr<Chunk>> owned_;
};

}  // namespace coreactor::detail
