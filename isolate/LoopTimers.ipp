// The loop's timer phase (LoopTimers::runDue): the due timers of an
// isolate run, earliest first, each followed by a microtask drain.
// Included once, at the end of Isolate.cpp: the loop's translation unit
// (see the top of that file).
#include "LoopTimers.hpp"

#include <algorithm>
#include <atomic>

#include "IsolateCold.hpp"

namespace coreactor::detail {

void LoopTimers::runDue(Isolate& isolate) {
  LoopTimers& timers = isolate.cold_->timers;
  if (!timers.mayBeDue(timers.earliest())) return;  // coarseNow() reads the time if asked
  const Clock::time_point now = timers.readClock(*isolate.clock_);
  timers.passNow = now;  // the pass's time, for coarse timers
  timers.passNowRead = true;
  // Timers armed while this phase runs wait for the next iteration, even with
  // a zero delay: a timer re-arming itself cannot hold the loop here.
  const std::uint64_t seqLimit = timers.nextSeq;
  Isolate::Stats& stats = isolate.stats_;
  for (;;) {
    const std::uint32_t top = timers.earliest();
    if (top == kNoTimer) return;
    const TimerSlot& s = timers.slots[top];
    if (s.deadline > now || s.seq >= seqLimit) return;
    const auto lag = static_cast<std::uint64_t>((now - s.deadline).count());
    stats.timerLagSumNanos += lag;
    stats.timerLagMaxNanos = std::max(stats.timerLagMaxNanos, lag);
    Task* task = timers.takeEarliest(top);
    ++stats.timersFired;
    isolate.runUnit(Isolate::Unit{task, nullptr});
    isolate.drainMicrotasks();
    if (isolate.stopRequested_.load(std::memory_order_relaxed)) return;
  }
}

}  // namespace coreactor::detail
