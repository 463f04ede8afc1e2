// The loop's wait for work (IdleWait.hpp): the idle poll window, the sleep
// on a futex or in Asio, how the window adapts after a sleep, and the idle
// time an actor system's balancer asks for (IsolateHooks::measureIdle).
// Included once, at the end of Isolate.cpp: the loop's translation unit
// (see the top of that file).
#include "IdleWait.hpp"

#include <atomic>
#include <exception>

#ifdef __linux__
#include <linux/futex.h>
#include <sched.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>
#endif

#include "CpuShare.hpp"
#include "IdlePoll.hpp"
#include "IsolateCold.hpp"
#include "LoopIo.hpp"
#include "coreactor/detail/CpuRelax.hpp"

namespace coreactor::detail {
namespace {

using SteadyPoint = std::chrono::steady_clock::time_point;

// The idle poll window looks at the clock and at Asio once every this many
// looks (a look is a few loads and a pause: the window ends at most a few
// microseconds late).
constexpr std::uint32_t kClockEveryLooks = 64;

#ifdef __linux__
constexpr bool kFutexSleep = true;
static_assert(sizeof(std::atomic<std::uint32_t>) == sizeof(std::uint32_t) &&
                  std::atomic<std::uint32_t>::is_always_lock_free,
              "the futex word is a plain 32-bit word");

/// Blocks while `word` holds `seen`, until `deadline` (steady clock, which
/// is CLOCK_MONOTONIC here; none: no limit) or a FUTEX_WAKE. Returns on a
/// wake, a timeout, a signal, or at once if the word already moved.
void sleepOnFutex(std::atomic<std::uint32_t>& word, std::uint32_t seen,
                  const SteadyPoint* deadline) noexcept {
  timespec at{};
  if (deadline != nullptr) {
    const auto ns = std::chrono::duration_cast<std::chrono::nanoseconds>(
                        std::max(deadline->time_since_epoch(), SteadyPoint::duration::zero()))
                        .count();
    at.tv_sec = static_cast<time_t>(ns / 1'000'000'000);
    at.tv_nsec = static_cast<long>(ns % 1'000'000'000);
  }
  // FUTEX_WAIT_BITSET takes an absolute time on CLOCK_MONOTONIC.
  syscall(SYS_futex, &word, FUTEX_WAIT_BITSET_PRIVATE, seen, deadline != nullptr ? &at : nullptr,
          nullptr, FUTEX_BITSET_MATCH_ANY);
}
#else
constexpr bool kFutexSleep = false;
void sleepOnFutex(std::atomic<std::uint32_t>&, std::uint32_t, const SteadyPoint*) noexcept {}
#endif

}  // namespace

// ---- idle time, measured on request ---------------------------------------------

void IsolateHooks::measureIdle(Isolate& isolate, bool on) noexcept {
  isolate.cold_->measureIdle.store(on, std::memory_order_relaxed);
}

std::uint64_t IsolateHooks::idleNanos(const Isolate& isolate) noexcept {
  return isolate.cold_->idleNanos;
}

void IsolateHooks::countSleeps(Isolate& isolate, SleepCensus* census) noexcept {
  isolate.cold_->census = census;
}

// ---- the wait -------------------------------------------------------------------

IdleWait::IdleWait(Isolate& isolate) noexcept : isolate_(isolate), cold_(*isolate.cold_) {}

// The whole wait is this one function, called by the loop with the
// isolate alone, as a member of it was: the view is made only for the
// window and the looks.
bool IdleWait::waitForWork(Isolate& isolate, Isolate::Mode mode) {
  IdleWait view(isolate);
  Isolate::Cold& cold = view.cold_;
  LoopTimers& timers = cold.timers;
  const Clock& clock = *isolate.clock_;
  // A timer that is already due (a zero delay, a manual clock moved by hand)
  // is runnable work: go round again instead of sleeping.
  const std::uint32_t next = timers.earliest();  // live: it sets the sleep's deadline
  if (timers.mayBeDue(next) && timers.slots[next].deadline <= timers.readClock(clock)) return true;
  const bool realDeadline = next != LoopTimers::kNoTimer && !clock.isManual();
  const bool timersHoldUs =
      realDeadline && (timers.referencedTimers > 0 || isolate.timerHolds_ > 0);
  // In until-idle mode with no referenced timer, only Asio work (or a post
  // that raced in) keeps the loop alive: let Asio decide by dropping our guard.
  const bool askAsio = mode == Isolate::Mode::UntilIdle && !timersHoldUs;

  for (Poller* p : isolate.pollers_) p->beforeSleep();
  // The idle poll window, before the sleeping flag goes up: senders see an
  // awake loop and write no wake-up.
  if (mode == Isolate::Mode::UntilStop && isolate.options_.idlePoll.count() > 0 &&
      view.pollWhileIdle()) {
    ++isolate.stats_.sparedSleeps;
    return true;
  }
  // Queues a burst grew give their memory back before the loop sleeps.
  isolate.microtasks_.shrinkIfEmpty();
  isolate.macrotasks_.shrinkIfEmpty();
  // The futex only while the loop runs until stopped (until idle, Asio
  // decides when nothing is left) and Asio cannot have been given anything.
  const bool onFutex = kFutexSleep && mode == Isolate::Mode::UntilStop &&
                       !cold.ioHandedOut.load(std::memory_order_relaxed);
  // Read before the flag goes up: a wake that bumps it after this read
  // makes the futex wait return at once.
  const std::uint32_t seen = cold.wakeSeq.load(std::memory_order_relaxed);
  for (Poller* p : isolate.pollers_) p->blocking();
  // Every way out of the block below: the flag down, and the pollers told.
  const auto awake = [&] {
    cold.sleeping.store(Isolate::Cold::kAwake, std::memory_order_relaxed);
    for (Poller* p : isolate.pollers_) p->unblocked();
  };
  cold.wakePending.store(false, std::memory_order_relaxed);
  cold.sleeping.store(onFutex ? Isolate::Cold::kOnFutex : Isolate::Cold::kInAsio,
                      std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // A timer that fell due meanwhile counts too: a manual clock moved by
  // another thread, whose wake() found the flag down, is seen here. So does
  // an ioContext() handed out meanwhile, whose wake() found the flag down.
  if (view.postedOrStopped() || view.pollersHaveWork(/*beforeSleep=*/true) || timers.due(clock) ||
      (onFutex && cold.ioHandedOut.load(std::memory_order_relaxed))) {
    awake();
    return true;
  }
  if (askAsio) cold.work.reset();
  ++isolate.stats_.sleeps;
  cold.cpu = CpuShare::leave(cold.cpu);  // asleep, it needs no CPU
  if (cold.census != nullptr) cold.census->fallAsleep();
  const SteadyPoint deadline = realDeadline
                                   ? SteadyPoint(std::chrono::duration_cast<SteadyPoint::duration>(
                                         timers.slots[next].deadline.time_since_epoch()))
                                   : SteadyPoint::max();
  if (onFutex) {
    sleepOnFutex(cold.wakeSeq, seen, realDeadline ? &deadline : nullptr);
    if (cold.census != nullptr) cold.census->wakeUp();
    awake();
    view.adaptIdlePoll();
    // Counted again by the next pass, which starts at once.
    return true;  // woken, timed out or interrupted: the next pass looks
  }

  std::size_t ran = 0;
  try {
    ran = realDeadline ? cold.io.run_one_until(deadline) : cold.io.run_one();
  } catch (...) {
    ran = 1;
    isolate.reportError(nullptr, std::current_exception());
  }
  if (cold.census != nullptr) cold.census->wakeUp();
  awake();
  cold.cpu = CpuShare::settle(cold.cpu);  // the handler Asio ran drains below
  view.adaptIdlePoll();

  bool idle = false;
  if (askAsio) {
    idle = ran == 0 && cold.io.stopped() && cold.inbox.size_approx() == 0;
    cold.io.restart();
    cold.work.emplace(cold.io.get_executor());
  }
  if (ran != 0) {
    ++isolate.stats_.ioHandlers;
    isolate.drainMicrotasks();
  }
  return !idle;
}

// After a sleep that followed a window that ran out: the window for next
// time (isolate/IdlePoll.hpp). One clock read per sleep, which costs far more.
void IdleWait::adaptIdlePoll() noexcept {
  if (cold_.windowRanOut == SteadyPoint{}) return;
  const auto slept = std::chrono::steady_clock::now() - cold_.windowRanOut;
  cold_.windowRanOut = SteadyPoint{};
  const bool byWork = postedOrStopped() || pollersHaveWork(/*beforeSleep=*/false);
  cold_.idlePoll = nextIdlePoll(cold_.idlePoll, isolate_.options_.idlePoll, slept, byWork);
}

bool IdleWait::postedOrStopped() const noexcept {
  return cold_.inbox.size_approx() != 0 || isolate_.stopRequested_.load(std::memory_order_relaxed);
}

bool IdleWait::pollersHaveWork(bool beforeSleep) const noexcept {
  for (const Poller* p : isolate_.pollers_) {
    if (beforeSleep ? p->pending() : p->ready()) return true;
  }
  return false;
}

// ---- the idle poll window -------------------------------------------------------

// The idle poll window (IsolateOptions::idlePoll): look for work, with a
// pause between looks, until the window ends. A look reads each poller's
// rings, the inbox's size and the stop flag; the clock, the timers (on any clock:
// a manual one may be moved by another thread) and Asio (handlers posted to
// the io_context, I/O) are looked at every kClockEveryLooks looks. What a
// poller has is taken at once (LoopIo::runPollers). On a CPU where another
// awake loop of the process is counted (CpuShare.hpp), a look yields the CPU
// instead of pausing. True: there was work.
bool IdleWait::pollWhileIdle() {
  // The window's end is set at the first clock read, kClockEveryLooks looks
  // in: a clock read on entry would sit between a reply sent and the first
  // look for the next message, and most windows end well before that.
  SteadyPoint end{};
  // A window that starts where the last one found a crowd yields from its
  // first look: two loops that share a CPU hand it over at each hop, not
  // after kClockEveryLooks pauses. Either way of looking hands over to the
  // other when the count on this CPU changes.
  for (;;) {
    const Polled polled = cold_.crowded ? pollYielding(end) : pollPausing(end);
    if (polled != Polled::Switch) return polled == Polled::Work;
  }
}

IdleWait::Polled IdleWait::pollPausing(SteadyPoint& end) {
  for (std::uint32_t looks = 1;; ++looks) {
    // The pollers first: a message from another isolate is what a busy
    // exchange waits for, and the inbox's size walks its producers.
    if (pollersHaveWork(/*beforeSleep=*/false)) {
      // A message from another isolate: take it and run what it starts
      // right here, ahead of the pass's other phases (which found nothing
      // a moment ago), so that a reply goes out before the pass's rounds.
      LoopIo::runPollers(isolate_);
      return Polled::Work;
    }
    if (postedOrStopped()) return Polled::Work;
    if (looks % kClockEveryLooks == 0) {
      const Polled polled = lookAtClock(end);
      if (polled != Polled::Nothing) return polled;
      if (cold_.crowded) return Polled::Switch;
    }
    cpuRelax();
  }
}

// Another awake loop is counted on this CPU (CpuShare.hpp): each look gives
// it the CPU instead of pausing, and, since a yield takes far longer than a
// pause, the clock, timers, Asio and the count are looked at every look.
IdleWait::Polled IdleWait::pollYielding(SteadyPoint& end) {
  for (;;) {
    if (pollersHaveWork(/*beforeSleep=*/false)) {
      LoopIo::runPollers(isolate_);
      return Polled::Work;
    }
    if (postedOrStopped()) return Polled::Work;
    const Polled polled = lookAtClock(end);
    if (polled != Polled::Nothing) return polled;
    if (!cold_.crowded) return Polled::Switch;
    ++isolate_.stats_.yieldedLooks;
    sched_yield();
  }
}

// A window's look at its clock, timers, CPU and Asio: Work when a timer is
// due or Asio ran a handler, WindowOver when the window has passed (the end
// is set at the first look), else Nothing, with cold_.crowded updated.
IdleWait::Polled IdleWait::lookAtClock(SteadyPoint& end) {
  if (cold_.timers.due(*isolate_.clock_)) return Polled::Work;
  const SteadyPoint now = std::chrono::steady_clock::now();
  if (end == SteadyPoint{}) {
    end = now + cold_.idlePoll;
  } else if (now >= end) {
    cold_.windowRanOut = now;
    return Polled::WindowOver;
  }
  cold_.cpu = CpuShare::settle(cold_.cpu);
  cold_.crowded = CpuShare::crowded(cold_.cpu);
  std::size_t ran = 0;
  try {
    ran = cold_.io.poll_one();
  } catch (...) {
    ran = 1;
    isolate_.reportError(nullptr, std::current_exception());
  }
  if (ran != 0) {
    ++isolate_.stats_.ioHandlers;
    isolate_.drainMicrotasks();
    return Polled::Work;
  }
  return Polled::Nothing;
}

}  // namespace coreactor::detail
