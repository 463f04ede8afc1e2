// transport/SpscRing.hpp — a bounded single-producer, single-consumer ring:
// the path of one ordered pair of isolates (SPEC X1).
//
// Why not boost::lockfree::spsc_queue: its push copies (our envelopes are
// move-only), and its consume_all visits elements in place, one call each,
// without letting the consumer stop after a batch bound. This ring moves
// elements in and out, takes a batch bound, and keeps each side's index on
// its own cache line with a cached copy of the other side's, so a push or a
// pop touches the shared line only when the cached view runs out (the
// design of Rigtorp's and of Seastar's SPSC queues).
//
// Thread-safety: tryPush from one thread (the producer), consume and empty()
// from one other thread (the consumer); sizeApprox() from either.
#pragma once

#include <atomic>
#include <cstddef>
#include <memory>
#include <new>
#include <utility>

namespace coreactor::transport {

template <class T>
class SpscRing {
 public:
  /// `capacity` is rounded up to a power of two.
  explicit SpscRing(std::size_t capacity)
      : mask_(roundUp(capacity) - 1), slots_(std::make_unique<Slot[]>(mask_ + 1)) {}
  ~SpscRing() {
    // Whatever is left was never consumed: its owner drained it first (the
    // system's teardown turns it into dead letters); destroy the rest.
    consume([](T&&) noexcept {}, ~std::size_t{0});
  }
  SpscRing(const SpscRing&) = delete;
  SpscRing& operator=(const SpscRing&) = delete;

  std::size_t capacity() const noexcept { return mask_ + 1; }

  /// Producer. Moves `value` in, or leaves it untouched and returns false
  /// when the ring is full.
  bool tryPush(T&& value) noexcept(std::is_nothrow_move_constructible_v<T>) {
    return tryPushWith([&value](void* at) noexcept(std::is_nothrow_move_constructible_v<T>) {
      ::new (at) T(std::move(value));
    });
  }
  /// Producer. Constructs the value in its slot with make(void* at), or
  /// calls nothing and returns false when the ring is full.
  template <class Make>
  bool tryPushWith(Make&& make) noexcept(noexcept(make(static_cast<void*>(nullptr)))) {
    const std::size_t tail = producer_.tail.load(std::memory_order_relaxed);
    if (tail - producer_.headCache > mask_) {
      producer_.headCache = consumer_.head.load(std::memory_order_acquire);
      if (tail - producer_.headCache > mask_) return false;
    }
    make(static_cast<void*>(slots_[tail & mask_].storage));
    producer_.tail.store(tail + 1, std::memory_order_release);
    return true;
  }

  /// Consumer. Moves out up to `max` values, oldest first, into f(T&&);
  /// returns how many. f must not throw (take what you need and report
  /// errors yourself).
  template <class F>
  std::size_t consume(F&& f, std::size_t max) noexcept {
    const std::size_t head = consumer_.head.load(std::memory_order_relaxed);
    if (consumer_.tailCache == head) {
      consumer_.tailCache = producer_.tail.load(std::memory_order_acquire);
      if (consumer_.tailCache == head) return 0;
    }
    const std::size_t available = consumer_.tailCache - head;
    const std::size_t n = available < max ? available : max;
    for (std::size_t i = 0; i < n; ++i) {
      T* value = std::launder(reinterpret_cast<T*>(slots_[(head + i) & mask_].storage));
      f(std::move(*value));
      value->~T();
    }
    consumer_.head.store(head + n, std::memory_order_release);
    return n;
  }

  /// Consumer (or anyone, as a hint): nothing to consume.
  bool empty() const noexcept {
    return consumer_.head.load(std::memory_order_relaxed) ==
           producer_.tail.load(std::memory_order_acquire);
  }
  /// The room protocol, for a producer that found the ring full and would
  /// rather sleep than spin: it raises the flag, fences, and looks again
  /// (hasRoom); a consumer that took something fences and takes the flag
  /// (takeWaiting), waking the producer if it was up. Either the producer
  /// sees the room or the consumer sees the flag.
  void markProducerWaiting() noexcept {
    producerWaiting_.store(true, std::memory_order_relaxed);
    std::atomic_thread_fence(std::memory_order_seq_cst);
  }
  bool hasRoom() const noexcept { return sizeApprox() <= mask_; }
  /// At least half the ring is free: the room a sleeping producer is woken
  /// for (and looks for before it sleeps), so that each wake-up moves half a
  /// ring, not the few slots a consumer's batch just freed.
  bool halfFree() const noexcept { return sizeApprox() <= (mask_ + 1) / 2; }
  bool takeWaiting() noexcept {
    std::atomic_thread_fence(std::memory_order_seq_cst);
    return producerWaiting_.load(std::memory_order_relaxed) &&
           producerWaiting_.exchange(false, std::memory_order_relaxed);
  }

  std::size_t sizeApprox() const noexcept {
    return producer_.tail.load(std::memory_order_acquire) -
           consumer_.head.load(std::memory_order_acquire);
  }

 private:
  static constexpr std::size_t kLine = 64;
  static std::size_t roundUp(std::size_t n) {
    std::size_t p = 2;
    while (p < n) p <<= 1;
    return p;
  }
  struct Slot {
    alignas(T) unsigned char storage[sizeof(T)];
  };
  struct alignas(kLine) Producer {
    std::atomic<std::size_t> tail{0};
    std::size_t headCache = 0;
  };
  struct alignas(kLine) Consumer {
    std::atomic<std::size_t> head{0};
    std::size_t tailCache = 0;
  };

  const std::size_t mask_;
  std::unique_ptr<Slot[]> slots_;
  Producer producer_;
  Consumer consumer_;
  alignas(kLine) std::atomic<bool> producerWaiting_{false};
};

}  // namespace coreactor::transport
