// A FIFO of move-only objects in fixed segments of kSlots, linked head to
// tail: what an actor's mailbox keeps behind its word slot. A 24-byte
// header that counts its elements (empty() is one compare: a turn asks it
// after every message), nothing allocated while empty and idle, and
// growing never moves
// an element (a growable ring moves every element it holds each time it
// doubles: 1.6 extra moves per message for a burst of 10,000). Segments come
// from and go back to the thread's block cache. The last segment is kept
// while the owner is busy (an actor whose mailbox keeps emptying and
// filling does not take and return one per message) and given back by
// shrinkIdle().
// Single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "BlockCache.hpp"

namespace coreactor::detail {

template <class T, std::uint32_t kSlots>
class SegmentFifo {
  struct Segment {
    Segment* next = nullptr;
    alignas(T) unsigned char storage[kSlots * sizeof(T)];
    T* at(std::uint32_t i) noexcept { return reinterpret_cast<T*>(storage) + i; }
  };
  static_assert(alignof(T) <= BlockCache::kLineAlignment, "segments are cache blocks");
  static constexpr bool kLineAligned = alignof(Segment) > __STDCPP_DEFAULT_NEW_ALIGNMENT__;
  static constexpr std::size_t kClass = BlockCache::classOf(sizeof(Segment));
  static_assert(sizeof(Segment) <= BlockCache::kLargest, "a segment fits the block cache");
  static_assert(kSlots < 0xFFFF, "a segment's indices are 16 bits");

 public:
  SegmentFifo() = default;
  SegmentFifo(const SegmentFifo&) = delete;
  SegmentFifo& operator=(const SegmentFifo&) = delete;
  SegmentFifo(SegmentFifo&& other) noexcept
      : head_(std::exchange(other.head_, nullptr)),
        tail_(std::exchange(other.tail_, nullptr)),
        headIndex_(std::exchange(other.headIndex_, kSlots)),
        tailIndex_(std::exchange(other.tailIndex_, kSlots)),
        size_(std::exchange(other.size_, 0)) {}
  ~SegmentFifo() {
    while (!empty()) pop();
    shrinkIdle();
  }

  bool empty() const noexcept { return size_ == 0; }
  std::size_t size() const noexcept { return size_; }

  void push(T&& value) {
    pushWith([&value](void* at) noexcept { ::new (at) T(std::move(value)); });
  }
  /// Appends the element that `make(void* at)` constructs at `at`, in place
  /// (`make` must not throw).
  template <class Make>
  void pushWith(Make&& make) {
    if (tailIndex_ == kSlots) [[unlikely]] {  // the tail is full, or there is none
      addSegment();
    }
    static_assert(noexcept(make(static_cast<void*>(nullptr))));
    make(static_cast<void*>(tail_->at(tailIndex_)));
    ++tailIndex_;
    ++size_;
  }

  /// pushWith() while the tail segment has room: false, and nothing done,
  /// when a segment would have to be added (no call on the true path).
  template <class Make>
  [[gnu::always_inline]] bool tryPushInPlace(Make&& make) noexcept {
    if (tailIndex_ == kSlots) [[unlikely]] {
      return false;
    }
    static_assert(noexcept(make(static_cast<void*>(nullptr))));
    make(static_cast<void*>(tail_->at(tailIndex_)));
    ++tailIndex_;
    ++size_;
    return true;
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

  /// Hands the oldest elements to `handle(T&)` one after the other, each
  /// where it lies, and destroys each once handled (also when `handle`
  /// throws), while `go()` says to go on: at most `max` of them, and only
  /// those of the oldest segment. Returns how many it handled. `handle` may
  /// push (behind them); nothing else may pop meanwhile. The position of
  /// the next element stays in registers across `handle`: the run reads
  /// the segment pointer and the index once. Precondition: !empty(), max > 0.
  template <class Handle, class Go>
  [[gnu::always_inline]] std::uint32_t consumeRun(std::uint32_t max, Handle&& handle, Go&& go) {
    Segment* const segment = head_;
    std::uint32_t index = headIndex_;
    std::uint32_t done = 0;
    for (;;) {
      T* const element = std::launder(segment->at(index));
      struct Drop {
        SegmentFifo& fifo;
        T* element;
        std::uint32_t next;
        ~Drop() { fifo.dropOldest(element, next); }
      };
      {
        Drop drop{*this, element, index + 1};
        handle(*element);
      }
      ++done;
      ++index;
      if (size_ == 0 || index == kSlots || done == max || !go()) return done;
    }
  }

  /// For an owner that went idle: an empty queue gives its segment back.
  void shrinkIdle() noexcept {
    if (head_ != nullptr && empty()) {
      give(head_);
      head_ = tail_ = nullptr;
      headIndex_ = tailIndex_ = kSlots;
    }
  }

 private:
  /// Destroys the oldest element, at `oldest`, and moves the head to `next`
  /// (its index + 1), past a segment's end to the next segment.
  [[gnu::always_inline]] void dropOldest(T* oldest, std::uint32_t next) noexcept {
    oldest->~T();
    headIndex_ = static_cast<std::uint16_t>(next);
    if (--size_ == 0) {
      headIndex_ = tailIndex_ = 0;  // empty (head_ is tail_): start over in place
    } else if (next == kSlots) {
      give(std::exchange(head_, head_->next));
      headIndex_ = 0;
    }
  }
  void addSegment() {
    auto* fresh = ::new (BlockCache::local().get(kClass, kLineAligned)) Segment;
    if (tail_ == nullptr) {
      head_ = fresh;
      headIndex_ = 0;
    } else {
      tail_->next = fresh;
    }
    tail_ = fresh;
    tailIndex_ = 0;
  }
  static void give(Segment* s) noexcept {
    s->~Segment();
    BlockCache::local().put(s, kClass, kLineAligned);
  }

  // With no segment, both indices are kSlots: a push sees a full tail.
  Segment* head_ = nullptr;
  Segment* tail_ = nullptr;
  std::uint16_t headIndex_ = kSlots;  // next to pop, in head_
  std::uint16_t tailIndex_ = kSlots;  // next free, in tail_
  std::uint32_t size_ = 0;            // elements held
};

}  // namespace coreactor::detail
