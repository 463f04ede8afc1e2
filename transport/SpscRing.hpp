// transport/SpscRing.hpp — a bounded single-producer, single-consumer ring:
// the path of one ordered pair of isolates (SPEC X1).
//
// Each slot carries its own "full" mark, written last by the producer: a
// 64-bit word that holds a 63-bit key (the runtime puts the target's id
// there) and the parity of the lap that filled the slot. The consumer learns
// that a message came by reading the slot itself, so a message moves one
// cache line from core to core, not two (the slot and the producer's index);
// and it never writes a slot back, because a slot filled in the previous lap
// has the other parity. The producer learns of room from the consumer's
// index, which the consumer publishes once per batch and the producer reads
// only when its cached copy says the ring is full (the design of FastForward's
// slot marks and of Rigtorp's cached indices).
//
// Why not boost::lockfree::spsc_queue: its push copies (our envelopes are
// move-only), its consumer reads the producer's index for every batch, and
// its consume_all visits elements one call each without a batch bound.
//
// Thread-safety: tryPush, tryPushWith, producerHalfFree and
// markProducerWaiting from one thread (the producer); consume, empty,
// consumerHalfFree and takeWaiting from one other thread (the consumer).
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <new>
#include <type_traits>
#include <utility>

namespace coreactor::transport {

template <class T>
class SpscRing {
 public:
  /// Keys are below 2^63: the top bit of a slot's mark is its lap's parity.
  static constexpr std::uint64_t kKeyMask = ~std::uint64_t{0} >> 1;

  /// `capacity` is rounded up to a power of two (at least 2).
  explicit SpscRing(std::size_t capacity)
      : shift_(log2(roundUp(capacity))),
        mask_((std::size_t{1} << shift_) - 1),
        slots_(static_cast<Slot*>(
            ::operator new (sizeof(Slot) * (mask_ + 1), std::align_val_t{kLine}))) {
    // Every slot starts as if filled in lap -1 (odd): empty for lap 0.
    for (std::size_t i = 0; i <= mask_; ++i) ::new (&slots_[i]) Slot{};
  }
  ~SpscRing() {
    // Whatever is left was never consumed: its owner drained it first (the
    // system's teardown turns it into dead letters); destroy the rest.
    consume([](T&&) noexcept {}, ~std::size_t{0});
    for (std::size_t i = 0; i <= mask_; ++i) slots_[i].~Slot();
    ::operator delete (slots_, std::align_val_t{kLine});
  }
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  std::size_t capacity() const noexcept { return mask_ + 1; }

  /// Producer. Moves `value` in with `key` (below 2^63), or leaves it
  /// untouched and returns false when the ring is full.
  bool tryPush(T&& value, std::uint64_t key = 0) noexcept(std::is_nothrow_move_constructible_v<T>) {
    return tryPushWith(key, [&value](void* at) noexcept(std::is_nothrow_move_constructible_v<T>) {
      ::new (at) T(std::move(value));
    });
  }
  /// Producer. Constructs the value in its slot with make(void* at) and
  /// marks the slot full with `key` (below 2^63), or calls nothing and
  /// returns false when the ring is full.
  template <class Make>
  bool tryPushWith(std::uint64_t key,
                   Make&& make) noexcept(noexcept(make(static_cast<void*>(nullptr)))) {
    const std::size_t tail = producer_.tail;
    if (tail - producer_.headCache > mask_) {
      producer_.headCache = consumer_.head.load(std::memory_order_acquire);
      if (tail - producer_.headCache > mask_) return false;
    }
    Slot& slot = slots_[tail & mask_];
    make(static_cast<void*>(slot.storage));
    slot.mark.store((key & kKeyMask) | lapBit(tail), std::memory_order_release);
    producer_.tail = tail + 1;
    return true;
  }

  /// Consumer. Moves out up to `max` values, oldest first, into f(T&&, key)
  /// or f(T&&); returns how many. f must not throw (take what you need and
  /// report errors yourself).
  template <class F>
  std::size_t consume(F&& f, std::size_t max) noexcept {
    const std::size_t head = consumer_.head.load(std::memory_order_relaxed);
    std::size_t n = 0;
    for (; n < max; ++n) {
      Slot& slot = slots_[(head + n) & mask_];
      const std::uint64_t mark = slot.mark.load(std::memory_order_acquire);
      if ((mark & ~kKeyMask) != lapBit(head + n)) break;
      // The slots of a burst sit in the producer's cache: ask for the lines
      // a few slots on while this one is handled.
      __builtin_prefetch(&slots_[(head + n + kPrefetchSlots) & mask_]);
      T* value = std::launder(reinterpret_cast<T*>(slot.storage));
      if constexpr (std::is_invocable_v<F&, T&&, std::uint64_t>) {
        f(std::move(*value), mark & kKeyMask);
      } else {
        f(std::move(*value));
      }
      value->~T();
    }
    if (n != 0) consumer_.head.store(head + n, std::memory_order_release);
    return n;
  }

  /// Consumer: nothing to consume (reads the oldest slot's mark).
  bool empty() const noexcept { return !filled(consumer_.head.load(std::memory_order_relaxed)); }

  /// The room protocol, for a producer that found the ring full and would
  /// rather sleep than spin: it raises the flag, fences, and looks again
  /// (producerHalfFree); a consumer that took something fences and takes
  /// the flag (takeWaiting), waking the producer if it was up. Either the
  /// producer sees the room or the consumer sees the flag.
  void markProducerWaiting() noexcept {
    producerWaiting_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  /// At least half the ring is free: the room a sleeping producer is woken
  /// for (and looks for before it sleeps), so that each wake-up moves half a
  /// ring, not the few slots a consumer's batch just freed. Producer side:
  /// from the consumer's published index.
  bool producerHalfFree() const noexcept {
    return producer_.tail - consumer_.head.load(std::memory_order_acquire) <= (mask_ + 1) / 2;
  }
  /// The same, consumer side: the slot half a ring past the oldest is not
  /// filled yet (slots fill in order). A mark not yet seen reads as room:
  /// the error only ever wakes a producer early.
  bool consumerHalfFree() const noexcept {
    return !filled(consumer_.head.load(std::memory_order_relaxed) + (mask_ + 1) / 2);
  }
  bool takeWaiting() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return producerWaiting_.load(std::memory_order_relaxed) &&
           producerWaiting_.exchange(false, std::memory_order_relaxed);
  }

 private:
  static constexpr std::size_t kLine = 64;
  static constexpr std::uint64_t kOddLap = ~kKeyMask;
  /// How far ahead of the slot it takes the consumer prefetches: about
  /// 512 bytes, as many lines as a core keeps in flight comfortably.
  static constexpr std::size_t kPrefetchSlots = 512 / sizeof(T) + 1;
  static std::size_t roundUp(std::size_t n) {
    std::size_t p = 2;
    while (p < n) p <<= 1;
    return p;
  }
  static unsigned log2(std::size_t p) {
    unsigned s = 0;
    while ((std::size_t{1} << s) < p) ++s;
    return s;
  }
  /// The mark's top bit for the lap that index `i` falls in.
  std::uint64_t lapBit(std::size_t i) const noexcept {
    return static_cast<std::uint64_t>((i >> shift_) & 1) << 63;
  }
  /// Consumer: the slot of index `i` holds index i's value (not the stale
  /// one of the lap before).
  bool filled(std::size_t i) const noexcept {
    return (slots_[i & mask_].mark.load(std::memory_order_acquire) & kOddLap) == lapBit(i);
  }

  struct Slot {
    alignas(T) unsigned char storage[sizeof(T)];
    std::atomic<std::uint64_t> mark{kOddLap};
  };
  static_assert(alignof(Slot) <= kLine, "slots are allocated on cache-line boundaries");
  struct alignas(kLine) Producer {
    std::size_t tail = 0;  // the producer's alone
    std::size_t headCache = 0;
  };
  struct alignas(kLine) Consumer {
    std::atomic<std::size_t> head{0};
  };

  const unsigned shift_;
  const std::size_t mask_;
  Slot* const slots_;
  Producer producer_;
  Consumer consumer_;
  alignas(kLine) std::atomic<bool> producerWaiting_{false};
};

}  // namespace coreactor::transport
