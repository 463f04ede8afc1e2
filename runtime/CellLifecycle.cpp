// One actor's lifecycle (CellLifecycle.hpp; requirement A5, A6): its system
// messages (start, stop, watch, supervision, continuations), restarts and
// stopping. The cell's turn is in CellTurn.cpp, its children and the
// supervision decisions it takes for them in Family.cpp. Everything here
// runs on the actor's isolate.
#include <algorithm>

#include "Coroutines.hpp"
#include "Logging.hpp"
#include "SystemCore.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;
using State = ActorCell::State;

// ---- system messages ---------------------------------------------------------------

void CellLifecycle::handleSystem(SystemMessage& message) {
  ActorCell& cell = cell_;
  switch (message.kind) {
    case SysKind::Start:
      if (cell.state_ == State::Created) start();
      break;
    case SysKind::Stop:
      beginStop(cell);
      break;
    case SysKind::Watch:
      if (auto& w = cell.rare().watchers; std::find(w.begin(), w.end(), message.ref) == w.end()) {
        w.push_back(message.ref);
      }
      break;
    case SysKind::Unwatch:
      if (cell.rare_ != nullptr) std::erase(cell.rare_->watchers, message.ref);
      break;
    case SysKind::Failed:
      cell.family().supervise(message.ref, message.cause);
      break;
    case SysKind::Resume:
      if (cell.state_ == State::Suspended) {
        cell.state_ = State::Running;
        cell.systemLine().releaseHeld();
        cell.moves().retry();
        // A resume after an escalation resumes the subtree that escalated.
        cell.family().resumeAll();
      }
      break;
    case SysKind::Continue:
      CellTurn::handleContinue(cell, std::move(message.continuation));
      break;
    case SysKind::Restart:
      restart(message.cause);
      break;
    case SysKind::ChildTerminated:
      cell.family().forget(message.ref);
      if (cell.flags_.any(CellFlags::kGuardian))
        cell.core().spawns().topLevelTerminated(message.ref);
      break;
    case SysKind::Move:
      cell.moves().handle(std::move(message.order));
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
bool CellLifecycle::becomeNewInstance(const char* what, Hook&& hook) {
  ActorCell& cell = cell_;
  ReceiveContext ctx(cell);
  try {
    cell.actor_ = cell.factory_();
    hook(*cell.actor_, ctx);
  } catch (...) {
    reportHookError(cell, what, std::current_exception());
    cell.actor_.reset();
    beginStop(cell);
    return false;
  }
  // A hook that stopped its actor (ctx.stop() in preStart or postRestart)
  // keeps that stop: it takes effect when the turn ends (postStop, then
  // the watchers hear Terminated), as in Akka and CAF.
  if (cell.state_ < State::Terminating) cell.state_ = State::Running;
  return true;
}

void CellLifecycle::start() {
  ActorCell& cell = cell_;
  if (cell.flags_.any(CellFlags::kWatchDepth)) cell.home_->watchedMailboxes.push_back(&cell);
  if (!becomeNewInstance("construction or preStart",
                         [](Actor& a, ReceiveContext& ctx) { a.preStart(ctx); })) {
    return;
  }
  if (!cell.flags_.any(CellFlags::kGuardian) &&
      cell.core().events().hasSubscribers<ActorStarted>()) {
    cell.core().events().publish(ActorStarted{cell.self(), std::string(cell.path())});
  }
  if (cell.rare_ != nullptr && cell.rare_->passivateAfter > Clock::duration::zero()) {
    // Four checks per idle timeout: the actor stops between 1 and 1.25
    // timeouts after its last message.
    cell.home_->scheduler->addPassivation(
        cell.self(), std::max(cell.rare_->passivateAfter / 4, Clock::duration(1)),
        scheduleAnchor());
  }
}

std::uint32_t CellLifecycle::scheduleAnchor() {
  ActorCell::Rare& r = cell_.rare();
  if (r.scheduleAnchor == Scheduler::kNil) r.scheduleAnchor = cell_.home_->scheduler->newAnchor();
  return r.scheduleAnchor;
}

bool CellLifecycle::passivationCheck() {
  ActorCell& cell = cell_;
  ActorCell::Rare& r = cell.rare();
  if (cell.state_ != State::Running) {
    return cell.state_ == State::Suspended;  // stopping: no more checks
  }
  if (cell.active_ || !cell.mailbox_.empty() || cell.blocked()) {
    cell.active_ = false;
    r.quietChecks = 0;
    return true;
  }
  if (++r.quietChecks < 4) return true;
  cell.core().log().debug(
      "[{}] passivated: idle for {} ms", cell.path(),
      std::chrono::duration_cast<std::chrono::milliseconds>(r.passivateAfter).count());
  cell.core().delivery().sendSystem(cell.self(), SystemMessage{SysKind::Stop, {}, nullptr});
  return false;
}

void CellLifecycle::fail(ActorCell& cell, std::exception_ptr cause) {
  cell.state_ = State::Suspended;
  logContext() =
      LogContext{cell.path(), &cell.home_->isolate->name(), std::string_view("(failure)")};
  cell.core().log().error("[{}] failed: {}; its parent decides", cell.path(), describe(cause));
  cell.core().delivery().sendSystem(cell.parent(),
                                    SystemMessage{SysKind::Failed, cell.self(), std::move(cause)});
}

void CellLifecycle::restart(const std::exception_ptr& cause) {
  ActorCell& cell = cell_;
  if (cell.state_ >= State::Terminating || cell.state_ == State::Created) return;
  ++cell.incarnation_;
  cell.systemLine().dropHeld("the asking actor stopped or restarted");
  cell.coroutines().destroy();
  ReceiveContext ctx(cell);
  if (cell.actor_ != nullptr) {
    try {
      cell.actor_->preRestart(ctx, cause);
    } catch (...) {
      reportHookError(cell, "preRestart", std::current_exception());
    }
  }
  cell.actor_.reset();
  cell.tools().reset();  // before the new instance, which may become or set a receive timeout anew
  if (!becomeNewInstance("construction or postRestart",
                         [&cause](Actor& a, ReceiveContext& c) { a.postRestart(c, cause); })) {
    return;
  }
  if (cell.core().events().hasSubscribers<ActorRestarted>()) {
    cell.core().events().publish(ActorRestarted{cell.self(), std::string(cell.path()), cause});
  }
  cell.moves().retry();  // a move that waited for the supervisor's decision
}

// ---- stopping ----------------------------------------------------------------------

void CellLifecycle::requestStop() noexcept {
  beginStop(cell_);
}

void CellLifecycle::beginStop(ActorCell& cell) {
  if (cell.state_ >= State::Terminating) return;
  cell.state_ = State::Terminating;
  // What follows lives in the rare part: a cell without one has none of it.
  if (cell.rare_ == nullptr) return;
  cell.systemLine().dropHeld("the asking actor stopped or restarted");
  cell.coroutines().destroy();
  cell.family().stopAll();
}

void CellLifecycle::finishStop(ActorCell& cell) {
  ReceiveContext ctx(cell);
  if (cell.actor_ != nullptr) {
    try {
      cell.actor_->postStop(ctx);
    } catch (...) {
      reportHookError(cell, "postStop", std::current_exception());
    }
    cell.actor_.reset();
  }
  cell.state_ = State::Dead;
  const ActorRef me = cell.self();
  // The steps of the rare part (moves, tools, the system line's queue,
  // watchers, schedules, a moved actor's trail) are each behind one test of
  // it: most cells never make it, and each step's call returning at once
  // would cost more than the test.
  if (cell.rare_ != nullptr) {
    cell.moves().endWaiting(make_error_code(Error::ErrDead));
    cell.tools().dropStash("the actor stopped");  // older than what the mailbox still holds
    cell.tools().cancelReceiveTimeout();          // an armed check does nothing
  }
  while (!cell.mailbox_.empty()) {
    Envelope left = cell.mailbox_.pop(cell.home_->core);
    // An ask need not time out.
    cell.core().asks().failAskOf(left.sender, make_error_code(Error::ErrDead));
    cell.core().delivery().deadLetter(me, std::move(left), "the actor stopped");
  }
  if (cell.rare_ != nullptr) endRare(cell, me);
  if (const ActorRef p = cell.parent()) {
    cell.core().delivery().sendSystem(p, SystemMessage{SysKind::ChildTerminated, me, nullptr});
  }
  if (cell.core().events().hasSubscribers<ActorStopped>()) {
    cell.core().events().publish(ActorStopped{me, std::string(cell.path())});
  }
  if (cell.rare_ != nullptr) cell.moves().releaseTrail();
  ++cell.home_->cellsChanged;  // no router's view keeps it
  // Its entry where it lives.
  cell.home_->table.release(cell.core().makeRef(cell.moves().address()).slot());
}

void CellLifecycle::endRare(ActorCell& cell, const ActorRef& me) {
  ActorCell::Rare& rare = *cell.rare_;
  SystemLine line = cell.systemLine();
  line.dropContinuations("the actor stopped");
  // A router's head stands for its router: its watchers watched that.
  const ActorRef told =
      rare.publicId != ActorCell::kNoPublicId ? cell.core().makeRef(rare.publicId) : me;
  while (line.queued()) {
    SystemMessage m = line.pop();
    if (m.kind == SysKind::Watch) m.ref.tell(Terminated{told}, told);
    if (m.kind == SysKind::Continue) {
      cell.core().asks().dropContinuation(me, std::move(m.continuation), "the actor stopped");
    }
    if (m.kind == SysKind::Move) m.order->finish(make_error_code(Error::ErrDead));
  }
  for (const auto& watcher : rare.watchers) watcher.tell(Terminated{told}, told);
  rare.watchers.clear();
  if (rare.scheduleAnchor != Scheduler::kNil) {
    // S6: its schedules end with it.
    cell.home_->scheduler->releaseAnchor(rare.scheduleAnchor);
    rare.scheduleAnchor = Scheduler::kNil;
  }
}

void CellLifecycle::abandon() noexcept {
  ActorCell& cell = cell_;
  cell.state_ = State::Dead;
  ++cell.home_->cellsChanged;
  cell.moves().endWaiting(make_error_code(Error::ErrActorSystemNotStarted));
  cell.systemLine().dropHeld("the asking actor stopped or restarted");
  cell.coroutines().destroy();
  cell.tools().dropStash("the system stopped");
  while (!cell.mailbox_.empty()) {
    cell.core().delivery().deadLetter(cell.self(), cell.mailbox_.pop(cell.home_->core),
                                      "the system stopped");
  }
  cell.actor_.reset();
}

void CellLifecycle::reportHookError(ActorCell& cell, const char* hook,
                                    std::exception_ptr error) noexcept {
  cell.core().log().error("[{}] {} threw: {}", cell.path(), hook, describe(error));
  cell.core().metrics().reportDispatcherError(cell.dispatcher_->id(), std::move(error),
                                              cell.self());
}

}  // namespace coreactor::detail
