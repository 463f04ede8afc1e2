// The scheduler's cron schedules (ActorSystem::scheduleCron): each one an
// entry of the isolate's scheduler (Scheduler.hpp), flagged kCron, with its
// calendar in the scheduler's ScheduleCron (ScheduleCron.hpp), armed on
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

#include "runtime/schedule/ScheduleCron.hpp"
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

std::int64_t ScheduleCron::deadlineOfWallTime(std::int64_t t, sys_seconds due) const noexcept {
  const auto wall = clock_.wallNow();
  const auto left = std::chrono::duration_cast<std::chrono::nanoseconds>(due - wall).count();
  return scheduleDeadlineAfter(t, std::max<std::int64_t>(left, 0));
}

std::int64_t ScheduleCron::add(std::uint32_t slot, const Cadence& cadence, const TimeZone& zone) {
  const sys_seconds due = cadence.cron->next(wallSeconds(clock_), zone);
  calendars_.insert_or_assign(slot, Calendar{cadence.cron, zone, due});
  return deadlineOfWallTime(clock_.now().time_since_epoch().count(), due);
}

ScheduleCron::Firing ScheduleCron::fires(std::uint32_t slot, std::int64_t t) {
  Calendar& calendar = calendars_.at(slot);
  const sys_seconds wall = wallSeconds(clock_);
  if (wall < calendar.due) return Firing{false, deadlineOfWallTime(t, calendar.due), 0};
  // Firings between the due one and now were missed: one tick goes for all.
  std::uint64_t missed = 0;
  sys_seconds next = calendar.expression->next(calendar.due, calendar.zone);
  while (next <= wall && missed < kMissedCounted) {
    ++missed;
    next = calendar.expression->next(next, calendar.zone);
  }
  if (next <= wall) next = calendar.expression->next(wall, calendar.zone);
  calendar.due = next;
  return Firing{true, deadlineOfWallTime(t, next), missed};
}

std::int64_t ScheduleCron::resumed(std::uint32_t slot, std::int64_t t) const {
  const sys_seconds due = calendars_.at(slot).due;
  // A firing missed while paused makes one tick at once (fires() counts
  // the rest as skipped); else the entry waits for its due time.
  return wallSeconds(clock_) >= due ? t : deadlineOfWallTime(t, due);
}

// ---- the scheduler's cron entries ---------------------------------------------------
// In this file, not in Scheduler.cpp: the scheduler's paths for the other
// entries are compiled without them.

void Scheduler::armCron(std::uint32_t slot, const Cadence& cadence, const TimeZone& zone) {
  const std::int64_t first = cron_.add(slot, cadence, zone);
  entries_.at(slot).flags |= kCron;
  arm(slot, first);
}

bool Scheduler::cronFires(std::uint32_t slot, std::int64_t t) {
  const ScheduleCron::Firing firing = cron_.fires(slot, t);
  if (firing.missed != 0) stats_.skippedTicks.fetch_add(firing.missed, std::memory_order_relaxed);
  arm(slot, firing.deadline);
  return firing.sends;
}

void Scheduler::resumeCron(std::uint32_t slot) {
  arm(slot, cron_.resumed(slot, now()));
}

}  // namespace coreactor::detail
