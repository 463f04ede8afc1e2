// The timer that gives back what a thread's block caches (BlockCache,
// SmallBlocks) parked above their fixed bounds.
//
// Off a loop, a cache keeps its fixed bound. On a thread that runs an
// isolate's loop it may park as much as that thread's bursts need (up to a
// ceiling), because the first block parked above a bound arms one
// unreferenced timer for the thread, on the isolate whose loop runs then (a
// manual system runs all of its isolates on one thread: one timer serves
// them all; one that went stale, its isolate destroyed or moved to another
// thread, is replaced within three periods): each kTrimPeriod it fires, every
// cache gives back the blocks that stayed parked and unused through the
// whole period, down to its fixed bound, and the timer arms again while
// blocks are left above a bound. So parked memory follows the bursts that
// recur and goes back to the heap within two periods of the last one, also
// when the loop then sleeps. docs/mailboxes.md, "Bursts and memory", says
// what this saves.
//
// Thread-safety: per thread.
#pragma once

#include <chrono>
#include <cstddef>

namespace coreactor::detail {

/// How long a block parked above a fixed bound may stay unused.
inline constexpr std::chrono::milliseconds kTrimPeriod{1000};

/// For a cache about to park a block above its fixed bound: true if this
/// thread runs an isolate's loop now and the trim timer is armed there
/// (armed now, or already), so the block may be parked; false (no loop, a
/// stopping one, no memory for the timer): free it.
bool trimWillCome() noexcept;

/// For a cache's trim: how many of a list's `count` parked blocks go back to
/// the heap. `lowest` of them were never taken since the last trim; the
/// list keeps at least `fixed`.
inline std::size_t unusedAbove(std::size_t count, std::size_t lowest, std::size_t fixed) noexcept {
  const std::size_t above = count > fixed ? count - fixed : 0;
  return lowest < above ? lowest : above;
}

}  // namespace coreactor::detail
