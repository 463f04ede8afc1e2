// What the runtime does with the letters foreign threads send
// (SPEC X1-X3, A2): the Receiver of each isolate's transport::ForeignInbox
// (transport/ForeignInbox.hpp), and what a letter carries. A letter is a
// message for an actor of the isolate (with its sender), a system message,
// or an ask's request whose timeout is armed as it is delivered. Delivery
// runs on the isolate's loop; drop() on whichever thread finds the isolate
// stopped.
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>

#include "runtime/Mailbox.hpp"
#include "runtime/SystemMessage.hpp"
#include "transport/ForeignInbox.hpp"

namespace coreactor::detail {

class SystemCore;
struct IsolateRuntime;

/// A message (or a system message) for `target`, an actor of this isolate.
struct ForeignLetter {
  std::uint64_t target = 0;
  Envelope envelope;
  std::unique_ptr<SystemMessage> system;  ///< set: a system message, envelope empty
  /// Positive: the envelope is an ask's request whose sender is the
  /// ask's reply slot on this isolate, and this its timeout, armed as the
  /// request is delivered (Asks::startAsk), so that the request
  /// keeps its place among the asking thread's letters.
  std::chrono::nanoseconds askTimeout{};
};

class ForeignReceiver {
 public:
  using Letter = ForeignLetter;
  ForeignReceiver(SystemCore& core, IsolateRuntime& home) noexcept : core_(core), home_(home) {}
  /// On the isolate's loop: into the target actor (a message, a system
  /// message), arming an ask's timeout first. What the delivery throws is
  /// reported, never lost (a full Fail mailbox has dead-lettered it).
  void deliver(Letter& letter) noexcept;
  /// Any thread: a letter its stopped isolate will not deliver. A message
  /// becomes a dead letter; a system message ends here.
  void drop(Letter& letter) noexcept;

 private:
  SystemCore& core_;
  IsolateRuntime& home_;
};

/// An isolate's inbox from foreign threads.
using ForeignInbox = transport::ForeignInbox<ForeignReceiver>;

}  // namespace coreactor::detail

namespace coreactor::transport {
extern template class ForeignInbox<detail::ForeignReceiver>;
}  // namespace coreactor::transport
