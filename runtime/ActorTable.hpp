// The actor table of one isolate: slot -> endpoint (an actor cell or an ask's
// reply slot). An ActorRef names a slot and its generation; a stopped
// actor's slot gets a new generation, so old references find nothing and
// their messages become dead letters.
//
// Threads. Lookups (find) are lock-free, two atomic loads, and safe from any
// thread (the scheduler asks whether a target lives from wherever it is
// called); only the owning isolate acts on what it finds.
// release() is isolate-local; the loop thread reuses freed slots without a
// lock. Other threads (a spawn or an ask from outside) reserve fresh slots
// under a mutex, off the message path.
// Entries live in fixed chunks that never move, so a lookup never races a
// growth. The first chunk is part of the table: a lookup among an
// isolate's first 4096 slots reads no chunk pointer, one load fewer on the
// chain from a reference to its cell that every send waits on.
// Freed slots are reused first-in first-out, and only once 1024 are free,
// so a stale reference meets a reused slot rarely, and then with another
// generation (28 bits).
// An entry also says whether its actor is a top-level one (a child of the
// user guardian): the system's registry of top-level actors is these flags,
// which cost no memory (they fill the entry's padding).
#pragma once

#include <array>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>

#include "coreactor/Error.hpp"
#include "coreactor/detail/RingBuffer.hpp"

namespace coreactor::detail {

struct Endpoint {
  // Cell: an actor that lives here. Ask: an ask's reply slot. Forward: an
  // actor that moved to another isolate; what comes to this entry follows
  // it. Hold: an entry an actor gave one isolate for its direct sends,
  // which keeps what comes until that isolate's earlier sends have arrived
  // the old way (runtime/Move.hpp).
  enum class Kind : std::uint8_t { Cell, Ask, Forward, Hold };
  explicit Endpoint(Kind k) noexcept : kind(k) {}
  Kind kind;
};

class ActorTable {
 public:
  static constexpr std::uint32_t kChunkBits = 12;
  static constexpr std::uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr std::uint32_t kMaxChunks = 1u << (24 - kChunkBits);
  static constexpr std::uint32_t kGenerationMask = 0xFFFFFFF;
  static constexpr std::size_t kReuseAfter = 1024;

  struct Reservation {
    std::uint32_t slot;
    std::uint32_t generation;
  };

  ActorTable() { chunks_[0].store(first_.data(), std::memory_order_relaxed); }
  ~ActorTable() {
    for (std::size_t c = 1; c < kMaxChunks; ++c)
      delete[] chunks_[c].load(std::memory_order_relaxed);
  }
  ActorTable(const ActorTable&) = delete;
  ActorTable& operator=(const ActorTable&) = delete;

  /// Any thread; `onOwner` says the caller is the isolate's loop thread,
  /// which reuses freed slots without a lock. Throws ErrInvalidOption when
  /// the isolate holds 16M actors.
  Reservation reserve(bool onOwner) {
    if (onOwner && free_.size() > kReuseAfter) {
      const std::uint32_t slot = free_.pop();
      return Reservation{slot, entry(slot).generation.load(std::memory_order_relaxed)};
    }
    std::lock_guard<std::mutex> lock(mutex_);
    std::uint32_t slot;
    if (onOwner && next_ == kMaxChunks * kChunkSize && !free_.empty()) {
      slot = free_.pop();
    } else if (next_ < kMaxChunks * kChunkSize) {
      slot = next_++;
      auto& chunk = chunks_[slot >> kChunkBits];
      if (chunk.load(std::memory_order_relaxed) == nullptr) {
        chunk.store(new Entry[kChunkSize], std::memory_order_release);
      }
    } else {
      throwError(Error::ErrInvalidOption, "an isolate holds at most 16M live actors");
    }
    return Reservation{slot, entry(slot).generation.load(std::memory_order_relaxed)};
  }

  /// Makes a reserved slot resolve to `endpoint`, marked top-level or not.
  /// Any thread (release stores).
  void publish(std::uint32_t slot, Endpoint* endpoint, bool topLevel = false) noexcept {
    Entry& e = entry(slot);
    e.topLevel.store(topLevel, std::memory_order_release);
    e.endpoint.store(endpoint, std::memory_order_release);
  }

  /// Any thread. True while `slot` holds the top-level actor of `generation`.
  bool isTopLevel(std::uint32_t slot, std::uint32_t generation) const noexcept {
    const Entry* chunk = chunks_[slot >> kChunkBits].load(std::memory_order_acquire);
    return chunk != nullptr && topLevelAt(chunk[slot & (kChunkSize - 1)]) == generation;
  }

  /// Any thread, while loops run: calls f(slot, generation) for every
  /// top-level actor published before the call and not yet released.
  template <class F>
  void forEachTopLevel(F&& f) const {
    std::uint32_t end;
    {
      std::lock_guard<std::mutex> lock(mutex_);
      end = next_;
    }
    for (std::uint32_t slot = 0; slot < end; ++slot) {
      const std::uint32_t generation = topLevelAt(entry(slot));
      if (generation != kNotTopLevel) f(slot, generation);
    }
  }

  /// Any thread. The endpoint in `slot` if its generation matches; only the
  /// owning isolate may use it.
  Endpoint* find(std::uint32_t slot, std::uint32_t generation) const noexcept {
    const Entry* e;
    if (slot < kChunkSize) [[likely]] {
      e = &first_[slot];
    } else {
      const Entry* chunk = chunks_[slot >> kChunkBits].load(std::memory_order_acquire);
      if (chunk == nullptr) return nullptr;
      e = &chunk[slot & (kChunkSize - 1)];
    }
    if (e->generation.load(std::memory_order_relaxed) != generation) return nullptr;
    return e->endpoint.load(std::memory_order_acquire);
  }

  /// Isolate-local. Empties the slot and gives it a new generation.
  /// `askDone`: the slot held an ask's reply slot, which completed
  /// (answeredAsk() says so of its generation until the slot is reused).
  void release(std::uint32_t slot, bool askDone = false) {
    Entry& e = entry(slot);
    e.endpoint.store(nullptr, std::memory_order_relaxed);
    e.topLevel.store(false, std::memory_order_relaxed);
    e.askDone.store(askDone, std::memory_order_relaxed);
    e.generation.store((e.generation.load(std::memory_order_relaxed) + 1) & kGenerationMask,
                       std::memory_order_release);  // after the flag's clearing (topLevelAt)
    free_.push(slot);  // the loop thread's own list: reused by it, lock-free
  }

  /// Isolate-local. True when `slot` of `generation` was an ask's reply
  /// slot that has completed and the slot has not been reused since: what
  /// is sent to it is a late or second reply, not a message to a stopped
  /// actor.
  bool answeredAsk(std::uint32_t slot, std::uint32_t generation) const noexcept {
    const Entry* chunk = chunks_[slot >> kChunkBits].load(std::memory_order_acquire);
    if (chunk == nullptr) return false;
    const Entry& e = chunk[slot & (kChunkSize - 1)];
    return e.askDone.load(std::memory_order_relaxed) &&
           e.endpoint.load(std::memory_order_relaxed) == nullptr &&
           e.generation.load(std::memory_order_relaxed) == ((generation + 1) & kGenerationMask);
  }

  /// Calls f(slot, endpoint) for every published endpoint. Only when no loop runs.
  template <class F>
  void forEach(F&& f) {
    for (std::uint32_t slot = 0; slot < next_; ++slot) {
      if (Endpoint* e = entry(slot).endpoint.load(std::memory_order_acquire)) f(slot, e);
    }
  }

 private:
  struct Entry {
    std::atomic<Endpoint*> endpoint{nullptr};
    std::atomic<std::uint32_t> generation{0};
    std::atomic<bool> topLevel{false};  // in what would be padding
    std::atomic<bool> askDone{false};   // so is this (answeredAsk)
  };
  static_assert(sizeof(Entry) == 16, "the top-level flag costs no memory");
  static constexpr std::uint32_t kNotTopLevel = ~std::uint32_t{0};
  // The generation of the top-level actor in `e`, or kNotTopLevel. The
  // generation is read before and after the flag: a slot released and
  // reused meanwhile has moved on (release() clears the flag, then bumps the
  // generation; publish() sets it after the new generation), so a reader
  // never pairs one incarnation's flag with another's generation.
  static std::uint32_t topLevelAt(const Entry& e) noexcept {
    const std::uint32_t before = e.generation.load(std::memory_order_acquire);
    if (!e.topLevel.load(std::memory_order_acquire)) return kNotTopLevel;
    return e.generation.load(std::memory_order_acquire) == before ? before : kNotTopLevel;
  }
  Entry& entry(std::uint32_t slot) const noexcept {
    return chunks_[slot >> kChunkBits].load(std::memory_order_acquire)[slot & (kChunkSize - 1)];
  }

  std::array<Entry, kChunkSize> first_{};                 // chunk 0
  std::array<std::atomic<Entry*>, kMaxChunks> chunks_{};  // [0] is first_
  mutable std::mutex mutex_;                              // new slots and chunks
  RingBuffer<std::uint32_t> free_;  // freed slots: isolate-local (release, owner reserve)
  std::uint32_t next_ = 0;          // guarded by mutex_
};

}  // namespace coreactor::detail
