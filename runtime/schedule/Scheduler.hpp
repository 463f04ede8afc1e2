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
// Entries live in chunks that never move and go back to the OS as they
// empty; a stale handle finds nothing (ScheduleEntries.hpp). The cron
// schedules' calendars are the scheduler's ScheduleCron (ScheduleCron.hpp).
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
#include <utility>
#include <vector>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Clock.hpp"
#include "coreactor/Cron.hpp"
#include "coreactor/Isolate.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/Schedule.hpp"
#include "coreactor/Task.hpp"
#include "runtime/schedule/ScheduleCron.hpp"
#include "runtime/schedule/ScheduleEntries.hpp"

namespace coreactor::detail {

class SystemCore;
struct IsolateRuntime;

/// The tick of a strict-cancel schedule (ScheduleOptions::withStrictCancel):
/// the user's message with the schedule's epoch when it was sent. A cancel or
/// a pause moves the epoch on; the receiving cell drops a tick whose epoch is
/// behind (CellTurn::invoke).
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
  static constexpr std::uint32_t kNil = ScheduleEntries::kNil;
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
  using Memory = ScheduleMemory;
  Memory memory() const noexcept;
  /// The scheduler of isolate `isolate` (< core.isolateCount()), for tests
  /// and benchmarks that read memory() without the system's internals.
  static const Scheduler& of(SystemCore& core, std::size_t isolate);

 private:
  using Entry = ScheduleEntries::Entry;
  using State = ScheduleEntries::State;
  static constexpr auto kPassivation = ScheduleEntries::kPassivation;
  static constexpr auto kNamed = ScheduleEntries::kNamed;
  static constexpr auto kCron = ScheduleEntries::kCron;
  static constexpr std::uint64_t kNoRef = ScheduleEntries::kNoRef;
  static constexpr std::size_t kBuckets = 65;
  // An expiry's scratch is given back when a later one uses under a
  // quarter of it, above this many entries (a burst of due schedules leaves
  // it large).
  static constexpr std::size_t kScratchKept = 4096;

  void release(std::uint32_t slot) noexcept;  // the entry ends: unlink, unname, free
  std::size_t bucketOf(std::int64_t deadline) const noexcept;
  void file(std::uint32_t slot) noexcept;                        // into its bucket
  void unfile(std::uint32_t slot) noexcept;                      // out of its bucket
  void arm(std::uint32_t slot, std::int64_t deadline) noexcept;  // file + timer
  std::int64_t now() const noexcept;
  void armTimer(std::int64_t deadline) noexcept;
  // The cron entries (kCron), whose calendars are cron_'s
  // (runtime/schedule/ScheduleCron.cpp). Arms a new cron entry for its
  // first firing after the wall time now.
  void armCron(std::uint32_t slot, const Cadence& cadence, const TimeZone& zone);
  // At the entry's deadline: true when its wall time has come (the tick is
  // sent, and the next firing is armed; firings missed meanwhile are
  // counted as skipped); false when the wall clock is behind its due time
  // (it was set back): armed again for that time, nothing sent.
  bool cronFires(std::uint32_t slot, std::int64_t t);
  // Resumes a paused cron entry: at once when it missed a firing while
  // paused (one tick for them all), else at its due time.
  void resumeCron(std::uint32_t slot);
  void rearm() noexcept;
  void expire();
  void fire(std::uint32_t slot, std::int64_t now);
  static void onTimer(Task& task);
  static void onTimerDropped(Task& task) noexcept;

  SystemCore& core_;
  IsolateRuntime& home_;
  const Clock& clock_;
  ScheduleEntries entries_{home_, live_};
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
  std::int64_t timerDeadline_ = 0;
  bool timerArmed_ = false;
  std::atomic<std::size_t> live_{0};
  Stats stats_;
  ScheduleCron cron_{clock_};  // the calendars of the cron entries (kCron)
};

}  // namespace coreactor::detail
