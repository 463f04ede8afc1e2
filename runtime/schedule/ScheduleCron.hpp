// The cron side of one isolate's scheduler (Scheduler.hpp): the calendar of
// each cron schedule, and the clock times at which its firings come due.
// Isolate-local; runtime/schedule/ScheduleCron.cpp says how the two clocks
// are tied together.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <unordered_map>

#include "coreactor/Clock.hpp"
#include "coreactor/Cron.hpp"
#include "coreactor/Schedule.hpp"

namespace coreactor::detail {

/// `from + delay` in nanoseconds on a clock, saturated at the end of the
/// timeline (Clock::deadlineAfter).
inline std::int64_t scheduleDeadlineAfter(std::int64_t from, std::int64_t delay) noexcept {
  return Clock::deadlineAfter(Clock::time_point(Clock::duration(from)), Clock::duration(delay))
      .time_since_epoch()
      .count();
}

// The calendars live beside the scheduler's entries, by slot, so that an
// entry stays 120 bytes: a cron schedule fires once a minute at most, and
// one look-up per firing is nothing.
class ScheduleCron final {
 public:
  /// What a cron entry does at its deadline (fires()).
  struct Firing {
    bool sends = false;         ///< its wall time has come: the tick is sent
    std::int64_t deadline = 0;  ///< the clock time to arm the entry for, either way
    std::uint64_t missed = 0;   ///< firings missed meanwhile, counted as skipped
  };

  explicit ScheduleCron(const Clock& clock) noexcept : clock_(clock) {}

  /// Keeps the calendar of a new cron entry `slot`, and returns the clock
  /// time of its first firing after the wall time now.
  std::int64_t add(std::uint32_t slot, const Cadence& cadence, const TimeZone& zone);
  /// At the entry's deadline `t`: sends when its wall time has come (the
  /// next firing is due at `deadline`; firings missed meanwhile are counted
  /// as skipped); not when the wall clock is behind its due time (it was set
  /// back): `deadline` is that time again.
  Firing fires(std::uint32_t slot, std::int64_t t);
  /// When a paused cron entry resumed at `t` comes due: at once when it
  /// missed a firing while paused (one tick for them all), else at its due time.
  std::int64_t resumed(std::uint32_t slot, std::int64_t t) const;
  /// Forgets the calendar of `slot` (the entry ends).
  void erase(std::uint32_t slot) noexcept { calendars_.erase(slot); }

 private:
  struct Calendar {
    std::shared_ptr<const CronExpression> expression;
    TimeZone zone;
    std::chrono::sys_seconds due{};  // the wall time (UTC) of the next firing
  };
  // The clock time at which the wall clock reads `due`, seen from `t`.
  std::int64_t deadlineOfWallTime(std::int64_t t, std::chrono::sys_seconds due) const noexcept;

  const Clock& clock_;
  std::unordered_map<std::uint32_t, Calendar> calendars_;  // by slot
};

}  // namespace coreactor::detail
