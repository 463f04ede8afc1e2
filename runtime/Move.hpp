// Moving an actor between the isolates of its system (docs/isolates.md,
// "Moving an actor"): the order a move travels as, and the entry an actor
// leaves behind on the isolate it moved away from.
//
// The protocol, in short. A move is a system message (Move) that goes to
// the actor the way every signal goes, so it follows the actor wherever it
// is. The cell handles it between turns: it leaves a Forward in each table
// entry it has here, reserves an entry on the new isolate, and travels there
// in the ring of that pair as an Arrive system message, carried by the
// order. What reaches an old entry afterwards is sent on to the new one, in
// the order it came, through the same ring, so it lands behind the cell.
// The reference users hold never changes: it names the entry the actor was
// spawned in, which forwards for as long as the actor lives; a stop frees
// every entry the actor left (Unforward).
//
// No lasting extra hop. A Forward that sends on a message from isolate K
// (the ring it came in, or this isolate's own sends) asks the actor, once
// per K, for an entry of K's own (RouteRequest). The actor's isolate
// reserves one as a Hold and tells K (a task posted to K). K sends a Marker
// the way it sent so far, then sends to the new entry directly; the Hold
// keeps what comes directly until the Marker arrives behind K's earlier
// messages, then hands all it kept to the actor, in order, and becomes one
// of the actor's entries. A move does not wait for an open Hold: the Hold
// stays behind, and when its Marker passes through, what it kept follows
// the way the Marker came (to the actor's new home).
//
// The sender's side. An actor's messages to a third isolate C went through
// the ring from its old isolate to C; sent from its new isolate, they go
// through another ring and could overtake them. So with more than two
// isolates, the move sends a BarrierToken through the ring to every other
// isolate, which each passes on to the actor's new entry as a BarrierAck;
// the actor's first turn there waits for all of them.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <system_error>
#include <vector>

#include "ActorTable.hpp"
#include "SystemMessage.hpp"

namespace coreactor::detail {

class ActorCell;
class SystemCore;

/// The entry of an actor that moved away from this isolate: what comes to
/// it goes on to `to`, the id of the actor's entry where it went (itself
/// possibly a Forward, if it moved again).
struct Forward final : Endpoint {
  explicit Forward(std::uint64_t target) noexcept : Endpoint(Kind::Forward), to(target) {}
  std::uint64_t to;
  /// The isolates this entry asked an entry of their own for (RouteRequest), by index.
  std::vector<bool> asked;
};

/// An entry the actor gave one isolate for its direct sends: until that
/// isolate's Marker arrives, what comes here waits, in order.
struct Hold final : Endpoint {
  Hold(ActorCell& c, std::uint64_t id) noexcept : Endpoint(Kind::Hold), cell(&c), actor(id) {}
  ActorCell* cell;       // null once the actor moved on with the Hold still open
  std::uint64_t actor;   // the actor's own id, for the dead letters of a stop
  std::uint64_t to = 0;  // where the actor went, once it moved on (cell null)
  /// What came, user messages and signals in one line.
  struct Kept {
    Envelope envelope;
    std::unique_ptr<SystemMessage> system;  // set: a signal, not a message
  };
  std::vector<Kept> kept;
};

/// A move of one actor: where to, and who hears how it ended.
struct MoveOrder {
  /// The isolate it goes to.
  std::uint32_t to = 0;
  /// Runs once with the outcome: on the new isolate once the actor is
  /// there (empty error), or where the move was refused.
  std::function<void(std::error_code)> done;
  /// Its system, whose log hears what `done` throws.
  SystemCore* system = nullptr;
  /// Set while the order carries the cell to its new isolate (Arrive), with
  /// the entry reserved for it there.
  ActorCell* cell = nullptr;
  std::uint32_t slot = 0;
  std::uint32_t generation = 0;
  /// The BarrierAcks the cell's first turn there waits for.
  std::uint32_t barrier = 0;

  /// Calls `done` (once) with `error`; what it throws goes to the system's log.
  void finish(std::error_code error) noexcept;
};

}  // namespace coreactor::detail
