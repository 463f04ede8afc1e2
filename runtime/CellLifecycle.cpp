// One actor's lifecycle (requirement A5, A6): its system messages (start,
// stop, watch, supervision, continuations), restarts and stopping. The
// cell's turn is in ActorCell.cpp, its children and the supervision
// decisions it takes for them in Family.cpp. Everything here runs on the
// actor's isolate.
#include <algorithm>

#include "Coroutines.hpp"
#include "Logging.hpp"
#include "SystemCore.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

// ---- system messages ---------------------------------------------------------------

void ActorCell::handleSystem(SystemMessage& message) {
  switch (message.kind) {
    case SysKind::Start:
      if (state_ == State::Created) start();
      break;
    case SysKind::Stop:
      beginStop();
      break;
    case SysKind::Watch:
      if (auto& w = rare().watchers; std::find(w.begin(), w.end(), message.ref) == w.end()) {
        w.push_back(message.ref);
      }
      break;
    case SysKind::Unwatch:
      if (rare_ != nullptr) std::erase(rare_->watchers, message.ref);
      break;
    case SysKind::Failed:
      family().supervise(message.ref, message.cause);
      break;
    case SysKind::Resume:
      if (state_ == State::Suspended) {
        state_ = State::Running;
        systemLine().releaseHeld();
        moves().retry();
        // A resume after an escalation resumes the subtree that escalated.
        family().resumeAll();
      }
      break;
    case SysKind::Continue:
      handleContinue(std::move(message.continuation));
      break;
    case SysKind::Restart:
      restart(message.cause);
      break;
    case SysKind::ChildTerminated:
      family().forget(message.ref);
      if (guardian_) core().spawns().topLevelTerminated(message.ref);
      break;
    case SysKind::Move:
      moves().handle(std::move(message.order));
      break;
    case SysKind::Arrive:
    case SysKind::Unforward:
    case SysKind::RouteRequest:
    case SysKind::Marker:
    case SysKind::BarrierToken:
    case SysKind::BarrierAck:
    case SysKind::Probe:
    case SysKind::ProbeDone:
      // Addressed to table entries, never queued for a cell
      // (SystemCore::entrySignal).
      break;
  }
}

// Makes a fresh instance and runs its first hook. An instance that cannot be
// made or fails that hook is stopped: a restart would only fail again.
template <class Hook>
bool ActorCell::becomeNewInstance(const char* what, Hook&& hook) {
  ReceiveContext ctx(*this);
  try {
    actor_ = factory_();
    hook(*actor_, ctx);
  } catch (...) {
    reportHookError(what, std::current_exception());
    actor_.reset();
    beginStop();
    return false;
  }
  // A hook that stopped its actor (ctx.stop() in preStart or postRestart)
  // keeps that stop: it takes effect when the turn ends (postStop, then
  // the watchers hear Terminated), as in Akka and CAF.
  if (state_ < State::Terminating) state_ = State::Running;
  return true;
}

void ActorCell::start() {
  if (watchDepth_) home_->watchedMailboxes.push_back(this);
  if (!becomeNewInstance("construction or preStart",
                         [](Actor& a, ReceiveContext& ctx) { a.preStart(ctx); })) {
    return;
  }
  if (!guardian_ && core().events().hasSubscribers<ActorStarted>()) {
    core().events().publish(ActorStarted{self(), std::string(path())});
  }
  if (rare_ != nullptr && rare_->passivateAfter > Clock::duration::zero()) {
    // Four checks per idle timeout: the actor stops between 1 and 1.25
    // timeouts after its last message.
    home_->scheduler->addPassivation(
        self(), std::max(rare_->passivateAfter / 4, Clock::duration(1)), scheduleAnchor());
  }
}

std::uint32_t ActorCell::scheduleAnchor() {
  Rare& r = rare();
  if (r.scheduleAnchor == Scheduler::kNil) r.scheduleAnchor = home_->scheduler->newAnchor();
  return r.scheduleAnchor;
}

bool ActorCell::passivationCheck() {
  Rare& r = rare();
  if (state_ != State::Running) return state_ == State::Suspended;  // stopping: no more checks
  if (active_ || !mailbox_.empty() || blocked()) {
    active_ = false;
    r.quietChecks = 0;
    return true;
  }
  if (++r.quietChecks < 4) return true;
  core().log().debug(
      "[{}] passivated: idle for {} ms", path(),
      std::chrono::duration_cast<std::chrono::milliseconds>(r.passivateAfter).count());
  core().delivery().sendSystem(self(), SystemMessage{SysKind::Stop, {}, nullptr});
  return false;
}

void ActorCell::fail(std::exception_ptr cause) {
  state_ = State::Suspended;
  logContext() = LogContext{path(), &home_->isolate->name(), std::string_view("(failure)")};
  core().log().error("[{}] failed: {}; its parent decides", path(), describe(cause));
  core().delivery().sendSystem(parent(), SystemMessage{SysKind::Failed, self(), std::move(cause)});
}

void ActorCell::restart(const std::exception_ptr& cause) {
  if (state_ >= State::Terminating || state_ == State::Created) return;
  ++incarnation_;
  systemLine().dropHeld("the asking actor stopped or restarted");
  coroutines().destroy();
  ReceiveContext ctx(*this);
  if (actor_ != nullptr) {
    try {
      actor_->preRestart(ctx, cause);
    } catch (...) {
      reportHookError("preRestart", std::current_exception());
    }
  }
  actor_.reset();
  tools().reset();  // before the new instance, which may become or set a receive timeout anew
  if (!becomeNewInstance("construction or postRestart",
                         [&cause](Actor& a, ReceiveContext& c) { a.postRestart(c, cause); })) {
    return;
  }
  if (core().events().hasSubscribers<ActorRestarted>()) {
    core().events().publish(ActorRestarted{self(), std::string(path()), cause});
  }
  moves().retry();  // a move that waited for the supervisor's decision
}

// ---- stopping ----------------------------------------------------------------------

void ActorCell::requestStop() noexcept {
  beginStop();
}

void ActorCell::beginStop() {
  if (state_ >= State::Terminating) return;
  state_ = State::Terminating;
  systemLine().dropHeld("the asking actor stopped or restarted");
  coroutines().destroy();
  family().stopAll();
}

void ActorCell::finishStop() {
  ReceiveContext ctx(*this);
  if (actor_ != nullptr) {
    try {
      actor_->postStop(ctx);
    } catch (...) {
      reportHookError("postStop", std::current_exception());
    }
    actor_.reset();
  }
  state_ = State::Dead;
  const ActorRef me = self();
  moves().endWaiting(make_error_code(Error::ErrDead));
  tools().dropStash("the actor stopped");  // older than what the mailbox still holds
  tools().cancelReceiveTimeout();          // an armed check does nothing
  while (!mailbox_.empty()) {
    Envelope left = mailbox_.pop(home_->core);
    // An ask need not time out.
    core().asks().failAskOf(left.sender, make_error_code(Error::ErrDead));
    core().delivery().deadLetter(me, std::move(left), "the actor stopped");
  }
  SystemLine line = systemLine();
  line.dropContinuations("the actor stopped");
  // A router's head stands for its router: its watchers watched that.
  const ActorRef told =
      rare_ != nullptr && rare_->publicId != kNoPublicId ? core().makeRef(rare_->publicId) : me;
  while (line.queued()) {
    SystemMessage m = line.pop();
    if (m.kind == SysKind::Watch) m.ref.tell(Terminated{told}, told);
    if (m.kind == SysKind::Continue) {
      core().asks().dropContinuation(me, std::move(m.continuation), "the actor stopped");
    }
    if (m.kind == SysKind::Move) m.order->finish(make_error_code(Error::ErrDead));
  }
  if (rare_ != nullptr) {
    for (const auto& watcher : rare_->watchers) watcher.tell(Terminated{told}, told);
    rare_->watchers.clear();
  }
  if (rare_ != nullptr && rare_->scheduleAnchor != Scheduler::kNil) {
    home_->scheduler->releaseAnchor(rare_->scheduleAnchor);  // S6: its schedules end with it
    rare_->scheduleAnchor = Scheduler::kNil;
  }
  if (const ActorRef p = parent()) {
    core().delivery().sendSystem(p, SystemMessage{SysKind::ChildTerminated, me, nullptr});
  }
  if (core().events().hasSubscribers<ActorStopped>()) {
    core().events().publish(ActorStopped{me, std::string(path())});
  }
  moves().releaseTrail();
  ++home_->cellsChanged;                                           // no router's view keeps it
  home_->table.release(core().makeRef(moves().address()).slot());  // its entry where it lives
}

void ActorCell::abandon() noexcept {
  state_ = State::Dead;
  ++home_->cellsChanged;
  moves().endWaiting(make_error_code(Error::ErrActorSystemNotStarted));
  systemLine().dropHeld("the asking actor stopped or restarted");
  coroutines().destroy();
  tools().dropStash("the system stopped");
  while (!mailbox_.empty())
    core().delivery().deadLetter(self(), mailbox_.pop(home_->core), "the system stopped");
  actor_.reset();
}

void ActorCell::reportHookError(const char* hook, std::exception_ptr error) noexcept {
  core().log().error("[{}] {} threw: {}", path(), hook, describe(error));
  core().metrics().reportDispatcherError(dispatcher_->id(), std::move(error), self());
}

}  // namespace coreactor::detail
