// Over 600 lines on purpose: one protocol and both its sides, the system's
// (Moves) and the cell's (CellMoves), which answer each other.
// Moving an actor between the isolates of its system: the call, the cell's
// side (the Move between turns, the hand-over, the arrival, the release of
// what it left behind), and what a Forward does with what comes to it. The
// protocol is in Move.hpp; docs/isolates.md, "Moving an actor", says what it
// guarantees.
#include "Move.hpp"

#include "Coroutines.hpp"
#include "SystemCore.hpp"
#include "runtime/cluster/RemoteRoutes.hpp"

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
    order->cell->lifecycle().abandon();
    delete order->cell;
    order->cell = nullptr;
  }
  // An order dropped unheard (its isolate stopped before it was delivered).
  order->finish(make_error_code(Error::ErrActorSystemNotStarted));
  delete order;
}

// ---- the call ------------------------------------------------------------------

void Moves::move(const ActorRef& actor, std::size_t to, std::function<void(std::error_code)> done) {
  if (actor.isNone()) throwError(Error::ErrDead, "move of an empty reference");
  if (RemoteRoutes::isRemote(core_.remote(), actor)) {
    throwError(Error::ErrNotMovable, "move of " + actor.path() +
                                         ", an actor of another rank: actors move between the "
                                         "isolates of their own process only");
  }
  if (core_.routers().isRouter(actor)) {
    throwError(Error::ErrNotMovable,
               "move of " + actor.path() + ", a router: it has no isolate; move its routees");
  }
  if (!core_.isOurs(actor)) {
    throwError(Error::ErrInvalidOption,
               "move of " + actor.path() + ", a reference of another system");
  }
  if (to >= core_.isolateCount()) {
    throwError(Error::ErrIsolateOutOfRange, "move to isolate " + std::to_string(to) + " of " +
                                                std::to_string(core_.isolateCount()));
  }
  if (!core_.running()) {
    throwError(Error::ErrActorSystemNotStarted,
               "move on system '" + core_.name() + "', which stopped");
  }
  std::unique_ptr<MoveOrder, MoveOrderDelete> order(new MoveOrder);
  order->to = static_cast<std::uint32_t>(to);
  order->done = std::move(done);
  order->system = &core_;
  // A signal: it goes where the actor's signals go, and follows the actor
  // through the Forwards it left.
  core_.delivery().sendSystem(actor,
                              SystemMessage{SysKind::Move, {}, nullptr, nullptr, std::move(order)});
}

ActorCell* Moves::guestHere(const IsolateRuntime& rt, const ActorRef& ref) const noexcept {
  if (rt.guests.empty()) return nullptr;
  const auto it = rt.guests.find(ref.id());
  return it != rt.guests.end() ? it->second : nullptr;
}

// ---- what comes to the entries of an actor that moved -----------------------------

void Moves::forward(IsolateRuntime& rt, Forward& entry, Envelope&& envelope) {
  rt.counts.forwarded.fetch_add(1, std::memory_order_relaxed);
  rt.counts.detoured.fetch_add(1, std::memory_order_relaxed);
  // Whose sends these are asks, once, for an entry of its own.
  if (!core_.options().manualRun()) {  // a manual system delivers in place: no crossing to save
    const std::uint32_t source = rt.sendsOf();
    if (source < core_.isolateCount()) {
      if (entry.asked.empty()) entry.asked.resize(core_.isolateCount());
      if (!entry.asked[source]) {
        entry.asked[source] = true;
        std::unique_ptr<MoveOrder, MoveOrderDelete> request(new MoveOrder);
        request->to = source;
        request->system = &core_;
        core_.delivery().sendSystem(
            core_.refOf(entry.to),
            SystemMessage{SysKind::RouteRequest, {}, nullptr, nullptr, std::move(request)});
      }
    }
  }
  // From this isolate's loop: through the ring to where the actor went,
  // behind the cell and everything forwarded before (or in place, on a
  // manual system's driving thread).
  const ActorRef to = core_.refOf(entry.to);
  noteRelay(rt, envelope.sender, to);
  core_.send(to, std::move(envelope.message), envelope.sender);
}

void Moves::keep(Hold& entry, Envelope&& envelope) {
  entry.kept.push_back(Hold::Kept{std::move(envelope), nullptr});
}

void Moves::signalEntry(IsolateRuntime& rt, const ActorRef& target, Endpoint* endpoint,
                        SystemMessage&& message) {
  if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Forward) {
    rt.counts.forwarded.fetch_add(1, std::memory_order_relaxed);
    rt.counts.detoured.fetch_add(1, std::memory_order_relaxed);
    core_.delivery().sendSystem(core_.refOf(static_cast<Forward*>(endpoint)->to),
                                std::move(message));
    return;
  }
  if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Hold) {
    Hold::Kept kept;
    kept.system = std::make_unique<SystemMessage>(std::move(message));
    static_cast<Hold*>(endpoint)->kept.push_back(std::move(kept));
    return;
  }
  core_.delivery().deliverToNoActor(target, std::move(message));
}

void Moves::entrySignal(IsolateRuntime& rt, const ActorRef& target, SystemMessage&& message) {
  switch (message.kind) {
    case SysKind::Arrive: {
      ActorCell* cell = message.order->cell;
      cell->moves().arrive(rt, std::move(message.order));
      return;
    }
    case SysKind::BarrierToken:
      // Everything the moved actor sent through the ring this came in is
      // here: once what of it went on from here is where it goes, its new
      // entry hears so.
      if (openFlush(rt, message.order->mover, message.ref.id(), 0, 0)) {
        core_.delivery().sendSystem(message.ref, SystemMessage{SysKind::BarrierAck, {}, nullptr});
      }
      return;
    case SysKind::Probe: {
      const std::uint32_t parent = message.ref.isolateIndex();
      const std::uint64_t parentFlush = message.order->flush;
      if (openFlush(rt, message.order->mover, 0, parent, parentFlush)) {
        probeDone(rt, parent, parentFlush);
      }
      return;
    }
    case SysKind::ProbeDone:
      for (Relays::Flush& f : rt.relays.open) {
        if (f.id == message.order->flush && f.pending != 0) {
          --f.pending;
          break;
        }
      }
      stepFlushes(rt);
      return;
    default:
      break;
  }
  Endpoint* endpoint = rt.table.find(target.slot(), target.generation());
  auto* cell = endpoint != nullptr && endpoint->kind == Endpoint::Kind::Cell
                   ? static_cast<ActorCell*>(endpoint)
                   : nullptr;
  switch (message.kind) {
    case SysKind::BarrierAck:
      if (cell != nullptr) {
        cell->moves().barrierAck();
      } else {
        ++rt.earlyAcks[target.id()];  // the cell is still on its way here
      }
      return;
    case SysKind::Unforward:
      // The actor stopped: what comes here from now on is a dead letter.
      if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Forward) {
        rt.table.release(target.slot());
        delete static_cast<Forward*>(endpoint);
      } else if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Hold) {
        rt.table.release(target.slot());
        dropHold(std::unique_ptr<Hold>(static_cast<Hold*>(endpoint)));
        stepFlushes(rt);
      }
      return;
    case SysKind::RouteRequest:
      if (cell != nullptr) {
        cell->moves().giveRoute(message.order->to);
        return;
      }
      break;
    case SysKind::Marker:
      if (cell != nullptr) {
        cell->moves().closeHold(message.ref);
        return;
      }
      if (target == message.ref) {
        // Sent to the Hold itself: from the actor it had gone on to, or
        // from an isolate that needs no route. Closed unless it already is.
        if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Hold &&
            static_cast<Hold*>(endpoint)->cell != nullptr) {
          static_cast<Hold*>(endpoint)->cell->moves().closeHold(message.ref);
        } else {
          closeLeftHold(rt, message.ref, 0);
        }
        return;
      }
      // Passing an entry the actor left: the Hold it closes may be here,
      // and what it kept goes the way the Marker came to go, behind it.
      // (Reaching a Hold, the Marker waits in line there like any signal.)
      if (endpoint != nullptr && endpoint->kind == Endpoint::Kind::Forward &&
          closeLeftHold(rt, message.ref, static_cast<Forward*>(endpoint)->to)) {
        return;
      }
      break;
    default:
      break;
  }
  // Not at the actor: on along the way it went (or kept, or dropped).
  signalEntry(rt, target, endpoint, std::move(message));
}

bool Moves::closeLeftHold(IsolateRuntime& rt, const ActorRef& entry, std::uint64_t via) {
  if (entry.isolateIndex() != rt.index) return false;
  Endpoint* e = rt.table.find(entry.slot(), entry.generation());
  if (e == nullptr || e->kind != Endpoint::Kind::Hold) return false;
  auto* hold = static_cast<Hold*>(e);
  if (hold->cell != nullptr) return false;
  // Everything the isolate it was given to sent the old way went on before
  // this Marker (the way `via` leads): what the Hold kept, and what comes to
  // it from now on, follows the same way.
  std::unique_ptr<Hold> owned(hold);
  const std::uint64_t next = via != 0 ? via : hold->to;
  rt.table.publish(entry.slot(), new Forward(next),
                   rt.table.isTopLevel(entry.slot(), entry.generation()));
  const ActorRef to = core_.refOf(next);
  for (Hold::Kept& kept : hold->kept) {
    try {
      if (kept.system != nullptr) {
        core_.delivery().sendSystem(to, std::move(*kept.system));
      } else {
        noteRelay(rt, kept.envelope.sender, to);
        core_.send(to, std::move(kept.envelope.message), kept.envelope.sender);
      }
    } catch (...) {
      core_.metrics().reportDispatcherError("moves", std::current_exception(), to);
    }
  }
  owned.reset();
  stepFlushes(rt);
  return true;
}

void Moves::dropHold(std::unique_ptr<Hold> hold) {
  for (Hold::Kept& kept : hold->kept) {
    if (kept.system != nullptr) {
      core_.delivery().deliverToNoActor(core_.refOf(hold->actor),
                                        std::move(*kept.system));  // a watcher hears Terminated
    } else {
      core_.asks().failAskOf(kept.envelope.sender, make_error_code(Error::ErrDead));
      core_.delivery().deadLetter(core_.refOf(hold->actor), std::move(kept.envelope),
                                  "the actor stopped");
    }
  }
}

void Moves::takeRoute(std::uint32_t at, std::uint64_t actor, std::uint64_t entry) {
  IsolateRuntime& rt = core_.runtime(at);
  const ActorRef ref = core_.refOf(actor);
  // The way this isolate's sends to the actor went so far: the Forward it
  // left here if it was spawned here, else the route given before, else its
  // reference.
  Forward* own = nullptr;
  std::uint64_t old = actor;
  if (ref.isolateIndex() == at) {
    Endpoint* e = rt.table.find(ref.slot(), ref.generation());
    if (e == nullptr || e->kind != Endpoint::Kind::Forward) {
      // It stopped, or is back here in its own entry: no route needed, and
      // the entry it gave keeps nothing of this isolate's; it closes.
      core_.delivery().sendSystem(core_.refOf(entry),
                                  SystemMessage{SysKind::Marker, core_.refOf(entry), nullptr});
      return;
    }
    own = static_cast<Forward*>(e);
    old = own->to;
  } else if (const std::uint64_t* route = rt.routes.find(actor)) {
    old = *route;
  }
  // The Marker goes that way, behind everything this isolate sent it so
  // far; what it sends from now on goes to the new entry, which keeps it
  // until the Marker is there.
  core_.delivery().sendSystem(core_.refOf(old),
                              SystemMessage{SysKind::Marker, core_.refOf(entry), nullptr});
  if (own != nullptr) {
    own->to = entry;
    // A new way: whose sends come through it is asked anew, but for this
    // isolate's, whose entry this is (asking again would give it another).
    own->asked.assign(core_.isolateCount(), false);
    own->asked[at] = true;
  } else {
    rt.setRoute(actor, entry);
  }
}

// ---- flushes: a moving sender's messages ahead of what it sends later ---------------

void Moves::noteRelay(IsolateRuntime& rt, const ActorRef& sender, const ActorRef& to) {
  if (core_.options().manualRun() || sender.isNone() || !core_.isOurs(sender) ||
      to.isolateIndex() == rt.index) {
    return;  // in place, or a sender that is no actor of this system
  }
  Relays& relays = rt.relays;
  const auto now = std::chrono::steady_clock::now();
  if (relays.bySender.size() >= relays.forgetAbove) {
    std::erase_if(relays.bySender,
                  [&](const auto& entry) { return now - entry.second.at > Relays::kHorizon; });
    relays.forgetAbove = std::max<std::size_t>(1024, 2 * relays.bySender.size());
  }
  Relays::Passed& passed = relays.bySender[sender.id()];
  const std::uint32_t at = to.isolateIndex();
  if (std::find(passed.to.begin(), passed.to.end(), at) == passed.to.end()) {
    passed.to.push_back(at);
  }
  passed.at = now;
}

bool Moves::openFlush(IsolateRuntime& rt, std::uint64_t mover, std::uint64_t ackTo,
                      std::uint32_t parent, std::uint64_t parentFlush) {
  Relays::Flush flush{rt.relays.nextFlush++, mover, 0, ackTo, parent, parentFlush};
  if (stepFlush(rt, flush)) return true;
  rt.relays.open.push_back(flush);
  return false;
}

bool Moves::stepFlush(IsolateRuntime& rt, Relays::Flush& flush) {
  Relays& relays = rt.relays;
  if (const auto it = relays.bySender.find(flush.mover); it != relays.bySender.end()) {
    // Behind what went on from here, through the same rings.
    const std::vector<std::uint32_t> to = std::move(it->second.to);
    relays.bySender.erase(it);
    for (const std::uint32_t isolate : to) {
      std::unique_ptr<MoveOrder, MoveOrderDelete> probe(new MoveOrder);
      probe->mover = flush.mover;
      probe->flush = flush.id;
      signalIsolate(rt, isolate,
                    SystemMessage{SysKind::Probe, core_.makeRef(rt.index, 0, 0), nullptr, nullptr,
                                  std::move(probe)});
      ++flush.pending;
    }
  }
  if (flush.pending != 0) return false;
  return std::none_of(relays.holds.begin(), relays.holds.end(),
                      [&](const Hold* hold) { return hold->keeps(flush.mover); });
}

void Moves::stepFlushes(IsolateRuntime& rt) {
  std::vector<Relays::Flush>& open = rt.relays.open;
  for (std::size_t i = 0; i < open.size();) {
    if (!stepFlush(rt, open[i])) {
      ++i;
      continue;
    }
    const Relays::Flush done = open[i];
    open.erase(open.begin() + static_cast<std::ptrdiff_t>(i));
    if (done.ackTo != 0) {
      core_.delivery().sendSystem(core_.refOf(done.ackTo),
                                  SystemMessage{SysKind::BarrierAck, {}, nullptr});
    } else {
      probeDone(rt, done.parent, done.parentFlush);
    }
  }
}

void Moves::probeDone(IsolateRuntime& rt, std::uint32_t parent, std::uint64_t flush) {
  std::unique_ptr<MoveOrder, MoveOrderDelete> done(new MoveOrder);
  done->flush = flush;
  signalIsolate(rt, parent,
                SystemMessage{SysKind::ProbeDone, {}, nullptr, nullptr, std::move(done)});
}

void Moves::signalIsolate(IsolateRuntime& from, std::uint32_t to, SystemMessage&& message) {
  IsolateRuntime& there = core_.runtime(to);
  from.link->send(
      *there.link, core_.makeRef(there.index, 0, 0).id(),
      Crossing{Crossing::kNoSender,
               Message(CrossingSystemMessage{std::make_unique<SystemMessage>(std::move(message))})},
      /*refusable=*/false);
}

// ---- the cell's side -------------------------------------------------------------

CellMoves::Data* CellMoves::data() const noexcept {
  return cell_.rare_ != nullptr ? &cell_.rare_->moves : nullptr;
}

CellMoves::Data& CellMoves::made() {
  return cell_.rare().moves;
}

void CellMoves::handle(std::unique_ptr<MoveOrder, MoveOrderDelete> order) {
  ActorCell& c = cell_;
  if (c.state_ >= ActorCell::State::Terminating) {
    order->finish(make_error_code(Error::ErrDead));
    return;
  }
  if (c.flags_.any(CellFlags::kPinned | CellFlags::kBound | CellFlags::kGuardian) ||
      (c.rare_ != nullptr && c.rare_->ownDispatcher != nullptr)) {
    c.core().log().debug("[{}] not moved to isolate {}: {}", c.path(), order->to,
                         c.flags_.any(CellFlags::kPinned) ? "pinned"
                         : c.flags_.any(CellFlags::kBound)
                             ? "bound to its isolate (it used it directly)"
                             : "it has a dispatcher of its own");
    order->finish(make_error_code(Error::ErrNotMovable));
    return;
  }
  const Data* d = data();
  if (c.state_ != ActorCell::State::Running || c.coroutines().suspended() ||
      (d != nullptr && !d->pendingMoves.empty())) {
    // Its supervisor decides, or a handler waits in a coroutine: it moves
    // when it runs again with neither (retry), orders in the order they
    // came.
    made().pendingMoves.push_back(std::move(order));
    return;
  }
  if (order->to == c.home_->index) {
    order->finish({});  // there already
    return;
  }
  c.state_ = ActorCell::State::Leaving;  // the turn ends here, and leave() runs as it does
  made().leaving = std::move(order);
}

void CellMoves::retry() {
  ActorCell& c = cell_;
  Data* d = data();
  if (d == nullptr || d->pendingMoves.empty() || c.state_ != ActorCell::State::Running ||
      c.coroutines().suspended()) {
    return;
  }
  // Back into the system queue, oldest first: the turn that runs it moves.
  std::vector<std::unique_ptr<MoveOrder, MoveOrderDelete>> orders = std::move(d->pendingMoves);
  d->pendingMoves.clear();
  for (auto& order : orders) {
    c.systemLine().push(SystemMessage{SysKind::Move, {}, nullptr, nullptr, std::move(order)});
  }
  if (!c.scheduled_) c.schedule();
}

void CellMoves::endWaiting(std::error_code error) noexcept {
  Data* d = data();
  if (d == nullptr) return;
  for (auto& order : d->pendingMoves) order->finish(error);
  d->pendingMoves.clear();
}

void CellMoves::leave(ActorCell& cell) {
  Data& d = cell.rare_->moves;
  std::unique_ptr<MoveOrder, MoveOrderDelete> order = std::move(d.leaving);
  cell.state_ = ActorCell::State::Running;
  SystemCore& system = cell.core();
  IsolateRuntime& from = *cell.home_;
  IsolateRuntime& to = system.runtime(order->to);
  const ActorTable::Reservation there = to.table.reserve(/*onOwner=*/false);
  order->slot = there.slot;
  order->generation = there.generation;
  const ActorRef arrival = system.makeRef(to.index, there.slot, there.generation);
  // Each entry it leaves sends what comes to it on to the new one, in the
  // order it comes; its first stays a top-level actor's entry if it was one.
  const ActorRef entry = system.makeRef(CellMoves(cell).address());
  from.table.publish(entry.slot(), new Forward(arrival.id()),
                     from.table.isTopLevel(entry.slot(), entry.generation()));
  d.trail.push_back(entry.id());
  for (const std::uint64_t alias : d.aliases) {
    const ActorRef left = system.makeRef(alias);
    from.table.publish(left.slot(), new Forward(arrival.id()),
                       from.table.isTopLevel(left.slot(), left.generation()));
    d.trail.push_back(alias);
  }
  d.aliases.clear();
  // A Hold still waiting for its Marker stays, without the cell: when the
  // Marker comes through here, what it kept goes on behind it and it
  // becomes a Forward (closeLeftHold).
  for (const std::uint64_t id : d.holds) {
    const ActorRef hold = system.makeRef(id);
    Endpoint* e = from.table.find(hold.slot(), hold.generation());
    if (e == nullptr || e->kind != Endpoint::Kind::Hold) continue;
    static_cast<Hold*>(e)->cell = nullptr;
    static_cast<Hold*>(e)->to = arrival.id();
    d.trail.push_back(id);
  }
  d.holds.clear();
  from.guests.erase(cell.selfId_);
  from.routeCache.forget(cell.selfId_);
  ++from.cellsChanged;
  from.counts.liveActors.fetch_sub(1, std::memory_order_relaxed);
  if (cell.flags_.any(CellFlags::kWatchDepth)) std::erase(from.watchedMailboxes, &cell);
  // Schedules it made here stay here (they fire from here, and their ticks
  // follow it); their anchor is released here when it stops.
  if (cell.rare_->scheduleAnchor != Scheduler::kNil) {
    d.anchorsLeft.emplace_back(from.index, cell.rare_->scheduleAnchor);
    cell.rare_->scheduleAnchor = Scheduler::kNil;
  }
  // What it sent from here must arrive before what it sends from there
  // (Move.hpp, "The sender's side"): a token through the ring to each third
  // isolate, whose flush acknowledges to the new entry, and a flush here.
  if (!system.options().manualRun()) {
    for (std::size_t c = 0; c < system.isolateCount(); ++c) {
      if (c == from.index || c == to.index) continue;
      std::unique_ptr<MoveOrder, MoveOrderDelete> token(new MoveOrder);
      token->mover = cell.selfId_;
      system.moves().signalIsolate(
          from, static_cast<std::uint32_t>(c),
          SystemMessage{SysKind::BarrierToken, arrival, nullptr, nullptr, std::move(token)});
      ++order->barrier;
    }
    if (!system.moves().openFlush(from, cell.selfId_, arrival.id(), 0, 0)) ++order->barrier;
  }
  order->cell = &cell;
  // From here on the cell belongs to the new isolate's loop: nothing below
  // this call touches it.
  system.delivery().sendSystem(
      arrival, SystemMessage{SysKind::Arrive, {}, nullptr, nullptr, std::move(order)});
}

void CellMoves::arrive(IsolateRuntime& to, std::unique_ptr<MoveOrder, MoveOrderDelete> order) {
  ActorCell& c = cell_;
  c.home_ = &to;
  // Actors that move run on the system's default dispatcher (one with its
  // own is ErrNotMovable): the new isolate's instance of it.
  c.dispatcher_ = to.dispatcher.get();
  c.inPlace_ = c.dispatcher_->urgentUnitsMayRunInPlace();
  ActorCell::Rare& r = c.rare();
  const ActorRef entry = c.core().makeRef(to.index, order->slot, order->generation);
  r.moves.address = entry.id();
  to.guests[c.selfId_] = &c;
  ++to.cellsChanged;
  to.table.publish(order->slot, &c);
  to.counts.liveActors.fetch_add(1, std::memory_order_relaxed);
  to.counts.movesIn.fetch_add(1, std::memory_order_relaxed);
  if (c.flags_.any(CellFlags::kWatchDepth)) to.watchedMailboxes.push_back(&c);
  if (r.passivateAfter > Clock::duration::zero()) {
    // The checks of the isolate it left end there (they find no cell).
    to.scheduler->addPassivation(c.self(), std::max(r.passivateAfter / 4, Clock::duration(1)),
                                 Scheduler::kNil);
  }
  order->cell = nullptr;
  std::uint32_t waiting = order->barrier;
  if (const auto early = to.earlyAcks.find(entry.id()); early != to.earlyAcks.end()) {
    waiting -= early->second;
    to.earlyAcks.erase(early);
  }
  // What it sent before and this isolate passed on or keeps (Move.hpp,
  // "The sender's side").
  if (!c.core().options().manualRun() &&
      !c.core().moves().openFlush(to, c.selfId_, entry.id(), 0, 0)) {
    ++waiting;
  }
  if (waiting != 0) {
    // Its turns wait for the rings it sent on: marked scheduled, nothing
    // hands it a turn until barrierAck() does.
    r.moves.barrier = waiting;
    r.moves.arriving = std::move(order);
    c.scheduled_ = true;
  } else {
    if (!c.scheduled_ && (c.pending_ != 0 || !c.mailbox_.empty())) c.schedule();
    order->finish({});
  }
  retakeOwnEntry(to);
}

void CellMoves::retakeOwnEntry(IsolateRuntime& home) {
  SystemCore& system = cell_.core();
  const ActorRef own = system.makeRef(cell_.selfId_);
  if (own.isolateIndex() != home.index) return;
  Endpoint* e = home.table.find(own.slot(), own.generation());
  if (e == nullptr || e->kind != Endpoint::Kind::Forward) return;
  // Back on the isolate its reference names: its own entry leads to it
  // again, so that senders here and elsewhere reach it with no detour.
  // What that entry sent on before is still on its way back here, through
  // the entries it left: until a Marker sent the same way arrives behind
  // it, the entry keeps what comes directly (a Hold), then hands it over.
  std::unique_ptr<Forward> forward(static_cast<Forward*>(e));
  home.table.publish(own.slot(), new Hold(cell_, cell_.selfId_, home.relays.holds),
                     home.table.isTopLevel(own.slot(), own.generation()));
  // (Its id stays in the trail: the Unforward a stop sends there finds the
  // entry freed already, by then of another generation.)
  made().holds.push_back(own.id());
  system.delivery().sendSystem(system.refOf(forward->to),
                               SystemMessage{SystemMessage::Kind::Marker, own, nullptr});
}

void CellMoves::barrierAck() {
  ActorCell& c = cell_;
  Data* d = data();
  if (d == nullptr || d->barrier == 0) return;
  if (--d->barrier != 0) return;
  c.scheduled_ = false;
  if (c.pending_ != 0 || !c.mailbox_.empty()) c.schedule();
  std::unique_ptr<MoveOrder, MoveOrderDelete> order = std::move(d->arriving);
  order->finish({});
}

void CellMoves::giveRoute(std::uint32_t source) {
  ActorCell& c = cell_;
  if (c.state_ >= ActorCell::State::Terminating)
    return;  // what comes the old way is dead letters soon
  SystemCore& system = c.core();
  IsolateRuntime& rt = *c.home_;
  const ActorTable::Reservation r = rt.table.reserve(/*onOwner=*/true);
  const ActorRef entry = system.makeRef(rt.index, r.slot, r.generation);
  rt.table.publish(r.slot, new Hold(c, c.selfId_, rt.relays.holds));
  Data& d = made();
  d.holds.push_back(entry.id());
  if (std::find(d.routedFrom.begin(), d.routedFrom.end(), source) == d.routedFrom.end()) {
    d.routedFrom.push_back(source);
  }
  try {
    system.runtime(source).isolate->post([&system, source, me = c.selfId_, there = entry.id()] {
      system.moves().takeRoute(source, me, there);
    });
  } catch (const std::system_error&) {
    closeHold(entry);  // that isolate stopped: nothing will come
  }
}

void CellMoves::closeHold(const ActorRef& entry) {
  ActorCell& c = cell_;
  IsolateRuntime& rt = *c.home_;
  if (entry.isolateIndex() != rt.index) {
    // A Hold it left open on an isolate it moved away from: its Marker
    // came here another way, behind everything it follows; on to it.
    c.core().delivery().sendSystem(entry,
                                   SystemMessage{SystemMessage::Kind::Marker, entry, nullptr});
    return;
  }
  Endpoint* e = rt.table.find(entry.slot(), entry.generation());
  if (e == nullptr || e->kind != Endpoint::Kind::Hold) return;
  if (static_cast<Hold*>(e)->cell != &c) {
    // One it left open here before it moved away and came back: what it
    // kept goes the way the actor went from here, and so comes back here.
    c.core().moves().closeLeftHold(rt, entry, 0);
    return;
  }
  std::unique_ptr<Hold> hold(static_cast<Hold*>(e));
  // From now on the entry leads straight here; what it kept comes first.
  rt.table.publish(entry.slot(), &c, rt.table.isTopLevel(entry.slot(), entry.generation()));
  Data& d = made();
  std::erase(d.holds, entry.id());
  d.aliases.push_back(entry.id());
  for (Hold::Kept& kept : hold->kept) {
    try {
      if (kept.system != nullptr) {
        c.core().delivery().deliverSystemLocal(rt, entry, std::move(*kept.system));
      } else {
        c.enqueue(std::move(kept.envelope.message), kept.envelope.sender);
      }
    } catch (...) {
      // A full bounded mailbox with the Fail policy: already a dead letter.
    }
  }
  hold.reset();
  c.core().moves().stepFlushes(rt);
  retry();
}

void CellMoves::releaseTrail() noexcept {
  Data* d = data();
  if (d == nullptr) return;
  SystemCore& system = cell_.core();
  IsolateRuntime& rt = *cell_.home_;
  const std::uint64_t me = cell_.selfId_;
  rt.guests.erase(me);
  rt.routeCache.forget(me);
  // Its other entries here, and the ones it gave that wait for a Marker
  // (what they kept is for a stopped actor: dead letters).
  for (const std::uint64_t alias : d->aliases) rt.table.release(system.makeRef(alias).slot());
  d->aliases.clear();
  for (const std::uint64_t id : d->holds) {
    const ActorRef entry = system.makeRef(id);
    Endpoint* e = rt.table.find(entry.slot(), entry.generation());
    if (e == nullptr || e->kind != Endpoint::Kind::Hold) continue;
    rt.table.release(entry.slot());
    system.moves().dropHold(std::unique_ptr<Hold>(static_cast<Hold*>(e)));
  }
  d->holds.clear();
  system.moves().stepFlushes(rt);
  for (const std::uint64_t entry : d->trail) {
    try {
      system.delivery().sendSystem(system.makeRef(entry),
                                   SystemMessage{SysKind::Unforward, {}, nullptr});
    } catch (...) {
      system.log().error("[{}] an entry it left on moving was not freed: {}", cell_.path(),
                         describe(std::current_exception()));
    }
  }
  d->trail.clear();
  // The isolates it gave an entry forget their route to it.
  for (const std::uint32_t isolate : d->routedFrom) {
    try {
      system.runtime(isolate).isolate->post(
          [&system, isolate, me] { system.runtime(isolate).dropRoute(me); });
    } catch (const std::system_error&) {
      // That isolate stopped.
    }
  }
  d->routedFrom.clear();
  for (const auto& [isolate, anchor] : d->anchorsLeft) {
    Scheduler* scheduler = system.runtime(isolate).scheduler.get();
    try {
      system.runtime(isolate).isolate->post(
          [scheduler, a = anchor] { scheduler->releaseAnchor(a); });
    } catch (const std::system_error&) {
      // That isolate stopped: its schedules ended with it.
    }
  }
  d->anchorsLeft.clear();
}

}  // namespace coreactor::detail
