// One actor's turn (CellTurn.hpp): from the mailbox, or on words as they
// leave a ring, each message handed to the actor's handler, and what every
// turn ends with. The cell's send side is in ActorCell.cpp, its lifecycle
// in CellLifecycle.cpp, its coroutine handlers in Coroutines.cpp.
// Everything here runs on the actor's isolate.
#include <algorithm>

#include "Coroutines.hpp"
#include "Logging.hpp"
#include "SystemCore.hpp"
#include "coreactor/Async.hpp"
#include "runtime/route/RouterTable.hpp"

namespace coreactor::detail {

using State = ActorCell::State;

void CellTurn::runTurn(Task& task) {
  turn(static_cast<ActorCell&>(task));
}

// The loop stopped with this turn queued. A cell that already finished is
// freed here; a living one is torn down by the system's stop (abandon).
void CellTurn::disposeTurn(Task& task) noexcept {
  auto& cell = static_cast<ActorCell&>(task);
  cell.scheduled_ = false;
  if (cell.state_ == State::Dead) delete &cell;
}

// A stopping actor whose children are gone finishes its stop at the end of
// the turn that saw the last of them go.
inline void CellTurn::finishIfStopping(ActorCell& cell) {
  if (cell.state_ == State::Terminating && !cell.family().hasChildren()) [[unlikely]] {
    CellLifecycle::finishStop(cell);
  }
}

// What failed around the handler (not in it: invoke() hands that to
// supervision) goes to the event stream (SPEC D11); true while user
// messages are left.
bool CellTurn::failed(ActorCell& cell) {
  cell.core().metrics().reportDispatcherError(cell.dispatcher_->id(), std::current_exception(),
                                              cell.self());
  return !cell.mailbox_.empty();
}

template <bool kMayBeGauged>
inline void CellTurn::end(ActorCell& cell, bool more) {
  ++cell.home_->counts.turns;
  if (LogContext& c = logContext(); !c.path.empty()) c = LogContext{};
  cell.scheduled_ = false;
  if (cell.state_ >= State::Dead) [[unlikely]] {
    if (cell.state_ == State::Dead) {
      delete &cell;
    } else {
      CellMoves::leave(cell);  // it handled a Move: its next turn runs on its new isolate
    }
    return;
  }
  if (kMayBeGauged && cell.flags_.any(CellFlags::kGauged)) [[unlikely]] {
    cell.rare_->gauge->depth.store(static_cast<std::uint32_t>(cell.mailbox_.size()),
                                   std::memory_order_relaxed);
  }
  if (!more) {
    cell.mailbox_.shrinkIfIdle();
    if (cell.pending_ != 0) cell.schedule();
  } else if (cell.pending_ != 0 || (cell.state_ == State::Running && !cell.blocked())) {
    cell.schedule();
  }
}

bool CellTurn::consumeMore(ActorCell& cell, ReceiveContext& ctx, std::uint32_t n) {
  return consumeMessages(cell, ctx, n);
}

inline bool CellTurn::mayGoOn(const ActorCell& cell) noexcept {
  return cell.state_ == State::Running && !cell.blocked() &&
         (cell.pending_ & ActorCell::kUnstashPending) == 0;
}

// Precondition: the mailbox is not empty, the actor runs and is not
// blocked, n > 0.
inline bool CellTurn::consumeMessages(ActorCell& cell, ReceiveContext& ctx, std::uint32_t n) {
  struct Handle {
    ActorCell& cell;
    ReceiveContext& ctx;
    [[gnu::always_inline]] void operator()(Message& message, const ActorRef& sender) const {
      invoke(cell, ctx, message, sender);
    }
  };
  bool more;
  std::uint32_t handled = 0;  // counted once for the turn, not per message
  do {
    if (cell.mailbox_.fifoFirst()) {
      // A flooded actor: a run from the FIFO, out of line so that the
      // one-at-a-time turn keeps its code.
      const std::uint32_t run = consumeRun(cell, ctx, n);
      handled += run;
      n -= run - 1;
    } else {
      cell.mailbox_.consume(cell.home_->core, Handle{cell, ctx});
      ++handled;
    }
    more = !cell.mailbox_.empty();
  } while (more && --n > 0 && mayGoOn(cell));
  cell.home_->counts.messages += handled;
  return more;
}

// scheduled_ stays set for the whole turn: what arrives meanwhile hands the
// dispatcher no second unit (and a dispatcher that runs a unit inside
// execute() cannot nest a turn in this one); the end of the turn looks for it.
//
// The turn of an actor that runs, with no system message and a word in the
// mailbox's slot (request/response: a ping-pong partner takes every message
// so) takes that word without asking anything else, and goes on with the
// rest of the mailbox only if the handler queued more. Everything else
// takes inGeneral(), out of line, so that this path saves only the
// registers it needs (callgrind, actor/pingpong: 95 -> 82 instructions a turn).
void CellTurn::turn(ActorCell& cell) {
  // Both out of line: here, a choice that saves no register. One test of
  // the flags sends what few actors have (a gauge, a high-water mark,
  // tools, a balancer's samples, coroutines) the general way, so that the
  // one-word turn need not ask about them again around its handler or at
  // its end.
  if (!cell.flags_.any(CellFlags::kTurnAside) && cell.pending_ == 0 &&
      cell.state_ == State::Running && cell.mailbox_.hasWord()) [[likely]] {
    onWord<false>(cell);
  } else if (!cell.flags_.any(CellFlags::kTurnAside & ~CellFlags::kSampled) && cell.pending_ == 0 &&
             cell.state_ == State::Running && cell.mailbox_.hasWord()) {
    // With a balancer every cell samples: its one-word turn too, with the
    // countdown (callgrind, a one-token ring: 254 -> 221 instructions a
    // hop, against 215 with no balancer).
    onWord<true>(cell);
  } else {
    if (cell.flags_.any(CellFlags::kWatchDepth | CellFlags::kGauged)) noteDepth(cell);
    inGeneral(cell);
  }
}

void CellTurn::noteDepth(ActorCell& cell) noexcept {
  const std::size_t depth = cell.mailbox_.size();
  if (cell.flags_.any(CellFlags::kWatchDepth))
    cell.rare_->depthMark = std::max<std::uint64_t>(cell.rare_->depthMark, depth);
  // A routee's backlog as its turn starts: a long turn shows what waits behind it.
  if (cell.flags_.any(CellFlags::kGauged))
    cell.rare_->gauge->depth.store(static_cast<std::uint32_t>(depth), std::memory_order_relaxed);
}

template <bool kSampledToo>
void CellTurn::onWord(ActorCell& cell) {
  bool more;  // user messages left for another turn
  // SPEC D11: whatever fails around the handler is caught here, at the cell.
  try {
    ReceiveContext ctx(cell);
    cell.mailbox_.consumeWord(cell.home_->core, [&](Message& message, const ActorRef& sender) {
      invoke<kSampledToo ? Aside::kSampledOnly : Aside::kNone>(cell, ctx, message, sender);
    });
    ++cell.home_->counts.messages;
    more = !cell.mailbox_.empty();
    if (more && cell.throughput_ > 1 && mayGoOn(cell)) [[unlikely]] {
      more = consumeMore(cell, ctx, cell.throughput_ - 1);
    }
    finishIfStopping(cell);
  } catch (...) {
    more = failed(cell);
  }
  end<false>(cell, more);
}

// The frame of a turn run where its messages were taken from a ring, for
// an idle actor (the three below): marked scheduled as a queued turn is,
// so that what arrives meanwhile waits for end(); `body` runs in it, and
// whatever fails around it is caught here, at the cell (SPEC D11).
template <class Body>
[[gnu::always_inline]] inline void CellTurn::inPlace(ActorCell& cell, Body&& body) {
  cell.scheduled_ = true;
  bool more;  // user messages left for another turn
  try {
    body();
    more = !cell.mailbox_.empty();
    finishIfStopping(cell);
  } catch (...) {
    more = failed(cell);
  }
  end<true>(cell, more);
}

// Words taken from a ring for an idle actor: handled where they lie, not
// written into the mailbox and read back (a 32-byte cell each, twice), and
// with no unit handed to the dispatcher. What the handler
// queues meanwhile (a tell to itself) waits in the mailbox, and so do the
// words after it: one sender's words keep their order either way.
void CellTurn::onCrossedWords(ActorCell& cell, const MessageType* type, const std::uint64_t* words,
                              std::uint64_t count, const ActorRef& sender, std::uint64_t& handled) {
  const std::uint64_t most = std::min<std::uint64_t>(count, cell.throughput_);
  inPlace(cell, [&] {
    ReceiveContext ctx(cell);
    do {
      Message message = MessageAccess::make(type, words[handled++]);
      invoke(cell, ctx, message, sender);
    } while (handled < most && mayGoOn(cell) && cell.mailbox_.unboundedAndEmpty());
    cell.home_->counts.messages += handled;
  });
}

void CellTurn::onCrossedMessage(ActorCell& cell, Message&& message, const ActorRef& sender) {
  inPlace(cell, [&] {
    ReceiveContext ctx(cell);
    invoke(cell, ctx, message, sender);
    ++cell.home_->counts.messages;
  });
}

void CellTurn::onContinuation(ActorCell& cell, std::unique_ptr<Continuation> continuation) {
  // What the continuation throws itself goes to supervision (handleContinue).
  inPlace(cell, [&] { handleContinue(cell, std::move(continuation)); });
}

// The common turn of a flooded actor, some user messages and no system
// message, checks each condition once.
void CellTurn::inGeneral(ActorCell& cell) {
  bool more;  // user messages left for another turn
  // SPEC D11: whatever fails around the handler is caught here, at the cell,
  // whichever dispatcher runs us.
  try {
    if (cell.pending_ != 0) [[unlikely]] {
      SystemLine::run(cell);
      if (cell.rare_ != nullptr && cell.rare_->tools != nullptr &&
          !cell.rare_->tools->unstashed.empty()) {
        // Put back by unstash: run once the actor may run (not while its
        // supervisor decides, or a coroutine handler waits).
        if (cell.state_ == State::Running && !cell.blocked()) {
          cell.pending_ |= ActorCell::kUnstashPending;
        } else {
          cell.pending_ &= ~ActorCell::kUnstashPending;
        }
      }
    }
    more = !cell.mailbox_.empty();
    if ((cell.pending_ & ActorCell::kUnstashPending) != 0) [[unlikely]] {
      // What unstash put back goes ahead of the mailbox.
      ReceiveContext ctx(cell);
      const std::uint32_t left = runUnstashed(cell, ctx, cell.throughput_);
      more = !cell.mailbox_.empty();
      if (more && left > 0 && mayGoOn(cell)) more = consumeMessages(cell, ctx, left);
    } else if (more && cell.state_ == State::Running && !cell.blocked()) [[likely]] {
      ReceiveContext ctx(cell);  // one for the turn: each message sets its fields
      more = consumeMessages(cell, ctx, cell.throughput_);
    }
    finishIfStopping(cell);
  } catch (...) {
    more = failed(cell);
  }
  end<true>(cell, more);
}

// Up to `max` messages in a row from the FIFO, checking after each that the
// actor may go on (MailFifo::consumeRun): the position of the next
// message stays in registers across the handler. Returns how many ran.
//
// An actor with no tools, no samples and no coroutine handler (most of
// them) runs each message with no step around its handler, and its run
// ends as soon as its handler gives it one of those (a become, a stash, a
// first coroutine handler): the turn then goes on with the run below. An
// unstash needs a stash first, so none is pending in this run.
std::uint32_t CellTurn::consumeRun(ActorCell& cell, ReceiveContext& ctx, std::uint32_t max) {
  constexpr std::uint16_t kAround =
      CellFlags::kTools | CellFlags::kTooled | CellFlags::kSampled | CellFlags::kAsync;
  if (!cell.flags_.any(kAround)) [[likely]] {
    return cell.mailbox_.consumeFifoRun(
        max,
        [&](Message& message, const ActorRef& sender) {
          invoke<Aside::kNone>(cell, ctx, message, sender);
        },
        [&cell] { return cell.state_ == State::Running && !cell.flags_.any(kAround); });
  }
  return cell.mailbox_.consumeFifoRun(
      max, [&](Message& message, const ActorRef& sender) { invoke(cell, ctx, message, sender); },
      [&cell] { return mayGoOn(cell); });
}

std::uint32_t CellTurn::runUnstashed(ActorCell& cell, ReceiveContext& ctx, std::uint32_t budget) {
  std::uint32_t handled = 0;
  while (budget > 0 && cell.state_ == State::Running && !cell.blocked()) {
    BehaviourTools::Data& t = *cell.rare_->tools;
    if (t.unstashed.empty()) break;
    Envelope envelope = std::move(t.unstashed.front());
    t.unstashed.pop_front();
    --budget;
    ++handled;
    invoke(cell, ctx, envelope.message, envelope.sender);
  }
  cell.home_->counts.messages += handled;
  if (cell.rare_->tools->unstashed.empty()) cell.pending_ &= ~ActorCell::kUnstashPending;
  return budget;
}

void CellTurn::handleContinue(ActorCell& cell, std::unique_ptr<Continuation> continuation) {
  if (continuation->incarnation != cell.incarnation_) {
    cell.core().asks().dropContinuation(cell.self(), std::move(continuation),
                                        "the asking actor restarted");
  } else if (cell.state_ == State::Suspended) {
    cell.systemLine().hold(std::move(continuation));  // runs if the parent resumes us
  } else if (cell.state_ == State::Running) {
    ReceiveContext ctx(cell);
    try {
      continuation->run(ctx);
    } catch (...) {
      CellLifecycle::fail(cell, std::current_exception());
    }
  } else {
    cell.core().asks().dropContinuation(cell.self(), std::move(continuation),
                                        "the asking actor is stopping");
  }
}

template <CellTurn::Aside kAside>
void CellTurn::invoke(ActorCell& cell, ReceiveContext& ctx, Message& message,
                      const ActorRef& sender) {
  if (const MessageType* type = MessageAccess::type(message);
      type != nullptr && type->handledByCell) [[unlikely]] {
    if (message.is<PoisonPill>()) {
      CellLifecycle::beginStop(cell);
      return;
    }
    if (message.is<StrictTick>()) {
      if (!cell.core().scheduling().admitTick(message)) return;  // cancelled after it was sent
    }
  }
  ctx.message_ = &message;
  ctx.sender_ = sender;
  cell.active_ = true;
  // A balancer's countdown is counted here, so that the messages it does
  // not sample take the plain path below.
  if constexpr (kAside == Aside::kSampledOnly) {
    // The one-word turn knows its cell samples and has no tools: a
    // decrement in memory and a branch.
    if (--cell.home_->counts.untilSample == 0) [[unlikely]] {
      invokeNoted(cell, ctx, cell.home_->sampling.get());
      return;
    }
  } else if constexpr (kAside == Aside::kAny) {
    // One test of one byte for what few actors need: a balancer's samples,
    // the behaviour tools.
    if (cell.flags_.any(CellFlags::kSampled | CellFlags::kTooled)) [[unlikely]] {
      const bool due =
          cell.flags_.any(CellFlags::kSampled) && --cell.home_->counts.untilSample == 0;
      if (due || cell.flags_.any(CellFlags::kTooled)) {
        invokeNoted(cell, ctx, due ? cell.home_->sampling.get() : nullptr);
        return;
      }
    }
  }
  try {
    cell.actor_->receive(ctx);
  } catch (...) {
    // SPEC D10: to the parent's supervision, never to the dispatcher.
    CellLifecycle::fail(cell, std::current_exception());
  }
}

void CellTurn::invokeNoted(ActorCell& cell, ReceiveContext& ctx, Sampling* sampling) {
  if (sampling != nullptr) {
    invokeSampled(cell, ctx, *sampling);
    return;
  }
  receiveNow(cell, ctx);
}

void CellTurn::receiveNow(ActorCell& cell, ReceiveContext& ctx) {
  if (cell.flags_.any(CellFlags::kTooled)) {
    BehaviourTools::invoke(cell, ctx);
    return;
  }
  try {
    cell.actor_->receive(ctx);
  } catch (...) {
    CellLifecycle::fail(cell, std::current_exception());
  }
}

// One message in sampleEvery, with a balancer: who sent it, to whom, and
// how long its handler ran (runtime/balance/Balancer.hpp).
void CellTurn::invokeSampled(ActorCell& cell, ReceiveContext& ctx, Sampling& sampling) {
  cell.home_->counts.untilSample = sampling.nextGap();
  // Who sent it, read before the handler (which may stop or move the actor).
  const ActorRef& sender = ctx.sender_;
  balance::Sample sample{cell.selfId_,
                         cell.core().isOurs(sender) ? sender.id() : balance::Sample::kNobody, 0,
                         sampling.every, false};
  if (--sampling.untilTimed != 0) {
    receiveNow(cell, ctx);
  } else {
    sampling.untilTimed = Sampling::kTimedEvery;
    const auto start = std::chrono::steady_clock::now();
    receiveNow(cell, ctx);
    const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - start);
    sample.nanos = static_cast<std::uint64_t>(nanos.count());
    sample.timed = true;
  }
  sampling.take(sample);
}

}  // namespace coreactor::detail

namespace coreactor {

// A coroutine handler runs as the cell's coroutines run it (Coroutines.cpp).
// Defined here, with the turn: the turn's call of receive() then sees
// AsyncActor among the actors it may call, and the compiler does not guess
// FunctionActor::receive for every actor (a speculative devirtualization,
// one more test and branch on each message).
void AsyncActor::receive(ReceiveContext& ctx) {
  ctx.cell_.coroutines().run(*this, ctx);
}

}  // namespace coreactor
