// The system's side of the scheduler (docs/scheduling.md): the schedule calls
// of ActorSystem and ReceiveContext, the system-wide reference namespace
// (SPEC S2) and the tick counts, over the Schedulers of the isolates
// (Scheduler.hpp). Any thread unless said; runtime/schedule/Scheduling.cpp.
#pragma once

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <string>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"
#include "coreactor/Schedule.hpp"
#include "runtime/schedule/ScheduleNamespace.hpp"
#include "runtime/schedule/Scheduler.hpp"

namespace coreactor::detail {

class ActorCell;
class SystemCore;

class Scheduling {
 public:
  explicit Scheduling(SystemCore& core) noexcept : core_(core) {}
  Scheduling(const Scheduling&) = delete;
  Scheduling& operator=(const Scheduling&) = delete;

  /// schedule()/scheduleOnce(); `owner` is the scheduling actor for a context call.
  ScheduleResult schedule(Message&& message, const ActorRef& target, const Cadence& cadence,
                          const ScheduleOptions& options, ActorCell* owner);
  ScheduleResult controlSchedule(Scheduler::Op op, ScheduleHandle handle);
  ScheduleResult controlSchedule(Scheduler::Op op, const std::string& reference);
  std::size_t scheduleCount() const noexcept;
  std::uint64_t skippedTickCount() const noexcept;
  std::uint64_t tickCount() const noexcept;
  std::uint64_t staleTickCount() const noexcept {
    return staleTicks_.load(std::memory_order_relaxed);
  }
  /// Unwraps a strict-cancel tick in place; false if it is stale (counted).
  bool admitTick(Message& message) noexcept;
  /// The system-wide reference namespace (S2). Binding sets `hash` (what
  /// forgetting takes) and fails when the reference is held.
  bool bindScheduleName(const std::string& reference, ScheduleHandle handle, std::uint64_t& hash);
  void forgetScheduleName(std::uint64_t hash, ScheduleHandle handle) noexcept;
  /// A passivation check of `target`, on its isolate.
  bool passivationCheck(const ActorRef& target);
  /// The actor has not fully stopped, or is another rank's, which cannot be
  /// looked at from here: a schedule to it goes on until cancelled. Any
  /// thread (the tables are read atomically).
  bool mayBeAlive(const ActorRef& ref) const noexcept;

 private:
  SystemCore& core_;
  std::atomic<std::uint64_t> staleTicks_{0};
  ScheduleNamespace names_;  // the scheduler's references (SPEC S2)
};

}  // namespace coreactor::detail
