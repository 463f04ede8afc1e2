// An isolate's timers (Isolate::setTimeout): the table of armed timers, a
// sorted lane and an indexed binary heap over a slab, with the time of the
// loop's pass for coarse timers, and the loop's timer phase (runDue).
// Isolate-local: only the loop thread (or, before the loop runs, its
// creating thread) touches them. Held in Isolate::Cold (IsolateCold.hpp).
//
// Ordered by (deadline, seq): equal deadlines fire in arm order. Most
// timers are armed in deadline order (every ask of one timeout, a timeout
// per request): a timer whose deadline is not before the last one in the
// lane joins the lane, a FIFO that is sorted by construction, in O(1); any
// other goes to the heap, O(log n). The next timer is the earlier of the
// lane's front and the heap's top.
//
// Clearing is lazy: a cleared timer stays where it is, marked dead, until it
// reaches the front (pruneFront) or dead entries are half of all entries
// (compact, one O(n) rebuild). A clear is O(1) and touches one slot, instead
// of a sift through a heap of thousands of pending timeouts (bench
// actor/ask/from-actor: 10,000 asks in flight), and at most twice the live
// timers are held.
#pragma once

#include <cstddef>
#include <cstdint>
#include <vector>

#include "DeadlineGuard.hpp"
#include "coreactor/Clock.hpp"
#include "coreactor/Isolate.hpp"
#include "coreactor/Task.hpp"
#include "coreactor/detail/RingBuffer.hpp"

namespace coreactor::detail {

/// The timers of one isolate, and its loop's timer phase. A part of
/// Isolate::Cold, its first member: the loop reads `inPass`, `passNowRead`
/// and live() at fixed offsets of the cold state.
struct LoopTimers {
  /// One timer of the slab: armed, free, or dead (cleared, still filed).
  struct TimerSlot {
    Clock::time_point deadline{};
    std::uint64_t seq = 0;
    Task* task = nullptr;
    std::uint32_t generation = 0;
    bool referenced = false;
    bool armed = false;
    bool dead = false;    // cleared, still in the lane or the heap
    bool inLane = false;  // in the lane, not the heap
  };
  /// What earliest() returns when no timer is live.
  static constexpr std::uint32_t kNoTimer = UINT32_MAX;
  /// Dead entries are compacted away above this many (and half of all).
  static constexpr std::size_t kCompactAbove = 64;

  std::vector<TimerSlot> slots;
  std::vector<std::uint32_t> freeSlots;
  std::vector<std::uint32_t> heap;  // slot indices
  RingBuffer<std::uint32_t> lane;
  Clock::time_point laneBack{};  // the deadline last appended to the lane
  std::size_t dead = 0;          // entries of the lane and the heap
  std::uint64_t nextSeq = 0;
  std::size_t referencedTimers = 0;
  // The time of the current loop pass, for coarse timers: valid only while
  // a pass runs (inPass) and once read (passNowRead).
  Clock::time_point passNow{};
  bool inPass = false;
  bool passNowRead = false;
  // Whether the earliest timer is surely not due yet, without a clock read
  // (DeadlineGuard.hpp); fed by the loop's reads of the steady clock only.
  DeadlineGuard guard;
  bool steadyClock = false;

  /// The loop's timer phase: runs the timers whose deadline has passed,
  /// earliest first, each followed by a microtask drain; timers armed
  /// while it runs wait for the next iteration. Returns early on stop.
  /// The loop thread.
  static void runDue(Isolate& isolate);

  /// The clock now, and the guard told.
  Clock::time_point readClock(const Clock& clock) noexcept {
    const Clock::time_point now = clock.now();
    if (steadyClock) guard.read(now);
    return now;
  }
  /// False if the timer `top` (an earliest(), or kNoTimer) is surely not
  /// due: no need to read the clock.
  bool mayBeDue(std::uint32_t top) const noexcept {
    return top != kNoTimer && !guard.surelyBefore(slots[top].deadline);
  }
  /// A live timer is due by `clock`'s now (one read of it, no guard).
  bool due(const Clock& clock) noexcept {
    const std::uint32_t next = earliest();
    return next != kNoTimer && slots[next].deadline <= clock.now();
  }
  /// Timer `a` fires before timer `b`.
  bool before(std::uint32_t a, std::uint32_t b) const noexcept {
    const TimerSlot& x = slots[a];
    const TimerSlot& y = slots[b];
    return x.deadline < y.deadline || (x.deadline == y.deadline && x.seq < y.seq);
  }
  /// Moves the heap entry at `pos` up to its place.
  void siftUp(std::size_t pos) noexcept {
    const std::uint32_t slot = heap[pos];
    while (pos > 0) {
      const std::size_t parent = (pos - 1) / 2;
      if (!before(slot, heap[parent])) break;
      heap[pos] = heap[parent];
      pos = parent;
    }
    heap[pos] = slot;
  }
  /// Moves the heap entry at `pos` down to its place.
  void siftDown(std::size_t pos) noexcept {
    const std::uint32_t slot = heap[pos];
    const std::size_t n = heap.size();
    for (;;) {
      std::size_t child = 2 * pos + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap[child + 1], heap[child])) ++child;
      if (!before(heap[child], slot)) break;
      heap[pos] = heap[child];
      pos = child;
    }
    heap[pos] = slot;
  }
  /// Takes the heap's top out.
  void popHeapTop() noexcept {
    const std::uint32_t last = heap.back();
    heap.pop_back();
    if (!heap.empty()) {
      heap[0] = last;
      siftDown(0);
    }
  }

  /// Timers armed and not yet fired or cleared.
  std::size_t live() const noexcept { return heap.size() + lane.size() - dead; }

  /// Files an armed slot (deadline and seq set) into the lane or the heap.
  void file(std::uint32_t slot) {
    TimerSlot& s = slots[slot];
    if (lane.empty() || s.deadline >= laneBack) {
      lane.push(slot);
      laneBack = s.deadline;
      s.inLane = true;
      return;
    }
    s.inLane = false;
    heap.push_back(slot);
    siftUp(heap.size() - 1);
  }
  /// The earliest live timer, or kNoTimer; dead ones in front go first.
  std::uint32_t earliest() noexcept {
    pruneFront();
    if (lane.empty()) return heap.empty() ? kNoTimer : heap.front();
    if (heap.empty()) return lane.front();
    return before(lane.front(), heap.front()) ? lane.front() : heap.front();
  }
  /// Takes the earliest live timer (earliest()) out and frees its slot;
  /// returns its task.
  Task* takeEarliest(std::uint32_t slot) noexcept {
    if (slots[slot].inLane) {
      lane.pop();
    } else {
      popHeapTop();
    }
    TimerSlot& s = slots[slot];
    Task* task = s.task;
    if (s.referenced) --referencedTimers;
    s.task = nullptr;
    s.armed = false;
    ++s.generation;
    freeSlots.push_back(slot);
    return task;
  }
  /// Disarms a live timer and returns its task; the slot is freed later.
  Task* cancel(std::uint32_t slot) noexcept {
    TimerSlot& s = slots[slot];
    Task* task = s.task;
    if (s.referenced) --referencedTimers;
    s.task = nullptr;
    s.armed = false;
    s.dead = true;
    ++s.generation;
    ++dead;
    if (dead > kCompactAbove && dead * 2 > heap.size() + lane.size()) compact();
    return task;
  }
  /// Drops the dead entries at the front of the lane and the heap.
  void pruneFront() noexcept {
    while (!lane.empty() && slots[lane.front()].dead) freeDead(lane.pop());
    while (!heap.empty() && slots[heap.front()].dead) {
      const std::uint32_t slot = heap.front();
      popHeapTop();
      freeDead(slot);
    }
  }
  /// Drops every dead entry: the lane keeps its order, the heap is rebuilt.
  void compact() {
    for (std::size_t n = lane.size(); n > 0; --n) {  // keeps the lane's order
      const std::uint32_t slot = lane.pop();
      if (slots[slot].dead) {
        freeDead(slot);
      } else {
        lane.push(slot);
      }
    }
    std::size_t kept = 0;
    for (const std::uint32_t slot : heap) {
      if (slots[slot].dead) {
        freeDead(slot);
      } else {
        heap[kept++] = slot;
      }
    }
    heap.resize(kept);
    for (std::size_t pos = kept / 2; pos-- > 0;) siftDown(pos);
  }
  /// Frees the slot of a dead entry taken out of the lane or the heap.
  void freeDead(std::uint32_t slot) noexcept {
    slots[slot].dead = false;
    --dead;
    freeSlots.push_back(slot);
  }
};

}  // namespace coreactor::detail
