// What the runtime does with what crosses from another isolate. See
// CrossingReceiver.hpp. This file also instantiates the isolates' link,
// transport::Link<CrossingReceiver>, with deliverWords() inline in the loop
// that drains its rings.
#include "CrossingReceiver.hpp"

#include "SystemCore.hpp"
#include "transport/Link.ipp"

namespace coreactor::detail {

[[gnu::always_inline]] inline void CrossingReceiver::deliverWords(std::uint64_t targetId,
                                                                  std::uint64_t sender,
                                                                  const MessageType* type,
                                                                  const std::uint64_t* words,
                                                                  std::uint64_t count) noexcept {
  const ActorRef target = core_.makeRef(targetId);
  std::uint64_t i = 0;
  if (ActorCell* cell = core_.cellOf(home_, target); cell != nullptr) [[likely]] {
    // Handled at once by an idle actor, or into its mailbox in place; what
    // is left goes the general way below (the turn may have stopped the
    // actor: no look at the cell again). A turn catches what its handler
    // throws; what escapes is the scheduling of a turn, reported as for any
    // delivery.
    const ActorRef from = core_.refOf(sender);
    try {
      cell->takeCrossed(ActorCell::CrossedWords{type, words, count, from, i});
    } catch (...) {
      deliveryFailed(targetId);
    }
  }
  // What the mailbox did not take in place (a bounded mailbox, a new
  // segment, an actor gone, a reply slot) goes the general way, in order.
  for (; i < count; ++i) deliver(targetId, WordCrossing{sender, type, words[i]});
}

Envelope CrossingReceiver::unwrap(Crossing&& c) noexcept {
  if (CrossingWithForeignSender* boxed = c.message.get<CrossingWithForeignSender>()) [[unlikely]] {
    return std::move(boxed->envelope);
  }
  return Envelope{std::move(c.message), core_.refOf(c.sender)};
}

void CrossingReceiver::deliver(std::uint64_t targetId, const WordCrossing& w) noexcept {
  try {
    core_.deliverLocal(home_, core_.makeRef(targetId), Word{w.type, w.word}, core_.refOf(w.sender),
                       /*urgent=*/true);
  } catch (...) {
    deliveryFailed(targetId);
  }
}

void CrossingReceiver::deliver(std::uint64_t targetId, Crossing&& c) noexcept {
  const ActorRef target = core_.makeRef(targetId);
  try {
    if (CrossingSystemMessage* system = c.message.get<CrossingSystemMessage>()) {
      std::unique_ptr<SystemMessage> message = std::move(system->message);
      core_.delivery().deliverSystemLocal(home_, target, std::move(*message));
    } else if (c.message.is<CrossingWithForeignSender>()) [[unlikely]] {
      Envelope envelope = unwrap(std::move(c));
      core_.deliverLocal(home_, target, std::move(envelope.message), envelope.sender,
                         /*urgent=*/true);
    } else if (ActorCell* cell = core_.cellOf(home_, target); cell != nullptr) {
      // An idle actor handles it where it lies, as words are; a busy one
      // queues it with an urgent turn, which goes ahead of the local units
      // waiting, so a busy isolate answers a peer within about one unit.
      cell->takeCrossed(ActorCell::CrossedMessage{std::move(c.message), core_.refOf(c.sender)});
    } else {
      // An ask's reply slot, or no one (Delivery::deliverUncommon).
      core_.deliverLocal(home_, target, std::move(c.message), core_.refOf(c.sender),
                         /*urgent=*/true);
    }
  } catch (...) {
    deliveryFailed(targetId);
  }
}

void CrossingReceiver::takingFrom(std::uint32_t peer) noexcept {
  home_.source = peer;  // ~0 is IsolateRuntime::kOwnSends
}

void CrossingReceiver::deliveryFailed(std::uint64_t targetId) noexcept {
  const ActorRef target = core_.makeRef(targetId);
  try {
    throw;
  } catch (const std::system_error& e) {
    // A full bounded mailbox with the Fail policy: the sender is on another
    // isolate and cannot be told; the message is already a dead letter.
    if (e.code() != Error::ErrMailboxFull) {
      core_.metrics().reportDispatcherError("crossings", std::current_exception(), target);
    }
  } catch (...) {
    core_.metrics().reportDispatcherError("crossings", std::current_exception(), target);
  }
}

void CrossingReceiver::refuse(std::uint64_t targetId, Crossing&& c, Refusal why) noexcept {
  if (why == Refusal::Stopped) {
    if (c.message.is<CrossingSystemMessage>()) return;  // lifecycle signals end with the system
    core_.delivery().deadLetter(core_.makeRef(targetId), unwrap(std::move(c)),
                                "the system stopped");
    return;
  }
  Envelope refused = unwrap(std::move(c));
  core_.asks().failAskOf(refused.sender, make_error_code(Error::ErrMailboxFull));
  core_.delivery().deadLetter(core_.makeRef(targetId), std::move(refused),
                              "backpressure: the overflow list to its isolate is full");
}

// The sum of bytesReserved() over a system's isolates, for the tests: their
// target cannot include SystemCore.hpp (it needs the project's root on the
// include path), so tests/runtime/LinkMemoryTest.cpp declares it.
std::size_t transportBytesReserved(SystemCore& core) noexcept {
  std::size_t bytes = 0;
  for (std::size_t i = 0; i < core.isolateCount(); ++i) {
    bytes += core.runtime(i).link->bytesReserved();
  }
  return bytes;
}

}  // namespace coreactor::detail

namespace coreactor::transport {
template class Link<detail::CrossingReceiver>;
}  // namespace coreactor::transport
