// The system's side of ask (SPEC A3; the reply slot is AskEndpoint.hpp):
// runtime/Ask.cpp. A reply that finds its slot on the sender's isolate
// completes it from the send path, SystemCore::reply (runtime/Send.cpp).
#pragma once

#include <chrono>
#include <cstdint>
#include <memory>
#include <system_error>

#include "SystemMessage.hpp"
#include "coreactor/Actor.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Message.hpp"

namespace coreactor::detail {

class ActorCell;
class AskEndpoint;
class SystemCore;
struct IsolateRuntime;

/// The asks of a system: the calls that open a reply slot and send an ask's
/// request (from outside the system, from an actor, to another rank), and
/// the failures that complete a slot early (a dead target, a refused
/// request, a continuation that cannot run). Any thread unless said.
class Asks {
 public:
  explicit Asks(SystemCore& core) noexcept : core_(core) {}
  Asks(const Asks&) = delete;
  Asks& operator=(const Asks&) = delete;

  /// The reply slot lives on isolate `host` (the asker's; for asks from
  /// outside, the target's) and `completion` runs there.
  void ask(const ActorRef& target, Message message, std::chrono::nanoseconds timeout,
           AskCompletion completion);
  /// An ask from the actor `asker`, answered by a continuation in its turn.
  /// The reply slot lives on the asker's isolate (where it lives now).
  void askFromActor(ActorCell& asker, const ActorRef& target, Message&& message,
                    std::chrono::nanoseconds timeout, AskContinuation&& continuation);
  /// A continuation that cannot run: what it carries becomes a dead letter.
  void dropContinuation(const ActorRef& actor, std::unique_ptr<Continuation> continuation,
                        const char* reason);
  /// On `rt`'s loop: arms the timeout of the ask from outside whose reply
  /// slot is `replyTo`, if that slot is still open (a reply that came first
  /// has freed it).
  void armAsk(IsolateRuntime& rt, const ActorRef& replyTo, std::chrono::nanoseconds timeout);
  /// Fails the ask whose reply slot `sender` is with `error` (nothing if it
  /// is no ask's): on its isolate, or on its rank for a slot of another one.
  /// Any thread.
  void failAskOf(const ActorRef& sender, std::error_code error);
  /// failAskOf() when the reply slot lives on this thread's isolate; nothing
  /// otherwise (no task posted: a refused flood from another isolate would
  /// post one per message). True: `sender` was an ask's reply slot, now failed.
  bool failLocalAskOf(const ActorRef& sender, std::error_code error);

 private:
  /// Fails the ask whose reply slot `sender` is, on `rt` (this thread's
  /// isolate); false if it is no ask's (any more).
  bool failAskHere(IsolateRuntime& rt, const ActorRef& sender, std::error_code error);
  void startAsk(IsolateRuntime& rt, AskEndpoint* endpoint, std::uint32_t slot,
                std::uint32_t generation, const ActorRef& target, Message&& message,
                std::chrono::nanoseconds timeout);
  /// ask() from a foreign thread to an actor of another rank:
  /// a reply slot of the cluster's ForeignAsks; `completion` is taken.
  void askRankFromForeignThread(const ActorRef& target, Message&& message,
                                std::chrono::nanoseconds timeout, AskCompletion& completion);
  /// Posts `work` to `rt`'s loop; if that isolate has stopped, completes
  /// `endpoint` with ErrActorSystemNotStarted instead.
  template <class F>
  void postOrComplete(IsolateRuntime& rt, AskEndpoint* endpoint, F&& work);
  /// An ask's request, on the reply slot's isolate once its timeout is
  /// armed, with the slot as its sender.
  void sendRequest(const ActorRef& target, Message&& message, const ActorRef& replyTo,
                   std::chrono::nanoseconds timeout);

  SystemCore& core_;
};

}  // namespace coreactor::detail
