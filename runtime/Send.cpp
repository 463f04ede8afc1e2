// The send paths: a tell from any thread to any actor (the front door,
// ActorRef::send, for both forms of payload), system messages, messages to actors
// of other isolates and from foreign threads, dead letters. The paths beyond
// the common one are Delivery's (Delivery.hpp), defined here too. A failed
// delivery fails its ask through Asks (Ask.cpp). See the top comment of
// SystemCore.hpp.
#include <thread>

#include "SystemCore.hpp"
#include "runtime/cluster/RemoteRoutes.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

}  // namespace coreactor::detail

namespace coreactor {

// The front door of every tell: one path for both forms of payload (a Word
// or a Message, see detail::Word). Kept in this file with SystemCore::send
// and ActorCell::enqueue so that the compiler sees the whole local path at
// once.
namespace {
[[noreturn, gnu::cold, gnu::noinline]] void throwNoSystem(std::string_view typeName) {
  throwError(Error::ErrDead, "tell of " + std::string(typeName) +
                                 " to an empty ActorRef with no sender: no system to report to");
}
std::string_view typeNameOf(const detail::Word& word) noexcept {
  return word.type->name;
}
std::string_view typeNameOf(const Message& message) noexcept {
  return message.typeName();
}
}  // namespace

// The common case, into an unbounded mailbox with room on this thread's
// isolate, makes no call but its tail (the turn, for an idle actor): it
// saves no registers. The sender is taken by value, in two registers, all
// the way from ActorRef::tell: a reference made the send path load it as
// one 16-byte value that the caller had just stored as two 8-byte halves
// (a default `ActorRef()` is stored so), which the store buffer cannot
// forward (bench actor/tell: a stall on every message).
template <class P>
void ActorRef::send(detail::PayloadArg<P> payload, ActorRef sender) const {
  if (system_ != nullptr) [[likely]] {
    // SystemCore::endpointHere, with a router's reference told apart on
    // one of the system's isolates before the steps for other threads.
    detail::Endpoint* endpoint;
    auto* here = static_cast<detail::IsolateRuntime*>(detail::IsolateHooks::currentUserData());
    if (here != nullptr && here->core == system_ && here->index == isolateIndex()) [[likely]] {
      endpoint = here->table.find(slot(), generation());
    } else if (here != nullptr && here->core == system_) {
      if (isolateIndex() == detail::Routers::kIsolate) [[unlikely]] {
        // A router: its routee is picked here and told as directly as it
        // would be. A tail call, as the others here, so that this path
        // still saves no registers.
        sendRouted<P>(std::move(payload), sender, here);
        return;
      }
      if (!here->routes.empty() && system_->crossesFrom(*here, *this, sender)) [[unlikely]] {
        // SystemCore::sendAcross's first step, taken here: an actor that
        // moved may live on this isolate now, a load away.
        detail::Delivery::toMoved<P>(*this, std::move(payload), sender, *here);
        return;
      }
      endpoint = system_->endpointDriven(*this);
    } else {
      // The same call as the branch above ends with: one else around both
      // made the direct tell 3 instructions longer (callgrind).
      endpoint = system_->endpointDriven(*this);
    }
    if (endpoint != nullptr) [[likely]] {
      if (endpoint->kind == detail::Endpoint::Kind::Cell) [[likely]] {
        auto* cell = static_cast<detail::ActorCell*>(endpoint);
        if (cell->tellInPlace(std::move(payload), sender, system_)) [[likely]]
          return;
        sendToCell<P>(cell, std::move(payload), sender);
        return;
      }
      // Out of line: this path then reads the kind by one compare, not
      // into a register for three (callgrind: one instruction a tell).
      sendToEndpoint<P>(endpoint, std::move(payload), sender);
      return;
    }
  }
  sendAcross<P>(std::move(payload), sender);
}

template <class P>
[[gnu::noinline]] void ActorRef::sendToEndpoint(detail::Endpoint* endpoint,
                                                detail::PayloadArg<P> payload,
                                                ActorRef sender) const {
  if (endpoint->kind == detail::Endpoint::Kind::Ask) {
    // The reply to an ask whose reply slot lives on this isolate.
    system_->reply<P>(*static_cast<detail::AskEndpoint*>(endpoint), std::move(payload));
    return;
  }
  if (endpoint->kind == detail::Endpoint::Kind::Forward) {
    // An actor that moved: detail::SystemCore::sendToForward.
    system_->sendToForward<P>(*this, std::move(payload), sender);
    return;
  }
  sendAcross<P>(std::move(payload), sender);
}

void detail::ActorCell::scheduleTurn() {
  schedule();
}

template <class P>
[[gnu::noinline]] void ActorRef::sendToCell(detail::ActorCell* cell, detail::PayloadArg<P> payload,
                                            ActorRef sender) const {
  cell->enqueue(std::move(payload), sender);
}

// From one of the system's isolates to another (a flood's every message):
// its checks make no call, and the ring's send is its tail, so this path
// saves no registers. Everything else goes on in sendElsewhere().
template <class P>
[[gnu::noinline]] void ActorRef::sendAcross(detail::PayloadArg<P> payload, ActorRef sender) const {
  if (system_ != nullptr) [[likely]] {
    if (detail::IsolateRuntime* here = system_->crossingFromHere(*this, sender)) [[likely]] {
      system_->sendAcross(*here, *this, std::move(payload), sender);
      return;
    }
  }
  sendElsewhere<P>(std::move(payload), sender);
}

template <class P>
[[gnu::noinline]] void ActorRef::sendElsewhere(detail::PayloadArg<P> payload,
                                               ActorRef sender) const {
  // The empty reference's dead letter goes to the sender's system.
  detail::SystemCore* core = system_ != nullptr ? system_ : sender.system_;
  if (core == nullptr) [[unlikely]] {
    throwNoSystem(typeNameOf(payload));
  }
  core->send(*this, std::move(payload), sender);
}

template void ActorRef::send<detail::Word>(detail::Word payload, ActorRef sender) const;
template void ActorRef::send<Message>(Message&& payload, ActorRef sender) const;

}  // namespace coreactor

namespace coreactor::detail {

template <class P>
[[gnu::noinline]] void SystemCore::sendToForward(const ActorRef& target, PayloadArg<P> payload,
                                                 ActorRef sender) {
  IsolateRuntime* here = currentRuntime();
  Endpoint* endpoint = endpointHere(target);
  if (here != nullptr && endpoint != nullptr && endpoint->kind == Endpoint::Kind::Forward) {
    auto& forward = *static_cast<Forward*>(endpoint);
    const ActorRef there(this, forward.to);
    if (there.isolateIndex() == here->index) {
      // Back on this isolate, in another entry: straight there, in place.
      Endpoint* next = here->table.find(there.slot(), there.generation());
      if (next != nullptr && next->kind == Endpoint::Kind::Cell) {
        static_cast<ActorCell*>(next)->enqueue(std::move(payload), sender);
        return;
      }
    } else if (!options_.manualRun() && carriesAsId(sender) &&
               there.isolateIndex() < isolateCount_) {
      const std::uint32_t source = here->sendsOf();
      const bool asked = source < forward.asked.size() && forward.asked[source];
      if (asked && (sender.isNone() ||
                    (sender.isolateIndex() == here->index && cellOf(*here, sender) != nullptr))) {
        // The only writer of this count is this isolate's thread.
        here->counts.forwarded.store(here->counts.forwarded.load(std::memory_order_relaxed) + 1,
                                     std::memory_order_relaxed);
        sendOnLink(*here, there, std::move(payload), sender);
        return;
      }
    }
  }
  // The general path forwards it (Delivery::deliverUncommon, Moves::forward).
  send(target, std::move(payload), sender);
}

template void SystemCore::sendToForward<Word>(const ActorRef&, Word, ActorRef);
template void SystemCore::sendToForward<Message>(const ActorRef&, Message&&, ActorRef);

}  // namespace coreactor::detail

namespace coreactor::detail {

void Delivery::sendElsewhere(const ActorRef& target, Envelope&& envelope) {
  if (core_.routers().isRouter(target)) {
    core_.routers().route<Message>(target, std::move(envelope.message), envelope.sender);
    return;
  }
  if (RemoteRoutes::isRemote(core_.remote(), target)) {
    // An actor of another rank: bytes for the cluster's link. A type that
    // cannot cross throws here, at the send.
    core_.remote()->send(target, std::move(envelope.message), envelope.sender);
    return;
  }
  if (target.isNone() || target.isolateIndex() >= core_.isolates_.size()) {
    deadLetter(target, std::move(envelope), "no such actor");
    return;
  }
  IsolateRuntime& rt = *core_.isolates_[target.isolateIndex()];
  IsolateRuntime* here = core_.currentRuntime();
  // From another of our isolates with a sender of another system, which
  // cannot travel as an id (SystemCore::send took the others): that rare
  // message crosses boxed, in the same ring, so it keeps its place (SPEC A2).
  if (here != nullptr) {
    here->link->send(
        *rt.link, target.id(),
        Crossing{Crossing::kNoSender, Message(CrossingWithForeignSender{std::move(envelope)})});
    return;
  }
  // From a foreign thread: the target isolate's
  // foreign inbox (MPSC), waiting while it is full (SPEC X3: block for
  // foreign threads).
  putForeign(rt, target, std::move(envelope), /*inTurn=*/false);
}

void Delivery::putForeign(IsolateRuntime& rt, const ActorRef& target, Envelope&& envelope,
                          bool inTurn, std::chrono::nanoseconds askTimeout) {
  waitForForeignRoom(rt, 1);  // returns at once on a loop's thread
  if (!inTurn && !core_.running()) [[unlikely]] {
    // A graceful shutdown has begun: what other threads sent before it is
    // delivered, what they send from now on is refused, so that the
    // shutdown ends whatever they keep sending (docs/actors.md, "Shutdown").
    // An ask's slot fails with the system's teardown.
    deadLetter(target, std::move(envelope), "the system is shutting down");
    return;
  }
  ForeignInbox::Letter letter{target.id(), std::move(envelope), nullptr, askTimeout};
  const bool put =
      inTurn ? rt.foreign->putInTurn(std::move(letter)) : rt.foreign->put(std::move(letter));
  if (!put) deadLetter(target, std::move(letter.envelope), "its isolate stopped");
}

void Delivery::deliverFromRank(const ActorRef& target, Envelope&& envelope) {
  if (!core_.isOurs(target)) {
    deadLetter(target, std::move(envelope), "no such actor");
    return;
  }
  IsolateRuntime& rt = *core_.isolates_[target.isolateIndex()];
  // On the target's own loop (doing the link's work between its turns) with
  // nothing in its foreign inbox: delivered here and now, saving the queue's
  // two ends. Only the thread that holds the link's work receives, so the
  // rank's earlier messages are either all delivered or still in that inbox
  // (then this one queues behind them): their order holds either way.
  if (core_.currentRuntime() == &rt && !rt.foreign->pending()) {
    ForeignInbox::Letter letter{target.id(), std::move(envelope), nullptr};
    rt.foreign->deliverNow(letter);
    return;
  }
  putForeign(rt, target, std::move(envelope), /*inTurn=*/true);
}

void Delivery::signalFromRank(const ActorRef& target, SystemMessage&& message) {
  if (!core_.isOurs(target)) {
    deliverToNoActor(target, std::move(message));
    return;
  }
  ForeignInbox::Letter letter;
  letter.target = target.id();
  letter.system = std::make_unique<SystemMessage>(std::move(message));
  core_.isolates_[target.isolateIndex()]->foreign->putInTurn(std::move(letter));
}

void Delivery::waitForForeignRoom(IsolateRuntime& rt, std::size_t coming) {
  // Only a thread that runs no loop at all waits: an isolate of another
  // system must not stall its own loop on ours.
  const std::size_t limit = core_.options().foreignInboxLimit();
  if (rt.foreign->sizeApprox() + coming <= limit || core_.options().manualRun() ||
      Isolate::current() != nullptr) {
    return;
  }
  foreignBlocked_.fetch_add(1, std::memory_order_relaxed);
  for (int spins = 0; rt.foreign->sizeApprox() + coming > limit && rt.foreign->sizeApprox() != 0 &&
                      core_.running() && !rt.isolate->stopped();
       ++spins) {
    if (spins < 64) {
      std::this_thread::yield();
    } else {
      std::this_thread::sleep_for(std::chrono::microseconds(50));
    }
  }
}

template <class P>
[[gnu::noinline]] void SystemCore::reply(AskEndpoint& endpoint, PayloadArg<P> payload) {
  if constexpr (std::is_same_v<P, Word>) {
    Message reply = payload.message();
    endpoint.complete(&reply, {});
  } else {
    endpoint.complete(&payload, {});
  }
}

void Delivery::deliverUncommon(IsolateRuntime& rt, const ActorRef& target, Endpoint* endpoint,
                               Envelope&& envelope, bool urgent) {
  if (endpoint != nullptr && endpoint->kind >= Endpoint::Kind::Forward) {
    if (endpoint->kind == Endpoint::Kind::Forward) {
      core_.moves().forward(rt, *static_cast<Forward*>(endpoint), std::move(envelope));
    } else {
      core_.moves().keep(*static_cast<Hold*>(endpoint), std::move(envelope));
    }
    return;
  }
  if (endpoint == nullptr) {
    core_.asks().failAskOf(envelope.sender, make_error_code(Error::ErrDead));
    deadLetter(target, std::move(envelope),
               rt.table.answeredAsk(target.slot(), target.generation())
                   ? "a reply to an ask that has already completed (answered, failed or timed out)"
                   : "the actor has stopped");
    return;
  }
  static_cast<AskEndpoint*>(endpoint)->complete(&envelope.message, {}, /*fromRing=*/urgent);
}

void Delivery::sendSystem(const ActorRef& target, SystemMessage&& message) {
  // Most signals are for an actor of this thread's isolate (a parent, a
  // child, a stop from a handler): tested first, the rest out of line. A
  // router's reference and one of another rank name no isolate of ours.
  IsolateRuntime* ours = core_.runtimeOfOurs(target);
  if (ours != nullptr && core_.isLocal(*ours)) [[likely]] {
    deliverSystemLocal(*ours, target, std::move(message));
    return;
  }
  sendSystemElsewhere(ours, target, std::move(message));
}

void Delivery::sendSystemElsewhere(IsolateRuntime* ours, const ActorRef& target,
                                   SystemMessage&& message) {
  if (target.isNone()) return;
  if (core_.routers().isRouter(target)) {
    // A watch or a stop of a router is its head's (which tells watchers
    // Terminated of the router); one that stopped is gone.
    const ActorRef head = core_.routers().headOf(target);
    if (head.isNone()) {
      deliverToNoActor(target, std::move(message));
    } else {
      sendSystem(head, std::move(message));
    }
    return;
  }
  // A stop of, or a watch of, an actor of another rank: across. Other
  // signals never name one (parents, children and continuations are local).
  if (RemoteRoutes::isRemote(core_.remote(), target) &&
      core_.remote()->sendSystem(target, message.kind, message.ref)) {
    return;
  }
  if (ours == nullptr) {
    // Another system's reference (or one no isolate of ours can hold) names
    // no actor of this system, whatever its id: it is treated as dead here,
    // never as the actor of ours with the same id.
    deliverToNoActor(target, std::move(message));
    return;
  }
  IsolateRuntime& rt = *ours;
  if (IsolateRuntime* here = core_.currentRuntime()) {
    // Never refused: lifecycle signals must arrive (SPEC X3's bound is for user messages).
    here->link->send(
        *rt.link, target.id(),
        Crossing{Crossing::kNoSender, Message(CrossingSystemMessage{
                                          std::make_unique<SystemMessage>(std::move(message))})},
        /*refusable=*/false);
    return;
  }
  // From a foreign thread: behind that thread's
  // messages, in the same inbox. Lifecycle signals end with a stopped isolate.
  ForeignInbox::Letter letter;
  letter.target = target.id();
  letter.system = std::make_unique<SystemMessage>(std::move(message));
  rt.foreign->put(std::move(letter));
}

void Delivery::deliverSystemLocal(IsolateRuntime& rt, const ActorRef& target,
                                  SystemMessage&& message) {
  if (message.kind >= SysKind::Arrive) [[unlikely]] {
    core_.moves().entrySignal(rt, target, std::move(message));  // runtime/Move.cpp
    return;
  }
  Endpoint* endpoint = rt.table.find(target.slot(), target.generation());
  if (endpoint == nullptr || endpoint->kind != Endpoint::Kind::Cell) [[unlikely]] {
    core_.moves().signalEntry(rt, target, endpoint, std::move(message));  // runtime/Move.cpp
    return;
  }
  static_cast<ActorCell*>(endpoint)->systemLine().enqueue(std::move(message));
}

void Delivery::deliverToNoActor(const ActorRef& target, SystemMessage&& message) {
  // Watching an actor that is gone means hearing at once that it is; a
  // reply it was waiting for is undeliverable; a stop has nothing to stop.
  if (message.kind == SysKind::Watch) message.ref.tell(Terminated{target}, target);
  if (message.kind == SysKind::Continue) {
    core_.asks().dropContinuation(target, std::move(message.continuation),
                                  "the asking actor has stopped");
  }
  if (message.kind == SysKind::Move) message.order->finish(make_error_code(Error::ErrDead));
}

IsolateRuntime* SystemCore::runtimeOfOurs(const ActorRef& ref) const noexcept {
  if (ref.isNone() || ref.system_ != this || ref.isolateIndex() >= isolates_.size()) return nullptr;
  return isolates_[ref.isolateIndex()].get();
}

void Delivery::deadLetter(const ActorRef& recipient, Envelope&& envelope, const char* reason) {
  deadLetters_.fetch_add(1, std::memory_order_relaxed);
  // Counted for the recipient's isolate; for one of no isolate of ours, for
  // this thread's, or the first.
  IsolateRuntime* counted = core_.runtimeOfOurs(recipient);
  if (counted == nullptr) counted = core_.currentRuntime();
  if (counted == nullptr && !core_.isolates_.empty()) counted = core_.isolates_.front().get();
  if (counted != nullptr) counted->counts.deadLetters.fetch_add(1, std::memory_order_relaxed);
  if (!core_.events().hasSubscribers<DeadLetter>()) return;
  // A DeadLetter event that cannot reach its subscriber is counted, not
  // published again: that would feed itself for ever.
  if (envelope.message.is<DeadLetter>()) return;
  if (StrictTick* tick = envelope.message.get<StrictTick>()) {
    Message inner = std::move(tick->message);  // subscribers see what was scheduled
    envelope.message = std::move(inner);
  }
  DeadLetter letter{recipient, envelope.sender, std::string(envelope.message.typeName()), reason,
                    std::make_shared<const Message>(std::move(envelope.message))};
  core_.events().publish(letter);
}

}  // namespace coreactor::detail
