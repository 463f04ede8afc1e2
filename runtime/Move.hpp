// Moving an actor between the isolates of its system (docs/isolates.md,
// "Moving an actor"): the order a move travels as, and the entry an actor
// leaves behind on the isolate it moved away from.
//
// The protocol, in short. A move is a system message (Move) that goes to
// the actor the way every signal goes, so it follows the actor wherever it
// is. The cell handles it between turns: it leaves a Forward in its table
// entry, reserves an entry on the new isolate, and travels there in the
// ring of that pair as an Arrive system message, carried by the order. What
// reaches the old entry afterwards is sent on to the new one, in the order
// it came, through the same ring, so it lands behind the cell. The
// reference users hold never changes: it names the entry the actor was
// spawned in, which forwards for as long as the actor lives; a stop frees
// every Forward the actor left (Unforward).
#pragma once

#include <cstdint>
#include <functional>
#include <system_error>

#include "ActorTable.hpp"

namespace coreactor::detail {

class ActorCell;
class SystemCore;

/// The entry of an actor that moved away from this isolate: what comes to
/// it goes on to `to`, the id of the actor's entry where it went (itself
/// possibly a Forward, if it moved again).
struct Forward final : Endpoint {
  explicit Forward(std::uint64_t target) noexcept : Endpoint(Kind::Forward), to(target) {}
  std::uint64_t to;
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

  /// Calls `done` (once) with `error`; what it throws goes to the system's log.
  void finish(std::error_code error) noexcept;
};

}  // namespace coreactor::detail
