// What the runtime says to an actor besides user messages (SPEC A5, A6):
// system messages (start, stop, watch, supervision, continuations), the
// work a continuation runs inside an actor's turn, and how both cross to
// another isolate. Isolate-local values, moved along the send paths.
#pragma once

#include <cstdint>
#include <exception>
#include <memory>

#include "Mailbox.hpp"
#include "coreactor/ActorRef.hpp"
#include "coreactor/Message.hpp"

namespace coreactor {
class ReceiveContext;
}  // namespace coreactor

namespace coreactor::detail {

struct MoveOrder;
/// Frees a MoveOrder (runtime/Move.cpp): one still carrying a cell (a move
/// that the system's stop cut short) tears the cell down and reports it.
struct MoveOrderDelete {
  void operator()(MoveOrder* order) const noexcept;
};

/// Work to run inside a turn of an actor: an ask's reply, a coroutine's
/// resumption. Owned by the system message carrying it; freed unrun if the
/// actor is gone.
class Continuation {
 public:
  virtual ~Continuation() = default;
  virtual void run(ReceiveContext& ctx) = 0;
  /// The message it carries (an ask's reply), for a dead letter if it cannot run.
  virtual Message* carried() noexcept { return nullptr; }
  /// The incarnation of the actor it belongs to: a restart makes the old
  /// instance's continuations undeliverable (they capture the old instance).
  std::uint32_t incarnation = 0;
  /// The next in the cell's line of continuations (ActorCell::Rare).
  Continuation* next = nullptr;
};

struct SystemMessage {
  enum class Kind : std::uint8_t {
    Start,            // first turn: make the actor, preStart
    Stop,             // stop the actor and its subtree
    Watch,            // ref = the watcher
    Unwatch,          // ref = the watcher
    Failed,           // to a parent: ref = the failed child, cause
    Resume,           // to a failed child
    Restart,          // to a child: cause
    ChildTerminated,  // to a parent: ref = the child
    Continue,         // run `run` in a turn: an ask's reply, a coroutine's resumption
    Move,             // move to another isolate between turns: order (runtime/Move.hpp)
    // From here on, what a move's protocol says to table entries, not to
    // the actor (SystemCore::entrySignal, runtime/Move.cpp).
    Arrive,        // to the new isolate's entry: order carries the cell itself
    Unforward,     // to an entry a stopped actor left behind: free it
    RouteRequest,  // to the actor's entry: give isolate order->to an entry of its own
    Marker,        // ends the hold of the entry `ref` (sent behind what came the old way)
    BarrierToken,  // through a ring the moved actor sent on: a flush of what it sent
    BarrierAck,    // to the actor's new entry: one flush of what it sent is done
    Probe,         // to an isolate: flush what a sender's messages went on to from here
    ProbeDone,     // to the isolate that sent a Probe: that flush is done
  };
  Kind kind;
  ActorRef ref;
  std::exception_ptr cause;
  std::unique_ptr<Continuation> continuation = {};
  std::unique_ptr<MoveOrder, MoveOrderDelete> order = {};
};

/// A system message crossing between isolates, carried in a Crossing's
/// message (inline: one owning pointer).
struct CrossingSystemMessage {
  std::unique_ptr<SystemMessage> message;
};

/// A user message whose sender belongs to another system, which no id can
/// name: it crosses whole, boxed (one allocation), through the same ring as
/// the sending isolate's other messages, so that it keeps its place among
/// them (SPEC A2).
struct CrossingWithForeignSender {
  Envelope envelope;
};

}  // namespace coreactor::detail
