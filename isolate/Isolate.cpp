// Over 600 lines on purpose: one class, the loop, whose passes (macrotasks,
// microtasks, timers, I/O, the idle window, sleeping) share its private state.
// The loop of one isolate. Read include/coreactor/Isolate.hpp first: it states
// the contract; this file is the mechanism. It is longer than the other
// files of the project on purpose: the loop, its queues, timers and sleep
// share the Cold state defined here, and the compiler inlines the hot path
// (a unit, a drain, a look at the pollers) only within one translation unit.
#include "coreactor/Isolate.hpp"

#include <algorithm>
#include <cstdio>
#include <optional>
#include <vector>

#include <concurrentqueue/concurrentqueue.h>
#ifdef __linux__
#include <linux/futex.h>
#include <sched.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <ctime>
#endif

#include "CpuShare.hpp"
#include "DeadlineGuard.hpp"
#include "IdlePoll.hpp"
#include "coreactor/Asio.hpp"
#include "coreactor/Dispatcher.hpp"
#include "coreactor/Error.hpp"
#include "coreactor/detail/CpuRelax.hpp"
#include "coreactor/detail/RingBuffer.hpp"

namespace coreactor {
namespace {

// See Isolate::runIo.
constexpr std::uint32_t kIoCheckEvery = 64;

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

const SteadyClock& SteadyClock::instance() noexcept {
  static const SteadyClock clock;
  return clock;
}

// Everything the hot path does not touch: timers, the cross-thread inbox, Asio.
struct Isolate::Cold {
  // ---- timers: a sorted lane and an indexed binary heap over a slab -------
  // Ordered by (deadline, seq): equal deadlines fire in arm order. Most
  // timers are armed in deadline order (every ask of one timeout, a
  // timeout per request): a timer whose deadline is not before the last
  // one in the lane joins the lane, a FIFO that is sorted by construction,
  // in O(1); any other goes to the heap, O(log n). The next timer is the
  // earlier of the lane's front and the heap's top.
  //
  // Clearing is lazy: a cleared timer stays where it is, marked dead, until
  // it reaches the front (pruneFront) or dead entries are half of all
  // entries (compact, one O(n) rebuild). A clear is O(1) and touches one
  // slot, instead of a sift through a heap of thousands of pending timeouts
  // (bench actor/ask/from-actor: 10,000 asks in flight), and at most twice
  // the live timers are held.
  struct TimerSlot {
    Clock::time_point deadline{};
    std::uint64_t seq = 0;
    Task* task = nullptr;
    std::uint32_t generation = 0;
    bool referenced = false;
    bool armed = false;
    bool dead = false;    // cleared, still in the lane or the heap
    bool inLane = false;  // in the lane, not the heap
  };
  static constexpr std::uint32_t kNoTimer = UINT32_MAX;
  static constexpr std::size_t kCompactAbove = 64;
  std::vector<TimerSlot> slots;
  std::vector<std::uint32_t> freeSlots;
  std::vector<std::uint32_t> heap;  // slot indices
  detail::RingBuffer<std::uint32_t> lane;
  Clock::time_point laneBack{};  // the deadline last appended to the lane
  std::size_t dead = 0;          // entries of the lane and the heap
  std::uint64_t nextSeq = 0;
  std::size_t referencedTimers = 0;
  // The time of the current loop pass, for coarse timers: valid only while
  // a pass runs (inPass) and once read (passNowRead).
  Clock::time_point passNow{};
  bool inPass = false;
  bool passNowRead = false;
  // Whether the earliest timer is surely not due yet, without a clock read
  // (DeadlineGuard.hpp); fed by the loop's reads of the steady clock only.
  detail::DeadlineGuard guard;
  bool steadyClock = false;
  // The clock now, and the guard told.
  Clock::time_point readClock(const Clock& clock) noexcept {
    const Clock::time_point now = clock.now();
    if (steadyClock) guard.read(now);
    return now;
  }
  // False if the earliest timer is surely not due: no need to read the clock.
  bool mayBeDue(std::uint32_t top) const noexcept {
    return top != kNoTimer && !guard.surelyBefore(slots[top].deadline);
  }

  bool before(std::uint32_t a, std::uint32_t b) const noexcept {
    const TimerSlot& x = slots[a];
    const TimerSlot& y = slots[b];
    return x.deadline < y.deadline || (x.deadline == y.deadline && x.seq < y.seq);
  }
  void siftUp(std::size_t pos) noexcept {
    const std::uint32_t slot = heap[pos];
    while (pos > 0) {
      const std::size_t parent = (pos - 1) / 2;
      if (!before(slot, heap[parent])) break;
      heap[pos] = heap[parent];
      pos = parent;
    }
    heap[pos] = slot;
  }
  void siftDown(std::size_t pos) noexcept {
    const std::uint32_t slot = heap[pos];
    const std::size_t n = heap.size();
    for (;;) {
      std::size_t child = 2 * pos + 1;
      if (child >= n) break;
      if (child + 1 < n && before(heap[child + 1], heap[child])) ++child;
      if (!before(heap[child], slot)) break;
      heap[pos] = heap[child];
      pos = child;
    }
    heap[pos] = slot;
  }
  void popHeapTop() noexcept {
    const std::uint32_t last = heap.back();
    heap.pop_back();
    if (!heap.empty()) {
      heap[0] = last;
      siftDown(0);
    }
  }

  std::size_t live() const noexcept { return heap.size() + lane.size() - dead; }

  /// Files an armed slot (deadline and seq set) into the lane or the heap.
  void file(std::uint32_t slot) {
    TimerSlot& s = slots[slot];
    if (lane.empty() || s.deadline >= laneBack) {
      lane.push(slot);
      laneBack = s.deadline;
      s.inLane = true;
      return;
    }
    s.inLane = false;
    heap.push_back(slot);
    siftUp(heap.size() - 1);
  }
  /// The earliest live timer, or kNoTimer; dead ones in front go first.
  std::uint32_t earliest() noexcept {
    pruneFront();
    if (lane.empty()) return heap.empty() ? kNoTimer : heap.front();
    if (heap.empty()) return lane.front();
    return before(lane.front(), heap.front()) ? lane.front() : heap.front();
  }
  /// Takes the earliest live timer (earliest()) out and frees its slot;
  /// returns its task.
  Task* takeEarliest(std::uint32_t slot) noexcept {
    if (slots[slot].inLane) {
      lane.pop();
    } else {
      popHeapTop();
    }
    TimerSlot& s = slots[slot];
    Task* task = s.task;
    if (s.referenced) --referencedTimers;
    s.task = nullptr;
    s.armed = false;
    ++s.generation;
    freeSlots.push_back(slot);
    return task;
  }
  /// Disarms a live timer and returns its task; the slot is freed later.
  Task* cancel(std::uint32_t slot) noexcept {
    TimerSlot& s = slots[slot];
    Task* task = s.task;
    if (s.referenced) --referencedTimers;
    s.task = nullptr;
    s.armed = false;
    s.dead = true;
    ++s.generation;
    ++dead;
    if (dead > kCompactAbove && dead * 2 > heap.size() + lane.size()) compact();
    return task;
  }
  void pruneFront() noexcept {
    while (!lane.empty() && slots[lane.front()].dead) freeDead(lane.pop());
    while (!heap.empty() && slots[heap.front()].dead) {
      const std::uint32_t slot = heap.front();
      popHeapTop();
      freeDead(slot);
    }
  }
  void compact() {
    for (std::size_t n = lane.size(); n > 0; --n) {  // keeps the lane's order
      const std::uint32_t slot = lane.pop();
      if (slots[slot].dead) {
        freeDead(slot);
      } else {
        lane.push(slot);
      }
    }
    std::size_t kept = 0;
    for (const std::uint32_t slot : heap) {
      if (slots[slot].dead) {
        freeDead(slot);
      } else {
        heap[kept++] = slot;
      }
    }
    heap.resize(kept);
    for (std::size_t pos = kept / 2; pos-- > 0;) siftDown(pos);
  }
  void freeDead(std::uint32_t slot) noexcept {
    slots[slot].dead = false;
    --dead;
    freeSlots.push_back(slot);
  }

  // ---- the inbox: tasks posted from other threads ---------------------------
  moodycamel::ConcurrentQueue<Unit> inbox;
  std::atomic<int> remoteWriters{0};  // posts between their stop check and enqueue

  // ---- sleeping and waking --------------------------------------------------
  // The loop raises `sleeping`, fences, and re-checks the inbox before it
  // blocks; a poster enqueues, fences, and wakes only a loop that sleeps
  // (one wake per sleep, via `wakePending`). Either the poster sees the flag
  // or the loop sees the task: no lost wake-up, and no syscall per post to a
  // busy loop.
  // A line of their own: every sender reads `sleeping` on every wake-up it
  // owes, and the loop writes its own fields all the time (false sharing
  // there cost a line transfer per crossing).
  //
  // Where the loop sleeps: in Asio's run_one() (its mutex and condition
  // variable, or its reactor), or, while nothing can reach the loop through
  // Asio (no one has asked for ioContext(), so no I/O object or handler can
  // exist), on `wakeSeq` with a futex: one syscall to wake, one to sleep,
  // as a raw eventfd round trip takes. Asio's condition variable costs a
  // third each time (glibc marks the mutex contended after a wait, so its
  // unlock is a futex wake that finds no one): one to two microseconds more
  // per wake-up on a VM (bench isolates/pingpong/idle).
  enum Sleep : std::uint8_t { kAwake = 0, kInAsio = 1, kOnFutex = 2 };
  alignas(64) std::atomic<std::uint8_t> sleeping{kAwake};
  std::atomic<bool> wakePending{false};
  std::atomic<std::uint32_t> wakeSeq{0};  // the futex word: bumped by each futex wake
  std::atomic<bool> ioHandedOut{false};   // ioContext() was called: sleep in Asio

  // ---- I/O --------------------------------------------------------------------
  // Concurrency hint 1: one thread runs it, while posts from others (our wake)
  // stay safe.
  alignas(64) boost::asio::io_context io{1};
  // ---- the idle poll window (isolate/IdlePoll.hpp) ----------------------------
  std::chrono::nanoseconds idlePoll{0};  // the window now; set from the options
  SteadyPoint windowRanOut{};            // when the last window ran out, before a sleep
  int cpu = detail::CpuShare::kNone;     // where the loop counts itself awake (CpuShare.hpp)
  bool crowded = false;  // another awake loop was counted there at the window's last look
  bool reactorSeen = false;
  std::uint32_t sinceIoCheck = 0;
  // ---- idle time, measured on request (IsolateHooks::measureIdle) ------------
  // Two clock reads around each wait for work, so only while someone asks
  // (an actor system's balancer): the loop's thread adds, and reads.
  std::atomic<bool> measureIdle{false};
  std::uint64_t idleNanos = 0;
  std::uint32_t ioPollEvery = 1;  // a busy loop polls the reactor every this many iterations
  std::uint32_t sinceIoPoll = 0;
  std::optional<boost::asio::executor_work_guard<boost::asio::io_context::executor_type>> work;
};

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
  cold_->steadyClock = dynamic_cast<const SteadyClock*>(clock_) != nullptr;
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
    // either the loop sees the flag or we see it asleep (waitForWork).
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

void Isolate::drainInbox() {
  Unit units[64];
  for (;;) {
    const std::size_t n = cold_->inbox.try_dequeue_bulk(units, 64);
    for (std::size_t i = 0; i < n; ++i) macrotasks_.push(units[i]);
    if (n < 64) return;
  }
}

void Isolate::runPollers() {
  for (detail::Poller* p : pollers_) {
    try {
      p->poll();
    } catch (...) {
      reportError(nullptr, std::current_exception());
    }
    drainMicrotasks();
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
      if (only->load(std::memory_order_relaxed)) lookBetweenUnits(0);
      continue;
    }
    for (std::size_t i = 0; i < unitPollers_.size(); ++i) {
      const std::atomic<bool>* flag = attention_[i];
      if (flag == nullptr || flag->load(std::memory_order_relaxed)) lookBetweenUnits(i);
    }
  }
}

void Isolate::lookBetweenUnits(std::size_t poller) noexcept {
  try {
    unitPollers_[poller]->pollBetweenUnits();
  } catch (...) {
    reportError(nullptr, std::current_exception());
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
  Cold& cold = *cold_;
  std::uint32_t slot;
  if (!cold.freeSlots.empty()) {
    slot = cold.freeSlots.back();
    cold.freeSlots.pop_back();
  } else {
    slot = static_cast<std::uint32_t>(cold.slots.size());
    cold.slots.emplace_back();
  }
  Cold::TimerSlot& s = cold.slots[slot];
  s.deadline = Clock::deadlineAfter(options.coarse ? coarseNow() : clock_->now(), delay);
  s.seq = cold.nextSeq++;
  s.task = &task;
  s.referenced = options.referenced;
  s.armed = true;
  if (options.referenced) ++cold.referencedTimers;
  cold.file(slot);
  return TimerId{slot, s.generation};
}

bool Isolate::clearTimeout(TimerId id) noexcept {
  Cold& cold = *cold_;
  if (!id.valid() || id.slot >= cold.slots.size()) return false;
  const Cold::TimerSlot& s = cold.slots[id.slot];
  if (!s.armed || s.generation != id.generation) return false;
  cold.cancel(id.slot)->discard();
  return true;
}

Clock::time_point Isolate::coarseNow() const {
  Cold& cold = *cold_;
  if (!cold.inPass) return clock_->now();
  if (!cold.passNowRead) {
    cold.passNow = clock_->now();
    cold.passNowRead = true;
  }
  return cold.passNow;
}

std::size_t Isolate::pendingTimers() const noexcept {
  return cold_->live();
}

void Isolate::runDueTimers() {
  Cold& cold = *cold_;
  if (!cold.mayBeDue(cold.earliest())) return;  // coarseNow() reads the time if asked
  const Clock::time_point now = cold.readClock(*clock_);
  cold.passNow = now;  // the pass's time, for coarse timers
  cold.passNowRead = true;
  // Timers armed while this phase runs wait for the next iteration, even with
  // a zero delay: a timer re-arming itself cannot hold the loop here.
  const std::uint64_t seqLimit = cold.nextSeq;
  for (;;) {
    const std::uint32_t top = cold.earliest();
    if (top == Cold::kNoTimer) return;
    const Cold::TimerSlot& s = cold.slots[top];
    if (s.deadline > now || s.seq >= seqLimit) return;
    const auto lag = static_cast<std::uint64_t>((now - s.deadline).count());
    stats_.timerLagSumNanos += lag;
    stats_.timerLagMaxNanos = std::max(stats_.timerLagMaxNanos, lag);
    Task* task = cold.takeEarliest(top);
    ++stats_.timersFired;
    runUnit(Unit{task, nullptr});
    drainMicrotasks();
    if (stopRequested_.load(std::memory_order_relaxed)) return;
  }
}

// ---- I/O ------------------------------------------------------------------------

void Isolate::runIo() {
  boost::asio::io_context& io = cold_->io;
  Cold& cold = *cold_;
  // An empty poll_one() costs ~40 ns (a mutex, and Asio's per-call thread
  // bookkeeping): more than a whole macrotask hop. So the loop polls every
  // iteration only once the isolate has I/O objects (Asio's reactor exists:
  // sockets, Asio timers); handlers merely posted to the io_context are
  // looked at every kIoCheckEvery iterations and whenever the loop would sleep.
  //
  // With a reactor, an empty poll is an epoll_wait system call: half a
  // microsecond on a VM, an eighth of a busy iteration's time. So a busy loop
  // whose polls come back empty backs off, polling every 2nd, 4th, then
  // every kIoPollBackoffMax-th iteration (Isolate.hpp), and polls every iteration again as
  // soon as one ran a completion. A completion waits at most that many
  // iterations of a busy loop (each bounded by the hybrid's budget); a loop
  // about to sleep always looks, in Asio's run_one.
  if (!cold.reactorSeen) {
    if (++cold.sinceIoCheck < kIoCheckEvery) return;
    cold.sinceIoCheck = 0;
    cold.reactorSeen = boost::asio::has_service<boost::asio::detail::reactor>(io);
  } else if (++cold.sinceIoPoll < cold.ioPollEvery) {
    return;
  }
  cold.sinceIoPoll = 0;
  ++stats_.ioPolls;
  for (std::size_t i = 0; i < options_.ioHandlersPerTurn; ++i) {
    std::size_t ran = 0;
    try {
      ran = io.poll_one();
    } catch (...) {
      ran = 1;  // a completion handler threw: it ran, and it is reported
      reportError(nullptr, std::current_exception());
    }
    if (ran == 0) {
      if (i == 0) cold.ioPollEvery = std::min(cold.ioPollEvery * 2, kIoPollBackoffMax);
      return;
    }
    cold.ioPollEvery = 1;
    ++stats_.ioHandlers;
    drainMicrotasks();
    if (stopRequested_.load(std::memory_order_relaxed)) return;
  }
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
    if (!pollers_.empty() && n > 1) runPollers();
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
        self.cold_->inPass = false;
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
      cold.inPass = true;
      cold.passNowRead = false;
      drainMicrotasks();  // anything queued during set-up
      if (cold.live() != 0) runDueTimers();
      if (cold.inbox.size_approx() != 0) drainInbox();
      runIo();
      if (!pollers_.empty()) runPollers();
      runMacrotasks();
      if (!macrotasks_.empty() || stopRequested_.load(std::memory_order_relaxed)) continue;
      cold.inPass = false;  // the pass's time goes stale while the loop sleeps
      const bool measure = cold.measureIdle.load(std::memory_order_relaxed);
      const SteadyPoint waitFrom = measure ? std::chrono::steady_clock::now() : SteadyPoint{};
      const bool more = waitForWork(mode);
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

// Nothing is runnable now. Sleep until a timer is due, I/O completes or another
// thread posts. Returns false when, in until-idle mode, nothing can ever come.
bool Isolate::waitForWork(Mode mode) {
  Cold& cold = *cold_;
  // A timer that is already due (a zero delay, a manual clock moved by hand)
  // is runnable work: go round again instead of sleeping.
  const std::uint32_t next = cold.earliest();  // live: it sets the sleep's deadline
  if (cold.mayBeDue(next) && cold.slots[next].deadline <= cold.readClock(*clock_)) return true;
  const bool realDeadline = next != Cold::kNoTimer && !clock_->isManual();
  const bool timersHoldUs = realDeadline && (cold.referencedTimers > 0 || timerHolds_ > 0);
  // In until-idle mode with no referenced timer, only Asio work (or a post
  // that raced in) keeps the loop alive: let Asio decide by dropping our guard.
  const bool askAsio = mode == Mode::UntilIdle && !timersHoldUs;

  for (detail::Poller* p : pollers_) p->beforeSleep();
  // The idle poll window, before the sleeping flag goes up: senders see an
  // awake loop and write no wake-up.
  if (mode == Mode::UntilStop && options_.idlePoll.count() > 0 && pollWhileIdle()) {
    ++stats_.sparedSleeps;
    return true;
  }
  // Queues a burst grew give their memory back before the loop sleeps.
  microtasks_.shrinkIfEmpty();
  macrotasks_.shrinkIfEmpty();
  // The futex only while the loop runs until stopped (until idle, Asio
  // decides when nothing is left) and Asio cannot have been given anything.
  const bool onFutex =
      kFutexSleep && mode == Mode::UntilStop && !cold.ioHandedOut.load(std::memory_order_relaxed);
  // Read before the flag goes up: a wake that bumps it after this read
  // makes the futex wait return at once.
  const std::uint32_t seen = cold.wakeSeq.load(std::memory_order_relaxed);
  for (detail::Poller* p : pollers_) p->blocking();
  // Every way out of the block below: the flag down, and the pollers told.
  const auto awake = [&] {
    cold.sleeping.store(Cold::kAwake, std::memory_order_relaxed);
    for (detail::Poller* p : pollers_) p->unblocked();
  };
  cold.wakePending.store(false, std::memory_order_relaxed);
  cold.sleeping.store(onFutex ? Cold::kOnFutex : Cold::kInAsio, std::memory_order_seq_cst);
  std::atomic_thread_fence(std::memory_order_seq_cst);
  // A timer that fell due meanwhile counts too: a manual clock moved by
  // another thread, whose wake() found the flag down, is seen here. So does
  // an ioContext() handed out meanwhile, whose wake() found the flag down.
  if (idleHasWork() || timerDue() ||
      (onFutex && cold.ioHandedOut.load(std::memory_order_relaxed))) {
    awake();
    return true;
  }
  if (askAsio) cold.work.reset();
  ++stats_.sleeps;
  cold.cpu = detail::CpuShare::leave(cold.cpu);  // asleep, it needs no CPU
  const SteadyPoint deadline = realDeadline
                                   ? SteadyPoint(std::chrono::duration_cast<SteadyPoint::duration>(
                                         cold.slots[next].deadline.time_since_epoch()))
                                   : SteadyPoint::max();
  if (onFutex) {
    sleepOnFutex(cold.wakeSeq, seen, realDeadline ? &deadline : nullptr);
    awake();
    adaptIdlePoll();
    // Counted again by the next pass, which starts at once.
    return true;  // woken, timed out or interrupted: the next pass looks
  }

  std::size_t ran = 0;
  try {
    ran = realDeadline ? cold.io.run_one_until(deadline) : cold.io.run_one();
  } catch (...) {
    ran = 1;
    reportError(nullptr, std::current_exception());
  }
  awake();
  cold.cpu = detail::CpuShare::settle(cold.cpu);  // the handler Asio ran drains below
  adaptIdlePoll();

  bool idle = false;
  if (askAsio) {
    idle = ran == 0 && cold.io.stopped() && cold.inbox.size_approx() == 0;
    cold.io.restart();
    cold.work.emplace(cold.io.get_executor());
  }
  if (ran != 0) {
    ++stats_.ioHandlers;
    drainMicrotasks();
  }
  return !idle;
}

// After a sleep that followed a window that ran out: the window for next
// time (isolate/IdlePoll.hpp). One clock read per sleep, which costs far more.
void Isolate::adaptIdlePoll() noexcept {
  Cold& cold = *cold_;
  if (cold.windowRanOut == SteadyPoint{}) return;
  const auto slept = std::chrono::steady_clock::now() - cold.windowRanOut;
  cold.windowRanOut = SteadyPoint{};
  const bool byWork = postedOrStopped() || pollersHaveWork(/*beforeSleep=*/false);
  cold.idlePoll = detail::nextIdlePoll(cold.idlePoll, options_.idlePoll, slept, byWork);
}

void Isolate::measureIdle(bool on) noexcept {
  cold_->measureIdle.store(on, std::memory_order_relaxed);
}

std::uint64_t Isolate::idleNanos() const noexcept {
  return cold_->idleNanos;
}

std::chrono::nanoseconds Isolate::idlePollWindow() const noexcept {
  return cold_->idlePoll;
}

bool Isolate::idleHasWork() const noexcept {
  return postedOrStopped() || pollersHaveWork(/*beforeSleep=*/true);
}

bool Isolate::postedOrStopped() const noexcept {
  return cold_->inbox.size_approx() != 0 || stopRequested_.load(std::memory_order_relaxed);
}

bool Isolate::pollersHaveWork(bool beforeSleep) const noexcept {
  for (const detail::Poller* p : pollers_) {
    if (beforeSleep ? p->pending() : p->ready()) return true;
  }
  return false;
}

bool Isolate::timerDue() const noexcept {
  const std::uint32_t next = cold_->earliest();
  return next != Cold::kNoTimer && cold_->slots[next].deadline <= clock_->now();
}

// The idle poll window (IsolateOptions::idlePoll): look for work, with a
// pause between looks, until the window ends. A look reads each poller's
// rings, the inbox's size and the stop flag; the clock, the timers (on any clock:
// a manual one may be moved by another thread) and Asio (handlers posted to
// the io_context, I/O) are looked at every kClockEveryLooks looks. What a
// poller has is taken at once (runPollers). On a CPU where another awake loop
// of the process is counted (CpuShare.hpp), a look yields the CPU instead of
// pausing. True: there was work.
bool Isolate::pollWhileIdle() {
  // The window's end is set at the first clock read, kClockEveryLooks looks
  // in: a clock read on entry would sit between a reply sent and the first
  // look for the next message, and most windows end well before that.
  SteadyPoint end{};
  // A window that starts where the last one found a crowd yields from its
  // first look: two loops that share a CPU hand it over at each hop, not
  // after kClockEveryLooks pauses. Either way of looking hands over to the
  // other when the count on this CPU changes.
  for (;;) {
    const Polled polled = cold_->crowded ? pollYielding(end) : pollPausing(end);
    if (polled != Polled::Switch) return polled == Polled::Work;
  }
}

Isolate::Polled Isolate::pollPausing(SteadyPoint& end) {
  for (std::uint32_t looks = 1;; ++looks) {
    // The pollers first: a message from another isolate is what a busy
    // exchange waits for, and the inbox's size walks its producers.
    if (pollersHaveWork(/*beforeSleep=*/false)) {
      // A message from another isolate: take it and run what it starts
      // right here, ahead of the pass's other phases (which found nothing
      // a moment ago), so that a reply goes out before the pass's rounds.
      runPollers();
      return Polled::Work;
    }
    if (postedOrStopped()) return Polled::Work;
    if (looks % kClockEveryLooks == 0) {
      const Polled polled = lookAtClock(end);
      if (polled != Polled::Nothing) return polled;
      if (cold_->crowded) return Polled::Switch;
    }
    detail::cpuRelax();
  }
}

// Another awake loop is counted on this CPU (CpuShare.hpp): each look gives
// it the CPU instead of pausing, and, since a yield takes far longer than a
// pause, the clock, timers, Asio and the count are looked at every look.
Isolate::Polled Isolate::pollYielding(SteadyPoint& end) {
  for (;;) {
    if (pollersHaveWork(/*beforeSleep=*/false)) {
      runPollers();
      return Polled::Work;
    }
    if (postedOrStopped()) return Polled::Work;
    const Polled polled = lookAtClock(end);
    if (polled != Polled::Nothing) return polled;
    if (!cold_->crowded) return Polled::Switch;
    ++stats_.yieldedLooks;
    sched_yield();
  }
}

// A window's look at its clock, timers, CPU and Asio: Work when a timer is
// due or Asio ran a handler, WindowOver when the window has passed (the end
// is set at the first look), else Nothing, with cold_->crowded updated.
Isolate::Polled Isolate::lookAtClock(SteadyPoint& end) {
  if (timerDue()) return Polled::Work;
  const SteadyPoint now = std::chrono::steady_clock::now();
  if (end == SteadyPoint{}) {
    end = now + cold_->idlePoll;
  } else if (now >= end) {
    cold_->windowRanOut = now;
    return Polled::WindowOver;
  }
  cold_->cpu = detail::CpuShare::settle(cold_->cpu);
  cold_->crowded = detail::CpuShare::crowded(cold_->cpu);
  std::size_t ran = 0;
  try {
    ran = cold_->io.poll_one();
  } catch (...) {
    ran = 1;
    reportError(nullptr, std::current_exception());
  }
  if (ran != 0) {
    ++stats_.ioHandlers;
    drainMicrotasks();
    return Polled::Work;
  }
  return Polled::Nothing;
}

void Isolate::finalize() noexcept {
  Cold& cold = *cold_;
  stopped_.store(true, std::memory_order_seq_cst);
  // Posts from other threads that passed their stop check are enqueueing now.
  while (cold.remoteWriters.load(std::memory_order_seq_cst) != 0) std::this_thread::yield();

  auto drop = [this](Unit unit) noexcept { discard(*unit.task); };
  while (!microtasks_.empty()) drop(microtasks_.pop());
  urgentAhead_ = 0;
  while (!macrotasks_.empty()) drop(macrotasks_.pop());
  Unit unit{};
  while (cold.inbox.try_dequeue(unit)) drop(unit);
  for (std::uint32_t t = cold.earliest(); t != Cold::kNoTimer; t = cold.earliest()) {
    drop(Unit{cold.takeEarliest(t), nullptr});
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
