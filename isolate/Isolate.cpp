// The loop of one isolate: its queues, the run modes, the wake-up, the
// public timer calls and the stop. Read include/coreactor/Isolate.hpp first:
// it states the contract; this file is the mechanism. The loop's parts have
// files of their own: the timer phase (LoopTimers.hpp), the intake from
// Asio, pollers and the inbox (LoopIo.hpp) and the wait for work
// (IdleWait.hpp); the state they share with the loop is Isolate::Cold
// (IsolateCold.hpp). Their definitions (the .ipp files) are compiled here,
// in one translation unit with the loop, as they were when they were
// members: GCC's inlining across a unit weighs all of its functions, and
// the hot path (a unit, a drain, a macrotask, a look at the pollers
// between units, the loop's pass) compiles to the same instructions only
// with the same neighbours.
#include "coreactor/Isolate.hpp"

#include <cstdio>
#include <vector>

#ifdef __linux__
#include <linux/futex.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>
#endif

#include "CpuShare.hpp"
#include "IdleWait.hpp"
#include "IsolateCold.hpp"
#include "LoopIo.hpp"
#include "LoopTimers.hpp"
#include "coreactor/Asio.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/Error.hpp"

namespace coreactor {
namespace {

using SteadyPoint = std::chrono::steady_clock::time_point;

}  // namespace

const SteadyClock& SteadyClock::instance() noexcept {
  static const SteadyClock clock;
  return clock;
}

Isolate::Isolate(IsolateOptions options)
    : options_(std::move(options)),
      clock_(options_.clock != nullptr ? options_.clock : &SteadyClock::instance()),
      owner_(std::this_thread::get_id()),
      cold_(std::make_unique<Cold>()) {
  if (options_.idlePoll < std::chrono::nanoseconds::zero() || options_.idlePoll > kMaxIdlePoll) {
    throwError(Error::ErrInvalidOption, "IsolateOptions::idlePoll of " +
                                            std::to_string(options_.idlePoll.count()) +
                                            " ns: the window is 0 to 24 h");
  }
  cold_->idlePoll = options_.idlePoll;
  cold_->timers.steadyClock = dynamic_cast<const SteadyClock*>(clock_) != nullptr;
}

Isolate::~Isolate() {
  stop();
  if (thread_.joinable()) thread_.join();
  finalize();
}

bool Isolate::isOwnerWhileIdle() const noexcept {
  return !running_.load(std::memory_order_acquire) &&
         owner_.load(std::memory_order_relaxed) == std::this_thread::get_id();
}

boost::asio::io_context& Isolate::ioContext() noexcept {
  Cold& cold = *cold_;
  if (!cold.ioHandedOut.load(std::memory_order_relaxed)) {
    // A loop asleep on its futex would not see what Asio is given from now
    // on: it wakes, and sleeps in Asio from then on. wake() fences, so that
    // either the loop sees the flag or we see it asleep (IdleWait::waitForWork).
    cold.ioHandedOut.store(true, std::memory_order_seq_cst);
    wake();
  }
  return cold.io;
}

void Isolate::throwNotOnIsolate(const char* call) const {
  throwError(Error::ErrNotOnIsolate,
             std::string(call) + " is isolate-local; isolate '" + name() + "' runs elsewhere");
}

void Isolate::throwStopped(const char* call) const {
  throwError(Error::ErrIsolateStopped,
             std::string(call) + " on isolate '" + name() + "', which has stopped");
}

// ---- queues ---------------------------------------------------------------------

void Isolate::post(Task& task, Dispatcher* owner) {
  if (isLoopThread()) {
    if (stopped_.load(std::memory_order_relaxed)) throwStopped("post");
    macrotasks_.push(Unit{&task, owner});
    return;
  }
  // Another thread. Announce the write before checking for stop, so that
  // finalize() (which sets stopped_ and then waits for writers) either makes
  // us throw or sees our task in the inbox and accounts for it.
  Cold& cold = *cold_;
  cold.remoteWriters.fetch_add(1, std::memory_order_seq_cst);
  if (stopped_.load(std::memory_order_seq_cst)) {
    cold.remoteWriters.fetch_sub(1, std::memory_order_release);
    throwStopped("post");
  }
  cold.inbox.enqueue(Unit{&task, owner});
  cold.remoteWriters.fetch_sub(1, std::memory_order_release);
  wake();
}

void Isolate::postOwned(Task& task) {
  try {
    post(task, nullptr);
  } catch (...) {
    task.discard();
    throw;
  }
}

std::size_t Isolate::inboxSizeApprox() const noexcept {
  return cold_->inbox.size_approx();
}

void Isolate::wake() noexcept {
  Cold& cold = *cold_;
  std::atomic_thread_fence(std::memory_order_seq_cst);
  const std::uint8_t sleeping = cold.sleeping.load(std::memory_order_relaxed);
  if (sleeping != Cold::kAwake && !cold.wakePending.exchange(true, std::memory_order_acq_rel)) {
#ifdef __linux__
    if (sleeping == Cold::kOnFutex) {
      cold.wakeSeq.fetch_add(1, std::memory_order_release);
      syscall(SYS_futex, &cold.wakeSeq, FUTEX_WAKE_PRIVATE, 1, nullptr, nullptr, 0);
      return;
    }
#endif
    try {
      boost::asio::post(cold.io, [] {});
    } catch (...) {
      // Allocation failure of the wake handler: the loop still re-checks its
      // queues at its next deadline; nothing else can be done from here.
    }
  }
}

// The drain of an isolate with pollers: a perpetual microtask chain (a
// volley on the hybrid dispatcher runs 64 units before it yields, one on the
// microtask dispatcher never does) must not hold back what other isolates
// send. Every kPollEveryUnits units the pollers take what arrived; what they
// deliver queues its units behind the chain's, in the same drain. The look
// is cheap: one load of the poller's attention flag (for the rings, their
// doorbell, transport/Link.ipp), and a call only when it is up.
void Isolate::drainMicrotasksPolling() {
  // The common case, one poller with a flag (an actor system's rings): the
  // look between units is one load of that flag, with no walk over pollers.
  const std::atomic<bool>* only = unitPollers_.size() == 1 ? attention_[0] : nullptr;
  std::uint32_t sincePoll = 0;
  urgentStreak_ = 0;  // other work (a macrotask) ran before this drain
  while (!microtasks_.empty()) {
    Unit unit = microtasks_.pop();
    if (urgentAhead_ != 0) {
      --urgentAhead_;
      ++urgentStreak_;
    } else {
      urgentStreak_ = 0;
    }
    ++stats_.microtasks;
    runUnit(unit);
    if (++sincePoll != kPollEveryUnits) continue;
    sincePoll = 0;
    if (only != nullptr) {
      if (only->load(std::memory_order_relaxed)) detail::LoopIo::lookBetweenUnits(*this, 0);
      continue;
    }
    for (std::size_t i = 0; i < unitPollers_.size(); ++i) {
      const std::atomic<bool>* flag = attention_[i];
      if (flag == nullptr || flag->load(std::memory_order_relaxed)) {
        detail::LoopIo::lookBetweenUnits(*this, i);
      }
    }
  }
}

// ---- timers ---------------------------------------------------------------------

void Isolate::checkTimerCall(Clock::duration delay) const {
  if (!isLoopThread()) throwNotOnIsolate("setTimeout");
  if (stopped_.load(std::memory_order_relaxed)) throwStopped("setTimeout");
  if (delay < Clock::duration::zero()) {
    throwError(Error::ErrInvalidDelay,
               "setTimeout with a delay of " + std::to_string(delay.count()) + " ns");
  }
}

TimerId Isolate::setTimeout(Clock::duration delay, Task& task, TimerOptions options) {
  checkTimerCall(delay);
  return armTimer(delay, task, options);
}

TimerId Isolate::armTimer(Clock::duration delay, Task& task, TimerOptions options) {
  detail::LoopTimers& timers = cold_->timers;
  std::uint32_t slot;
  if (!timers.freeSlots.empty()) {
    slot = timers.freeSlots.back();
    timers.freeSlots.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(timers.slots.size());
    timers.slots.emplace_back();
  }
  detail::LoopTimers::TimerSlot& s = timers.slots[slot];
  s.deadline = Clock::deadlineAfter(options.coarse ? coarseNow() : clock_->now(), delay);
  s.seq = timers.nextSeq++;
  s.task = &task;
  s.referenced = options.referenced;
  s.armed = true;
  if (options.referenced) ++timers.referencedTimers;
  timers.file(slot);
  return TimerId{slot, s.generation};
}

bool Isolate::clearTimeout(TimerId id) noexcept {
  detail::LoopTimers& timers = cold_->timers;
  if (!id.valid() || id.slot >= timers.slots.size()) return false;
  const detail::LoopTimers::TimerSlot& s = timers.slots[id.slot];
  if (!s.armed || s.generation != id.generation) return false;
  timers.cancel(id.slot)->discard();
  return true;
}

Clock::time_point Isolate::coarseNow() const {
  detail::LoopTimers& timers = cold_->timers;
  if (!timers.inPass) return clock_->now();
  if (!timers.passNowRead) {
    timers.passNow = clock_->now();
    timers.passNowRead = true;
  }
  return timers.passNow;
}

std::size_t Isolate::pendingTimers() const noexcept {
  return cold_->timers.live();
}

// ---- macrotasks -----------------------------------------------------------------

void Isolate::runMacrotasks() {
  // The snapshot: what was queued when the phase began. Later posts wait for
  // the next iteration, after timers and I/O (L4).
  for (std::size_t n = macrotasks_.size(); n > 0; --n) {
    Unit unit = macrotasks_.pop();
    ++stats_.macrotasks;
    runUnit(unit);
    drainMicrotasks();
    if (stopRequested_.load(std::memory_order_relaxed)) return;
    // A busy loop (a hybrid dispatcher's pump is one macrotask of up to 64
    // turns) looks at its pollers between macrotasks too, not only once per
    // iteration: a message from another isolate waits one macrotask at most.
    if (!pollers_.empty() && n > 1) detail::LoopIo::runPollers(*this);
  }
}

// ---- running --------------------------------------------------------------------

void Isolate::claimLoop() {
  if (stopped_.load(std::memory_order_acquire)) throwStopped("run");
  if (detail::tCurrentIsolate != nullptr) {
    throwError(Error::ErrIsolateRunning, "a loop already runs on this thread (isolate '" +
                                             detail::tCurrentIsolate->name() +
                                             "'); isolates do not nest");
  }
  if (running_.exchange(true, std::memory_order_acq_rel)) {
    throwError(Error::ErrIsolateRunning, "isolate '" + name() + "' is already running");
  }
}

void Isolate::run() {
  claimLoop();
  runClaimed(Mode::UntilStop);
}

void Isolate::runUntilIdle() {
  // Stepping the loop is for the thread that owns it (its creator, or the
  // thread that ran it last): another thread would race the owner's
  // isolate-local calls, which it makes without a lock between steps.
  if (owner_.load(std::memory_order_relaxed) != std::this_thread::get_id()) {
    throwError(Error::ErrNotOnIsolate, "runUntilIdle of isolate '" + name() +
                                           "' from a thread that does not own it (its creator, "
                                           "or the thread that ran it last)");
  }
  claimLoop();
  runClaimed(Mode::UntilIdle);
}

void Isolate::start() {
  claimLoop();
  try {
    thread_ = std::thread([this] {
#ifdef __linux__
      // The kernel's default timer slack (50 us) would make every timed
      // sleep of the loop that much late (bench schedule/lateness/idle).
      prctl(PR_SET_TIMERSLACK, 1UL, 0UL, 0UL, 0UL);
#endif
      if (options_.onThreadStart) {
        try {
          options_.onThreadStart();
        } catch (...) {
          reportError(nullptr, std::current_exception());
        }
      }
      runClaimed(Mode::UntilStop);
    });
  } catch (...) {
    running_.store(false, std::memory_order_release);
    throw;
  }
}

void Isolate::join() {
  if (thread_.joinable()) thread_.join();
}

void Isolate::stop() noexcept {
  stopRequested_.store(true, std::memory_order_seq_cst);
  if (!running_.load(std::memory_order_acquire) &&
      owner_.load(std::memory_order_relaxed) == std::this_thread::get_id()) {
    finalize();  // not running, and we own it: stop now
    return;
  }
  wake();
}

void Isolate::runClaimed(Mode mode) {
  {
    owner_.store(std::this_thread::get_id(), std::memory_order_relaxed);
    detail::tCurrentIsolate = this;
    detail::tCurrentUserData = userData_;
    Cold& cold = *cold_;
    cold.io.restart();
    cold.work.emplace(cold.io.get_executor());
    cold.reactorSeen = boost::asio::has_service<boost::asio::detail::reactor>(cold.io);
    struct Leave {
      Isolate& self;
      ~Leave() {
        self.cold_->cpu = detail::CpuShare::leave(self.cold_->cpu);
        self.cold_->timers.inPass = false;
        self.cold_->work.reset();
        detail::tCurrentIsolate = nullptr;
        detail::tCurrentUserData = nullptr;
        self.running_.store(false, std::memory_order_release);
      }
    } leave{*this};

    for (;;) {
      if (stopRequested_.load(std::memory_order_relaxed)) break;
      ++stats_.iterations;
      // Counted where it runs now (a load of the kernel's rseq area): a loop
      // moved to another CPU leaves no stale count behind for longer than
      // an iteration, which would make a loop there yield for nothing.
      cold.cpu = detail::CpuShare::settle(cold.cpu);
      cold.timers.inPass = true;
      cold.timers.passNowRead = false;
      drainMicrotasks();  // anything queued during set-up
      if (cold.timers.live() != 0) detail::LoopTimers::runDue(*this);
      if (cold.inbox.size_approx() != 0) detail::LoopIo::drainInbox(*this);
      detail::LoopIo::runIo(*this);
      if (!pollers_.empty()) detail::LoopIo::runPollers(*this);
      runMacrotasks();
      if (!macrotasks_.empty() || stopRequested_.load(std::memory_order_relaxed)) continue;
      cold.timers.inPass = false;  // the pass's time goes stale while the loop sleeps
      const bool measure = cold.measureIdle.load(std::memory_order_relaxed);
      const SteadyPoint waitFrom = measure ? std::chrono::steady_clock::now() : SteadyPoint{};
      const bool more = detail::IdleWait::waitForWork(*this, mode);
      if (measure) [[unlikely]] {
        cold.idleNanos +=
            static_cast<std::uint64_t>(std::chrono::duration_cast<std::chrono::nanoseconds>(
                                           std::chrono::steady_clock::now() - waitFrom)
                                           .count());
      }
      if (!more) break;
    }
  }
  if (stopRequested_.load(std::memory_order_relaxed)) finalize();
}

std::chrono::nanoseconds Isolate::idlePollWindow() const noexcept {
  return cold_->idlePoll;
}

void Isolate::finalize() noexcept {
  Cold& cold = *cold_;
  stopped_.store(true, std::memory_order_seq_cst);
  // Posts from other threads that passed their stop check are enqueueing now.
  while (cold.remoteWriters.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();

  auto drop = [this](Unit unit) noexcept { detail::IsolateHooks::discard(*this, *unit.task); };
  while (!microtasks_.empty()) drop(microtasks_.pop());
  urgentAhead_ = 0;
  while (!macrotasks_.empty()) drop(macrotasks_.pop());
  Unit unit{};
  while (cold.inbox.try_dequeue(unit)) drop(unit);
  detail::LoopTimers& timers = cold.timers;
  for (std::uint32_t t = timers.earliest(); t != detail::LoopTimers::kNoTimer;
       t = timers.earliest()) {
    drop(Unit{timers.takeEarliest(t), nullptr});
  }
}

// ---- errors ---------------------------------------------------------------------

void Isolate::reportError(Dispatcher* owner, std::exception_ptr error) noexcept {
  ++stats_.taskErrors;
  if (owner != nullptr) {
    owner->reportError(std::move(error));
    return;
  }
  std::fprintf(stderr, "[coreactor] isolate '%s': a task threw: %s\n", name().c_str(),
               describe(error).c_str());
}

}  // namespace coreactor

// The loop's parts, compiled with the loop (see the top of this file).
#include "IdleWait.ipp"
#include "LoopIo.ipp"
#include "LoopTimers.ipp"
