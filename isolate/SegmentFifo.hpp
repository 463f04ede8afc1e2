// A FIFO of move-only objects in fixed segments of kSlots, linked head to
// tail: the cross-isolate overflow list (transport/Link.hpp; an
// actor's mailbox keeps cells of its own, MailFifo.hpp). A 24-byte header
// that counts its elements (empty() is one compare), nothing allocated
// while empty and idle, and growing never moves an element (a growable
// ring moves every element it holds each time it doubles: 1.6 extra moves
// per element for a burst of 10,000). Segments come from and go back to
// the thread's block cache. The last segment is kept while the owner is
// busy (a queue that keeps emptying and filling does not take and return
// one per element) and given back by shrinkIdle().
// Single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "SegmentChain.hpp"

namespace coreactor::detail {

/// A SegmentFifo's segment: a link and kSlots slots.
template <class T, std::uint32_t kSlots>
struct FifoSegment {
  FifoSegment* next = nullptr;
  alignas(T) unsigned char storage[kSlots * sizeof(T)];
  T* at(std::uint32_t i) noexcept { return reinterpret_cast<T*>(storage) + i; }
};

template <class T, std::uint32_t kSlots>
class SegmentFifo : public SegmentChain<FifoSegment<T, kSlots>, kSlots> {
  using Chain = SegmentChain<FifoSegment<T, kSlots>, kSlots>;
  using Chain::head_, Chain::tail_, Chain::headIndex_, Chain::tailIndex_, Chain::size_;

 public:
  SegmentFifo() = default;
  SegmentFifo(SegmentFifo&&) noexcept = default;
  ~SegmentFifo() {
    while (!this->empty()) pop();
    this->shrinkIdle();
  }

  void push(T&& value) {
    pushWith([&value](void* at) noexcept { ::new (at) T(std::move(value)); });
  }
  /// Appends the element that `make(void* at)` constructs at `at`, in place
  /// (`make` must not throw).
  template <class Make>
  void pushWith(Make&& make) {
    if (tailIndex_ == kSlots) [[unlikely]] {  // the tail is full, or there is none
      this->addSegment();
    }
    static_assert(noexcept(make(static_cast<void*>(nullptr))));
    make(static_cast<void*>(tail_->at(tailIndex_)));
    ++tailIndex_;
    ++size_;
  }

  /// Precondition: !empty().
  T pop() noexcept {
    T value(std::move(front()));
    dropFront();
    return value;
  }

  /// The oldest element, where it lies: it stays put while elements are
  /// pushed behind it. Precondition: !empty().
  T& front() noexcept { return *std::launder(head_->at(headIndex_)); }
  /// A hint: starts fetching the element `ahead` places behind the oldest
  /// into the cache, if it lies in the oldest's segment. Precondition: !empty().
  void prefetch(std::uint32_t ahead) const noexcept {
    if (headIndex_ + ahead < kSlots) __builtin_prefetch(head_->at(headIndex_ + ahead));
  }
  /// Destroys the oldest element in place. Precondition: !empty().
  [[gnu::always_inline]] void dropFront() noexcept { dropOldest(&front(), headIndex_ + 1u); }

 private:
  /// Destroys the oldest element, at `oldest`, and moves the head to `next`
  /// (its index + 1), past a segment's end to the next segment.
  [[gnu::always_inline]] void dropOldest(T* oldest, std::uint32_t next) noexcept {
    oldest->~T();
    this->dropHead(next, [](std::uint32_t n) noexcept { return n == kSlots; });
  }
};

}  // namespace coreactor::detail
