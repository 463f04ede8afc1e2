// coreactor/detail/SlottedRing.hpp — a RingBuffer with one slot in front.
//
// The isolate's microtask queue. The common chain (one actor's turn queues
// the next actor's, a ping-pong, a volley) holds one unit at a time: it
// lives in the slot and never touches the ring. The slot is used only while
// the ring is empty and is taken before the ring, so the order stays first
// in, first out.
//
// Why: a unit pushed to a ring and popped right after travels through a
// store and a load at addresses computed from the ring's indices, each
// index itself a store and a load; where a store-to-load forward costs ~8
// cycles (some AMD Zen 2 VMs), each hop waits on a chain of them. The slot
// is one fixed address: bench hop/microtask runs about a fifth faster with
// it than through the ring alone.
//
// Thread-safety: none; one thread owns it. T must be trivially copyable.
#pragma once

#include <cstddef>

#include "coreactor/detail/RingBuffer.hpp"

namespace coreactor::detail {

template <class T>
class SlottedRing {
 public:
  bool empty() const noexcept { return !full_ && ring_.empty(); }
  std::size_t size() const noexcept { return ring_.size() + (full_ ? 1 : 0); }

  /// By value: a caller's unit built on the stack as two 8-byte halves and
  /// copied as one 16-byte load stalls on the store buffer.
  void push(T value) {
    if (!full_ && ring_.empty()) [[likely]] {
      slot_ = value;
      full_ = true;
      return;
    }
    pushToRing(value);
  }
  /// Inserts `value` so that `pos` values stay ahead of it (pos <= size()).
  void insertAt(std::size_t pos, const T& value) {
    if (full_) {  // the slot is the oldest: it joins the ring's front
      ring_.insertAt(0, slot_);
      full_ = false;
    }
    ring_.insertAt(pos, value);
  }
  /// Precondition: !empty().
  T pop() noexcept {
    if (full_) [[likely]] {
      full_ = false;
      return slot_;
    }
    return ring_.pop();
  }
  void shrinkIfEmpty() noexcept { ring_.shrinkIfEmpty(); }

 private:
  // Out of line, so that push() into the slot is a leaf that saves no
  // registers (a turn is scheduled into the slot once per message of a
  // ping-pong) and reaches the ring as its tail.
  [[gnu::noinline]] void pushToRing(T value) { ring_.push(value); }

  T slot_{};
  bool full_ = false;  // the slot holds the oldest value
  RingBuffer<T> ring_;
};

}  // namespace coreactor::detail
