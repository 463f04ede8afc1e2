// The scheduler of one isolate (SPEC S1-S11): every schedule the isolate
// holds, in one deadline-ordered structure behind one unreferenced isolate
// timer. Everything here is isolate-local; SystemCore routes calls from
// elsewhere to the holding isolate (runtime/SystemCore.cpp).
//
// The structure is a bucketed timer set (the design Seastar uses): bucket i
// holds the schedules whose deadline first differs from `last_` (the time of
// the last expiry) at bit i-1; bucket 0 holds those already due. Insert and
// cancel are O(1) — a push onto, or an unlink from, an intrusive list — and
// neither reads anything but the entry and its neighbours, so a million
// pending schedules stay cheap. An expiry empties the buckets the current
// time reaches, fires what is due and re-files the rest into lower buckets; a
// schedule moves at most 64 times in its life, and usually a few. What is due
// in one expiry fires in (deadline, arm order) order: equal deadlines fire in
// the order they were armed.
//
// Deadlines saturate: a delay or an interval that would carry a deadline past
// the end of the clock's timeline (nanoseconds::max(), or a few centuries on
// a clock counting from boot) puts it at the end (Clock::deadlineAfter), where
// it never comes due. It never wraps into the past, and it never holds the
// one timer away from a nearer deadline.
//
// Entries live in chunks of kChunkSize (they never move) and are named by a
// slot and a generation (ScheduleHandle), so a stale handle finds nothing.
// One entry is 120 bytes with its message. A new entry takes a free slot of
// the lowest chunk that has one, so live entries gather in the low chunks
// and the high ones empty out as schedules end; an emptied chunk goes back
// to the OS once more chunks stand empty than the reserve allows (one, plus
// one per 16 chunks' worth of live entries), so that a count swinging around
// one size neither maps nor unmaps a chunk per swing. A chunk mapped again
// starts its slots' generations above any they had, so a handle from before
// never matches a schedule made after. Making or ending a schedule stays
// O(1) and allocation-free while no chunk is mapped or unmapped: a chunk's
// counters, and a few word reads of two small bitmaps when a chunk fills up
// or empties. Mapping or unmapping a chunk is a system call and 120 pages,
// once per 4,096 schedules at most (docs/scheduling.md, "Memory").
//
// Ownership (S6): an actor that schedules through its context gets an
// anchor entry; its schedules form a circle through the anchor, and the
// actor's full stop ends the whole circle (releaseAnchor).
#pragma once

#include <array>
#include <atomic>
#include <chrono>
#include <cstdint>
#include <memory>
#include <string>
#include <system_error>
#include <unordered_map>
#include <utility>
#include <vector>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Clock.hpp"
#include "coreactor/Cron.hpp"
#include "coreactor/Isolate.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/Schedule.hpp"
#include "coreactor/Task.hpp"

namespace coreactor::detail {

class SystemCore;
struct IsolateRuntime;

/// The tick of a strict-cancel schedule (ScheduleOptions::withStrictCancel):
/// the user's message with the schedule's epoch when it was sent. A cancel or
/// a pause moves the epoch on; the receiving cell drops a tick whose epoch is
/// behind (ActorCell::invoke).
struct StrictTick {
  std::shared_ptr<std::atomic<std::uint32_t>> epoch;
  std::uint32_t sentAt = 0;
  Message message;

  StrictTick(std::shared_ptr<std::atomic<std::uint32_t>> e, Message m)
      : epoch(std::move(e)), message(std::move(m)) {}
  StrictTick(StrictTick&&) noexcept = default;
  StrictTick(const StrictTick& other)
      : epoch(other.epoch), sentAt(other.sentAt), message(other.message.clone()) {}
  bool stale() const noexcept { return epoch->load(std::memory_order_acquire) != sentAt; }
};
template <>
inline constexpr bool kHandledByCell<StrictTick> = true;

class Scheduler final : public Task {
 public:
  static constexpr std::uint32_t kNil = 0xFFFFFFFF;
  enum class Op : std::uint8_t { Cancel, Pause, Resume };

  struct Stats {
    std::atomic<std::uint64_t> ticks{0};  ///< messages sent by schedules. Any thread.
    std::uint64_t expiries = 0;           ///< timer callbacks
    /// Repeating ticks not sent because the loop was late. Any thread.
    std::atomic<std::uint64_t> skippedTicks{0};
  };

  Scheduler(SystemCore& core, IsolateRuntime& home);
  ~Scheduler();
  Scheduler(const Scheduler&) = delete;
  Scheduler& operator=(const Scheduler&) = delete;

  /// Makes a schedule: the first tick `every` from now, then every `every`
  /// if `repeat`; or, for a cron cadence, at each time its expression names
  /// in `zone`. `reference` is to be bound in the system
  /// namespace when not empty (an invalid handle: it is held already).
  /// `anchor`: the owner's anchor, or kNil (system-owned).
  ScheduleHandle add(Message&& message, const ActorRef& target, const ActorRef& sender,
                     const Cadence& cadence, const TimeZone& zone, const std::string& reference,
                     std::uint32_t anchor);
  /// A passivation check of the actor `target` every `every` (SPEC A10).
  ScheduleHandle addPassivation(const ActorRef& target, Clock::duration every,
                                std::uint32_t anchor);
  /// Cancel, pause or resume. ErrScheduleNotFound for a handle that names no
  /// live schedule.
  std::error_code apply(Op op, ScheduleHandle handle);

  /// Detaches a live schedule from its name (the caller erases the name from
  /// the system's namespace). False if the handle names no live named schedule.
  bool forgetName(ScheduleHandle handle) noexcept;

  /// An anchor for an actor's schedules (S6).
  std::uint32_t newAnchor();
  /// Ends every schedule of the anchor's circle, then the anchor.
  void releaseAnchor(std::uint32_t anchor) noexcept;

  /// Ends every schedule (system stop, S5). Messages are dropped, names freed.
  void clear() noexcept;

  /// Live user schedules (anchors and passivation checks not counted). Any thread.
  std::size_t live() const noexcept { return live_.load(std::memory_order_relaxed); }
  const Stats& stats() const noexcept { return stats_; }

  /// What the scheduler holds in memory, and how often it took and gave back
  /// a chunk of entries. Isolate-local (or the thread driving a manual
  /// system); no allocation.
  struct Memory {
    std::size_t chunks = 0;         ///< chunks of entries mapped now
    std::size_t reservedBytes = 0;  ///< the chunks, their bookkeeping, the expiry's scratch
    std::uint64_t chunkMaps = 0;    ///< chunks taken from the OS so far
    std::uint64_t chunkUnmaps = 0;  ///< chunks given back so far
  };
  Memory memory() const noexcept;
  /// The scheduler of isolate `isolate` (< core.isolateCount()), for tests
  /// and benchmarks that read memory() without the system's internals.
  static const Scheduler& of(SystemCore& core, std::size_t isolate);

 private:
  enum class State : std::uint8_t { Free, Armed, Due, Paused, Anchor };
  enum Flag : std::uint8_t { kPassivation = 1, kNamed = 2, kCron = 4 };

  // 120 bytes: the references are kept as ids (the system is known), and a
  // named schedule keeps its name's hash (to leave the namespace by it).
  struct Entry {
    std::int64_t deadline = 0;  // ns on the clock; Paused: the delay left
    std::uint64_t seq = 0;      // arm order, for equal deadlines
    std::uint32_t prev = kNil;  // bucket list; `next` also links the free list
    std::uint32_t next = kNil;
    std::uint32_t ownerPrev = kNil;  // the owner's circle (kNil: system-owned)
    std::uint32_t ownerNext = kNil;
    std::int64_t interval = 0;  // ns between ticks; 0 for a one-shot
    std::uint32_t generation = 0;
    std::uint8_t bucket = 0;
    State state = State::Free;
    std::uint8_t flags = 0;
    std::uint64_t target = kNoRef;  // ActorRef::id()
    std::uint64_t sender = kNoRef;
    std::uint64_t nameHash = 0;  // named only (kNamed): its key's hash in the namespace
    Message message;
  };
  static constexpr std::uint64_t kNoRef = ~std::uint64_t{0};  // SystemCore::kNoRefId
  static constexpr std::uint32_t kChunkBits = 12;
  static constexpr std::uint32_t kChunkSize = 1u << kChunkBits;
  static constexpr std::size_t kChunkBytes = kChunkSize * sizeof(Entry);  // 480 KiB
  // Slots stay below kNil (and ScheduleHandle's empty slot).
  static constexpr std::uint32_t kMaxChunks = kNil >> kChunkBits;
  static constexpr std::uint32_t kNoChunk = 0xFFFFFFFF;
  static constexpr std::size_t kBuckets = 65;
  // An expiry's scratch is given back when a later one uses under a
  // quarter of it, above this many entries (a burst of due schedules leaves
  // it large).
  static constexpr std::size_t kScratchKept = 4096;

  // A set of chunk indices that finds its lowest and its highest member in
  // a couple of word reads: a bit per chunk, and a summary bit per word of
  // those (one summary word covers 4,096 chunks, 16M entries).
  class ChunkSet {
   public:
    void grow(std::size_t chunks);  // room for the indices below `chunks`
    void insert(std::uint32_t chunk) noexcept;
    void erase(std::uint32_t chunk) noexcept;
    std::uint32_t lowest() const noexcept;   // kNoChunk when empty
    std::uint32_t highest() const noexcept;  // kNoChunk when empty
    std::size_t bytes() const noexcept;

   private:
    std::vector<std::uint64_t> bits_;
    std::vector<std::uint64_t> words_;  // bit w: bits_[w] != 0
  };

  // One chunk's bookkeeping; it outlives the chunk's entries.
  struct Chunk {
    std::uint32_t freeHead = kNil;  // its free slots, through Entry::next
    std::uint32_t freeCount = 0;
    // The highest generation any of its slots has reached: the chunk's
    // slots start there when it is mapped again.
    std::uint32_t generations = 0;
    std::uint32_t emptiedAt = 0;  // the trim period in which it last became empty
  };
  // Empty chunks beyond the reserve go back to the OS, but only those that
  // stayed empty through a whole trim period (kTrimPeriod, the block caches'
  // too): a burst that recurs (schedules made and fired again and again,
  // bench schedule/fire/1M) keeps its chunks warm instead of mapping and
  // faulting them in anew each time, and what stays unused leaves within two
  // periods, also when the loop then sleeps. An unreferenced timer of its
  // own, armed while such chunks may be waiting.
  struct TrimTask final : Task {
    explicit TrimTask(Scheduler& owner) : Task(&onTrim, &onTrimDropped), self(&owner) {}
    Scheduler* self;
  };
  static void onTrim(Task& task);
  static void onTrimDropped(Task& task) noexcept;
  void armTrim() noexcept;
  /// Gives back the empty chunks beyond the reserve that stayed empty
  /// through a whole period, highest first; true while some may be left.
  bool trim() noexcept;

  Entry& at(std::uint32_t slot) noexcept {
    return chunks_[slot >> kChunkBits][slot & (kChunkSize - 1)];
  }
  // The entry of `slot`, or nullptr when no chunk holds it (out of range, or given back).
  Entry* find(std::uint32_t slot) noexcept {
    if (slot >= capacity_) return nullptr;
    Entry* chunk = chunks_[slot >> kChunkBits];
    return chunk != nullptr ? chunk + (slot & (kChunkSize - 1)) : nullptr;
  }
  // `from + delay`, saturated at the end of the timeline (Clock::deadlineAfter).
  static std::int64_t deadlineAfter(std::int64_t from, std::int64_t delay) noexcept {
    return Clock::deadlineAfter(Clock::time_point(Clock::duration(from)), Clock::duration(delay))
        .time_since_epoch()
        .count();
  }
  std::uint32_t allocate();
  void release(std::uint32_t slot) noexcept;   // the entry ends: unlink, unname, free
  void freeSlot(std::uint32_t slot) noexcept;  // back onto its chunk's free list
  std::uint32_t mapChunk();                    // throws std::bad_alloc
  void unmapChunk(std::uint32_t chunk) noexcept;
  // Empty chunks kept mapped: one, plus one per 16 chunks' worth of live
  // schedules (6%). A count swinging by less than that maps and unmaps
  // nothing (ScheduleMemory.ChurnAroundOneSizeNeitherMapsNorUnmapsChunks); a
  // burst ended leaves that much behind (CancellingABurst...GivesItsChunksBack).
  std::size_t reserveChunks() const noexcept {
    return 1 + (live_.load(std::memory_order_relaxed) >> (kChunkBits + 4));
  }
  // The bookkeeping of a chunk that fills up or empties, off the hot path.
  void chunkFilled(std::uint32_t chunk) noexcept;
  void chunkUnfilled(std::uint32_t chunk) noexcept;   // was full, has a free slot now
  void chunkEmptied(std::uint32_t chunk) noexcept;    // every slot free now
  void chunkUnemptied(std::uint32_t chunk) noexcept;  // was empty, has an entry now
  std::size_t bucketOf(std::int64_t deadline) const noexcept;
  void file(std::uint32_t slot) noexcept;                        // into its bucket
  void unfile(std::uint32_t slot) noexcept;                      // out of its bucket
  void arm(std::uint32_t slot, std::int64_t deadline) noexcept;  // file + timer
  std::int64_t now() const noexcept;
  void armTimer(std::int64_t deadline) noexcept;

  // Cron schedules (kCron; runtime/schedule/ScheduleCron.cpp). Their calendars live
  // beside the entries, so that an entry stays 120 bytes: a cron schedule
  // fires once a minute at most, and one look-up per firing is nothing.
  struct CronCalendar {
    std::shared_ptr<const CronExpression> expression;
    TimeZone zone;
    std::chrono::sys_seconds due{};  // the wall time (UTC) of the next firing
  };
  // Arms a new cron entry for its first firing after the wall time now.
  void armCron(std::uint32_t slot, const Cadence& cadence, const TimeZone& zone);
  // At the entry's deadline: true when its wall time has come (the tick is
  // sent, and the next firing is armed; firings missed meanwhile are
  // counted as skipped); false when the wall clock is behind its due time
  // (it was set back): armed again for that time, nothing sent.
  bool cronFires(std::uint32_t slot, std::int64_t t);
  // Resumes a paused cron entry: at once when it missed a firing while
  // paused (one tick for them all), else at its due time.
  void resumeCron(std::uint32_t slot);
  // The clock time at which the wall clock reads `due`, seen from `t`.
  std::int64_t deadlineOfWallTime(std::int64_t t, std::chrono::sys_seconds due) const noexcept;
  void rearm() noexcept;
  void expire();
  void fire(std::uint32_t slot, std::int64_t now);
  static void onTimer(Task& task);
  static void onTimerDropped(Task& task) noexcept;

  SystemCore& core_;
  IsolateRuntime& home_;
  const Clock& clock_;
  std::vector<Entry*> chunks_;  // nullptr: given back
  std::vector<Chunk> chunkInfo_;
  std::uint32_t capacity_ = 0;            // slots below it have a chunk index
  ChunkSet roomy_;                        // mapped chunks with a free slot
  ChunkSet empty_;                        // mapped chunks with every slot free
  std::uint32_t lowestRoomy_ = kNoChunk;  // where the next entry comes from
  std::size_t emptyChunks_ = 0;
  std::size_t mappedChunks_ = 0;
  std::uint64_t chunkMaps_ = 0;
  std::uint64_t chunkUnmaps_ = 0;
  std::array<std::uint32_t, kBuckets> heads_;
  std::uint64_t mask_ = 0;  // bit i-1 set: bucket i (1..64) is not empty
  std::int64_t last_ = 0;
  std::uint64_t nextSeq_ = 0;
  struct Due {
    std::int64_t deadline;
    std::uint64_t seq;
    std::uint32_t slot;
    std::uint32_t generation;
  };
  std::vector<Due> scratch_;  // what one expiry fires, reused
  TimerId timer_;
  TrimTask trimTask_{*this};
  TimerId trimTimer_;
  bool trimArmed_ = false;
  std::uint32_t trimPeriod_ = 0;  // trims so far: the current period's number
  std::int64_t timerDeadline_ = 0;
  bool timerArmed_ = false;
  std::atomic<std::size_t> live_{0};
  Stats stats_;
  std::unordered_map<std::uint32_t, CronCalendar> crons_;  // by slot
};

}  // namespace coreactor::detail
