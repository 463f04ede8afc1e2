// The runtime's receiver of what foreign threads send. See
// ForeignReceiver.hpp. This file also instantiates the isolates' inbox,
// transport::ForeignInbox<ForeignReceiver>.
#include "runtime/ForeignReceiver.hpp"

#include "runtime/SystemCore.hpp"
#include "transport/ForeignInbox.ipp"

namespace coreactor::detail {

void ForeignReceiver::deliver(Letter& letter) noexcept {
  const ActorRef target = core_.makeRef(letter.target);
  try {
    if (letter.system != nullptr) {
      core_.delivery().deliverSystemLocal(home_, target, std::move(*letter.system));
    } else {
      if (letter.askTimeout.count() > 0) [[unlikely]] {
        core_.asks().armAsk(home_, letter.envelope.sender, letter.askTimeout);
      }
      core_.deliverLocal(home_, target, std::move(letter.envelope.message), letter.envelope.sender);
    }
  } catch (const std::system_error& e) {
    // A full bounded mailbox with the Fail policy: the sender is on another
    // thread and cannot be told; the message is already a dead letter.
    if (e.code() != Error::ErrMailboxFull) {
      core_.metrics().reportDispatcherError("foreign-inbox", std::current_exception(), target);
    }
  } catch (...) {
    core_.metrics().reportDispatcherError("foreign-inbox", std::current_exception(), target);
  }
}

void ForeignReceiver::drop(Letter& letter) noexcept {
  // Lifecycle signals end with the system; a message is a dead letter.
  if (letter.system == nullptr) {
    core_.delivery().deadLetter(core_.makeRef(letter.target), std::move(letter.envelope),
                                "its isolate stopped");
  }
}

}  // namespace coreactor::detail

namespace coreactor::transport {
template class ForeignInbox<detail::ForeignReceiver>;
}  // namespace coreactor::transport
