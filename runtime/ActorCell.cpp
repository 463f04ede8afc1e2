// One actor's cell: the send side, its turn (from the mailbox, or on words
// as they leave a ring), and where actor objects' memory comes from. Its
// lifecycle is in CellLifecycle.cpp, its coroutine handlers in
// Coroutines.cpp. Everything here runs on the actor's isolate.
#include <algorithm>

#include "Coroutines.hpp"
#include "Logging.hpp"
#include "SystemCore.hpp"
#include "coreactor/Async.hpp"
#include "runtime/route/RouterTable.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

ActorCell::ActorCell(IsolateRuntime& home, ActorRef self, ActorRef parent, std::string_view path,
                     const ActorOptions& options, ActorFactory&& factory, Dispatcher& dispatcher,
                     std::uint32_t throughput, bool guardian)
    : Task(&runTurn, &disposeTurn),
      Endpoint(Kind::Cell),
      guardian_(guardian),
      inPlace_(dispatcher.urgentUnitsMayRunInPlace()),
      throughput_(throughput),
      mailbox_(options.mailbox()),
      dispatcher_(&dispatcher),
      home_(&home),
      selfId_(self.id()),
      parentId_(SystemCore::idOf(parent)),
      path_(path),
      factory_(std::move(factory)) {
  pinned_ = options.pinned();
  sampled_ = home.sampling != nullptr;  // a balancer: every actor spawned once it runs
  tools().configure(options);
  if (options.dispatcher() != nullptr) rare().ownDispatcher = options.dispatcher();
  if (options.passivation() > Clock::duration::zero())
    rare().passivateAfter = options.passivation();
  if (options.mailboxHighWaterMark()) {
    rare();
    watchDepth_ = true;  // on the list of its isolate at start()
  }
  home_->counts.liveActors.fetch_add(1, std::memory_order_relaxed);
}

ActorCell::~ActorCell() {
  home_->counts.liveActors.fetch_sub(1, std::memory_order_relaxed);
  if (watchDepth_) std::erase(home_->watchedMailboxes, this);
}

ActorCell::Rare& ActorCell::rare() {
  if (rare_ == nullptr) rare_ = std::make_unique<Rare>();
  return *rare_;
}

std::string_view ActorCell::name() const noexcept {
  const std::string_view p = path_.view();
  return p.substr(p.rfind('/') + 1);
}

// ---- the send side ----------------------------------------------------------------

void ActorCell::enqueueSlow(Envelope&& envelope) {
  if (state_ >= State::Terminating) {
    core().asks().failAskOf(envelope.sender, make_error_code(Error::ErrDead));
    core().delivery().deadLetter(self(), std::move(envelope), "the actor is stopping");
    return;
  }
  Envelope displaced;
  switch (mailbox_.push(std::move(envelope), &displaced, home_->core)) {
    case Mailbox::Push::Queued:
      break;
    // A request pushed out can no longer be answered: its ask fails at once
    // rather than at its timeout, when its reply slot (the sender) lives on
    // this isolate (asks from here, and from outside the system).
    case Mailbox::Push::Evicted:
      core().asks().failLocalAskOf(displaced.sender, make_error_code(Error::ErrMailboxFull));
      core().delivery().deadLetter(self(), std::move(displaced),
                                   "evicted from a full bounded mailbox");
      break;
    case Mailbox::Push::Refused:
      // A priority mailbox refuses only what its priority function threw
      // on: no want of room, and an ask among those ends at its timeout.
      if (!mailbox_.isBounded()) {
        core().delivery().deadLetter(self(), std::move(displaced),
                                     "refused: the priority mailbox's priority function threw");
        return;
      }
      {
        const bool askFailed =
            core().asks().failLocalAskOf(displaced.sender, make_error_code(Error::ErrMailboxFull));
        core().delivery().deadLetter(self(), std::move(displaced),
                                     "refused by a full bounded mailbox");
        // Fail throws to the sender; an ask's request has its ask's result
        // for that, and the asker sees no second error.
        if (mailbox_.overflow() == OverflowPolicy::Fail && !askFailed) {
          throwError(Error::ErrMailboxFull, "mailbox of " + std::string(path()) + " is full");
        }
      }
      return;
  }
  if (state_ == State::Running && !scheduled_) schedule();
}

// ---- the turn ----------------------------------------------------------------------

void ActorCell::runTurn(Task& task) {
  static_cast<ActorCell&>(task).turn();
}

// The loop stopped with this turn queued. A cell that already finished is
// freed here; a living one is torn down by the system's stop (abandon).
void ActorCell::disposeTurn(Task& task) noexcept {
  auto& cell = static_cast<ActorCell&>(task);
  cell.scheduled_ = false;
  if (cell.state_ == State::Dead) delete &cell;
}

// A stopping actor whose children are gone finishes its stop at the end of
// the turn that saw the last of them go.
inline void ActorCell::finishIfStopping() {
  if (state_ == State::Terminating && !family().hasChildren()) [[unlikely]] {
    finishStop();
  }
}

// What failed around the handler (not in it: invoke() hands that to
// supervision) goes to the event stream (SPEC D11); true while user
// messages are left.
bool ActorCell::turnFailed() {
  core().metrics().reportDispatcherError(dispatcher_->id(), std::current_exception(), self());
  return !mailbox_.empty();
}

inline void ActorCell::endTurn(bool more) {
  ++home_->counts.turns;
  if (LogContext& c = logContext(); !c.path.empty()) c = LogContext{};
  scheduled_ = false;
  if (state_ >= State::Dead) [[unlikely]] {
    if (state_ == State::Dead) {
      delete this;
    } else {
      CellMoves::leave(*this);  // it handled a Move: its next turn runs on its new isolate
    }
    return;
  }
  if (gauged_) [[unlikely]] {
    rare_->gauge->depth.store(static_cast<std::uint32_t>(mailbox_.size()),
                              std::memory_order_relaxed);
  }
  if (!more) {
    mailbox_.shrinkIfIdle();
    if (pending_ != 0) schedule();
  } else if (pending_ != 0 || (state_ == State::Running && !blocked())) {
    schedule();
  }
}

bool ActorCell::consumeMore(ReceiveContext& ctx, std::uint32_t n) {
  return consumeMessages(ctx, n);
}

// Precondition: the mailbox is not empty, the actor runs and is not
// blocked, n > 0.
inline bool ActorCell::consumeMessages(ReceiveContext& ctx, std::uint32_t n) {
  struct Handle {
    ActorCell& cell;
    ReceiveContext& ctx;
    [[gnu::always_inline]] void operator()(Message& message, const ActorRef& sender) const {
      cell.invoke(ctx, message, sender);
    }
  };
  bool more;
  std::uint32_t handled = 0;  // counted once for the turn, not per message
  do {
    if (mailbox_.fifoFirst()) {
      // A flooded actor: a run from the FIFO, out of line so that the
      // one-at-a-time turn keeps its code.
      const std::uint32_t run = consumeRun(ctx, n);
      handled += run;
      n -= run - 1;
    } else {
      mailbox_.consume(home_->core, Handle{*this, ctx});
      ++handled;
    }
    more = !mailbox_.empty();
  } while (more && --n > 0 && mayGoOn());
  home_->counts.messages += handled;
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
// takes turnInGeneral(), out of line, so that this path saves only the
// registers it needs (callgrind, actor/pingpong: 95 -> 82 instructions a turn).
void ActorCell::turn() {
  if (watchDepth_ | gauged_) [[unlikely]]
    noteDepth();
  // Both out of line: here, a choice that saves no register.
  if (pending_ == 0 && state_ == State::Running && !hasAsync_ && mailbox_.hasWord()) [[likely]] {
    turnOnWord();
  } else {
    turnInGeneral();
  }
}

void ActorCell::noteDepth() noexcept {
  const std::size_t depth = mailbox_.size();
  if (watchDepth_) rare_->depthMark = std::max<std::uint64_t>(rare_->depthMark, depth);
  // A routee's backlog as its turn starts: a long turn shows what waits behind it.
  if (gauged_)
    rare_->gauge->depth.store(static_cast<std::uint32_t>(depth), std::memory_order_relaxed);
}

void ActorCell::turnOnWord() {
  bool more;  // user messages left for another turn
  // SPEC D11: whatever fails around the handler is caught here, at the cell.
  try {
    ReceiveContext ctx(*this);
    mailbox_.consumeWord(home_->core, [&](Message& message, const ActorRef& sender) {
      invoke(ctx, message, sender);
    });
    ++home_->counts.messages;
    more = !mailbox_.empty();
    if (more && throughput_ > 1 && mayGoOn()) [[unlikely]] {
      more = consumeMore(ctx, throughput_ - 1);
    }
    finishIfStopping();
  } catch (...) {
    more = turnFailed();
  }
  endTurn(more);
}

// The frame of a turn run where its messages were taken from a ring, for
// an idle actor (the three below): marked scheduled as a queued turn is,
// so that what arrives meanwhile waits for endTurn; `body` runs in it, and
// whatever fails around it is caught here, at the cell (SPEC D11).
template <class Body>
[[gnu::always_inline]] inline void ActorCell::turnInPlace(Body&& body) {
  scheduled_ = true;
  bool more;  // user messages left for another turn
  try {
    body();
    more = !mailbox_.empty();
    finishIfStopping();
  } catch (...) {
    more = turnFailed();
  }
  endTurn(more);
}

// Words taken from a ring for an idle actor: handled where they lie, not
// written into the mailbox and read back (a 32-byte cell each, twice), and
// with no unit handed to the dispatcher. What the handler
// queues meanwhile (a tell to itself) waits in the mailbox, and so do the
// words after it: one sender's words keep their order either way.
void ActorCell::turnOnCrossedWords(const MessageType* type, const std::uint64_t* words,
                                   std::uint64_t count, const ActorRef& sender,
                                   std::uint64_t& handled) {
  const std::uint64_t most = std::min<std::uint64_t>(count, throughput_);
  turnInPlace([&] {
    ReceiveContext ctx(*this);
    do {
      Message message = MessageAccess::make(type, words[handled++]);
      invoke(ctx, message, sender);
    } while (handled < most && mayGoOn() && mailbox_.unboundedAndEmpty());
    home_->counts.messages += handled;
  });
}

void ActorCell::turnOnCrossedMessage(Message&& message, const ActorRef& sender) {
  turnInPlace([&] {
    ReceiveContext ctx(*this);
    invoke(ctx, message, sender);
    ++home_->counts.messages;
  });
}

void ActorCell::turnOnContinuation(std::unique_ptr<Continuation> continuation) {
  // What the continuation throws itself goes to supervision (handleContinue).
  turnInPlace([&] { handleContinue(std::move(continuation)); });
}

// The common turn of a flooded actor, some user messages and no system
// message, checks each condition once.
void ActorCell::turnInGeneral() {
  bool more;  // user messages left for another turn
  // SPEC D11: whatever fails around the handler is caught here, at the cell,
  // whichever dispatcher runs us.
  try {
    if (pending_ != 0) [[unlikely]] {
      SystemLine::run(*this);
      if (rare_ != nullptr && rare_->tools != nullptr && !rare_->tools->unstashed.empty()) {
        // Put back by unstash: run once the actor may run (not while its
        // supervisor decides, or a coroutine handler waits).
        if (state_ == State::Running && !blocked()) {
          pending_ |= kUnstashPending;
        } else {
          pending_ &= ~kUnstashPending;
        }
      }
    }
    more = !mailbox_.empty();
    if ((pending_ & kUnstashPending) != 0) [[unlikely]] {
      // What unstash put back goes ahead of the mailbox.
      ReceiveContext ctx(*this);
      const std::uint32_t left = runUnstashed(ctx, throughput_);
      more = !mailbox_.empty();
      if (more && left > 0 && mayGoOn()) more = consumeMessages(ctx, left);
    } else if (more && state_ == State::Running && !blocked()) [[likely]] {
      ReceiveContext ctx(*this);  // one for the turn: each message sets its fields
      more = consumeMessages(ctx, throughput_);
    }
    finishIfStopping();
  } catch (...) {
    more = turnFailed();
  }
  endTurn(more);
}

// Up to `max` messages in a row from the FIFO, checking after each that the
// actor may go on (MailFifo::consumeRun): the position of the next
// message stays in registers across the handler. Returns how many ran.
std::uint32_t ActorCell::consumeRun(ReceiveContext& ctx, std::uint32_t max) {
  return mailbox_.consumeFifoRun(
      max, [&](Message& message, const ActorRef& sender) { invoke(ctx, message, sender); },
      [this] { return mayGoOn(); });
}

std::uint32_t ActorCell::runUnstashed(ReceiveContext& ctx, std::uint32_t budget) {
  std::uint32_t handled = 0;
  while (budget > 0 && state_ == State::Running && !blocked()) {
    BehaviourTools::Data& t = *rare_->tools;
    if (t.unstashed.empty()) break;
    Envelope envelope = std::move(t.unstashed.front());
    t.unstashed.pop_front();
    --budget;
    ++handled;
    invoke(ctx, envelope.message, envelope.sender);
  }
  home_->counts.messages += handled;
  if (rare_->tools->unstashed.empty()) pending_ &= ~kUnstashPending;
  return budget;
}

void ActorCell::handleContinue(std::unique_ptr<Continuation> continuation) {
  if (continuation->incarnation != incarnation_) {
    core().asks().dropContinuation(self(), std::move(continuation), "the asking actor restarted");
  } else if (state_ == State::Suspended) {
    systemLine().hold(std::move(continuation));  // runs if the parent resumes us
  } else if (state_ == State::Running) {
    ReceiveContext ctx(*this);
    try {
      continuation->run(ctx);
    } catch (...) {
      fail(std::current_exception());
    }
  } else {
    core().asks().dropContinuation(self(), std::move(continuation), "the asking actor is stopping");
  }
}

// Here, where AsyncState is complete.
ActorCell::Rare::~Rare() = default;

void ActorCell::invoke(ReceiveContext& ctx, Message& message, const ActorRef& sender) {
  if (const MessageType* type = MessageAccess::type(message);
      type != nullptr && type->handledByCell) [[unlikely]] {
    if (message.is<PoisonPill>()) {
      beginStop();
      return;
    }
    if (message.is<StrictTick>()) {
      if (!core().scheduling().admitTick(message)) return;  // cancelled after it was sent
    }
  }
  ctx.message_ = &message;
  ctx.sender_ = sender;
  active_ = true;
  // One test of one byte for what few actors need: a balancer's samples,
  // the behaviour tools.
  // A balancer's countdown is counted here, so that the messages it does
  // not sample take the plain path below.
  if (sampled_ | tooled_) [[unlikely]] {
    Sampling* sampling = sampled_ ? home_->sampling.get() : nullptr;
    const bool due = sampling != nullptr && --sampling->countdown == 0;
    if (due || tooled_) {
      invokeNoted(ctx, due ? sampling : nullptr);
      return;
    }
  }
  try {
    actor_->receive(ctx);
  } catch (...) {
    // SPEC D10: to the parent's supervision, never to the dispatcher.
    fail(std::current_exception());
  }
}

void ActorCell::invokeNoted(ReceiveContext& ctx, Sampling* sampling) {
  if (sampling != nullptr) {
    invokeSampled(ctx, *sampling);
    return;
  }
  receiveNow(ctx);
}

void ActorCell::receiveNow(ReceiveContext& ctx) {
  if (tooled_) {
    BehaviourTools::invoke(*this, ctx);
    return;
  }
  try {
    actor_->receive(ctx);
  } catch (...) {
    fail(std::current_exception());
  }
}

// One message in sampleEvery, with a balancer: who sent it, to whom, and
// how long its handler ran (runtime/balance/Balancer.hpp).
void ActorCell::invokeSampled(ReceiveContext& ctx, Sampling& sampling) {
  sampling.countdown = sampling.nextGap();
  // Who sent it, read before the handler (which may stop or move the actor).
  const ActorRef& sender = ctx.sender_;
  balance::Sample sample{selfId_, core().isOurs(sender) ? sender.id() : balance::Sample::kNobody, 0,
                         sampling.every};
  if (--sampling.untilTimed != 0) {
    receiveNow(ctx);
  } else {
    sampling.untilTimed = Sampling::kTimedEvery;
    const auto start = std::chrono::steady_clock::now();
    receiveNow(ctx);
    const auto nanos = std::chrono::duration_cast<std::chrono::nanoseconds>(
        std::chrono::steady_clock::now() - start);
    sample.nanos = static_cast<std::uint64_t>(nanos.count()) * Sampling::kTimedEvery;
  }
  sampling.taken.push_back(sample);
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

namespace coreactor::detail {

// Declared in include/coreactor/detail/ActorAllocation.hpp.
void* ActorAllocation::operator new(std::size_t size) {
  return SmallBlocks::get(size);
}
void ActorAllocation::operator delete(void* block, std::size_t size) noexcept {
  SmallBlocks::put(block, size);
}
void* ActorAllocation::operator new(std::size_t size, const std::nothrow_t&) noexcept {
  try {
    return SmallBlocks::get(size);
  } catch (...) {
    return nullptr;
  }
}
void ActorAllocation::operator delete(void* block, const std::nothrow_t&) noexcept {
  ::operator delete(block);  // a block of the cache is operator-new memory
}

}  // namespace coreactor::detail
