// Moving an actor between the isolates of its system: the call, the cell's
// side (the Move between turns, the hand-over, the arrival, the release of
// what it left behind), and what a Forward does with what comes to it. The
// protocol is in Move.hpp; docs/isolates.md, "Moving an actor", says what it
// guarantees.
#include "Move.hpp"

#include "SystemCore.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

void MoveOrder::finish(std::error_code error) noexcept {
  std::function<void(std::error_code)> call = std::move(done);
  done = nullptr;
  if (!call) return;
  try {
    call(error);
  } catch (...) {
    if (system != nullptr) {
      system->log().error("a move's completion threw: {}", describe(std::current_exception()));
    }
  }
}

void MoveOrderDelete::operator()(MoveOrder* order) const noexcept {
  if (order->cell != nullptr) {
    // The system stopped with the cell on its way: it ends as every cell
    // ends at a stop (its messages become dead letters).
    order->cell->abandon();
    delete order->cell;
    order->cell = nullptr;
  }
  // An order dropped unheard (its isolate stopped before it was delivered).
  order->finish(make_error_code(Error::ErrActorSystemNotStarted));
  delete order;
}

// ---- the call ------------------------------------------------------------------

void SystemCore::move(const ActorRef& actor, std::size_t to,
                      std::function<void(std::error_code)> done) {
  if (actor.isNone()) throwError(Error::ErrDead, "move of an empty reference");
  if (isRemote(actor)) {
    throwError(Error::ErrNotMovable, "move of " + actor.path() +
                                         ", an actor of another rank: actors move between the "
                                         "isolates of their own process only");
  }
  if (!isOurs(actor)) {
    throwError(Error::ErrInvalidOption,
               "move of " + actor.path() + ", a reference of another system");
  }
  if (to >= isolates_.size()) {
    throwError(Error::ErrIsolateOutOfRange,
               "move to isolate " + std::to_string(to) + " of " + std::to_string(isolates_.size()));
  }
  if (!running()) {
    throwError(Error::ErrActorSystemNotStarted, "move on system '" + name_ + "', which stopped");
  }
  std::unique_ptr<MoveOrder, MoveOrderDelete> order(new MoveOrder);
  order->to = static_cast<std::uint32_t>(to);
  order->done = std::move(done);
  order->system = this;
  // A signal: it goes where the actor's signals go, and follows the actor
  // through the Forwards it left.
  sendSystem(actor, SystemMessage{SysKind::Move, {}, nullptr, nullptr, std::move(order)});
}

ActorCell* SystemCore::cellHere(const IsolateRuntime& rt, const ActorRef& ref) const noexcept {
  if (ref.isolateIndex() == rt.index) {
    if (ActorCell* cell = cellOf(rt, ref)) return cell;
  }
  if (rt.guests.empty()) return nullptr;
  const auto it = rt.guests.find(ref.id());
  return it != rt.guests.end() ? it->second : nullptr;
}

// ---- what comes to an entry an actor left ----------------------------------------

void SystemCore::forward(IsolateRuntime& rt, const Forward& entry, Envelope&& envelope) {
  rt.counts.forwarded.fetch_add(1, std::memory_order_relaxed);
  // From this isolate's loop: through the ring to where the actor went,
  // behind the cell and everything forwarded before (or in place, on a
  // manual system's driving thread).
  send(refOf(entry.to), std::move(envelope.message), envelope.sender);
}

void SystemCore::signalEntry(IsolateRuntime& rt, const ActorRef& target, Endpoint* endpoint,
                             SystemMessage&& message) {
  if (message.kind == SysKind::Arrive) {
    ActorCell* cell = message.order->cell;
    cell->arrive(rt, std::move(message.order));
    return;
  }
  if (endpoint == nullptr || endpoint->kind != Endpoint::Kind::Forward) {
    deliverToNoActor(target, std::move(message));
    return;
  }
  auto* entry = static_cast<Forward*>(endpoint);
  if (message.kind == SysKind::Unforward) {
    // The actor stopped: what comes here from now on is a dead letter.
    rt.table.release(target.slot());
    delete entry;
    return;
  }
  rt.counts.forwarded.fetch_add(1, std::memory_order_relaxed);
  sendSystem(refOf(entry->to), std::move(message));
}

// ---- the cell's side -------------------------------------------------------------

void ActorCell::handleMove(std::unique_ptr<MoveOrder, MoveOrderDelete> order) {
  if (state_ >= State::Terminating) {
    order->finish(make_error_code(Error::ErrDead));
    return;
  }
  if (pinned_ || bound_ || (rare_ != nullptr && rare_->ownDispatcher != nullptr)) {
    core().log().debug("[{}] not moved to isolate {}: {}", path(), order->to,
                       pinned_  ? "pinned"
                       : bound_ ? "bound to its isolate (it used it directly)"
                                : "it has a dispatcher of its own");
    order->finish(make_error_code(Error::ErrNotMovable));
    return;
  }
  if (state_ != State::Running || coroutinesSuspended() ||
      (rare_ != nullptr && !rare_->pendingMoves.empty())) {
    // Its supervisor decides, or a handler waits in a coroutine: it moves
    // when it runs again with none waiting (retryMove), orders in the
    // order they came.
    rare().pendingMoves.push_back(std::move(order));
    return;
  }
  if (order->to == home_->index) {
    order->finish({});  // there already
    return;
  }
  state_ = State::Leaving;  // the turn ends here, and leave() runs as it does
  rare().leaving = std::move(order);
}

void ActorCell::retryMove() {
  if (rare_ == nullptr || rare_->pendingMoves.empty() || state_ != State::Running ||
      coroutinesSuspended()) {
    return;
  }
  // Back into the system queue, oldest first: the turn that runs it moves.
  std::vector<std::unique_ptr<MoveOrder, MoveOrderDelete>> orders = std::move(rare_->pendingMoves);
  rare_->pendingMoves.clear();
  for (auto& order : orders) {
    pushSystem(SystemMessage{SysKind::Move, {}, nullptr, nullptr, std::move(order)});
  }
  if (!scheduled_) schedule();
}

void ActorCell::leave() {
  std::unique_ptr<MoveOrder, MoveOrderDelete> order = std::move(rare_->leaving);
  state_ = State::Running;
  SystemCore& system = core();
  IsolateRuntime& from = *home_;
  IsolateRuntime& to = system.runtime(order->to);
  const ActorTable::Reservation there = to.table.reserve(/*onOwner=*/false);
  order->slot = there.slot;
  order->generation = there.generation;
  // The entry it leaves sends what comes to it on to the new one, in the
  // order it comes, and stays a top-level actor's entry if it was one.
  const ActorRef entry = system.makeRef(address());
  const std::uint64_t next = system.makeRef(to.index, there.slot, there.generation).id();
  from.table.publish(entry.slot(), new Forward(next),
                     from.table.isTopLevel(entry.slot(), entry.generation()));
  rare_->trail.push_back(entry.id());
  from.guests.erase(selfId_);
  from.counts.liveActors.fetch_sub(1, std::memory_order_relaxed);
  if (watchDepth_) std::erase(from.watchedMailboxes, this);
  // Schedules it made here stay here (they fire from here, and their ticks
  // follow it); their anchor is released here when it stops.
  if (rare_->scheduleAnchor != Scheduler::kNil) {
    rare_->anchorsLeft.emplace_back(from.index, rare_->scheduleAnchor);
    rare_->scheduleAnchor = Scheduler::kNil;
  }
  order->cell = this;
  const ActorRef arrival = system.makeRef(to.index, there.slot, there.generation);
  // From here on the cell belongs to the new isolate's loop: nothing below
  // this call touches it.
  system.sendSystem(arrival,
                    SystemMessage{SysKind::Arrive, {}, nullptr, nullptr, std::move(order)});
}

void ActorCell::arrive(IsolateRuntime& to, std::unique_ptr<MoveOrder, MoveOrderDelete> order) {
  home_ = &to;
  // Actors that move run on the system's default dispatcher (one with its
  // own is ErrNotMovable): the new isolate's instance of it.
  dispatcher_ = to.dispatcher.get();
  inPlace_ = dispatcher_->urgentUnitsMayRunInPlace();
  Rare& r = rare();
  r.address = core().makeRef(to.index, order->slot, order->generation).id();
  to.guests[selfId_] = this;
  to.table.publish(order->slot, this);
  to.counts.liveActors.fetch_add(1, std::memory_order_relaxed);
  to.counts.movesIn.fetch_add(1, std::memory_order_relaxed);
  if (watchDepth_) to.watchedMailboxes.push_back(this);
  if (r.passivateAfter > Clock::duration::zero()) {
    // The checks of the isolate it left end there (they find no cell).
    to.scheduler->addPassivation(self(), std::max(r.passivateAfter / 4, Clock::duration(1)),
                                 Scheduler::kNil);
  }
  order->cell = nullptr;
  if (!scheduled_ && (pending_ != 0 || !mailbox_.empty())) schedule();
  order->finish({});
}

void ActorCell::releaseTrail() noexcept {
  if (rare_ == nullptr) return;
  home_->guests.erase(selfId_);
  SystemCore& system = core();
  for (const std::uint64_t entry : rare_->trail) {
    try {
      system.sendSystem(system.makeRef(entry), SystemMessage{SysKind::Unforward, {}, nullptr});
    } catch (...) {
      system.log().error("[{}] an entry it left on moving was not freed: {}", path(),
                         describe(std::current_exception()));
    }
  }
  rare_->trail.clear();
  for (const auto& [isolate, anchor] : rare_->anchorsLeft) {
    Scheduler* scheduler = system.runtime(isolate).scheduler.get();
    try {
      system.runtime(isolate).isolate->post(
          [scheduler, a = anchor] { scheduler->releaseAnchor(a); });
    } catch (const std::system_error&) {
      // That isolate stopped: its schedules ended with it.
    }
  }
  rare_->anchorsLeft.clear();
}

}  // namespace coreactor::detail
