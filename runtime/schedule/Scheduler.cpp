// Over 600 lines on purpose: one class, whose add, cancel, pause, resume
// and fire all work on the same bucketed timer set.
// The scheduler of one isolate. Read runtime/schedule/Scheduler.hpp first: it states
// the structure; this file is the mechanism. It is longer than most because
// the chunks, the buckets, the expiry and the calls share one structure's
// invariants, best read together; the cron calendars are ScheduleCron.cpp.
#include "runtime/schedule/Scheduler.hpp"

#include <algorithm>
#include <bit>
#include <new>

#include "isolate/CacheTrim.hpp"
#include "runtime/SystemCore.hpp"
#include "runtime/schedule/ScheduleNames.hpp"  // mapPages

namespace coreactor::detail {

Scheduler::Scheduler(SystemCore& core, IsolateRuntime& home)
    : Task(&onTimer, &onTimerDropped), core_(core), home_(home), clock_(core.clock()) {
  heads_.fill(kNil);
}

Scheduler::~Scheduler() {
  clear();
  for (std::uint32_t c = 0; c < chunks_.size(); ++c) {
    if (chunks_[c] != nullptr) unmapChunk(c);
  }
}

std::int64_t Scheduler::now() const noexcept {
  return clock_.now().time_since_epoch().count();
}

// ---- the chunk sets -----------------------------------------------------------------

void Scheduler::ChunkSet::grow(std::size_t chunks) {
  const std::size_t words = (chunks + 63) / 64;
  if (words > bits_.size()) bits_.resize(words, 0);
  const std::size_t summaries = (words + 63) / 64;
  if (summaries > words_.size()) words_.resize(summaries, 0);
}

void Scheduler::ChunkSet::insert(std::uint32_t chunk) noexcept {
  const std::uint32_t w = chunk >> 6;
  bits_[w] |= std::uint64_t{1} << (chunk & 63);
  words_[w >> 6] |= std::uint64_t{1} << (w & 63);
}

void Scheduler::ChunkSet::erase(std::uint32_t chunk) noexcept {
  const std::uint32_t w = chunk >> 6;
  bits_[w] &= ~(std::uint64_t{1} << (chunk & 63));
  if (bits_[w] == 0) words_[w >> 6] &= ~(std::uint64_t{1} << (w & 63));
}

std::uint32_t Scheduler::ChunkSet::lowest() const noexcept {
  for (std::size_t s = 0; s < words_.size(); ++s) {
    if (words_[s] == 0) continue;
    const std::size_t w = s * 64 + static_cast<std::size_t>(std::countr_zero(words_[s]));
    return static_cast<std::uint32_t>(w * 64 +
                                      static_cast<std::size_t>(std::countr_zero(bits_[w])));
  }
  return kNoChunk;
}

std::uint32_t Scheduler::ChunkSet::highest() const noexcept {
  for (std::size_t s = words_.size(); s-- > 0;) {
    if (words_[s] == 0) continue;
    const std::size_t w = s * 64 + 63 - static_cast<std::size_t>(std::countl_zero(words_[s]));
    return static_cast<std::uint32_t>(w * 64 + 63 -
                                      static_cast<std::size_t>(std::countl_zero(bits_[w])));
  }
  return kNoChunk;
}

std::size_t Scheduler::ChunkSet::bytes() const noexcept {
  return (bits_.capacity() + words_.capacity()) * sizeof(std::uint64_t);
}

// ---- entries ----------------------------------------------------------------------

// The lowest chunk with a free slot gives it: live entries gather low, and
// the high chunks empty out to be given back. The hot path reads and writes
// the chunk's two counters; a chunk that fills up or was empty goes through
// the sets, out of line.
std::uint32_t Scheduler::allocate() {
  std::uint32_t c = lowestRoomy_;
  if (c == kNoChunk) [[unlikely]] {
    c = mapChunk();
  }
  Chunk& chunk = chunkInfo_[c];
  const std::uint32_t slot = chunk.freeHead;
  chunk.freeHead = at(slot).next;
  const std::uint32_t left = --chunk.freeCount;
  if (left - 1 >= kChunkSize - 2) [[unlikely]] {  // left is 0 or kChunkSize - 1
    if (left == kChunkSize - 1) chunkUnemptied(c);
    if (left == 0) chunkFilled(c);
  }
  return slot;
}

void Scheduler::freeSlot(std::uint32_t slot) noexcept {
  const std::uint32_t c = slot >> kChunkBits;
  Chunk& chunk = chunkInfo_[c];
  Entry& e = at(slot);
  chunk.generations = std::max(chunk.generations, e.generation);
  e.next = chunk.freeHead;
  chunk.freeHead = slot;
  const std::uint32_t free = ++chunk.freeCount;
  if (free - 2 >= kChunkSize - 2) [[unlikely]] {  // free is 1 or kChunkSize
    if (free == 1) chunkUnfilled(c);
    if (free == kChunkSize) chunkEmptied(c);  // may give the chunk back
  }
}

void Scheduler::chunkFilled(std::uint32_t c) noexcept {
  roomy_.erase(c);
  lowestRoomy_ = roomy_.lowest();
}

void Scheduler::chunkUnfilled(std::uint32_t c) noexcept {
  roomy_.insert(c);
  lowestRoomy_ = std::min(lowestRoomy_, c);
}

void Scheduler::chunkUnemptied(std::uint32_t c) noexcept {
  empty_.erase(c);
  --emptyChunks_;
}

void Scheduler::chunkEmptied(std::uint32_t c) noexcept {
  empty_.insert(c);
  ++emptyChunks_;
  chunkInfo_[c].emptiedAt = trimPeriod_;
  // Beyond the reserve, empty chunks go back at a trim (TrimTask, in the
  // header): never here, in the middle of a cancel or an expiry.
  if (emptyChunks_ > reserveChunks() && !trimArmed_) armTrim();
}

void Scheduler::armTrim() noexcept {
  try {
    trimTimer_ = home_.isolate->setTimeout(std::chrono::duration_cast<Clock::duration>(kTrimPeriod),
                                           trimTask_, TimerOptions{.referenced = false});
    trimArmed_ = true;
  } catch (...) {
    // The isolate is stopping (its teardown unmaps everything) or out of
    // memory for the timer: the chunks stay until the next chunk empties.
    trimArmed_ = false;
  }
}

void Scheduler::onTrimDropped(Task& task) noexcept {
  static_cast<TrimTask&>(task).self->trimArmed_ = false;
}

void Scheduler::onTrim(Task& task) {
  Scheduler& self = *static_cast<TrimTask&>(task).self;
  self.trimArmed_ = false;
  ++self.trimPeriod_;
  if (self.trim()) self.armTrim();
}

bool Scheduler::trim() noexcept {
  // The reserve is weighed now, against the schedules live now.
  const std::size_t reserve = reserveChunks();
  bool left = false;
  for (std::uint32_t c = static_cast<std::uint32_t>(chunks_.size()); c-- > 0;) {
    if (emptyChunks_ <= reserve) return false;
    if (chunks_[c] == nullptr || chunkInfo_[c].freeCount != kChunkSize) continue;
    // Emptied in an earlier period than the last one: empty for a whole period.
    if (trimPeriod_ - chunkInfo_[c].emptiedAt >= 2) {
      unmapChunk(c);
    } else {
      left = true;
    }
  }
  return left && emptyChunks_ > reserve;
}

// Chunks come straight from the OS (mapPages, runtime/schedule/ScheduleNames.hpp), not
// from malloc: a chunk given back leaves the process at once, where malloc
// would keep a freed 480 KiB block mapped unless it ended its heap.
std::uint32_t Scheduler::mapChunk() {
  std::uint32_t c = 0;
  if (mappedChunks_ < chunks_.size()) {
    while (chunks_[c] != nullptr) ++c;  // the lowest chunk given back
  } else {
    if (chunks_.size() >= kMaxChunks) throw std::bad_alloc();
    c = static_cast<std::uint32_t>(chunks_.size());
    // Every table first: a throw leaves a consistent hole, not a half chunk.
    roomy_.grow(c + 1);
    empty_.grow(c + 1);
    chunkInfo_.emplace_back();
    chunks_.push_back(nullptr);
    capacity_ = static_cast<std::uint32_t>(chunks_.size()) << kChunkBits;
  }
  auto* entries = static_cast<Entry*>(mapPages(kChunkBytes));
  Chunk& chunk = chunkInfo_[c];
  const std::uint32_t base = c << kChunkBits;
  for (std::uint32_t i = kChunkSize; i-- > 0;) {  // the free list, lowest slot first
    Entry* e = new (entries + i) Entry();
    e->generation = chunk.generations;
    e->next = chunk.freeHead;
    chunk.freeHead = base + i;
  }
  chunk.freeCount = kChunkSize;
  chunks_[c] = entries;
  ++mappedChunks_;
  ++chunkMaps_;
  roomy_.insert(c);
  lowestRoomy_ = std::min(lowestRoomy_, c);
  empty_.insert(c);
  ++emptyChunks_;
  return c;
}

// Every entry of an empty chunk is free and holds no message (release()
// reset it), so the entries' destructors have nothing to do and are not
// run: the pages go back without being read again.
void Scheduler::unmapChunk(std::uint32_t c) noexcept {
  Chunk& chunk = chunkInfo_[c];
  if (chunk.freeCount == kChunkSize) {
    empty_.erase(c);
    --emptyChunks_;
  }
  if (chunk.freeCount != 0) roomy_.erase(c);
  if (lowestRoomy_ == c) lowestRoomy_ = roomy_.lowest();
  chunk.freeHead = kNil;
  chunk.freeCount = 0;
  ++chunk.generations;  // above every generation a handle into it can carry
  unmapPages(chunks_[c], kChunkBytes);
  chunks_[c] = nullptr;
  --mappedChunks_;
  ++chunkUnmaps_;
}

void Scheduler::release(std::uint32_t slot) noexcept {
  Entry& e = at(slot);
  if (e.state == State::Armed) unfile(slot);
  if (e.ownerNext != kNil) {
    at(e.ownerPrev).ownerNext = e.ownerNext;
    at(e.ownerNext).ownerPrev = e.ownerPrev;
  }
  if ((e.flags & kNamed) != 0) {
    core_.scheduling().forgetScheduleName(e.nameHash,
                                          ScheduleHandle(home_.index, slot, e.generation));
  }
  if (e.state != State::Anchor && (e.flags & kPassivation) == 0) {
    live_.fetch_sub(1, std::memory_order_relaxed);
  }
  if ((e.flags & kCron) != 0) crons_.erase(slot);
  e.message.reset();
  e.target = e.sender = kNoRef;
  e.state = State::Free;
  e.flags = 0;
  e.ownerPrev = e.ownerNext = kNil;
  e.prev = kNil;
  ++e.generation;
  freeSlot(slot);  // may give the chunk back: `e` is gone after this
}

const Scheduler& Scheduler::of(SystemCore& core, std::size_t isolate) {
  return *core.runtime(isolate).scheduler;
}

Scheduler::Memory Scheduler::memory() const noexcept {
  Memory m;
  m.chunks = mappedChunks_;
  m.reservedBytes = mappedChunks_ * kChunkBytes + chunks_.capacity() * sizeof(Entry*) +
                    chunkInfo_.capacity() * sizeof(Chunk) + roomy_.bytes() + empty_.bytes() +
                    scratch_.capacity() * sizeof(Due);
  m.chunkMaps = chunkMaps_;
  m.chunkUnmaps = chunkUnmaps_;
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
  Entry& e = at(slot);
  const std::size_t b = bucketOf(e.deadline);
  e.bucket = static_cast<std::uint8_t>(b);
  e.prev = kNil;
  e.next = heads_[b];
  if (e.next != kNil) at(e.next).prev = slot;
  heads_[b] = slot;
  if (b != 0) mask_ |= std::uint64_t{1} << (b - 1);
}

void Scheduler::unfile(std::uint32_t slot) noexcept {
  Entry& e = at(slot);
  if (e.prev != kNil) {
    at(e.prev).next = e.next;
  } else {
    heads_[e.bucket] = e.next;
    if (e.next == kNil && e.bucket != 0) mask_ &= ~(std::uint64_t{1} << (e.bucket - 1));
  }
  if (e.next != kNil) at(e.next).prev = e.prev;
  e.prev = e.next = kNil;
}

void Scheduler::arm(std::uint32_t slot, std::int64_t deadline) noexcept {
  Entry& e = at(slot);
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
  std::int64_t earliest = at(head).deadline;
  for (std::uint32_t s = at(head).next; s != kNil; s = at(s).next) {
    earliest = std::min(earliest, at(s).deadline);
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
      const std::uint32_t next = at(s).next;
      at(s).next = collected;
      collected = s;
      s = next;
    }
  }
  mask_ &= reach >= 64 ? 0 : ~((std::uint64_t{1} << reach) - 1);
  last_ = t;
  while (collected != kNil) {
    const std::uint32_t s = collected;
    Entry& e = at(s);
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
    const Entry* e = find(slot);
    return e != nullptr && e->generation == generation && e->state == State::Due;
  };
  for (const Due& d : due) {
    const std::uint32_t slot = d.slot;
    const std::uint32_t generation = d.generation;
    if (!stillDue(slot, generation)) continue;
    if (!core_.running()) {
      at(slot).state = State::Armed;  // back into its bucket, for the teardown
      file(slot);
      continue;
    }
    const std::uint64_t target = at(slot).target;
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
  Entry& e = at(slot);
  const ActorRef target = core_.refOf(e.target);
  // Fixed rate, without a burst of catch-up ticks after a late wake-up: the
  // ticks the loop missed are skipped, counted, and the next one is due one
  // interval after the late one.
  const auto rearmAfter = [&] {
    std::int64_t next = deadlineAfter(e.deadline, e.interval);
    if (next <= t) {
      stats_.skippedTicks.fetch_add(static_cast<std::uint64_t>((t - e.deadline) / e.interval),
                                    std::memory_order_relaxed);
      next = deadlineAfter(t, e.interval);
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
  const std::uint32_t slot = allocate();
  Entry& e = at(slot);
  const ScheduleHandle handle(home_.index, slot, e.generation);
  if (!reference.empty()) {
    bool bound = false;
    try {
      bound = core_.scheduling().bindScheduleName(reference, handle, e.nameHash);
    } catch (...) {
      freeSlot(slot);  // never used: straight back to its chunk
      throw;
    }
    if (!bound) {
      freeSlot(slot);
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
    Entry& a = at(anchor);
    e.ownerPrev = anchor;
    e.ownerNext = a.ownerNext;
    at(a.ownerNext).ownerPrev = slot;
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
    arm(slot, deadlineAfter(t, cadence.every.count()));
  }
  return handle;
}

ScheduleHandle Scheduler::addPassivation(const ActorRef& target, Clock::duration every,
                                         std::uint32_t anchor) {
  const ScheduleHandle handle =
      add(Message(), target, ActorRef(), Cadence{every, true, nullptr}, {}, {}, anchor);
  at(handle.slot()).flags |= kPassivation;
  live_.fetch_sub(1, std::memory_order_relaxed);  // not a user's schedule
  return handle;
}

std::error_code Scheduler::apply(Op op, ScheduleHandle handle) {
  const std::uint32_t slot = handle.slot();
  Entry* found = find(slot);
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
          arm(slot, deadlineAfter(now(), e.interval != 0 ? e.interval : e.deadline));
        }
      }
      break;
  }
  return {};
}

bool Scheduler::forgetName(ScheduleHandle handle) noexcept {
  Entry* found = find(handle.slot());
  if (found == nullptr) return false;
  Entry& e = *found;
  if (e.generation != handle.generation() || (e.flags & kNamed) == 0) return false;
  e.flags &= static_cast<std::uint8_t>(~kNamed);
  return true;
}

std::uint32_t Scheduler::newAnchor() {
  const std::uint32_t slot = allocate();
  Entry& a = at(slot);
  a.state = State::Anchor;
  a.ownerPrev = a.ownerNext = slot;
  return slot;
}

void Scheduler::releaseAnchor(std::uint32_t anchor) noexcept {
  const Entry* a = find(anchor);
  if (a == nullptr || a->state != State::Anchor) return;  // cleared already
  while (at(anchor).ownerNext != anchor) release(at(anchor).ownerNext);
  at(anchor).ownerPrev = at(anchor).ownerNext = kNil;
  release(anchor);
}

void Scheduler::clear() noexcept {
  for (std::uint32_t c = 0; c < chunks_.size(); ++c) {
    // A release may give this chunk back: look again before each entry.
    for (std::uint32_t i = 0; i < kChunkSize && chunks_[c] != nullptr; ++i) {
      Entry& e = chunks_[c][i];
      if (e.state != State::Free) {
        e.ownerPrev = e.ownerNext = kNil;                   // the whole circle goes anyway
        if (e.state == State::Armed) e.state = State::Due;  // no unlink needed: buckets reset below
        release((c << kChunkBits) + i);
      }
    }
  }
  heads_.fill(kNil);
  mask_ = 0;
  if (timerArmed_) home_.isolate->clearTimeout(timer_);
  timerArmed_ = false;
  if (trimArmed_) home_.isolate->clearTimeout(trimTimer_);  // disposes: onTrimDropped
  trimArmed_ = false;
}

}  // namespace coreactor::detail
