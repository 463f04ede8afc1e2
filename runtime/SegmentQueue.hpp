// An unbounded FIFO of move-only objects that knows its size: what an
// isolate keeps for a peer whose ring is full (the overflow list, SPEC X3),
// whose bound is checked at every push: a SegmentFifo (segments from the
// thread's block cache; no element moves twice; it counts its elements).
// Single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <utility>

#include "SegmentFifo.hpp"

namespace coreactor::detail {

template <class T, std::uint32_t kSegment = 63>
class SegmentQueue {
 public:
  SegmentQueue() = default;
  SegmentQueue(SegmentQueue&& other) noexcept : fifo_(std::move(other.fifo_)) {}

  bool empty() const noexcept { return fifo_.empty(); }
  std::size_t size() const noexcept { return fifo_.size(); }

  void push_back(T&& value) { fifo_.push(std::move(value)); }
  /// Appends the element that `make(void* at)` constructs in place (`make`
  /// must not throw).
  template <class Make>
  void pushWith(Make&& make) {
    fifo_.pushWith(std::forward<Make>(make));
  }
  /// Precondition: !empty().
  T& front() noexcept { return fifo_.front(); }
  /// Precondition: !empty(). Destroys the front element; an emptied queue
  /// gives its last segment back.
  void pop_front() noexcept {
    fifo_.dropFront();
    if (fifo_.empty()) fifo_.shrinkIdle();
  }
  /// Precondition: !empty(). A hint: starts fetching the element `ahead`
  /// places behind the front into the cache, if it is in the front's segment.
  void prefetch(std::uint32_t ahead) const noexcept { fifo_.prefetch(ahead); }

 private:
  SegmentFifo<T, kSegment> fifo_;
};

}  // namespace coreactor::detail
