// The scheduler of one isolate. Read runtime/schedule/Scheduler.hpp first: it states
// the structure; this file is the mechanism. The buckets, the expiry and the
// calls share one structure's invariants, best read together; the chunks the
// entries live in are ScheduleEntries.cpp, the cron calendars ScheduleCron.cpp.
#include "runtime/schedule/Scheduler.hpp"

#include <algorithm>
#include <bit>

#include "runtime/SystemCore.hpp"

namespace coreactor::detail {

Scheduler::Scheduler(SystemCore& core, IsolateRuntime& home)
    : Task(&onTimer, &onTimerDropped), core_(core), home_(home), clock_(core.clock()) {
  heads_.fill(kNil);
}

Scheduler::~Scheduler() {
  clear();  // then entries_ gives every chunk back
}

std::int64_t Scheduler::now() const noexcept {
  return clock_.now().time_since_epoch().count();
}

// ---- entries ----------------------------------------------------------------------

void Scheduler::release(std::uint32_t slot) noexcept {
  Entry& e = entries_.at(slot);
  if (e.state == State::Armed) unfile(slot);
  if (e.ownerNext != kNil) {
    entries_.at(e.ownerPrev).ownerNext = e.ownerNext;
    entries_.at(e.ownerNext).ownerPrev = e.ownerPrev;
  }
  if ((e.flags & kNamed) != 0) {
    core_.scheduling().forgetScheduleName(e.nameHash,
                                          ScheduleHandle(home_.index, slot, e.generation));
  }
  if (e.state != State::Anchor && (e.flags & kPassivation) == 0) {
    live_.fetch_sub(1, std::memory_order_relaxed);
  }
  if ((e.flags & kCron) != 0) cron_.erase(slot);
  e.message.reset();
  e.target = e.sender = kNoRef;
  e.state = State::Free;
  e.flags = 0;
  e.ownerPrev = e.ownerNext = kNil;
  e.prev = kNil;
  ++e.generation;
  entries_.freeSlot(slot);  // may give the chunk back: `e` is gone after this
}

const Scheduler& Scheduler::of(SystemCore& core, std::size_t isolate) {
  return *core.runtime(isolate).scheduler;
}

Scheduler::Memory Scheduler::memory() const noexcept {
  Memory m = entries_.memory();
  m.reservedBytes += scratch_.capacity() * sizeof(Due);
  return m;
}

// ---- buckets ----------------------------------------------------------------------

// Deadlines are never negative (the clock counts from its epoch, and they
// saturate at the timeline's end), so the highest differing bit of two of
// them is at most bit 62: a deadline at the end lands in bucket 63 at most.
std::size_t Scheduler::bucketOf(std::int64_t deadline) const noexcept {
  if (deadline <= last_) return 0;
  return 64 - static_cast<std::size_t>(std::countl_zero(static_cast<std::uint64_t>(deadline) ^
                                                        static_cast<std::uint64_t>(last_)));
}

void Scheduler::file(std::uint32_t slot) noexcept {
  Entry& e = entries_.at(slot);
  const std::size_t b = bucketOf(e.deadline);
  e.bucket = static_cast<std::uint8_t>(b);
  e.prev = kNil;
  e.next = heads_[b];
  if (e.next != kNil) entries_.at(e.next).prev = slot;
  heads_[b] = slot;
  if (b != 0) mask_ |= std::uint64_t{1} << (b - 1);
}

void Scheduler::unfile(std::uint32_t slot) noexcept {
  Entry& e = entries_.at(slot);
  if (e.prev != kNil) {
    entries_.at(e.prev).next = e.next;
  } else {
    heads_[e.bucket] = e.next;
    if (e.next == kNil && e.bucket != 0) mask_ &= ~(std::uint64_t{1} << (e.bucket - 1));
  }
  if (e.next != kNil) entries_.at(e.next).prev = e.prev;
  e.prev = e.next = kNil;
}

void Scheduler::arm(std::uint32_t slot, std::int64_t deadline) noexcept {
  Entry& e = entries_.at(slot);
  e.deadline = deadline;
  e.seq = nextSeq_++;
  e.state = State::Armed;
  file(slot);
  if (!timerArmed_ || deadline < timerDeadline_) armTimer(deadline);
}

// ---- the one timer ----------------------------------------------------------------

void Scheduler::armTimer(std::int64_t deadline) noexcept {
  Isolate& isolate = *home_.isolate;
  if (timerArmed_) isolate.clearTimeout(timer_);  // disposes: onTimerDropped
  try {
    // No overflow: both are on the timeline, deadline <= its end.
    const std::int64_t delay = std::max<std::int64_t>(0, deadline - now());
    timer_ = isolate.setTimeout(Clock::duration(delay), *this, TimerOptions{.referenced = false});
    timerArmed_ = true;
    timerDeadline_ = deadline;
  } catch (const std::system_error&) {
    // The isolate is stopping: the system's teardown ends every schedule.
    timerArmed_ = false;
  }
}

void Scheduler::onTimerDropped(Task& task) noexcept {
  static_cast<Scheduler&>(task).timerArmed_ = false;
}

void Scheduler::onTimer(Task& task) {
  auto& self = static_cast<Scheduler&>(task);
  self.timerArmed_ = false;
  self.expire();
}

// The earliest deadline is in the lowest non-empty bucket: every bucket
// below another holds only earlier deadlines.
void Scheduler::rearm() noexcept {
  std::uint32_t head = heads_[0];
  if (head == kNil && mask_ != 0)
    head = heads_[static_cast<std::size_t>(std::countr_zero(mask_)) + 1];
  if (head == kNil) return;  // nothing pending; a timer still armed will find nothing
  std::int64_t earliest = entries_.at(head).deadline;
  for (std::uint32_t s = entries_.at(head).next; s != kNil; s = entries_.at(s).next) {
    earliest = std::min(earliest, entries_.at(s).deadline);
  }
  if (!timerArmed_ || earliest != timerDeadline_) armTimer(earliest);
}

void Scheduler::expire() {
  ++stats_.expiries;
  // A stopping system fires nothing more (S5). The entries stay until the
  // system's teardown clears them: actors still stopping release their own.
  if (!core_.running()) return;
  std::int64_t t = std::max(now(), last_);
  // Empty every bucket that `t` reaches (all of them up to t's own), then
  // re-file relative to t what is not due yet.
  const std::size_t reach = bucketOf(t);
  std::vector<Due> due;
  due.swap(scratch_);
  due.clear();
  std::uint32_t collected = kNil;  // a list through `next`
  for (std::size_t b = 0; b <= reach; ++b) {
    std::uint32_t s = heads_[b];
    heads_[b] = kNil;
    while (s != kNil) {
      const std::uint32_t next = entries_.at(s).next;
      entries_.at(s).next = collected;
      collected = s;
      s = next;
    }
  }
  mask_ &= reach >= 64 ? 0 : ~((std::uint64_t{1} << reach) - 1);
  last_ = t;
  while (collected != kNil) {
    const std::uint32_t s = collected;
    Entry& e = entries_.at(s);
    collected = e.next;
    if (e.deadline <= t) {
      e.state = State::Due;
      e.prev = e.next = kNil;
      due.push_back(Due{e.deadline, e.seq, s, e.generation});
    } else {
      file(s);
    }
  }
  // Sorted on keys copied out of the entries: a million due entries sort
  // without a cache miss per comparison.
  std::sort(due.begin(), due.end(), [](const Due& x, const Due& y) {
    return x.deadline < y.deadline || (x.deadline == y.deadline && x.seq < y.seq);
  });
  // A tick may run a handler at once (a calling-thread dispatcher) that
  // cancels or pauses what is due next, and a cancel may give its chunk
  // back: only what is still there and still due fires.
  const auto stillDue = [this](std::uint32_t slot, std::uint32_t generation) {
    const Entry* e = entries_.find(slot);
    return e != nullptr && e->generation == generation && e->state == State::Due;
  };
  for (const Due& d : due) {
    const std::uint32_t slot = d.slot;
    const std::uint32_t generation = d.generation;
    if (!stillDue(slot, generation)) continue;
    if (!core_.running()) {
      entries_.at(slot).state = State::Armed;  // back into its bucket, for the teardown
      file(slot);
      continue;
    }
    const std::uint64_t target = entries_.at(slot).target;
    try {
      fire(slot, t);
    } catch (...) {
      // One failed tick (a throwing copy or send) must not strand the rest.
      core_.metrics().reportDispatcherError("scheduler", std::current_exception(),
                                            core_.refOf(target));
      if (stillDue(slot, generation)) release(slot);
    }
  }
  // A burst of due schedules leaves the scratch large: it goes once a later
  // expiry uses under a quarter of it.
  const std::size_t fired = due.size();
  due.clear();
  if (due.capacity() > kScratchKept && fired < due.capacity() / 4) std::vector<Due>().swap(due);
  scratch_.swap(due);
  if (core_.running()) rearm();
}

void Scheduler::fire(std::uint32_t slot, std::int64_t t) {
  Entry& e = entries_.at(slot);
  const ActorRef target = core_.refOf(e.target);
  // Fixed rate, without a burst of catch-up ticks after a late wake-up: the
  // ticks the loop missed are skipped, counted, and the next one is due one
  // interval after the late one.
  const auto rearmAfter = [&] {
    std::int64_t next = scheduleDeadlineAfter(e.deadline, e.interval);
    if (next <= t) {
      stats_.skippedTicks.fetch_add(static_cast<std::uint64_t>((t - e.deadline) / e.interval),
                                    std::memory_order_relaxed);
      next = scheduleDeadlineAfter(t, e.interval);
    }
    arm(slot, next);
  };
  if ((e.flags & kCron) != 0) {
    if (!cronFires(slot, t)) return;  // not yet by the wall clock: armed again
  }
  if ((e.flags & kPassivation) != 0) {
    if (core_.scheduling().passivationCheck(target)) {
      rearmAfter();
    } else {
      release(slot);
    }
    return;
  }
  Envelope envelope{Message(), core_.refOf(e.sender)};
  if (e.interval == 0 && (e.flags & kCron) == 0) {
    envelope.message = std::move(e.message);
    release(slot);
  } else {
    // S7: a tick to a fully stopped target is a dead letter, and the last.
    // An actor of another rank cannot be looked at from here: its schedule
    // runs until cancelled, and ticks after its stop are dead letters there.
    const bool alive = core_.scheduling().mayBeAlive(target);
    envelope.message = e.message.clone();  // a throw ends the schedule (expire)
    if (!alive) {
      release(slot);
    } else if ((e.flags & kCron) == 0) {
      rearmAfter();
    }  // a cron entry is armed for its next firing already (cronFires)
  }
  if (StrictTick* strict = envelope.message.get<StrictTick>()) {
    strict->sentAt = strict->epoch->load(std::memory_order_relaxed);
  }
  stats_.ticks.fetch_add(1, std::memory_order_relaxed);
  try {
    core_.send(target, std::move(envelope.message), envelope.sender);
  } catch (const std::system_error& error) {
    // A full bounded mailbox with the Fail policy: the tick is already a dead letter.
    if (error.code() != Error::ErrMailboxFull) throw;
  }
}

// ---- the calls ----------------------------------------------------------------------

ScheduleHandle Scheduler::add(Message&& message, const ActorRef& target, const ActorRef& sender,
                              const Cadence& cadence, const TimeZone& zone,
                              const std::string& reference, std::uint32_t anchor) {
  const std::uint32_t slot = entries_.allocate();
  Entry& e = entries_.at(slot);
  const ScheduleHandle handle(home_.index, slot, e.generation);
  if (!reference.empty()) {
    bool bound = false;
    try {
      bound = core_.scheduling().bindScheduleName(reference, handle, e.nameHash);
    } catch (...) {
      entries_.freeSlot(slot);  // never used: straight back to its chunk
      throw;
    }
    if (!bound) {
      entries_.freeSlot(slot);
      return ScheduleHandle();
    }
    e.flags = kNamed;
  }
  live_.fetch_add(1, std::memory_order_relaxed);
  e.message = std::move(message);
  e.target = target.id();
  e.sender = SystemCore::idOf(sender);
  e.interval = cadence.repeat && cadence.cron == nullptr ? cadence.every.count() : 0;
  if (anchor != kNil) {
    Entry& a = entries_.at(anchor);
    e.ownerPrev = anchor;
    e.ownerNext = a.ownerNext;
    entries_.at(a.ownerNext).ownerPrev = slot;
    a.ownerNext = slot;
  }
  const std::int64_t t = now();
  if (last_ == 0) last_ = t;
  if (cadence.cron != nullptr) {
    try {
      armCron(slot, cadence, zone);
    } catch (...) {
      release(slot);  // the entry is complete: release() undoes all of it
      throw;
    }
  } else {
    arm(slot, scheduleDeadlineAfter(t, cadence.every.count()));
  }
  return handle;
}

ScheduleHandle Scheduler::addPassivation(const ActorRef& target, Clock::duration every,
                                         std::uint32_t anchor) {
  const ScheduleHandle handle =
      add(Message(), target, ActorRef(), Cadence{every, true, nullptr}, {}, {}, anchor);
  entries_.at(handle.slot()).flags |= kPassivation;
  live_.fetch_sub(1, std::memory_order_relaxed);  // not a user's schedule
  return handle;
}

std::error_code Scheduler::apply(Op op, ScheduleHandle handle) {
  const std::uint32_t slot = handle.slot();
  Entry* found = entries_.find(slot);
  if (found == nullptr) return make_error_code(Error::ErrScheduleNotFound);
  Entry& e = *found;
  if (e.generation != handle.generation() || e.state == State::Free || e.state == State::Anchor ||
      (e.flags & kPassivation) != 0) {
    return make_error_code(Error::ErrScheduleNotFound);
  }
  if (op != Op::Resume && e.state != State::Paused) {
    // A strict schedule's ticks still in flight become stale (the epoch is
    // moved before the call completes).
    if (StrictTick* strict = e.message.get<StrictTick>()) {
      strict->epoch->fetch_add(1, std::memory_order_release);
    }
  }
  switch (op) {
    case Op::Cancel:
      release(slot);
      break;
    case Op::Pause:
      if (e.state == State::Armed || e.state == State::Due) {
        if (e.state == State::Armed) unfile(slot);
        // The delay left (a saturated deadline keeps a delay that saturates again on resume).
        e.deadline = std::max<std::int64_t>(0, e.deadline - now());
        e.state = State::Paused;
      }
      break;
    case Op::Resume:
      // S4: a one-shot keeps the delay it had left; a repeating schedule
      // fires one full interval after the resume.
      if (e.state == State::Paused) {
        if ((e.flags & kCron) != 0) {
          resumeCron(slot);
        } else {
          arm(slot, scheduleDeadlineAfter(now(), e.interval != 0 ? e.interval : e.deadline));
        }
      }
      break;
  }
  return {};
}

bool Scheduler::forgetName(ScheduleHandle handle) noexcept {
  Entry* found = entries_.find(handle.slot());
  if (found == nullptr) return false;
  Entry& e = *found;
  if (e.generation != handle.generation() || (e.flags & kNamed) == 0) return false;
  e.flags &= static_cast<std::uint8_t>(~kNamed);
  return true;
}

std::uint32_t Scheduler::newAnchor() {
  const std::uint32_t slot = entries_.allocate();
  Entry& a = entries_.at(slot);
  a.state = State::Anchor;
  a.ownerPrev = a.ownerNext = slot;
  return slot;
}

void Scheduler::releaseAnchor(std::uint32_t anchor) noexcept {
  const Entry* a = entries_.find(anchor);
  if (a == nullptr || a->state != State::Anchor) return;  // cleared already
  while (entries_.at(anchor).ownerNext != anchor) release(entries_.at(anchor).ownerNext);
  entries_.at(anchor).ownerPrev = entries_.at(anchor).ownerNext = kNil;
  release(anchor);
}

void Scheduler::clear() noexcept {
  // A release may give its chunk back: forEachUsed looks again before each entry.
  entries_.forEachUsed([this](std::uint32_t slot) noexcept {
    Entry& e = entries_.at(slot);
    e.ownerPrev = e.ownerNext = kNil;                   // the whole circle goes anyway
    if (e.state == State::Armed) e.state = State::Due;  // no unlink needed: buckets reset below
    release(slot);
  });
  heads_.fill(kNil);
  mask_ = 0;
  if (timerArmed_) home_.isolate->clearTimeout(timer_);
  timerArmed_ = false;
  entries_.stopTrim();
}

}  // namespace coreactor::detail
