// coreactor/detail/RingBuffer.hpp — a growable FIFO on a power-of-two ring.
//
// Used for every single-threaded queue of an isolate (microtasks, macrotasks,
// the hybrid's deferred units, the throughput dispatcher's queue). push and
// pop are O(1) and allocation-free once the ring has reached the size the
// workload needs: it doubles when full, so the steady state allocates
// nothing. An owner may give a burst's memory back once the ring is empty
// again and the burst did not recur (shrinkIfEmpty: the hybrid dispatcher
// when its backlog drains, an isolate before it sleeps).
//
// Thread-safety: none; one thread owns a ring. T must be trivially copyable
// (queues hold pointers and small records, never owning objects).
#pragma once

#include <cstddef>
#include <cstdlib>
#include <cstring>
#include <new>
#include <type_traits>

namespace coreactor::detail {

template <class T>
class RingBuffer {
  static_assert(std::is_trivially_copyable_v<T>, "RingBuffer holds trivially copyable records");

 public:
  explicit RingBuffer(std::size_t initialCapacity = 64) {
    std::size_t cap = 1;
    while (cap < initialCapacity) cap <<= 1;
    data_ = allocate(cap);
    mask_ = cap - 1;
  }
  ~RingBuffer() { std::free(data_); }
  RingBuffer(const RingBuffer&) = delete;
  RingBuffer& operator=(const RingBuffer&) = delete;

  bool empty() const noexcept { return head_ == tail_; }
  std::size_t size() const noexcept { return tail_ - head_; }
  std::size_t capacity() const noexcept { return mask_ + 1; }

  void push(const T& value) {
    if (size() == capacity()) grow();
    data_[tail_ & mask_] = value;
    ++tail_;
  }

  /// Inserts `value` so that `pos` values stay ahead of it (pos <= size()):
  /// pos = 0 is the front. Moves the pos values ahead of it one slot
  /// forward: meant for a short prefix.
  void insertAt(std::size_t pos, const T& value) {
    if (size() == capacity()) grow();
    --head_;  // wraps like every position; only positions modulo the capacity matter
    for (std::size_t i = 0; i < pos; ++i)
      data_[(head_ + i) & mask_] = data_[(head_ + i + 1) & mask_];
    data_[(head_ + pos) & mask_] = value;
  }

  /// Precondition: !empty().
  T pop() noexcept {
    T value = data_[head_ & mask_];
    ++head_;
    return value;
  }

  /// Precondition: !empty().
  const T& front() const noexcept { return data_[head_ & mask_]; }

  /// What an emptied ring keeps at most: 1024 slots.
  static constexpr std::size_t kKeepAfterBurst = 1024;

  /// An empty ring of more than kKeepAfterBurst slots goes back to that
  /// size if fewer than half its capacity were pushed since the previous
  /// such call: a burst that recurs keeps its memory (it would regrow,
  /// copying, every time), a burst followed by a quieter period gives it
  /// back. One compare when there is nothing to give back.
  void shrinkIfEmpty() noexcept {
    if (capacity() > kKeepAfterBurst && empty()) [[unlikely]] {
      if (tail_ - checkedTail_ < capacity() / 2) {
        shrinkTo(kKeepAfterBurst);
      }
      checkedTail_ = tail_;
    }
  }

 private:
  static T* allocate(std::size_t n) {
    void* p = std::malloc(n * sizeof(T));
    if (p == nullptr) throw std::bad_alloc();
    return static_cast<T*>(p);
  }

  // Kept out of line and cold: inlined into every push it made the callers
  // save six registers per call (bench: the hybrid volley lost ~15%).
  [[gnu::noinline, gnu::cold]] void grow() {
    const std::size_t cap = capacity();
    T* bigger = allocate(cap * 2);
    // Unwrap the ring into the front of the new buffer.
    const std::size_t first = head_ & mask_;
    const std::size_t firstLen = cap - first;
    std::memcpy(static_cast<void*>(bigger), data_ + first, firstLen * sizeof(T));
    std::memcpy(static_cast<void*>(bigger + firstLen), data_, first * sizeof(T));
    std::free(data_);
    data_ = bigger;
    mask_ = cap * 2 - 1;
    checkedTail_ -= head_;  // positions move by -head_: differences stay right
    head_ = 0;
    tail_ = cap;
  }

  // `keep`: a power of two.
  [[gnu::noinline, gnu::cold]] void shrinkTo(std::size_t keep) noexcept {
    void* smaller = std::malloc(keep * sizeof(T));
    if (smaller == nullptr) return;  // keep the big one: nothing is lost
    std::free(data_);
    data_ = static_cast<T*>(smaller);
    mask_ = keep - 1;
    checkedTail_ -= tail_;
    head_ = tail_ = 0;
  }

  T* data_ = nullptr;
  std::size_t mask_ = 0;
  std::size_t head_ = 0;  // monotonically increasing; index = head_ & mask_
  std::size_t tail_ = 0;
  std::size_t checkedTail_ = 0;  // tail_ at the last shrinkIfEmpty() that looked
};

}  // namespace coreactor::detail
