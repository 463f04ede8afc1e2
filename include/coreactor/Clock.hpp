/// @file
/// `coreactor/Clock.hpp` — where an isolate's timers read the time.
//
// An isolate reads its clock only in the timer phase of a loop iteration, and
// only when a timer is pending: never per message or per unit. The default is
// std::chrono::steady_clock. A ManualClock lets tests move time by hand, so a
// test asserts "which timer fired before which task", never how long it took.
//
// Thread-safety: now() and advance() are callable from any thread (the manual
// time is one atomic). An isolate does not notice advance() while it sleeps:
// call Isolate::wake() after advancing a clock whose isolate runs on another
// thread; runUntilIdle() on the calling thread needs nothing.
#pragma once

#include <atomic>
#include <chrono>

namespace coreactor {

/// Where an isolate's timers read the time: SteadyClock unless told
/// otherwise, a ManualClock in tests.
class Clock {
 public:
  /// Nanoseconds.
  using duration = std::chrono::nanoseconds;
  /// A point on the steady clock's timeline.
  using time_point = std::chrono::time_point<std::chrono::steady_clock, duration>;

  virtual ~Clock() = default;
  /// The current time. Any thread.
  virtual time_point now() const noexcept = 0;
  /// A manual clock never advances by itself: an isolate on one does not sleep
  /// waiting for a timer deadline, and runUntilIdle() does not wait for one.
  virtual bool isManual() const noexcept { return false; }
  /// The wall time (UTC) now, which cron schedules read (scheduleCron):
  /// std::chrono::system_clock unless the clock says otherwise. Read once
  /// per firing of a cron schedule, never on the message path.
  virtual std::chrono::system_clock::time_point wallNow() const noexcept {
    return std::chrono::system_clock::now();
  }
  /// `from + delay`, or the timeline's end for a delay past it (one that
  /// would overflow waits for ever instead of landing in the past).
  static time_point deadlineAfter(time_point from, duration delay) noexcept {
    return delay < time_point::max() - from ? from + delay : time_point::max();
  }
};

/// std::chrono::steady_clock. One shared instance: `SteadyClock::instance()`.
class SteadyClock final : public Clock {
 public:
  time_point now() const noexcept override { return std::chrono::steady_clock::now(); }
  /// The shared instance, used by every isolate and system given no clock.
  static const SteadyClock& instance() noexcept;
};

/// A clock that moves only when told to. Starts at an arbitrary fixed point.
class ManualClock final : public Clock {
 public:
  time_point now() const noexcept override { return time_point(duration(nanos_.load())); }
  bool isManual() const noexcept override { return true; }
  /// Moves the time forward by `by`, the wall time with it. Any thread; an
  /// isolate sleeping on another thread notices after Isolate::wake().
  void advance(duration by) noexcept { nanos_.fetch_add(by.count()); }
  /// Starts at 2026-01-01 00:00:00 UTC and moves with advance().
  std::chrono::system_clock::time_point wallNow() const noexcept override {
    return std::chrono::system_clock::time_point(
        std::chrono::duration_cast<std::chrono::system_clock::duration>(
            duration(wallShift_.load() + nanos_.load())));
  }
  /// Sets the wall time to `at` without moving now(): what a wall-clock
  /// adjustment does to a real clock. Any thread.
  void setWallTime(std::chrono::system_clock::time_point at) noexcept {
    wallShift_.store(std::chrono::duration_cast<duration>(at.time_since_epoch()).count() -
                     nanos_.load());
  }

 private:
  std::atomic<duration::rep> nanos_{1'000'000'000};
  // wallNow() - now(), in nanoseconds: 2026-01-01 00:00:00 UTC at the start.
  std::atomic<duration::rep> wallShift_{1'767'225'600'000'000'000 - 1'000'000'000};
};

}  // namespace coreactor
