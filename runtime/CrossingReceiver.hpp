// What the runtime does with what crosses from another isolate (SPEC X1-X3):
// the Receiver of this isolate's transport::Link (transport/Link.hpp), and
// the payloads the runtime puts in a crossing besides plain messages.
//
// A crossing's target is an actor's id (or an ask's reply slot's); its
// sender an id of this system, or Crossing::kNoSender. A system message
// crosses as a CrossingSystemMessage (never refused: lifecycle signals must
// arrive), a message whose sender belongs to another system as a
// CrossingWithForeignSender (its sender cannot travel as an id); both are
// defined with SystemMessage (SystemCore.hpp). Everything
// here runs on the receiving isolate's loop, except refuse(Backpressure),
// which runs on the sending isolate's (the overflow list is the sender's).
#pragma once

#include <cstdint>

#include "transport/Crossing.hpp"
#include "transport/Link.hpp"

namespace coreactor::detail {

class SystemCore;
struct IsolateRuntime;
struct SystemMessage;
struct Envelope;

using transport::Crossing;
using transport::Refusal;
using transport::WordCrossing;

/// The runtime's side of an isolate's link: delivers into the actors of
/// its isolate, and turns what the link refuses into dead letters and
/// failed asks. Two references, copied into the link.
class CrossingReceiver {
 public:
  CrossingReceiver(SystemCore& core, IsolateRuntime& home) noexcept : core_(core), home_(home) {}

  /// `count` words of `type` from `sender` to `target`: handled at once by
  /// an idle actor (ActorCell::takeCrossed), else into its unbounded
  /// mailbox in place, after one look-up, with the actor's turn scheduled
  /// once; what the mailbox does not take in place goes the general way, in
  /// order. Defined in CrossingReceiver.cpp, where the link is instantiated
  /// and calls it inline.
  inline void deliverWords(std::uint64_t target, std::uint64_t sender, const MessageType* type,
                           const std::uint64_t* words, std::uint64_t count) noexcept;
  /// One crossing that is no word: a message, a system message, a message
  /// of a foreign sender.
  void deliver(std::uint64_t target, Crossing&& crossing) noexcept;
  /// A crossing the link did not deliver: past the overflow list's bound (a
  /// dead letter, and the ask it carries fails with ErrMailboxFull), or in
  /// flight when the system stopped (a dead letter; a system message ends
  /// with the system).
  void refuse(std::uint64_t target, Crossing&& crossing, Refusal why) noexcept;
  /// What is delivered from now on crossed from isolate `peer` (~0: none,
  /// the isolate's own sends again): a Forward asks an entry for that isolate
  /// (runtime/Move.hpp).
  void takingFrom(std::uint32_t peer) noexcept;

 private:
  /// One word the general way (SystemCore::deliverLocal), as a Word.
  void deliver(std::uint64_t target, const WordCrossing& word) noexcept;
  /// The user message a crossing carries, with its sender.
  Envelope unwrap(Crossing&& crossing) noexcept;
  /// Reports what a delivery threw (a full bounded mailbox with the Fail
  /// policy is already a dead letter: its sender is on another isolate).
  void deliveryFailed(std::uint64_t target) noexcept;

  SystemCore& core_;
  IsolateRuntime& home_;
};

/// An isolate's transport to the other isolates of its system.
using Link = transport::Link<CrossingReceiver>;

}  // namespace coreactor::detail
