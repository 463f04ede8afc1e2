// An unbounded FIFO of move-only objects in fixed segments: what an isolate
// keeps for a peer whose ring is full (the overflow list, SPEC X3). A burst
// of 100k crossings costs one allocation per kSegment of them (none while
// spare segments last), and no element ever moves twice: unlike a growable
// ring, nothing is copied when it grows; unlike std::deque, segments are
// reused. Single-threaded.
#pragma once

#include <cstddef>
#include <new>
#include <utility>

namespace coreactor::detail {

template <class T, std::size_t kSegment = 64>
class SegmentQueue {
 public:
  /// Empty segments kept for the next burst.
  static constexpr std::size_t kSpares = 16;

  SegmentQueue() = default;
  SegmentQueue(const SegmentQueue&) = delete;
  SegmentQueue& operator=(const SegmentQueue&) = delete;
  SegmentQueue(SegmentQueue&& other) noexcept
      : head_(std::exchange(other.head_, nullptr)),
        tail_(std::exchange(other.tail_, nullptr)),
        spare_(std::exchange(other.spare_, nullptr)),
        headIndex_(std::exchange(other.headIndex_, 0)),
        tailIndex_(std::exchange(other.tailIndex_, 0)),
        size_(std::exchange(other.size_, 0)),
        spares_(std::exchange(other.spares_, 0)) {}
  ~SegmentQueue() {
    while (!empty()) pop_front();
    freeList(head_);
    freeList(spare_);
  }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

  void push_back(T&& value) {
    if (tail_ == nullptr || tailIndex_ == kSegment) {
      Segment* fresh = takeSegment();
      if (tail_ == nullptr) {
        head_ = fresh;
        headIndex_ = 0;
      } else {
        tail_->next = fresh;
      }
      tail_ = fresh;
      tailIndex_ = 0;
    }
    ::new (static_cast<void*>(tail_->at(tailIndex_))) T(std::move(value));
    ++tailIndex_;
    ++size_;
  }
  /// Precondition: !empty().
  T& front() noexcept { return *std::launder(head_->at(headIndex_)); }
  /// Precondition: !empty().
  void pop_front() noexcept {
    std::launder(head_->at(headIndex_))->~T();
    ++headIndex_;
    --size_;
    if (headIndex_ == kSegment || size_ == 0) {
      Segment* done = head_;
      head_ = done->next;
      headIndex_ = 0;
      if (head_ == nullptr) tail_ = nullptr;
      giveSegment(done);
    }
  }

 private:
  struct Segment {
    Segment* next = nullptr;
    alignas(T) unsigned char storage[kSegment * sizeof(T)];
    T* at(std::size_t i) noexcept { return reinterpret_cast<T*>(storage) + i; }
  };

  Segment* takeSegment() {
    if (spare_ == nullptr) return new Segment;
    Segment* s = std::exchange(spare_, spare_->next);
    --spares_;
    s->next = nullptr;
    return s;
  }
  void giveSegment(Segment* s) noexcept {
    if (spares_ >= kSpares) {
      delete s;
      return;
    }
    s->next = spare_;
    spare_ = s;
    ++spares_;
  }
  static void freeList(Segment* s) noexcept {
    while (s != nullptr) delete std::exchange(s, s->next);
  }

  Segment* head_ = nullptr;
  Segment* tail_ = nullptr;
  Segment* spare_ = nullptr;
  std::size_t headIndex_ = 0;  // next to pop, in head_
  std::size_t tailIndex_ = 0;  // next free, in tail_
  std::size_t size_ = 0;
  std::size_t spares_ = 0;
};

}  // namespace coreactor::detail
