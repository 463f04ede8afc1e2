// Moving an actor between the isolates of its system (docs/isolates.md,
// "Moving an actor"): the order a move travels as, the entry an actor
// leaves behind on the isolate it moved away from, the cell's side of its
// moves (CellMoves), and the system's (Moves).
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
// The sender's side. What an actor sent from its old isolate may still be on
// its way when it starts sending from the new one: in the ring to a third
// isolate C, in a Forward's hop onwards, or kept in a Hold. Sent from the new
// isolate, its messages take other ways and could overtake them. So its
// first turn there waits for a flush of everything it sent before:
//   - the move sends a BarrierToken through the ring to every other isolate
//     (behind what it sent there), and the old and the new isolate each
//     flush on the spot;
//   - a flush on an isolate K waits until no Hold on K keeps a message of the
//     mover, and sends a Probe through the ring to each isolate K passed the
//     mover's messages on to (Relays: a Forward's hop, a Hold's release),
//     where the same flush runs and answers with a ProbeDone;
//   - when the flush of a token is done, K sends the actor's new entry a
//     BarrierAck; the actor's turns begin with the last one.
// The mover sends nothing during its flush, so the probes follow a finite
// set of its messages and end.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <system_error>
#include <unordered_map>
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
  /// Registered in `open` (its isolate's Relays::holds) for as long as it lives.
  Hold(ActorCell& c, std::uint64_t id, std::vector<Hold*>& open)
      : Endpoint(Kind::Hold), cell(&c), actor(id), registry(&open) {
    open.push_back(this);
  }
  Hold(const Hold&) = delete;
  Hold& operator=(const Hold&) = delete;
  ~Hold() { std::erase(*registry, this); }
  ActorCell* cell;       // null once the actor moved on with the Hold still open
  std::uint64_t actor;   // the actor's own id, for the dead letters of a stop
  std::uint64_t to = 0;  // where the actor went, once it moved on (cell null)
  /// What came, user messages and signals in one line.
  struct Kept {
    Envelope envelope;
    std::unique_ptr<SystemMessage> system;  // set: a signal, not a message
  };
  std::vector<Kept> kept;
  std::vector<Hold*>* registry;
  /// Whether it keeps a user message of `sender`.
  bool keeps(std::uint64_t sender) const noexcept {
    for (const Kept& k : kept) {
      if (k.system == nullptr && k.envelope.sender.id() == sender) return true;
    }
    return false;
  }
};

/// What one isolate keeps so that a sender that moves keeps its order
/// ("The sender's side" above). Isolate-local.
struct Relays {
  /// The isolates this one passed an actor's messages on to, by the
  /// actor's id, and when it last did.
  struct Passed {
    std::vector<std::uint32_t> to;
    std::chrono::steady_clock::time_point at;
  };
  std::unordered_map<std::uint64_t, Passed> bySender;
  /// Above this many senders, those not passed on for kHorizon are
  /// forgotten (and the bound doubles while that frees too few).
  std::size_t forgetAbove = 1024;
  /// A message passed on this long ago has long arrived where it went:
  /// the flushes need no record of it.
  static constexpr std::chrono::seconds kHorizon{10};
  /// A flush open here: of `mover`'s messages, waiting for `pending`
  /// ProbeDones and for the Holds here that keep its messages. When done,
  /// it acknowledges `ackTo` (a BarrierAck to the mover's new entry) or, if
  /// 0, its parent flush on isolate `parent`.
  struct Flush {
    std::uint64_t id = 0;
    std::uint64_t mover = 0;
    std::uint32_t pending = 0;
    std::uint64_t ackTo = 0;
    std::uint32_t parent = 0;
    std::uint64_t parentFlush = 0;
  };
  std::vector<Flush> open;
  std::uint64_t nextFlush = 1;
  /// The Holds open on this isolate.
  std::vector<Hold*> holds;
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
  /// A flush's signals (BarrierToken, Probe, ProbeDone): whose messages, and
  /// which flush a ProbeDone answers (the sender's flush for a Probe).
  std::uint64_t mover = 0;
  std::uint64_t flush = 0;

  /// Calls `done` (once) with `error`; what it throws goes to the system's log.
  void finish(std::error_code error) noexcept;
};

struct IsolateRuntime;

/// The cell's side of its moves (ActorCell::moves()): made for a call, it
/// holds nothing but the cell. What the cell keeps of its moves (Data) is in
/// its rare part. Each call runs on the loop of the isolate the cell lives
/// on (arrive(): the one it arrives on).
class CellMoves {
 public:
  /// Data::address of a cell that never moved.
  static constexpr std::uint64_t kNoAddress = ~std::uint64_t{0};
  struct Data {
    // Its entry's id on the isolate it lives on, once it moved; the
    // Forwards it left behind (ids), freed when it stops; the schedule
    // anchors it made on isolates it left (isolate, anchor), released there
    // when it stops; a move waiting for it to run again; the move under way
    // while it is Leaving.
    std::uint64_t address = kNoAddress;
    std::vector<std::uint64_t> trail;
    std::vector<std::pair<std::uint32_t, std::uint32_t>> anchorsLeft;
    std::vector<std::unique_ptr<MoveOrder, MoveOrderDelete>> pendingMoves;
    std::unique_ptr<MoveOrder, MoveOrderDelete> leaving;
    // Its other entries on the isolate it lives on (closed Holds), the
    // Holds it has open there, the isolates it gave an entry (whose routes
    // name it), and, after a move, the BarrierAcks its first turn still
    // waits for, with the order that hears of the move once they are in.
    std::vector<std::uint64_t> aliases;
    std::vector<std::uint64_t> holds;
    std::vector<std::uint32_t> routedFrom;
    std::uint32_t barrier = 0;
    std::unique_ptr<MoveOrder, MoveOrderDelete> arriving;
  };

  explicit CellMoves(ActorCell& cell) noexcept : cell_(cell) {}

  /// The id of its entry in its home's table: its own id until it moves.
  /// Inline (runtime/ActorCell.hpp).
  std::uint64_t address() const noexcept;
  /// Its isolate's resources were used directly (ReceiveContext::isolate):
  /// it may hold timers or I/O objects of that loop, and cannot move.
  /// Inline (runtime/ActorCell.hpp).
  void bindToIsolate() noexcept;

  /// Moves it to the isolate the order names, or says why not; a handler
  /// suspended in a coroutine, or a supervisor's decision pending, defers
  /// the move until the actor runs again.
  void handle(std::unique_ptr<MoveOrder, MoveOrderDelete> order);
  /// Lines up the moves that waited (handle()) once the actor runs with no
  /// coroutine suspended.
  void retry();
  /// The moves that wait for it to run again end with `error` (it stops).
  void endWaiting(std::error_code error) noexcept;
  /// At the end of the turn that handled the move: the hand-over. Static:
  /// the turn calls it with the cell in hand, as it calls its own.
  static void leave(ActorCell& cell);
  /// On the new isolate: the order carries this cell; it takes its entry
  /// there, and its turns run there from now on.
  void arrive(IsolateRuntime& to, std::unique_ptr<MoveOrder, MoveOrderDelete> order);
  /// One ring it sent on from its old isolate is drained: its first turn
  /// here runs once all are (Move.hpp, "The sender's side").
  void barrierAck();
  /// Gives isolate `source` an entry of its own here (a Hold), and tells it.
  void giveRoute(std::uint32_t source);
  /// The Marker of the Hold at `entry` arrived: what it kept goes to this
  /// actor, in order, and the entry becomes one of its own.
  void closeHold(const ActorRef& entry);
  /// At its stop, where it lives: frees the Forwards it left and the
  /// anchors of the isolates it left.
  void releaseTrail() noexcept;

 private:
  /// Arrived on the isolate its reference names: takes its own entry back
  /// (a Hold until what it forwarded before has come back).
  void retakeOwnEntry(IsolateRuntime& home);
  Data* data() const noexcept;  // null until the cell's rare part is made
  Data& made();                 // made on first use

  ActorCell& cell_;
};

/// The move protocol's side of a system: the move call, what comes to the
/// entries an actor left or gave (Forward, Hold), the routes the isolates
/// take to it, and the flushes of moving senders. Each call but move() runs
/// on the loop of the isolate it is given (or that `at` names).
class Moves {
 public:
  explicit Moves(SystemCore& core) noexcept : core_(core) {}
  Moves(const Moves&) = delete;
  Moves& operator=(const Moves&) = delete;

  /// Moves `actor` to isolate `to` between its turns; `done` hears how it
  /// ended. Any thread. Throws for a call that names no movable actor:
  /// ErrDead (none), ErrNotMovable (another rank's), ErrInvalidOption
  /// (another system's), ErrIsolateOutOfRange, ErrActorSystemNotStarted.
  void move(const ActorRef& actor, std::size_t to, std::function<void(std::error_code)> done);
  /// The living actor whose own reference is `ref`, if it lives on `rt`
  /// (spawned there, or moved there), or null. Isolate-local. Inline
  /// (runtime/SystemCore.hpp): one that never moved is found with no call.
  inline ActorCell* cellHere(const IsolateRuntime& rt, const ActorRef& ref) const noexcept;
  /// cellHere() for an actor that moved to `rt`: its guests.
  ActorCell* guestHere(const IsolateRuntime& rt, const ActorRef& ref) const noexcept;

  /// A user message that came to `entry`, the Forward an actor left on
  /// `rt` (this thread's): on to where the actor went.
  void forward(IsolateRuntime& rt, Forward& entry, Envelope&& envelope);
  /// A system message to an entry of `rt` (this thread's) that holds no
  /// cell: the arrival of a moving cell, the freeing of a Forward, a signal
  /// a Forward sends on, or one to no actor (Delivery::deliverToNoActor).
  void signalEntry(IsolateRuntime& rt, const ActorRef& target, Endpoint* endpoint,
                   SystemMessage&& message);
  /// A signal of the move protocol (SystemMessage::Kind::Arrive and after),
  /// to an entry of `rt` (this thread's).
  void entrySignal(IsolateRuntime& rt, const ActorRef& target, SystemMessage&& message);
  /// A user message to `entry`, a Hold on `rt`: kept until its Marker.
  void keep(Hold& entry, Envelope&& envelope);
  /// The Marker of `entry`, a Hold on `rt` whose actor moved on, came
  /// through: what it kept follows to `via` (0: where the actor went from
  /// here), and it becomes a Forward there. False if `entry` is no such Hold.
  bool closeLeftHold(IsolateRuntime& rt, const ActorRef& entry, std::uint64_t via);
  /// What a Hold of a stopped actor kept: dead letters (and failed asks).
  void dropHold(std::unique_ptr<Hold> hold);
  /// `rt` (this thread's) passed a message of `sender` on to `to` (a
  /// Forward's hop, a Hold's release): noted for the flushes of a sender
  /// that moves (Move.hpp, "The sender's side").
  void noteRelay(IsolateRuntime& rt, const ActorRef& sender, const ActorRef& to);
  /// Opens a flush of `mover`'s messages on `rt` (this thread's): true if
  /// it is done at once (nothing of it went on from here, no Hold here keeps
  /// any), else it answers later, to `ackTo` (a BarrierAck) or, with ackTo
  /// 0, to the flush `parentFlush` of isolate `parent` (a ProbeDone).
  bool openFlush(IsolateRuntime& rt, std::uint64_t mover, std::uint64_t ackTo, std::uint32_t parent,
                 std::uint64_t parentFlush);
  /// Probes what of the flush's mover went on from here since; true once
  /// it has no probe out and no Hold here keeps a message of the mover.
  bool stepFlush(IsolateRuntime& rt, Relays::Flush& flush);
  /// After a ProbeDone, or a Hold closed or dropped on `rt`: answers the
  /// flushes open there that are done.
  void stepFlushes(IsolateRuntime& rt);
  void probeDone(IsolateRuntime& rt, std::uint32_t parent, std::uint64_t flush);
  /// A signal to isolate `to` itself, from `from`'s loop, through the ring
  /// of that pair (behind everything `from` sent there).
  void signalIsolate(IsolateRuntime& from, std::uint32_t to, SystemMessage&& message);
  /// On isolate `at`'s loop: the actor `actor` gave it the entry `entry`
  /// for its direct sends (Move.hpp, "No lasting extra hop").
  void takeRoute(std::uint32_t at, std::uint64_t actor, std::uint64_t entry);

 private:
  SystemCore& core_;
};

}  // namespace coreactor::detail
