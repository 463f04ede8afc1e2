// How an isolate's loop with nothing runnable waits for work: the idle poll
// window (IsolateOptions::idlePoll), looking for work without sleeping, and
// then the sleep, on a futex or in Asio, until a timer is due, I/O
// completes or another thread posts. A view of the isolate, made for one
// wait; its state (the window, the sleeping flag, the CPU count) lives in
// Isolate::Cold (IsolateCold.hpp). The loop thread.
#pragma once

#include <chrono>
#include <cstdint>

#include "coreactor/Isolate.hpp"

namespace coreactor::detail {

/// The loop's wait for work; Isolate's friend.
class IdleWait {
 public:
  /// Nothing is runnable now: spins in the idle poll window (a loop that
  /// runs until stopped, with the option set), then sleeps until a timer is
  /// due, I/O completes or another thread posts. Returns false when, in
  /// until-idle mode, nothing can ever come.
  static bool waitForWork(Isolate& isolate, Isolate::Mode mode);

 private:
  using SteadyPoint = std::chrono::steady_clock::time_point;
  /// What a look in the window found: nothing yet, work, the window's end,
  /// or a change of the crowd on this CPU (the other way of looking).
  enum class Polled : std::uint8_t { Nothing, Work, WindowOver, Switch };

  explicit IdleWait(Isolate& isolate) noexcept;
  /// The idle poll window: looks for work, with a pause (or a yield)
  /// between looks, until the window ends. True: there was work.
  bool pollWhileIdle();
  /// The window's looks with a pause between them, while no other awake
  /// loop is counted on this CPU.
  Polled pollPausing(SteadyPoint& end);
  /// The window's looks that yield the CPU to another awake loop counted
  /// on it.
  Polled pollYielding(SteadyPoint& end);
  /// A window's look at its clock, timers, CPU and Asio.
  Polled lookAtClock(SteadyPoint& end);
  /// After a sleep that followed a window that ran out: the window for next time.
  void adaptIdlePoll() noexcept;
  /// Work came from another thread, or a stop.
  bool postedOrStopped() const noexcept;
  /// A poller has work: detail::Poller::pending() after the sleeping flag is up
  /// (`beforeSleep`), detail::Poller::ready() from the idle poll window.
  bool pollersHaveWork(bool beforeSleep) const noexcept;

  Isolate& isolate_;
  Isolate::Cold& cold_;
};

}  // namespace coreactor::detail
