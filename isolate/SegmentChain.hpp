// What the segmented queues (SegmentFifo, MailFifo) share: a chain of
// fixed segments from the thread's block cache, linked head to tail, with
// the head's and the tail's position and a count of what is held. A
// 24-byte header; nothing allocated while empty and idle. The queue on top
// decides what a slot holds and where a segment ends (kEnd, the index past
// its last slot).
// Single-threaded.
#pragma once

#include <cstddef>
#include <cstdint>
#include <new>
#include <utility>

#include "BlockCache.hpp"

namespace coreactor::detail {

/// `Segment` has a `Segment* next` that starts null.
template <class Segment, std::uint32_t kEnd>
class SegmentChain {
  static constexpr bool kLineAligned = alignof(Segment) > __STDCPP_DEFAULT_NEW_ALIGNMENT__;
  static constexpr std::size_t kClass = BlockCache::classOf(sizeof(Segment));
  static_assert(alignof(Segment) <= BlockCache::kLineAlignment, "segments are cache blocks");
  static_assert(sizeof(Segment) <= BlockCache::kLargest, "a segment fits the block cache");
  static_assert(kEnd < 0xFFFF, "a segment's indices are 16 bits");

 public:
  SegmentChain() = default;
  SegmentChain(const SegmentChain&) = delete;
  SegmentChain& operator=(const SegmentChain&) = delete;
  SegmentChain(SegmentChain&& other) noexcept
      : head_(std::exchange(other.head_, nullptr)),
        tail_(std::exchange(other.tail_, nullptr)),
        headIndex_(std::exchange(other.headIndex_, kEnd)),
        tailIndex_(std::exchange(other.tailIndex_, kEnd)),
        size_(std::exchange(other.size_, 0)) {}

  bool empty() const noexcept { return size_ == 0; }
  /// What the queue holds.
  std::size_t size() const noexcept { return size_; }

  /// For an owner that went idle: an empty queue gives its segment back.
  void shrinkIdle() noexcept {
    if (head_ != nullptr && empty()) {
      give(head_);
      head_ = tail_ = nullptr;
      headIndex_ = tailIndex_ = kEnd;
    }
  }

 protected:
  ~SegmentChain() = default;  // the queue on top destroys what it holds, then shrinks

  /// Appends a fresh segment and makes it the tail, at its start.
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
  /// One held thing less, whose successor starts at `next` in the head:
  /// true if it is there, false if the queue emptied (it starts over in
  /// place: head_ is tail_, as a segment is added only for a push into it)
  /// or if the head moved on to the next segment, which `headEnds(next)` says.
  template <class HeadEnds>
  [[gnu::always_inline]] bool dropHead(std::uint32_t next, HeadEnds&& headEnds) noexcept {
    headIndex_ = static_cast<std::uint16_t>(next);
    if (--size_ == 0) {
      headIndex_ = tailIndex_ = 0;
      return false;
    }
    if (headEnds(next)) [[unlikely]] {
      give(std::exchange(head_, head_->next));
      headIndex_ = 0;
      return false;
    }
    return true;
  }

  // With no segment, both indices are kEnd: a push sees a full tail.
  Segment* head_ = nullptr;
  Segment* tail_ = nullptr;
  std::uint16_t headIndex_ = kEnd;  // the oldest's first slot, in head_
  std::uint16_t tailIndex_ = kEnd;  // the next free slot, in tail_
  std::uint32_t size_ = 0;          // things held

 private:
  static void give(Segment* s) noexcept {
    s->~Segment();
    BlockCache::local().put(s, kClass, kLineAligned);
  }
};

}  // namespace coreactor::detail
