/// @file
/// `coreactor/Schedule.hpp` — what the scheduler calls take and give back
/// (requirement S1-S4, S12).
// The calls themselves (SchedulingCalls, below) are on ActorSystem and on
// ReceiveContext:
//
//   ctx.scheduleOnce(Remind{}, ctx.self(), 5s, ScheduleOptions::create().withReference("remind"));
//   ctx.cancelSchedule("remind");
//   system->schedule(Heartbeat{}, monitor, 1s).get();   // from outside: wait for it
//   system->scheduleCron(Report{}, reporter, "0 9 * * MON-FRI",
//                        ScheduleOptions::create().withUtcOffset(std::chrono::hours(1)));
//
// Every call gives a ScheduleResult. A call made on the isolate that holds the
// schedule (an actor scheduling for itself, a cancel of a schedule made on the
// same isolate) takes effect before it returns: the result is ready, with no
// allocation for an unnamed schedule (a named one adds a node to the
// system-wide map). A call that must travel to another isolate (a cancel of a
// schedule another isolate holds, a schedule made from a foreign thread)
// completes there, later: wait for it from outside with get()/wait(), or
// `co_await` it in a coroutine handler (coreactor/Async.hpp), which resumes
// inside a turn of the actor.
//
// Errors (requirement S12), as std::error_code of coreactor::Error:
//   ErrActorSystemNotStarted  the system is stopping or stopped
//   ErrInvalidInterval        a delay or interval that is not positive
//   ErrScheduleAlreadyExists  the reference is held by a live schedule
//   ErrScheduleNotFound       no live schedule holds the reference (or handle)
//   ErrDead                   the target has stopped (or never existed)
//   ErrInvalidOption          a message a repeating schedule cannot copy, a
//                             sender of another system, a UTC offset out of range
// A failed call changes nothing and keeps nothing. scheduleCron() with a text
// that is no cron expression throws ErrInvalidCron at the call (its what()
// gives the position and the reason), before anything is scheduled.
//
// Thread-safety: ScheduleOptions and ScheduleHandle are values. A
// ScheduleResult may be waited on from any thread, and awaited by the
// coroutine handler that made it.
#pragma once

#include <chrono>
#include <condition_variable>
#include <coroutine>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <system_error>
#include <type_traits>
#include <utility>

#include "coreactor/ActorRef.hpp"
#include "coreactor/Cron.hpp"
#include "coreactor/Error.hpp"

namespace coreactor {

class ReceiveContext;

/// Options of schedule() and scheduleOnce() (requirement S2, S3).
class ScheduleOptions {
 public:
  /// The defaults: unnamed, the default sender, no strict cancel.
  static ScheduleOptions create() { return ScheduleOptions(); }

  /// Names the schedule in the system-wide namespace, so that any isolate or
  /// thread can cancel, pause or resume it. Empty: unnamed (the default).
  ScheduleOptions withReference(std::string reference) const {
    ScheduleOptions copy = *this;
    copy.reference_ = std::move(reference);
    return copy;
  }
  /// The sender of every tick. Default: the scheduling actor for a context
  /// call, no sender for a system call. An actor of another system is
  /// refused (ErrInvalidOption): the schedule keeps its sender as an id.
  ScheduleOptions withSender(const ActorRef& sender) const {
    ScheduleOptions copy = *this;
    copy.sender_ = sender;
    return copy;
  }

  /// The stronger cancel guarantee: once a cancel (or a pause) of this
  /// schedule has completed, none of its ticks is received any more, even one
  /// already sent and waiting in the target's mailbox: such a tick is dropped
  /// at the receiver and counted (ActorSystem::staleTickCount). Costs one
  /// allocation per schedule and a heap-held message per tick.
  ScheduleOptions withStrictCancel(bool strict = true) const {
    ScheduleOptions copy = *this;
    copy.strictCancel_ = strict;
    return copy;
  }

  /// The fixed offset from UTC in which a cron schedule reads its
  /// expression (scheduleCron): `hours(-5)` fires "0 9 * * *" at 14:00 UTC.
  /// No daylight saving (withTimeZone has it). Default 0 (UTC);
  /// -12:00..+14:00, else scheduleCron fails with ErrInvalidOption. Replaces
  /// a zone set by withTimeZone. Other schedules ignore it.
  ScheduleOptions withUtcOffset(std::chrono::minutes offset) const {
    ScheduleOptions copy = *this;
    copy.utcOffset_ = offset;
    copy.timeZone_ = TimeZone();
    return copy;
  }

  /// The zone of the tz database in which a cron schedule reads its
  /// expression, with its daylight saving: "0 9 * * *" in "Europe/Paris"
  /// fires at 08:00 UTC in winter and 07:00 UTC in summer (CronExpression
  /// says what a time the clocks skip or repeat does). Throws
  /// std::system_error with ErrUnknownTimeZone here, at the call, for a name
  /// the database does not have. Replaces an offset set by withUtcOffset.
  ScheduleOptions withTimeZone(std::string_view name) const {
    return withTimeZone(TimeZone::named(name));
  }
  /// withTimeZone() of a zone already looked up (or a fixed one).
  ScheduleOptions withTimeZone(const TimeZone& zone) const {
    ScheduleOptions copy = *this;
    copy.utcOffset_ = std::chrono::minutes{0};
    copy.timeZone_ = zone;
    return copy;
  }

  /// The schedule's name; empty: unnamed.
  const std::string& reference() const noexcept { return reference_; }
  /// The UTC offset set by withUtcOffset().
  std::chrono::minutes utcOffset() const noexcept { return utcOffset_; }
  /// The zone set by withTimeZone(); UTC when none was.
  const TimeZone& timeZone() const noexcept { return timeZone_; }
  /// The sender of the ticks set by withSender(); none: the default.
  const ActorRef& sender() const noexcept { return sender_; }
  /// True after withStrictCancel().
  bool strictCancel() const noexcept { return strictCancel_; }

 private:
  std::string reference_;
  ActorRef sender_;
  std::chrono::minutes utcOffset_{0};
  TimeZone timeZone_;
  bool strictCancel_ = false;
};

/// Names one schedule directly, without the reference namespace: what
/// schedule() and scheduleOnce() give back. Cancel, pause and resume take
/// one too, at the cost of the isolate-local lookup only. A handle of a
/// schedule that has ended stays harmless: calls with it fail with
/// ErrScheduleNotFound.
class ScheduleHandle {
 public:
  constexpr ScheduleHandle() noexcept = default;
  /// Names the schedule in `slot` of isolate `isolate`'s scheduler, at
  /// `generation`. The runtime makes these; hold on to the ones it gives.
  constexpr ScheduleHandle(std::uint32_t isolate, std::uint32_t slot,
                           std::uint32_t generation) noexcept
      : isolate_(isolate), slot_(slot), generation_(generation) {}

  /// False for the default handle, which names no schedule.
  bool valid() const noexcept { return slot_ != kNone; }
  /// valid().
  explicit operator bool() const noexcept { return valid(); }
  /// The isolate that holds the schedule (the one that made it, requirement S9).
  std::uint32_t isolateIndex() const noexcept { return isolate_; }
  /// The schedule's slot on that isolate.
  std::uint32_t slot() const noexcept { return slot_; }
  /// The slot's generation: tells a stale handle from a live one.
  std::uint32_t generation() const noexcept { return generation_; }
  /// Equal when both name the same slot and generation on the same isolate.
  friend bool operator==(const ScheduleHandle&, const ScheduleHandle&) = default;

 private:
  static constexpr std::uint32_t kNone = 0xFFFFFFFF;
  std::uint32_t isolate_ = 0;
  std::uint32_t slot_ = kNone;
  std::uint32_t generation_ = 0;
};

namespace detail {

/// When a schedule fires: once `every` from now, every `every`, or at the
/// times of a cron expression.
struct Cadence {
  std::chrono::nanoseconds every{0};  ///< the delay, or the interval
  bool repeat = false;
  std::shared_ptr<const CronExpression> cron;  ///< set: a cron schedule (the rest unused)
};

/// The shared state of a result that completes on another isolate.
class ScheduleState {
 public:
  /// Once. Wakes waiters, then runs the awaiting coroutine's resumption.
  void complete(std::error_code error, ScheduleHandle handle) noexcept;
  bool done() const;
  void wait() const;
  std::error_code error() const;
  ScheduleHandle handle() const;
  /// Registers `resume` to run at completion; false if already complete.
  bool onComplete(std::function<void()> resume);

 private:
  mutable std::mutex mutex_;
  mutable std::condition_variable done_;
  bool complete_ = false;
  std::error_code error_;
  ScheduleHandle handle_;
  std::function<void()> resume_;
};

}  // namespace detail

/// The outcome of a scheduling call: ready at once, or completing later on
/// the isolate that holds the schedule (see the top of this file).
class ScheduleResult {
 public:
  ScheduleResult() = default;
  /// A result ready at once.
  ScheduleResult(std::error_code error, ScheduleHandle handle = {}) noexcept
      : error_(error), handle_(handle) {}
  /// A result completing later.
  explicit ScheduleResult(std::shared_ptr<detail::ScheduleState> state) noexcept
      : state_(std::move(state)) {}

  /// True once the call has taken effect or failed.
  bool ready() const { return state_ == nullptr || state_->done(); }
  /// Waits for the call (do not wait on an isolate for work that isolate
  /// must do: await it instead) and gives its error, empty on success.
  std::error_code wait() const {
    if (state_ == nullptr) return error_;
    state_->wait();
    return state_->error();
  }
  /// As wait(), but throws std::system_error carrying the error.
  void get() const {
    if (const std::error_code error = wait()) throw std::system_error(error);
  }
  /// True when the call succeeded; waits for it as wait() does.
  bool ok() const { return !wait(); }
  /// The schedule made by schedule()/scheduleOnce() (after waiting); an
  /// invalid handle after a failure or for the other calls.
  ScheduleHandle handle() const {
    if (state_ == nullptr) return handle_;
    state_->wait();
    return state_->handle();
  }

  /// For `co_await` in a coroutine handler of the actor whose context made
  /// the call: no suspension when the call has completed already.
  bool await_ready() const { return ready(); }
  /// Resumes the handler inside a turn of that actor once the call has
  /// completed. Throws ErrNotOnIsolate for a result no ReceiveContext made.
  bool await_suspend(std::coroutine_handle<> h);
  /// The call's error; empty on success.
  std::error_code await_resume() const { return wait(); }

 private:
  friend class ReceiveContext;
  std::error_code error_;
  ScheduleHandle handle_;
  std::shared_ptr<detail::ScheduleState> state_;
  ReceiveContext* context_ = nullptr;  // set by the context calls, for co_await
};

/// What a control call does to a live schedule.
enum class ScheduleControl : std::uint8_t {
  Cancel,  ///< cancelSchedule()
  Pause,   ///< pauseSchedule()
  Resume,  ///< resumeSchedule()
};

/// The scheduling calls (requirement S1), written once and shared by
/// ActorSystem and ReceiveContext, which derive from it. A call through a
/// context is also owned by that actor (its full stop cancels it, S6) and
/// its result may be awaited in that actor's coroutine handler; ticks come
/// from that actor unless the options name another sender (S3).
template <class Owner>
class SchedulingCalls {
 public:
  /// Sends a copy of `message` to `target` every `interval`, the first one
  /// interval from now, until cancelled, its target (or owning actor) has
  /// fully stopped, or the system stops. A built Message is accepted and
  /// checked when the call is made: one that cannot be copied is
  /// ErrInvalidOption.
  template <class M>
  ScheduleResult schedule(M&& message, const ActorRef& target, std::chrono::nanoseconds interval,
                          const ScheduleOptions& options = ScheduleOptions::create()) {
    static_assert(
        std::is_same_v<std::decay_t<M>, Message> || std::is_copy_constructible_v<std::decay_t<M>>,
        "a repeating schedule sends a copy of its message at every tick");
    return owner().makeSchedule(Message(std::forward<M>(message)), target,
                                detail::Cadence{interval, true, nullptr}, options);
  }
  /// Sends `message` to `target` once, `delay` from now.
  template <class M>
  ScheduleResult scheduleOnce(M&& message, const ActorRef& target, std::chrono::nanoseconds delay,
                              const ScheduleOptions& options = ScheduleOptions::create()) {
    return owner().makeSchedule(Message(std::forward<M>(message)), target,
                                detail::Cadence{delay, false, nullptr}, options);
  }
  /// Sends a copy of `message` to `target` at every time `expression` names
  /// (CronExpression: five fields, e.g. "*/5 * * * *"), read in UTC plus
  /// ScheduleOptions::withUtcOffset or in ScheduleOptions::withTimeZone, until cancelled, its
  /// target (or owning actor) has fully stopped, or the system stops. Times are read on the
  /// isolate's Clock::wallNow(). Firings the loop missed (late, or paused
  /// meanwhile) come as one tick, not a burst: counted in
  /// ActorSystem::skippedTickCount. Throws ErrInvalidCron for a text that
  /// does not parse or can never fire, before anything is scheduled.
  template <class M>
  ScheduleResult scheduleCron(M&& message, const ActorRef& target, std::string_view expression,
                              const ScheduleOptions& options = ScheduleOptions::create()) {
    return scheduleCron(std::forward<M>(message), target, CronExpression::parse(expression),
                        options);
  }
  /// scheduleCron() of an expression already parsed.
  template <class M>
  ScheduleResult scheduleCron(M&& message, const ActorRef& target, const CronExpression& expression,
                              const ScheduleOptions& options = ScheduleOptions::create()) {
    static_assert(
        std::is_same_v<std::decay_t<M>, Message> || std::is_copy_constructible_v<std::decay_t<M>>,
        "a cron schedule sends a copy of its message at every tick");
    return owner().makeSchedule(
        Message(std::forward<M>(message)), target,
        detail::Cadence{{}, true, std::make_shared<const CronExpression>(expression)}, options);
  }
  /// Ends the schedule held under `reference`, wherever it was made: once
  /// this has completed, it sends nothing more. ErrScheduleNotFound for none.
  ScheduleResult cancelSchedule(const std::string& reference) {
    return owner().controlSchedule(ScheduleControl::Cancel, reference);
  }
  /// Stops the schedule's ticks and keeps the rest. Pausing a paused
  /// schedule does nothing.
  ScheduleResult pauseSchedule(const std::string& reference) {
    return owner().controlSchedule(ScheduleControl::Pause, reference);
  }
  /// A one-shot keeps the delay it had left; a repeating schedule fires one
  /// full interval after the resume. Resuming a running schedule does nothing.
  ScheduleResult resumeSchedule(const std::string& reference) {
    return owner().controlSchedule(ScheduleControl::Resume, reference);
  }
  /// cancelSchedule() of the schedule `handle` names, with no lookup by name.
  ScheduleResult cancelSchedule(ScheduleHandle handle) {
    return owner().controlSchedule(ScheduleControl::Cancel, handle);
  }
  /// pauseSchedule() of the schedule `handle` names, with no lookup by name.
  ScheduleResult pauseSchedule(ScheduleHandle handle) {
    return owner().controlSchedule(ScheduleControl::Pause, handle);
  }
  /// resumeSchedule() of the schedule `handle` names, with no lookup by name.
  ScheduleResult resumeSchedule(ScheduleHandle handle) {
    return owner().controlSchedule(ScheduleControl::Resume, handle);
  }

 protected:
  SchedulingCalls() = default;
  ~SchedulingCalls() = default;

 private:
  Owner& owner() noexcept { return static_cast<Owner&>(*this); }
};

}  // namespace coreactor
