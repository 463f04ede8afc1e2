// How one actor's turn runs (runtime/CellTurn.cpp): the turn the dispatcher
// runs (the cell's Task hooks), from the mailbox or on what crossed from
// another isolate as it leaves a ring (ActorCell::takeCrossed), each message
// handed to the actor's handler, what every turn ends with, and its depth
// gauge. The cell's state is the cell's (runtime/ActorCell.hpp); its system
// messages, start, failure and stop are its lifecycle (CellLifecycle.hpp).
// Everything here runs on the actor's isolate.
#pragma once

#include <cstdint>
#include <memory>

namespace coreactor {
class ActorRef;
class Message;
class ReceiveContext;
class Task;
}  // namespace coreactor

namespace coreactor::detail {

class ActorCell;
class Continuation;
struct MessageType;
struct RouteeGauge;
struct Sampling;

/// The turn of one cell. The hot path: not a view of the cell (its calls'
/// `this` would be the view, and every turn would load the cell through
/// it) but static functions that take the cell as their first parameter,
/// where a member function has `this`: the same calls, the same code. No
/// object of it is ever made.
class CellTurn final {
 public:
  CellTurn() = delete;

  // ---- the cell's Task hooks (set by ActorCell's constructor) ----------------------
  /// Runs the cell's turn, as the dispatcher's loop takes it.
  static void runTurn(Task& task);
  /// The loop dropped the turn unrun (it stopped).
  static void disposeTurn(Task& task) noexcept;

  // ---- a turn on what crossed (ActorCell::takeCrossed) ----------------------------
  /// Precondition: the cell is idleForCrossedWords(), count > 0. Handles up
  /// to `throughput` of `words` (each a `type` from `sender`) in one turn,
  /// for as long as the actor runs and its mailbox stays empty, and counts
  /// in `handled` (0 on entry) how many it handled, also when the
  /// scheduling of its next turn throws: the caller queues the rest, in
  /// order. The cell may be gone afterwards (the turn stopped the actor).
  [[gnu::noinline]] static void onCrossedWords(ActorCell& cell, const MessageType* type,
                                               const std::uint64_t* words, std::uint64_t count,
                                               const ActorRef& sender, std::uint64_t& handled);
  /// Precondition: the cell is idleForCrossedWords(). Handles `message`,
  /// which crossed from another isolate and is no word, in a turn of its
  /// own, here and now, as onCrossedWords() does words. The cell may be
  /// gone afterwards (the turn stopped the actor).
  [[gnu::noinline]] static void onCrossedMessage(ActorCell& cell, Message&& message,
                                                 const ActorRef& sender);
  /// Precondition: the cell is idleForCrossedWords(). Runs `continuation`
  /// (an ask's, whose reply was just taken from another isolate's ring) in
  /// a turn of its own, here and now, as onCrossedWords() does words.
  [[gnu::noinline]] static void onContinuation(ActorCell& cell,
                                               std::unique_ptr<Continuation> continuation);

  /// What a Continue does in a turn: runs it, holds it, or drops it.
  static void handleContinue(ActorCell& cell, std::unique_ptr<Continuation> continuation);

  // ---- its depth gauge (inline, with the cell: runtime/ActorCell.hpp) --------------
  /// Publishes the cell's queue depth into `gauge` at the end of each turn.
  static void publishDepthTo(ActorCell& cell, RouteeGauge* gauge);
  /// The deepest its mailbox has been at the start of a turn, for a cell
  /// made withMailboxHighWaterMark (0 for the others). Isolate-local.
  static std::uint64_t depthMark(const ActorCell& cell) noexcept;

 private:
  static void turn(ActorCell& cell);
  [[gnu::noinline]] static void noteDepth(ActorCell& cell) noexcept;  // high-water mark, gauge
  // With kSampledToo, for a cell whose only step aside is a balancer's
  // samples: its messages are counted down to the next sample.
  template <bool kSampledToo>
  [[gnu::noinline]] static void onWord(ActorCell& cell);
  [[gnu::noinline]] static void inGeneral(ActorCell& cell);
  // The turn's messages, up to `n`: false when none is left.
  [[gnu::always_inline]] static inline bool consumeMessages(ActorCell& cell, ReceiveContext& ctx,
                                                            std::uint32_t n);
  // consumeMessages() out of line, for the one-word turn whose handler queued more.
  [[gnu::noinline]] static bool consumeMore(ActorCell& cell, ReceiveContext& ctx, std::uint32_t n);
  // What every turn ends with; `more`: user messages are left. Without
  // kMayBeGauged it publishes no depth: for the one-word turn, which a
  // gauged cell never takes (turn()).
  template <bool kMayBeGauged>
  [[gnu::always_inline]] static inline void end(ActorCell& cell, bool more);
  [[gnu::always_inline]] static inline void finishIfStopping(ActorCell& cell);
  [[gnu::noinline, gnu::cold]] static bool failed(ActorCell& cell);
  // The frame of a turn run where its messages were taken from a ring
  // (onCrossedWords, onCrossedMessage, onContinuation).
  template <class Body>
  [[gnu::always_inline]] static inline void inPlace(ActorCell& cell, Body&& body);
  [[gnu::noinline]] static std::uint32_t consumeRun(ActorCell& cell, ReceiveContext& ctx,
                                                    std::uint32_t max);
  /// What unstash put back (BehaviourTools::unstash), oldest first, within
  /// `budget` messages: the budget left. The turn's, where invoke() inlines.
  static std::uint32_t runUnstashed(ActorCell& cell, ReceiveContext& ctx, std::uint32_t budget);
  /// The actor may take another message in this turn.
  static inline bool mayGoOn(const ActorCell& cell) noexcept;
  // What invoke() asks about its cell's flags: anything (kAny); nothing,
  // for the one-word turn of a cell with no tools and no samples (kNone);
  // only the countdown to the next sample, for the one-word turn of a
  // cell whose only step aside is a balancer's samples (kSampledOnly).
  enum class Aside { kNone, kSampledOnly, kAny };
  template <Aside kAside = Aside::kAny>
  [[gnu::always_inline]] static inline void invoke(ActorCell& cell, ReceiveContext& ctx,
                                                   Message& message, const ActorRef& sender);
  // invoke() for an actor with tools, or for the message a balancer samples
  // (`sampling` set).
  [[gnu::noinline]] static void invokeNoted(ActorCell& cell, ReceiveContext& ctx,
                                            Sampling* sampling);
  // The handler (a behaviour, or receive), its throw to supervision.
  static void receiveNow(ActorCell& cell, ReceiveContext& ctx);
  [[gnu::noinline]] static void invokeSampled(ActorCell& cell, ReceiveContext& ctx,
                                              Sampling& sampling);
};

}  // namespace coreactor::detail
