// One actor's cell: its state, its mailbox and the send side
// (runtime/ActorCell.cpp). How its turn runs is CellTurn (CellTurn.hpp):
// static functions that take the cell, the hot path. Its other parts are
// classes of their own, each a view of the cell made for a call, whose
// state lives in the cell (most in its rare part): its lifecycle
// (CellLifecycle.hpp), its system line (SystemLine.hpp), its children
// (Family.hpp), its behaviour tools (BehaviourTools.hpp), its coroutine
// handlers (Coroutines.hpp) and its side of a move (CellMoves, Move.hpp).
// Everything here runs on the actor's isolate.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "ActorTable.hpp"
#include "BehaviourTools.hpp"
#include "CellLifecycle.hpp"
#include "CellTurn.hpp"
#include "CompactString.hpp"
#include "Family.hpp"
#include "IsolateRuntime.hpp"
#include "Mailbox.hpp"
#include "Move.hpp"
#include "ObjectRing.hpp"
#include "SystemLine.hpp"
#include "SystemMessage.hpp"
#include "coreactor/Actor.hpp"
#include "coreactor/Dispatcher.hpp"
#include "isolate/SmallBlocks.hpp"
#include "runtime/schedule/Scheduler.hpp"

namespace coreactor {
class AsyncActor;
}  // namespace coreactor

namespace coreactor::detail {

class SystemCore;

struct RouteeGauge;

/// A cell's flags, one bit each, in one word: a test of several is one
/// instruction (a bit-field of bools is tested a bit at a time).
struct CellFlags {
  static constexpr std::uint16_t kGuardian = 1;    // the user guardian
  static constexpr std::uint16_t kWatchDepth = 2;  // keeps rare_->depthMark (high-water mark)
  static constexpr std::uint16_t kPinned = 4;      // ActorOptions::withPinned
  static constexpr std::uint16_t kBound = 8;       // CellMoves::bindToIsolate()
  static constexpr std::uint16_t kTooled = 16;     // rare_->tools: behaviours or a receive timeout
  static constexpr std::uint16_t kGauged = 32;   // rare_->gauge: its depth is published (a routee)
  static constexpr std::uint16_t kSampled = 64;  // its isolates sample messages for a balancer
  static constexpr std::uint16_t kAsync = 128;   // rare_->async: it has coroutine handlers
  static constexpr std::uint16_t kTools = 256;   // rare_->tools is made (a stash, behaviours...)
  /// What sends a turn past the one-word path (CellTurn::turn): each
  /// asks for a step around the handler or at the end of the turn.
  static constexpr std::uint16_t kTurnAside = kWatchDepth | kTooled | kGauged | kSampled | kAsync;
  std::uint16_t bits = 0;
  bool any(std::uint16_t mask) const noexcept { return (bits & mask) != 0; }
  void set(std::uint16_t mask, bool on) noexcept {
    bits = on ? static_cast<std::uint16_t>(bits | mask) : static_cast<std::uint16_t>(bits & ~mask);
  }
};

class ActorCell final : public Task, public Endpoint {
 public:
  // Leaving: it handled a Move, and goes to its new isolate as its turn ends.
  enum class State : std::uint8_t { Created, Running, Suspended, Terminating, Dead, Leaving };

  ActorCell(IsolateRuntime& home, ActorRef self, ActorRef parent, std::string_view path,
            const ActorOptions& options, ActorFactory&& factory, Dispatcher& dispatcher,
            std::uint32_t throughput, bool guardian);
  ~ActorCell();

  // Cells are made and freed in bursts (a fan-out spawned, a subtree
  // stopped): their blocks recycle through the thread's small-block lists.
  static void* operator new(std::size_t size) { return SmallBlocks::get(size); }
  static void operator delete(void* block, std::size_t size) noexcept {
    SmallBlocks::put(block, size);
  }

  /// A user message from the send path, in either form (a Word or a
  /// Message). Isolate-local. Inline: the common case is one push and, for
  /// an idle actor, one dispatcher call. `urgent`: it crossed from another
  /// isolate, and an idle actor's turn is handed over with
  /// Dispatcher::executeUrgent.
  template <class P>
  void enqueue(P&& payload, const ActorRef& sender, bool urgent = false) {
    if (state_ < State::Terminating &&
        mailbox_.tryPush(std::forward<P>(payload), sender, home_->core)) [[likely]] {
      scheduleForMessage(urgent);
      return;
    }
    enqueueSlow(Envelope{asMessage(payload), sender});
  }
  /// The common case of enqueue(), with no call: false, and nothing done,
  /// unless the actor lives and its unbounded mailbox has room in place.
  /// Then wantsTurn() says whether scheduleTurn() must follow. `core`:
  /// this actor's system, which the caller holds already (the target's
  /// reference names it): read through the cell, it was two more loads,
  /// each waiting on the one before, on every tell.
  template <class P>
  [[gnu::always_inline]] bool pushInPlace(P&& payload, const ActorRef& sender,
                                          SystemCore* core) noexcept {
    assert(core == home_->core);
    return state_ < State::Terminating &&
           mailbox_.tryPushInPlace(std::forward<P>(payload), sender, core);
  }
  bool wantsTurn() const noexcept { return state_ == State::Running && !scheduled_; }
  /// pushInPlace(), and the turn it calls for: the whole of a local tell
  /// that needs no call but the turn's (ActorRef::send, a routed tell, a
  /// route to an actor that moved here). False, and nothing done, as
  /// pushInPlace().
  template <class P>
  [[gnu::always_inline]] bool tellInPlace(P&& payload, const ActorRef& sender, SystemCore* core) {
    if (!pushInPlace(std::forward<P>(payload), sender, core)) return false;
    if (wantsTurn()) scheduleTurn();
    return true;
  }

  // ---- what crossed from another isolate: the one way in -----------------------
  // Every receiver of what a ring brings (CrossingReceiver for words and
  // messages, AskEndpoint::complete for an ask's reply) hands it to
  // takeCrossed(), which alone decides: an idle actor handles it here and
  // now, in a turn of its own (`unit.inTurn`), else it goes into the
  // mailbox and the turn is scheduled urgent (`unit.queued`).
  template <class Unit>
  [[gnu::always_inline]] auto takeCrossed(Unit&& unit) {
    if (idleForCrossedWords()) return unit.inTurn(*this);
    return unit.queued(*this);
  }
  /// `count` words of `type` from `sender`. Both ways return how many were
  /// taken, also when the scheduling of a turn throws (then it rethrows
  /// after setting `taken`): the caller sends the rest the general way,
  /// in order. The cell may be gone afterwards (the turn stopped the actor).
  struct CrossedWords {
    const MessageType* type;
    const std::uint64_t* words;
    std::uint64_t count;
    const ActorRef& sender;
    std::uint64_t& taken;  // 0 on entry
    void inTurn(ActorCell& cell) {
      CellTurn::onCrossedWords(cell, type, words, count, sender, taken);
    }
    void queued(ActorCell& cell) {
      while (taken < count && cell.pushInPlace(Word{type, words[taken]}, sender, &cell.core())) {
        ++taken;
      }
      if (taken != 0 && cell.wantsTurn()) cell.scheduleUrgent();
    }
  };
  /// A message that is no word.
  struct CrossedMessage {
    Message&& message;
    const ActorRef& sender;
    void inTurn(ActorCell& cell) { CellTurn::onCrossedMessage(cell, std::move(message), sender); }
    void queued(ActorCell& cell) { cell.enqueue(std::move(message), sender, /*urgent=*/true); }
  };
  /// An ask's continuation, whose reply was just taken from a ring.
  struct CrossedReply {
    std::unique_ptr<Continuation>&& continuation;
    void inTurn(ActorCell& cell) { CellTurn::onContinuation(cell, std::move(continuation)); }
    void queued(ActorCell& cell) { cell.systemLine().enqueueContinue(std::move(continuation)); }
  };

 private:
  /// What crossed may be handled at once, in a turn of its own: the
  /// actor's dispatcher lets urgent units run in place
  /// (Dispatcher::urgentUnitsMayRunInPlace: the default hybrid does), and
  /// it has no turn queued or running, no system message, no coroutine and
  /// nothing in its unbounded mailbox. Its turn would be an urgent unit
  /// (Dispatcher::executeUrgent): the next one while fewer than
  /// Isolate::kUrgentStreak ran in a row, after the same messages.
  bool idleForCrossedWords() const noexcept {
    return inPlace_ && state_ == State::Running && !scheduled_ && pending_ == 0 &&
           !flags_.any(CellFlags::kAsync) && mailbox_.unboundedAndEmpty();
  }

 public:
  /// Hands a turn to the dispatcher. Out of line: the send path stays a
  /// leaf that saves no registers and calls this as its tail.
  [[gnu::noinline]] void scheduleTurn();

  inline ActorRef self() const noexcept;    // defined after SystemCore
  inline ActorRef parent() const noexcept;  // none for the guardian
  std::string_view path() const noexcept { return path_.view(); }
  std::string_view name() const noexcept;
  SystemCore& core() const noexcept { return *home_->core; }
  /// The isolate it lives on now. A move (runtime/Move.cpp) changes it,
  /// between turns, and nothing else does.
  IsolateRuntime& home() const noexcept { return *home_; }

  State state() const noexcept { return state_; }
  std::uint32_t incarnation() const noexcept { return incarnation_; }

  // ---- its parts: each a view of the cell, made for a call ---------------------
  // (Not its turn, the hot path: CellTurn's static functions take the cell,
  // runtime/CellTurn.hpp.)
  /// Its system line (runtime/SystemLine.hpp): system messages come in
  /// through it (SystemLine::enqueue), isolate-local.
  SystemLine systemLine() noexcept { return SystemLine(*this); }
  /// Its children (runtime/Family.hpp).
  Family family() noexcept { return Family(*this); }
  /// Its behaviour tools (ReceiveContext: become, the stash, the receive
  /// timeout; runtime/BehaviourTools.hpp).
  BehaviourTools tools() noexcept { return BehaviourTools(*this); }
  class Coroutines;
  /// Its coroutine handlers (coreactor/Async.hpp; runtime/Coroutines.hpp,
  /// where this is defined).
  Coroutines coroutines() noexcept;
  /// Its side of its moves (runtime/Move.hpp, CellMoves).
  CellMoves moves() noexcept { return CellMoves(*this); }
  /// Its lifecycle (runtime/CellLifecycle.hpp): its system messages,
  /// start, failure, restarts, stopping.
  CellLifecycle lifecycle() noexcept { return CellLifecycle(*this); }

  /// Watchers are told Terminated of `id` instead of this actor's own
  /// reference (a router's head stands for its router).
  void standFor(std::uint64_t id) { rare().publicId = id; }
  /// The cell a context works on (the runtime's actors: a router's head).
  static ActorCell& of(ReceiveContext& ctx) noexcept { return ctx.cell_; }

 private:
  struct AsyncState;
  friend class BehaviourTools;
  friend class CellLifecycle;
  friend class CellMoves;
  friend class CellTurn;
  friend class Family;
  friend class SystemLine;
  // Rare::publicId of an actor that stands for no other.
  static constexpr std::uint64_t kNoPublicId = ~std::uint64_t{0};
  // A non-reentrant coroutine handler is suspended (inline in
  // runtime/Coroutines.hpp).
  bool blocked() const noexcept;
  void schedule() {
    scheduled_ = true;
    dispatcher_->dispatch(*this);  // while it has credit, a push with no call
  }
  void scheduleUrgent() {
    scheduled_ = true;
    dispatcher_->executeUrgent(*this);
  }
  /// A message was queued: a running actor with no turn queued gets one
  /// (`urgent`: it crossed from another isolate, Dispatcher::executeUrgent).
  void scheduleForMessage(bool urgent) {
    if (state_ != State::Running || scheduled_) return;
    if (urgent) {
      scheduleUrgent();
    } else {
      schedule();
    }
  }
  void enqueueSlow(Envelope&& envelope);

  // An idle actor is mostly this cell (bench actor/memory): 168 bytes, one
  // 176-byte malloc chunk. What few actors use lives in Rare.
  // Hot: touched on every message. The one-byte fields come first: they
  // fill the tail of the Endpoint base, after the Task base.
  State state_ = State::Created;
  bool scheduled_ = false;
  // What the turn must look at before the user messages, in one byte, so
  // that the common turn tests it once: a Start not yet handled, a Stop not
  // yet handled (SystemLine::enqueue), and system messages in rare_->system.
  static constexpr std::uint8_t kStartPending = 1;
  static constexpr std::uint8_t kStopPending = 2;
  static constexpr std::uint8_t kSystemQueued = 4;
  static constexpr std::uint8_t kContinuePending = 8;  // rare_->system has lined-up continuations
  static constexpr std::uint8_t kUnstashPending = 16;  // rare_->tools->unstashed is not empty
  // A cell starts with its Start pending: the Start message only wakes it,
  // so whatever reaches it first by another path (a Stop across isolates
  // overtaking a Start posted from a foreign thread) still finds preStart
  // ahead of it.
  std::uint8_t pending_ = kStartPending;
  // Nine flags in one aligned word, in what the Endpoint base leaves of its
  // first 8 bytes (the cell fits its malloc chunk, static_assert below), so
  // that a test of several is one instruction.
  CellFlags flags_;
  bool active_ = false;  // handled a message since the last passivation check
  bool inPlace_;         // dispatcher_->urgentUnitsMayRunInPlace()
  std::uint32_t throughput_;
  std::uint32_t incarnation_ = 0;  // bumped by each restart
  Mailbox mailbox_;
  Dispatcher* dispatcher_;
  std::unique_ptr<Actor> actor_;
  IsolateRuntime* home_;  // its core is the system's (core()); a move changes it
  std::uint64_t selfId_;
  std::uint64_t parentId_;  // SystemCore::kNoRefId for none
  // Cold.
  CompactString path_;
  ActorFactory factory_;
  // What few actors use, allocated on first use: an idle actor carries 8 bytes for it.
  struct Rare {
    Rare() = default;
    Rare(const Rare&) = delete;
    Rare& operator=(const Rare&) = delete;
    ~Rare();
    SystemLine::Data system;  // what the pending flags do not hold (runtime/SystemLine.hpp)
    std::shared_ptr<Dispatcher> ownDispatcher;  // keeps a per-actor dispatcher alive
    std::vector<ActorRef> watchers;
    ObjectRing<SystemMessage> held;  // continuations held while suspended (SystemLine::hold)
    std::unique_ptr<Family::Data> family;
    std::unique_ptr<AsyncState> async;            // only actors with coroutine handlers
    std::unique_ptr<BehaviourTools::Data> tools;  // become, stash, receive timeout
    RouteeGauge* gauge = nullptr;                 // CellTurn::publishDepthTo
    std::uint64_t publicId = kNoPublicId;         // standFor
    std::uint32_t scheduleAnchor = Scheduler::kNil;
    Clock::duration passivateAfter{0};  // 0: never
    std::uint32_t quietChecks = 0;
    std::uint64_t depthMark = 0;  // the deepest mailbox at a turn's start (CellFlags::kWatchDepth)
    CellMoves::Data moves;        // where it went, what it left behind (runtime/Move.cpp)
  };
  Rare& rare();  // made on first use (runtime/ActorCell.cpp, where AsyncState is complete)
  std::unique_ptr<Rare> rare_;
};

// bench actor/memory counts on it: a cell that grows past 168 bytes takes
// the next malloc chunk (192), 16 more bytes for every idle actor.
static_assert(sizeof(ActorCell) <= 168, "an idle actor is mostly its cell");

// The parts' inline calls, here where the cell is complete.

inline std::uint64_t CellMoves::address() const noexcept {
  const ActorCell& c = cell_;
  return c.rare_ != nullptr && c.rare_->moves.address != kNoAddress ? c.rare_->moves.address
                                                                    : c.selfId_;
}
inline void CellMoves::bindToIsolate() noexcept {
  cell_.flags_.set(CellFlags::kBound, true);
}

// A stopping cell's turn tests it as it ends (CellTurn::finishIfStopping).
inline Family::Data* Family::data() const noexcept {
  return cell_.rare_ != nullptr ? cell_.rare_->family.get() : nullptr;
}
inline bool Family::hasChildren() const noexcept {
  const Data* f = data();
  return f != nullptr && !f->byId.empty();
}

inline void CellTurn::publishDepthTo(ActorCell& cell, RouteeGauge* gauge) {
  cell.rare().gauge = gauge;
  cell.flags_.set(CellFlags::kGauged, gauge != nullptr);
}
inline std::uint64_t CellTurn::depthMark(const ActorCell& cell) noexcept {
  return cell.rare_ != nullptr ? cell.rare_->depthMark : 0;
}

}  // namespace coreactor::detail
