// The scheduler's calls (SPEC S1-S12): validation, the system-wide reference
// namespace, and the route of each call to the isolate that holds (or will
// hold) the schedule. The per-isolate structure is runtime/schedule/Scheduler.cpp.
//
// Where a call runs:
//   - on one of the system's isolates (an actor, a task): a new schedule lives
//     there; cancel/pause/resume of a schedule held there apply at once;
//   - on the thread driving a manual system: every isolate is local;
//   - anywhere else, or for a schedule another isolate holds: the call is
//     posted to the holding isolate (for a new schedule from outside: the
//     target's) and its result completes there.
// Validation that needs no isolate (a stopped system, a bad interval, a dead
// target, an unknown reference) fails at once, wherever the call is made.
#include <functional>
#include <utility>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Async.hpp"
#include "coreactor/Schedule.hpp"
#include "runtime/Coroutines.hpp"
#include "runtime/PostedWork.hpp"
#include "runtime/SystemCore.hpp"
#include "runtime/cluster/RemoteRoutes.hpp"

namespace coreactor {
namespace detail {
namespace {

using Outcome = std::pair<std::error_code, ScheduleHandle>;

std::error_code fault(Error e) {
  return make_error_code(e);
}

// A scheduling call travelling to another isolate (PostedWork.hpp).
// Completes its result there, or with ErrActorSystemNotStarted if the
// isolate stops first.
struct RemoteScheduleCall {
  std::shared_ptr<ScheduleState> state;
  std::function<Outcome()> call;
  void run() {
    Outcome outcome;
    try {
      outcome = call();
    } catch (const std::system_error& error) {
      state->complete(error.code(), {});
      throw;  // and the loop reports it
    } catch (const std::bad_alloc&) {
      state->complete(std::make_error_code(std::errc::not_enough_memory), {});
      throw;
    } catch (...) {
      state->complete(std::make_error_code(std::errc::state_not_recoverable), {});
      throw;
    }
    state->complete(outcome.first, outcome.second);
  }
  void discard() noexcept { state->complete(fault(Error::ErrActorSystemNotStarted), {}); }
};

ScheduleResult post(Isolate& isolate, std::function<Outcome()> call) {
  auto state = std::make_shared<ScheduleState>();
  postOrDiscard(isolate, RemoteScheduleCall{state, std::move(call)});
  return ScheduleResult(std::move(state));
}

}  // namespace

// ---- the shared state of a result ------------------------------------------------

void ScheduleState::complete(std::error_code error, ScheduleHandle handle) noexcept {
  std::function<void()> resume;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (complete_) return;
    complete_ = true;
    error_ = error;
    handle_ = handle;
    resume.swap(resume_);
  }
  done_.notify_all();
  if (resume) resume();
}

bool ScheduleState::done() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return complete_;
}

void ScheduleState::wait() const {
  std::unique_lock<std::mutex> lock(mutex_);
  done_.wait(lock, [this] { return complete_; });
}

std::error_code ScheduleState::error() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return error_;
}

ScheduleHandle ScheduleState::handle() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return handle_;
}

bool ScheduleState::onComplete(std::function<void()> resume) {
  std::lock_guard<std::mutex> lock(mutex_);
  if (complete_) return false;
  resume_ = std::move(resume);
  return true;
}

// ---- the system side ---------------------------------------------------------------

bool Scheduling::mayBeAlive(const ActorRef& ref) const noexcept {
  // An actor of one of our isolates first; another rank's reference names
  // an isolate past ours (RemoteRoutes::routes).
  if (core_.minted(ref) && ref.isolateIndex() < core_.isolates_.size()) {
    return core_.isolates_[ref.isolateIndex()]->table.find(ref.slot(), ref.generation()) != nullptr;
  }
  return RemoteRoutes::isRemote(core_.remote(), ref);
}

std::uint64_t Scheduling::tickCount() const noexcept {
  std::uint64_t n = 0;
  for (const auto& rt : core_.isolates_)
    n += rt->scheduler->stats().ticks.load(std::memory_order_relaxed);
  return n;
}

std::uint64_t Scheduling::skippedTickCount() const noexcept {
  std::uint64_t n = 0;
  for (const auto& rt : core_.isolates_) {
    n += rt->scheduler->stats().skippedTicks.load(std::memory_order_relaxed);
  }
  return n;
}

std::size_t Scheduling::scheduleCount() const noexcept {
  std::size_t n = 0;
  for (const auto& rt : core_.isolates_) n += rt->scheduler->live();
  return n;
}

bool Scheduling::bindScheduleName(const std::string& reference, ScheduleHandle handle,
                                  std::uint64_t& hash) {
  return names_.bind(reference, handle, hash);
}

void Scheduling::forgetScheduleName(std::uint64_t hash, ScheduleHandle handle) noexcept {
  names_.forget(hash, handle);
}

ScheduleResult Scheduling::schedule(Message&& message, const ActorRef& target,
                                    const Cadence& cadence, const ScheduleOptions& options,
                                    ActorCell* owner) {
  if (!core_.running()) return {fault(Error::ErrActorSystemNotStarted)};
  if (cadence.cron == nullptr && cadence.every <= std::chrono::nanoseconds::zero()) {
    return {fault(Error::ErrInvalidInterval)};
  }
  if (cadence.repeat && !message.copyable()) return {fault(Error::ErrInvalidOption)};
  if (options.utcOffset() < -std::chrono::hours(12) ||
      options.utcOffset() > std::chrono::hours(14)) {
    return {fault(Error::ErrInvalidOption)};
  }
  // ScheduleOptions holds a zone or an offset, whichever was set last.
  TimeZone zone;  // UTC; a cron schedule's own, below
  if (cadence.cron != nullptr) {
    zone = options.timeZone() != TimeZone() ? options.timeZone()
                                            : TimeZone::fixed(options.utcOffset());
  }
  // An actor of another rank (docs/cluster.md): its ticks cross as messages,
  // so the message must be one that can (a type registered, no reference of
  // another system inside, within the size limit), refused here rather than
  // at every tick; strict cancel counts epochs in this process and cannot
  // reach there.
  const bool remote = RemoteRoutes::isRemote(core_.remote(), target);
  if (remote) {
    try {
      core_.remote_->checkCrossable(message);
    } catch (const std::system_error& refused) {
      return {refused.code()};
    }
  }
  if (remote && options.strictCancel()) return {fault(Error::ErrInvalidOption)};
  if (!mayBeAlive(target)) return {fault(Error::ErrDead)};
  if (options.strictCancel()) {
    message =
        Message(StrictTick(std::make_shared<std::atomic<std::uint32_t>>(0), std::move(message)));
  }
  const ActorRef sender = !options.sender().isNone()
                              ? options.sender()
                              : (owner != nullptr ? owner->self() : ActorRef());
  // A schedule keeps its sender as an id of this system: another system's
  // actor would come back as one of ours.
  if (!core_.carriesAsId(sender)) return {fault(Error::ErrInvalidOption)};

  // The isolate the call runs on holds the schedule (S9).
  IsolateRuntime* here = owner != nullptr ? &owner->home() : core_.currentRuntime();
  // A remote target's schedule is held by isolate 0 when no isolate makes the call.
  const std::size_t holder = remote ? 0 : target.isolateIndex();
  // The target was found on its isolate (mayBeAlive), or is remote: holder
  // is one of ours.
  if (here == nullptr && core_.drivenHere()) here = &core_.runtimeAt(holder);
  if (here != nullptr) {
    const std::uint32_t anchor =
        owner != nullptr ? owner->lifecycle().scheduleAnchor() : Scheduler::kNil;
    const ScheduleHandle handle = here->scheduler->add(std::move(message), target, sender, cadence,
                                                       zone, options.reference(), anchor);
    if (!handle.valid()) return {fault(Error::ErrScheduleAlreadyExists)};
    return {std::error_code(), handle};
  }
  // From outside the system: the target's isolate holds it.
  IsolateRuntime& rt = core_.runtime(holder);
  auto carried = std::make_shared<Message>(std::move(message));
  return post(*rt.isolate,
              [this, &rt, carried, target, sender, cadence, zone,
               reference = options.reference()]() -> Outcome {
                if (!core_.running()) return {fault(Error::ErrActorSystemNotStarted), {}};
                if (!mayBeAlive(target)) return {fault(Error::ErrDead), {}};
                const ScheduleHandle handle = rt.scheduler->add(
                    std::move(*carried), target, sender, cadence, zone, reference, Scheduler::kNil);
                if (!handle.valid()) return {fault(Error::ErrScheduleAlreadyExists), {}};
                return {std::error_code(), handle};
              });
}

ScheduleResult Scheduling::controlSchedule(Scheduler::Op op, ScheduleHandle handle) {
  if (!core_.running()) return {fault(Error::ErrActorSystemNotStarted)};
  if (!handle.valid() || handle.isolateIndex() >= core_.isolateCount()) {
    return {fault(Error::ErrScheduleNotFound)};
  }
  IsolateRuntime& rt = core_.runtimeAt(handle.isolateIndex());
  if (core_.isLocal(rt)) return {rt.scheduler->apply(op, handle)};
  return post(*rt.isolate, [this, &rt, op, handle]() -> Outcome {
    if (!core_.running()) return {fault(Error::ErrActorSystemNotStarted), {}};
    return {rt.scheduler->apply(op, handle), {}};
  });
}

ScheduleResult Scheduling::controlSchedule(Scheduler::Op op, const std::string& reference) {
  if (!core_.running()) return {fault(Error::ErrActorSystemNotStarted)};
  // A cancel on the holding isolate frees the name in the look-up, under
  // the one lock it already holds, instead of taking it again from release().
  const ScheduleHandle handle = names_.find(reference, [&](ScheduleHandle bound) {
    if (op != Scheduler::Op::Cancel) return false;
    IsolateRuntime& rt = core_.runtime(bound.isolateIndex());
    return core_.isLocal(rt) && rt.scheduler->forgetName(bound);
  });
  if (!handle.valid()) return {fault(Error::ErrScheduleNotFound)};
  return controlSchedule(op, handle);
}

bool Scheduling::admitTick(Message& message) noexcept {
  StrictTick* tick = message.get<StrictTick>();
  if (tick->stale()) {
    staleTicks_.fetch_add(1, std::memory_order_relaxed);
    return false;
  }
  Message inner = std::move(tick->message);
  message = std::move(inner);
  return true;
}

bool Scheduling::passivationCheck(const ActorRef& target) {
  // On the loop of the scheduler that holds the check: an actor that moved
  // away is not here (its new isolate checks it from now on).
  IsolateRuntime* rt = core_.currentRuntime();
  if (rt == nullptr) rt = &core_.runtime(target.isolateIndex());
  ActorCell* cell = core_.moves().cellHere(*rt, target);
  return cell != nullptr && cell->lifecycle().passivationCheck();
}

}  // namespace detail

// ---- the public calls ----------------------------------------------------------------

using detail::Scheduler;

bool ScheduleResult::await_suspend(std::coroutine_handle<> h) {
  if (state_ == nullptr) return false;
  if (context_ == nullptr) {
    throwError(Error::ErrNotOnIsolate,
               "co_await of a ScheduleResult that no ReceiveContext made: await only the "
               "results of ctx.schedule...() calls; wait() for the others");
  }
  return context_->awaitSchedule(state_, h);
}

namespace {
Scheduler::Op opOf(ScheduleControl control) noexcept {
  switch (control) {
    case ScheduleControl::Cancel:
      return Scheduler::Op::Cancel;
    case ScheduleControl::Pause:
      return Scheduler::Op::Pause;
    case ScheduleControl::Resume:
      break;
  }
  return Scheduler::Op::Resume;
}
}  // namespace

ScheduleResult ActorSystem::makeSchedule(Message&& message, const ActorRef& target,
                                         const detail::Cadence& cadence,
                                         const ScheduleOptions& options) {
  return core_->scheduling().schedule(std::move(message), target, cadence, options, nullptr);
}
ScheduleResult ActorSystem::controlSchedule(ScheduleControl control, const std::string& reference) {
  return core_->scheduling().controlSchedule(opOf(control), reference);
}
ScheduleResult ActorSystem::controlSchedule(ScheduleControl control, ScheduleHandle handle) {
  return core_->scheduling().controlSchedule(opOf(control), handle);
}
std::size_t ActorSystem::scheduleCount() const noexcept {
  return core_->scheduling().scheduleCount();
}
std::uint64_t ActorSystem::staleTickCount() const noexcept {
  return core_->scheduling().staleTickCount();
}
std::uint64_t ActorSystem::skippedTickCount() const noexcept {
  return core_->scheduling().skippedTickCount();
}
std::uint64_t ActorSystem::tickCount() const noexcept {
  return core_->scheduling().tickCount();
}

ScheduleResult ReceiveContext::makeSchedule(Message&& message, const ActorRef& target,
                                            const detail::Cadence& cadence,
                                            const ScheduleOptions& options) {
  return awaitableHere(
      cell_.core().scheduling().schedule(std::move(message), target, cadence, options, &cell_));
}

ScheduleResult ReceiveContext::controlSchedule(ScheduleControl control,
                                               const std::string& reference) {
  return awaitableHere(cell_.core().scheduling().controlSchedule(opOf(control), reference));
}

ScheduleResult ReceiveContext::controlSchedule(ScheduleControl control, ScheduleHandle handle) {
  return awaitableHere(cell_.core().scheduling().controlSchedule(opOf(control), handle));
}

bool ReceiveContext::awaitSchedule(const std::shared_ptr<detail::ScheduleState>& state,
                                   std::coroutine_handle<> h) {
  const std::uint64_t token = cell_.coroutines().running();
  detail::SystemCore& core = cell_.core();
  const ActorRef me = self();
  return state->onComplete([&core, me, h, token] { resumeInTurn(core, me, h, token); });
}

}  // namespace coreactor
