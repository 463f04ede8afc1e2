// One actor's system line (SystemLine.hpp): how a system message comes in
// (a pending flag for a Start or a Stop, a line of their own for
// continuations, the queue for the rest), and the order a turn runs them
// in. Everything here runs on the actor's isolate.
#include "SystemLine.hpp"

#include "SystemCore.hpp"

namespace coreactor::detail {

using SysKind = SystemMessage::Kind;

void SystemLine::enqueueContinue(std::unique_ptr<Continuation> continuation) {
  ActorCell& c = cell_;
  if (c.state_ == ActorCell::State::Dead) {
    c.core().asks().dropContinuation(c.self(), std::move(continuation),
                                     "the asking actor has stopped");
    return;
  }
  if ((c.pending_ & ActorCell::kSystemQueued) == 0) {
    pushContinuation(std::move(continuation));
  } else {
    push(SystemMessage{SysKind::Continue, {}, nullptr, std::move(continuation)});
  }
  if (!c.scheduled_) c.schedule();
}

void SystemLine::enqueue(SystemMessage&& message) {
  ActorCell& c = cell_;
  if (c.state_ == ActorCell::State::Dead) return;
  if (message.kind == SysKind::Continue) {
    enqueueContinue(std::move(message.continuation));
    return;
  }
  // Start is every cell's first system message and Stop most often its
  // second: a flag holds each while no other system message waits (the
  // flags are handled first, Start then Stop, so order holds), and spawning
  // and stopping many actors allocates no system-message ring. The Start
  // flag is set when the cell is made (pending_): the message only wakes
  // the cell, which may have started already, woken by whatever came first.
  if (message.kind == SysKind::Start) {
    if (c.pending_ != 0 && !c.scheduled_) c.schedule();
    return;
  }
  if (message.kind == SysKind::Stop &&
      (c.pending_ &
       (ActorCell::kStopPending | ActorCell::kSystemQueued | ActorCell::kContinuePending)) == 0) {
    c.pending_ |= ActorCell::kStopPending;
  } else {
    push(std::move(message));
  }
  if (!c.scheduled_) c.schedule();
}

void SystemLine::enqueueStart() {
  if (!cell_.scheduled_) cell_.schedule();
}

void SystemLine::push(SystemMessage&& message) {
  cell_.rare().system.queue.push(std::move(message));
  cell_.pending_ |= ActorCell::kSystemQueued;
}

bool SystemLine::queued() const noexcept {
  return (cell_.pending_ & ActorCell::kSystemQueued) != 0;
}

SystemMessage SystemLine::pop() {
  Queue& queue = cell_.rare_->system.queue;
  SystemMessage message = queue.pop();
  if (queue.empty()) cell_.pending_ &= ~ActorCell::kSystemQueued;
  return message;
}

void SystemLine::run(ActorCell& cell) {
  if ((cell.pending_ & ActorCell::kStartPending) !=
      0) {  // older than a pending Stop, and than the queue
    cell.pending_ &= ~ActorCell::kStartPending;
    if (cell.state_ == ActorCell::State::Created) cell.lifecycle().start();
  }
  if ((cell.pending_ & ActorCell::kStopPending) !=
      0) {  // older than the continuations and the queue
    cell.pending_ &= ~ActorCell::kStopPending;
    CellLifecycle::beginStop(cell);
  }
  SystemLine line(cell);
  if ((cell.pending_ & ActorCell::kContinuePending) != 0)
    line.runContinuations();  // older than the queue
  while (line.queued() && cell.state_ < ActorCell::State::Dead) {
    SystemMessage message = line.pop();
    cell.lifecycle().handleSystem(message);
  }
  if (cell.rare_ != nullptr) cell.rare_->system.queue.shrinkIdle();
}

void SystemLine::pushContinuation(std::unique_ptr<Continuation> continuation) {
  Data& d = cell_.rare().system;
  Continuation* c = continuation.release();
  c->next = nullptr;
  if (d.lastContinuation != nullptr) {
    d.lastContinuation->next = c;
  } else {
    d.firstContinuation = c;
  }
  d.lastContinuation = c;
  cell_.pending_ |= ActorCell::kContinuePending;
}

void SystemLine::runContinuations() {
  // One at a time: a continuation may line up more (an ask that fails at
  // once) or stop this actor; what it lines up runs after it.
  Data& d = cell_.rare_->system;
  while (d.firstContinuation != nullptr && cell_.state_ != ActorCell::State::Dead) {
    std::unique_ptr<Continuation> c(d.firstContinuation);
    d.firstContinuation = c->next;
    if (d.firstContinuation == nullptr) {
      d.lastContinuation = nullptr;
      cell_.pending_ &= ~ActorCell::kContinuePending;
    }
    CellTurn::handleContinue(cell_, std::move(c));
  }
}

void SystemLine::dropContinuations(const char* reason) {
  if (cell_.rare_ == nullptr) return;
  Data& d = cell_.rare_->system;
  while (Continuation* c = d.firstContinuation) {
    d.firstContinuation = c->next;
    cell_.core().asks().dropContinuation(cell_.self(), std::unique_ptr<Continuation>(c), reason);
  }
  d.lastContinuation = nullptr;
  cell_.pending_ &= ~ActorCell::kContinuePending;
}

void SystemLine::hold(std::unique_ptr<Continuation> continuation) {
  cell_.rare().held.push(SystemMessage{SysKind::Continue, {}, nullptr, std::move(continuation)});
}

void SystemLine::releaseHeld() {
  while (cell_.rare_ != nullptr && !cell_.rare_->held.empty()) push(cell_.rare_->held.pop());
}

void SystemLine::dropHeld(const char* reason) noexcept {
  while (cell_.rare_ != nullptr && !cell_.rare_->held.empty()) {
    cell_.core().asks().dropContinuation(cell_.self(),
                                         std::move(cell_.rare_->held.pop().continuation), reason);
  }
}

}  // namespace coreactor::detail
