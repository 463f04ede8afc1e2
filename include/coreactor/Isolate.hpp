/// @file
/// `coreactor/Isolate.hpp` — one single-threaded, JS-like event loop.
//
// An isolate is one OS thread running one loop (requirement L1). The loop owns
//   - a macrotask queue   (`post`, the setImmediate analogue),
//   - a microtask queue   (`queueMicrotask`), drained to empty after every
//                          macrotask, timer callback and I/O completion,
//                          including microtasks queued by microtasks (L3),
//   - timers              (`setTimeout`), referenced or not,
//   - a Boost.Asio io_context for I/O, run on the same thread (L2).
//
// One iteration of the loop, in order (docs/loop.md has the whole story):
//   1. timers whose deadline has passed, earliest first; equal deadlines in the
//      order they were armed; timers armed during this phase wait for the next;
//   2. the inbox: tasks posted from other threads join the macrotask queue;
//   3. I/O: ready Asio completions, at most `ioHandlersPerTurn` of them (a
//      busy loop whose looks find nothing looks less often, down to once
//      every kIoPollBackoffMax iterations);
//   3b. pollers (addPoller): the rings from other isolates of an actor
//      system, drained in batches; also looked at between macrotasks and
//      every Isolate::kPollEveryUnits units of a microtask drain, so that a message
//      from another isolate never waits behind a long microtask chain;
//   4. macrotasks: the ones queued when this phase began (a snapshot, as Node's
//      setImmediate): a macrotask posted by a macrotask runs next iteration,
//      after timers and I/O have had a look (L4);
//   5. if nothing is runnable: first, for at most `idlePoll` (a loop that
//      runs until stopped, and only if the option is set), keep looking for
//      work without sleeping, so that a message arriving soon costs no
//      wake-up; then sleep until a timer is due, I/O completes or another
//      thread posts (it never spins with no work past that bounded window).
// Every single step of 1, 3 and 4 is followed by a full microtask drain.
//
// Threads. "loop thread" is the thread running the loop; before the loop first
// runs, the thread that created the isolate counts as its loop thread (set-up).
// Calls marked *isolate-local* must be made on the loop thread; calls marked
// *any thread* are safe from everywhere. Nothing else on an isolate is touched
// by another thread (L1): other threads reach it only through the inbox.
//
// Errors. A task that throws never takes the loop down: the exception goes to
// the error sink of the dispatcher that queued the task (Dispatcher::reportError)
// or, for work queued by no dispatcher, to stderr; stats().taskErrors counts it.
//
// Stop. stop() makes the loop return after the step it is running. Work still
// queued then (macrotasks, microtasks, timers, inbox) is discarded, never run:
// each Task's dispose hook is called (heap tasks free themselves) and
// stats().discarded counts them. A stopped isolate takes no more work: post
// and friends throw ErrIsolateStopped. Nothing is dropped without a count.
#pragma once

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <functional>
#include <memory>
#include <string>
#include <thread>
#include <type_traits>
#include <utility>
#include <vector>

#include "coreactor/Clock.hpp"
#include "coreactor/Task.hpp"
#include "coreactor/detail/RingBuffer.hpp"
#include "coreactor/detail/SlottedRing.hpp"

namespace boost::asio {
class io_context;
}

namespace coreactor {

class Dispatcher;
class Isolate;

namespace detail {
struct IsolateHooks;
class SleepCensus;
class IdleWait;
class LoopIo;
struct LoopTimers;
// The isolate whose loop runs on this thread. Defined inline here, constant-
// initialised, so reading it is one TLS load with no wrapper call: the send
// path asks "is the target's isolate mine?" on every message.
inline thread_local Isolate* tCurrentIsolate = nullptr;
// What IsolateHooks::setUserData attached to it, set and cleared with it.
inline thread_local void* tCurrentUserData = nullptr;
}  // namespace detail

/// Anything callable with no arguments that is not itself a Task (those are
/// queued by reference, without a copy).
template <class F>
concept TaskCallable =
    !std::is_base_of_v<Task, std::remove_cvref_t<F>> && std::is_invocable_v<std::decay_t<F>&>;

/// How an isolate is made: its name, clock, I/O budget and thread start hook.
struct IsolateOptions {
  /// Shown in logs and error reports.
  std::string name = "isolate";
  /// Time source of the timers; nullptr means SteadyClock. Must outlive the isolate.
  const Clock* clock = nullptr;
  /// Upper bound of Asio completions run per iteration, so that a flood of I/O
  /// cannot starve the macrotask queue either.
  std::size_t ioHandlersPerTurn = 64;
  /// Runs first on the thread start() creates (pinning it to CPUs, naming it).
  /// A throw is reported and the loop runs anyway.
  std::function<void()> onThreadStart = {};
  /// How long a loop that runs until stopped (run(), start()) keeps looking
  /// for work, spinning with a pause between looks, before it sleeps once it
  /// has none: a post, a ring's message or a timer due within the window is
  /// taken without the cost of a wake-up (~10 us per side on a VM). The
  /// loop adapts it between this and 8 times this: work from another thread
  /// that wakes the loop soon after it fell asleep doubles it, a long sleep
  /// halves it (idlePollWindow()). Zero (the default): sleep at once. runUntilIdle() never spins.
  /// The isolate's constructor throws ErrInvalidOption below zero or above Isolate::kMaxIdlePoll.
  std::chrono::nanoseconds idlePoll{0};
};

/// Options of one timer (Isolate::setTimeout).
struct TimerOptions {
  /// A referenced timer keeps runUntilIdle() alive until it fires; an
  /// unreferenced one (what the scheduler uses, requirement S11) does not, but still
  /// fires if the loop is running anyway.
  bool referenced = true;
  /// A coarse timer's deadline counts from the time the loop read at the
  /// start of its current pass (read once per pass, and only if needed)
  /// instead of from a clock read of its own: it may fire up to that pass's
  /// elapsed time early. For timeouts that need no better precision (an
  /// ask's), it saves a clock read per timer. Outside a pass (set-up, a
  /// manual run's driving thread between runs) it reads the clock.
  bool coarse = false;
};

/// Names one armed timer. Stale ids (fired or cleared) are recognised and ignored.
struct TimerId {
  std::uint32_t slot = UINT32_MAX;  ///< the timer's slot in the isolate's timer table
  std::uint32_t generation = 0;     ///< the slot's generation: tells a stale id from a live one
  /// False for the default id, which names no timer.
  bool valid() const noexcept { return slot != UINT32_MAX; }
};

namespace detail {

/// A source of work the loop looks at besides its own queues: the rings
/// that bring messages from other isolates. Called on the loop thread only.
class Poller {
 public:
  virtual ~Poller() = default;
  /// Take what arrived. Once per loop iteration (after the inbox and I/O),
  /// between macrotasks, and every Isolate::kPollEveryUnits units of a microtask
  /// drain: keep it cheap when nothing came. What it queues runs in the
  /// microtask drain that follows or is in progress.
  virtual void poll() = 0;
  /// Between two microtask units of a drain (every kPollEveryUnits): a
  /// cheaper look than poll() if the poller has one. Called only while
  /// attention(), if the poller has that flag, is up.
  virtual void pollBetweenUnits() { poll(); }
  /// A flag the loop reads between units, inline and without a call,
  /// before it calls pollBetweenUnits(): up when there may be work. Null
  /// (the default): pollBetweenUnits() is called every time. Read once,
  /// when the poller is added: it must live as long as the poller.
  virtual const std::atomic<bool>* attention() const noexcept { return nullptr; }
  /// False for a poller whose work can wait for the end of a microtask
  /// drain (once per loop iteration): the loop then never looks at it
  /// between units, and a drain with no such poller costs nothing extra.
  /// Read once, when the poller is added.
  virtual bool looksBetweenUnits() const noexcept { return true; }
  /// Before the loop raises its sleeping flag: publish what must be seen
  /// by others (wake-ups owed to peers).
  virtual void beforeSleep() noexcept {}
  /// After the sleeping flag is up and fenced: true if there is work after
  /// all (the loop then goes round again instead of sleeping).
  virtual bool pending() const noexcept = 0;
  /// The loop is about to block (its idle poll window, if any, found
  /// nothing), and it has woken from that block (or did not block after
  /// all). For a poller whose work a thread of its own shares, which that
  /// thread can leave to the loop while the loop is awake.
  virtual void blocking() noexcept {}
  virtual void unblocked() noexcept {}
  /// From the idle poll window, before the sleeping flag goes up: true if
  /// poll() would find work. Looked at thousands of times a second, so it
  /// writes nothing other threads read; pending() may (it announces the
  /// coming sleep). By default, pending().
  virtual bool ready() const noexcept { return pending(); }
};

}  // namespace detail

/// One single-threaded, JS-like event loop: macrotasks, microtasks, timers and
/// Asio I/O on one thread. The file comment gives the order of one iteration
/// and which calls are isolate-local.
class Isolate {
 public:
  /// Counters of the loop since it was made (stats()).
  struct Stats {
    std::uint64_t iterations = 0;   ///< loop iterations started
    std::uint64_t macrotasks = 0;   ///< macrotasks run
    std::uint64_t microtasks = 0;   ///< microtasks run
    std::uint64_t timersFired = 0;  ///< timer callbacks run
    std::uint64_t ioHandlers = 0;   ///< Asio completions run
    /// Times a busy iteration looked at Asio (its I/O phase did not skip):
    /// with I/O objects, each is an epoll_wait; see kIoPollBackoffMax.
    std::uint64_t ioPolls = 0;
    std::uint64_t taskErrors = 0;  ///< tasks that threw
    std::uint64_t discarded = 0;   ///< tasks dropped unrun by stop (each disposed)
    std::uint64_t sleeps = 0;      ///< times the loop blocked waiting for work
    /// Times work came (a post, a crossing, I/O, a due timer, stop) while
    /// the loop spun in its idle poll window (IsolateOptions::idlePoll),
    /// before it would have slept.
    std::uint64_t sparedSleeps = 0;
    /// Looks of the idle poll window that gave the CPU to another awake
    /// loop of this process on the same CPU (sched_yield) instead of
    /// spinning past it.
    std::uint64_t yieldedLooks = 0;
    /// Loop lag: how late the timers that fired ran after their deadlines,
    /// summed, in nanoseconds (measured with the clock read the timer phase
    /// makes anyway).
    std::uint64_t timerLagSumNanos = 0;
    /// The latest any timer ran after its deadline, in nanoseconds.
    std::uint64_t timerLagMaxNanos = 0;
  };

  /// An isolate whose loop does not run yet: run(), runUntilIdle() or
  /// start() drive it. Until then the creating thread is its loop thread.
  explicit Isolate(IsolateOptions options = {});
  /// Stops the loop if it runs on its own thread, joins it, and discards
  /// whatever is still queued (counted, disposed).
  ~Isolate();
  Isolate(const Isolate&) = delete;
  Isolate& operator=(const Isolate&) = delete;

  /// The name given in the options.
  const std::string& name() const noexcept { return options_.name; }

  /// The isolate whose loop runs on the calling thread, or nullptr. Any thread.
  static Isolate* current() noexcept { return detail::tCurrentIsolate; }
  /// True on the loop thread (or, before the first run, on the creating thread). Any thread.
  bool isLoopThread() const noexcept {
    return detail::tCurrentIsolate == this || isOwnerWhileIdle();
  }

  // ---- queues -------------------------------------------------------------

  /// Queues a macrotask. Any thread: from the loop thread it is a ring push
  /// (no allocation, no lock); from another thread it goes through the inbox
  /// (lock-free MPSC queue) and wakes the loop if it sleeps.
  /// `owner` is the dispatcher a throw is reported to (nullptr: stderr).
  /// Throws ErrIsolateStopped once the isolate has stopped.
  void post(Task& task, Dispatcher* owner = nullptr);
  /// Queues a callable as a macrotask (one heap task). Any thread.
  template <TaskCallable F>
  void post(F&& f) {
    postOwned(makeTask(std::forward<F>(f)));
  }

  /// Queues a microtask. Isolate-local; a ring push, no allocation.
  /// Throws ErrNotOnIsolate from another thread, ErrIsolateStopped once stopped.
  void queueMicrotask(Task& task, Dispatcher* owner = nullptr) {
    if (!isLoopThread()) throwNotOnIsolate("queueMicrotask");
    if (stopped_.load(std::memory_order_relaxed)) throwStopped("queueMicrotask");
    microtasks_.push(Unit{&task, owner});
  }
  /// Queues a callable as a microtask (one heap task). Isolate-local; throws
  /// as the Task overload does.
  template <TaskCallable F>
  void queueMicrotask(F&& f) {
    if (!isLoopThread()) throwNotOnIsolate("queueMicrotask");
    if (stopped_.load(std::memory_order_relaxed)) throwStopped("queueMicrotask");
    microtasks_.push(Unit{&makeTask(std::forward<F>(f)), nullptr});
  }

  /// At most this many urgent units (Dispatcher::executeUrgent: turns for
  /// messages from other isolates) run in a row: other work gets at least
  /// one unit in kUrgentStreak + 1.
  static constexpr std::uint32_t kUrgentStreak = 8;

  // ---- timers -------------------------------------------------------------

  /// Runs `task` once, `delay` from now (0 = next timer phase). Isolate-local.
  /// O(1) for a timer due no earlier than the last one armed so (a timeout
  /// per request), else O(log n). Throws ErrInvalidDelay for a negative
  /// delay, ErrIsolateStopped.
  TimerId setTimeout(Clock::duration delay, Task& task, TimerOptions options = {});
  /// Runs a callable once, `delay` from now (one heap task). Isolate-local;
  /// throws as the Task overload does.
  template <TaskCallable F>
  TimerId setTimeout(Clock::duration delay, F&& f, TimerOptions options = {}) {
    checkTimerCall(delay);  // before allocating, so a refused call leaks nothing
    return armTimer(delay, makeTask(std::forward<F>(f)), options);
  }
  /// Disarms a pending timer; its task is disposed, never run. Returns false
  /// for a timer that already fired or was cleared. Isolate-local, O(1)
  /// amortised (the entry is marked and dropped later).
  bool clearTimeout(TimerId id) noexcept;
  /// Timers armed and not yet fired. Isolate-local.
  std::size_t pendingTimers() const noexcept;
  /// What a coarse timer counts from (TimerOptions::coarse): the time the
  /// current loop pass read, once, or the clock's now outside a pass.
  /// Isolate-local.
  Clock::time_point coarseNow() const;

  /// The isolate's io_context: create sockets and Asio timers on it; their
  /// completions run on the loop thread, each followed by a microtask drain.
  /// Returning the reference is thread-safe; use of it follows Asio's rules.
  /// Until it is first called, a loop that runs until stopped sleeps on a
  /// futex of its own (a cheaper wake-up); from then on it sleeps in Asio.
  boost::asio::io_context& ioContext() noexcept;

  // ---- running ------------------------------------------------------------

  /// Runs the loop on the calling thread until stop(). Then the isolate is stopped.
  /// Throws ErrIsolateRunning if the loop already runs, ErrIsolateStopped if stopped.
  void run();
  /// Runs the loop on the calling thread until it is idle: no macrotask, no
  /// microtask, no referenced timer and no outstanding Asio work. Unreferenced
  /// timers do not keep it alive. The isolate can be run again afterwards.
  /// Only from the thread that owns the loop: its creator, or the thread
  /// that ran it last (run()); ErrNotOnIsolate from any other.
  void runUntilIdle();
  /// Runs the loop (until stop) on a new thread owned by the isolate.
  void start();
  /// Asks the loop to return after the step it is running. Any thread.
  /// On a loop that is not running, the isolate stops at once (from the
  /// creating thread) or when next run.
  void stop() noexcept;
  /// Waits for the thread started by start() to finish. Any thread but the loop's.
  void join();
  /// Tasks posted from other threads and not yet taken by the loop
  /// (approximate while others post). Any thread.
  std::size_t inboxSizeApprox() const noexcept;
  /// Makes a sleeping loop take a look at its queues and clock. Any thread.
  /// Fences first, and costs a system call only when the loop sleeps.
  void wake() noexcept;
  /// True once the isolate has stopped and takes no more work. Any thread.
  bool stopped() const noexcept { return stopped_.load(std::memory_order_acquire); }

  /// The longest IsolateOptions::idlePoll an isolate takes (a bound, not
  /// advice: an actor system takes at most 100 ms).
  static constexpr std::chrono::nanoseconds kMaxIdlePoll = std::chrono::hours(24);
  /// A busy loop with I/O objects whose last look at Asio found nothing
  /// looks again after 2, then 4, then at most this many iterations (each
  /// empty look is a system call); one that ran a completion looks every
  /// iteration. A loop about to sleep always looks.
  static constexpr std::uint32_t kIoPollBackoffMax = 8;

  /// Counters, for tests and benches. Isolate-local (plain counters).
  const Stats& stats() const noexcept { return stats_; }
  /// The idle poll window the loop uses now: IsolateOptions::idlePoll, up
  /// to 8 times longer while work from other threads keeps coming soon
  /// after the loop fell asleep, back down while its sleeps are long.
  /// Isolate-local.
  std::chrono::nanoseconds idlePollWindow() const noexcept;
  /// Macrotasks queued and not yet run. Isolate-local.
  std::size_t macrotaskQueueDepth() const noexcept { return macrotasks_.size(); }
  /// Microtasks queued and not yet run. Isolate-local.
  std::size_t microtaskQueueDepth() const noexcept { return microtasks_.size(); }

 private:
  // The runtime's and the dispatchers' hooks, reached through
  // detail::IsolateHooks (below): not for users.
  friend struct detail::IsolateHooks;
  // The parts of the loop in isolate/ (not installed): the timer phase
  // (LoopTimers.hpp), the intake from Asio, pollers and the inbox
  // (LoopIo.hpp), and the wait for work (IdleWait.hpp).
  friend struct detail::LoopTimers;
  friend class detail::LoopIo;
  friend class detail::IdleWait;
  /// The dispatchers' path: isolate-local by contract and unchecked (the
  /// dispatcher checked when it was bound). Hot: one ring push.
  void queueMicrotaskFromDispatcher(Task& task, Dispatcher& owner) {
    microtasks_.push(Unit{&task, &owner});
  }
  /// The dispatchers' path for an urgent unit (Dispatcher::executeUrgent):
  /// queued ahead of the microtasks waiting, behind the urgent ones already
  /// there (first in, first out among them). Refused (false), for the
  /// caller to queue it the normal way, when this isolate has no pollers
  /// (nothing from another isolate can be urgent) or when kUrgentStreak
  /// urgent units wait ahead or ran in a row: other work gets at least one
  /// unit in kUrgentStreak + 1. Isolate-local by contract and unchecked.
  bool queueUrgentMicrotaskFromDispatcher(Task& task, Dispatcher& owner) {
    if (unitPollers_.empty() || urgentAhead_ + urgentStreak_ >= kUrgentStreak) return false;
    microtasks_.insertAt(urgentAhead_, Unit{&task, &owner});
    ++urgentAhead_;
    return true;
  }
  /// The dispatchers' path to the macrotask queue: isolate-local by contract
  /// and unchecked, one ring push.
  void postFromDispatcher(Task& task, Dispatcher& owner) { macrotasks_.push(Unit{&task, &owner}); }

  /// Where a throw from a task is sent: `owner`'s error sink, or stderr when
  /// there is no owner. Never throws. Isolate-local.
  void reportError(Dispatcher* owner, std::exception_ptr error) noexcept;

  struct Unit {
    Task* task;
    Dispatcher* owner;
  };
  struct Cold;  // timers, inbox, io_context: see isolate/IsolateCold.hpp
  enum class Mode { UntilStop, UntilIdle };

  void postOwned(Task& task);
  void drainMicrotasks() {
    if (!unitPollers_.empty()) {
      drainMicrotasksPolling();
      return;
    }
    while (!microtasks_.empty()) {
      Unit unit = microtasks_.pop();
      ++stats_.microtasks;
      runUnit(unit);
    }
  }
  void runUnit(Unit unit) noexcept {
    try {
      unit.task->run();
    } catch (...) {
      reportError(unit.owner, std::current_exception());
    }
  }
  void runMacrotasks();
  void finalize() noexcept;
  bool isOwnerWhileIdle() const noexcept;
  void checkTimerCall(Clock::duration delay) const;
  TimerId armTimer(Clock::duration delay, Task& task, TimerOptions options);
  void drainMicrotasksPolling();
  /// Microtask units run between two looks at the pollers during a drain.
  static constexpr std::uint32_t kPollEveryUnits = 1;
  void claimLoop();
  void runClaimed(Mode mode);
  [[noreturn]] void throwNotOnIsolate(const char* call) const;
  [[noreturn]] void throwStopped(const char* call) const;

  // What other threads read (wake(), post(), stop()) comes first; what the
  // loop writes with every unit starts on a cache line of its own, so that a
  // sender's look at this isolate does not take the line the loop is writing.
  IsolateOptions options_;
  const Clock* clock_;
  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> stopped_{false};
  std::atomic<bool> running_{false};
  std::atomic<std::thread::id> owner_;  // last thread to run the loop (creator before)
  std::unique_ptr<Cold> cold_;
  void* userData_ = nullptr;
  std::thread thread_;
  alignas(64) detail::SlottedRing<Unit> microtasks_;
  detail::RingBuffer<Unit> macrotasks_;
  Stats stats_;
  std::uint32_t timerHolds_ = 0;              // IsolateHooks::holdTimers()
  std::uint32_t urgentAhead_ = 0;             // urgent units at the front of microtasks_
  std::uint32_t urgentStreak_ = 0;            // urgent units run in a row, in this drain
  std::vector<detail::Poller*> pollers_;      // every poller: once per iteration, before sleep
  std::vector<detail::Poller*> unitPollers_;  // those that look between units too
  std::vector<const std::atomic<bool>*> attention_;  // [i]: unitPollers_[i]'s flag, or null
};

namespace detail {

/// The calls the dispatchers and the actor runtime make on an isolate,
/// which users have no use for: each is isolate-local by contract and
/// unchecked (its caller checked, or is the loop itself). Internal.
struct IsolateHooks {
  /// A unit of `owner` as a microtask: one ring push.
  static void queueMicrotask(Isolate& isolate, Task& task, Dispatcher& owner) {
    isolate.queueMicrotaskFromDispatcher(task, owner);
  }
  /// An urgent unit of `owner` (Dispatcher::executeUrgent), or false.
  static bool queueUrgentMicrotask(Isolate& isolate, Task& task, Dispatcher& owner) {
    return isolate.queueUrgentMicrotaskFromDispatcher(task, owner);
  }
  /// A unit of `owner` as a macrotask: one ring push.
  static void post(Isolate& isolate, Task& task, Dispatcher& owner) {
    isolate.postFromDispatcher(task, owner);
  }
  /// While held, runUntilIdle() waits for the isolate's timers, referenced
  /// or not, as it waits for referenced ones. For a component that keeps
  /// one unreferenced timer armed for work that comes and goes (an
  /// isolate's ask timeouts): it holds while it has work and releases when
  /// it has none, without touching the timer. A counter; isolate-local.
  static void holdTimers(Isolate& isolate) noexcept { ++isolate.timerHolds_; }
  /// From now on (`on`), the loop measures the time it waits for work: two
  /// clock reads around each wait. Any thread.
  static void measureIdle(Isolate& isolate, bool on) noexcept;
  /// The nanoseconds the loop has waited for work while measuring. On the
  /// loop's thread.
  static std::uint64_t idleNanos(const Isolate& isolate) noexcept;
  /// From now on, the loop's sleeps are counted in `census` with those of
  /// the other loops counted there (isolate/SleepCensus.hpp), or no more
  /// (null). Before the loop runs; the census outlives its runs.
  static void countSleeps(Isolate& isolate, SleepCensus* census) noexcept;
  /// Undoes one holdTimers().
  static void releaseTimers(Isolate& isolate) noexcept { --isolate.timerHolds_; }
  /// Adds a source of work the loop polls (the link to other isolates),
  /// kept by reference: it must outlive the loop's runs. Before the loop
  /// first runs, or on the loop thread.
  static void addPoller(Isolate& isolate, Poller& poller) {
    isolate.pollers_.push_back(&poller);
    if (poller.looksBetweenUnits()) {
      isolate.unitPollers_.push_back(&poller);
      isolate.attention_.push_back(poller.attention());
    }
  }
  /// Attaches the runtime's per-isolate state: a pointer the actor runtime
  /// finds through currentUserData(). Set before the loop runs.
  static void setUserData(Isolate& isolate, void* data) noexcept { isolate.userData_ = data; }
  /// What setUserData() attached to the isolate whose loop runs on this
  /// thread, or nullptr: one TLS load.
  static void* currentUserData() noexcept { return tCurrentUserData; }
  /// Disposes of a task that will never run (a dispatcher dropping what it
  /// held when the loop stopped), counted in stats().discarded. Isolate-local.
  static void discard(Isolate& isolate, Task& task) noexcept {
    ++isolate.stats_.discarded;
    task.discard();
  }
  /// Sends a task's throw to `owner`'s sink, or stderr.
  static void reportError(Isolate& isolate, Dispatcher* owner, std::exception_ptr error) noexcept {
    isolate.reportError(owner, std::move(error));
  }
};

}  // namespace detail

}  // namespace coreactor
