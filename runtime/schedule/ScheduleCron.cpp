// The scheduler's cron schedules (ActorSystem::scheduleCron): each one an
// entry of the isolate's scheduler (Scheduler.hpp), flagged kCron, armed on
// the isolate's clock for the next time its expression names on the wall
// clock (Clock::wallNow), read in its time zone (UTC, an offset, or a named zone).
//
// The two clocks are tied together at each firing, not once: the deadline
// is "now on the isolate's clock + (due - now on the wall clock)". When it
// comes, the wall clock is read again; if it is still behind the due time
// (it was set back), the entry waits again for that time and sends
// nothing, so a firing never comes early by the wall clock. A wall clock set
// forward is noticed at the next deadline: the firings it skipped are
// counted as skipped ticks, and one tick goes for them.
#include <algorithm>

#include "runtime/SystemCore.hpp"
#include "runtime/schedule/Scheduler.hpp"

namespace coreactor::detail {

namespace {

using std::chrono::sys_seconds;

sys_seconds wallSeconds(const Clock& clock) noexcept {
  return std::chrono::floor<std::chrono::seconds>(clock.wallNow());
}

// At most this many missed firings are counted one by one when the loop
// comes back late (a machine suspended for a year); beyond, the count stops.
constexpr std::uint64_t kMissedCounted = 100'000;

}  // namespace

std::int64_t Scheduler::deadlineOfWallTime(std::int64_t t, sys_seconds due) const noexcept {
  const auto wall = clock_.wallNow();
  const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(due - wall).count();
  return deadlineAfter(t, std::max<std::int64_t>(left, 0));
}

void Scheduler::armCron(std::uint32_t slot, const Cadence& cadence, const TimeZone& zone) {
  const sys_seconds due = cadence.cron->next(wallSeconds(clock_), zone);
  crons_.insert_or_assign(slot, CronCalendar{cadence.cron, zone, due});
  at(slot).flags |= kCron;
  arm(slot, deadlineOfWallTime(now(), due));
}

bool Scheduler::cronFires(std::uint32_t slot, std::int64_t t) {
  CronCalendar& calendar = crons_.at(slot);
  const sys_seconds wall = wallSeconds(clock_);
  if (wall < calendar.due) {
    arm(slot, deadlineOfWallTime(t, calendar.due));
    return false;
  }
  // Firings between the due one and now were missed: one tick goes for all.
  std::uint64_t missed = 0;
  sys_seconds next = calendar.expression->next(calendar.due, calendar.zone);
  while (next <= wall && missed < kMissedCounted) {
    ++missed;
    next = calendar.expression->next(next, calendar.zone);
  }
  if (next <= wall) next = calendar.expression->next(wall, calendar.zone);
  if (missed != 0) stats_.skippedTicks.fetch_add(missed, std::memory_order_relaxed);
  calendar.due = next;
  arm(slot, deadlineOfWallTime(t, next));
  return true;
}

void Scheduler::resumeCron(std::uint32_t slot) {
  const sys_seconds due = crons_.at(slot).due;
  const std::int64_t t = now();
  // A firing missed while paused makes one tick at once (cronFires counts
  // the rest as skipped); else the entry waits for its due time.
  arm(slot, wallSeconds(clock_) >= due ? t : deadlineOfWallTime(t, due));
}

}  // namespace coreactor::detail
