#include "AskTimeouts.hpp"

#include <algorithm>

#include "SystemCore.hpp"

namespace coreactor::detail {

AskTimeouts::AskTimeouts(Isolate& isolate) noexcept
    : Task(&onTimer, &onTimerDropped), isolate_(isolate) {}

AskTimeouts::~AskTimeouts() {
  // The isolate outlives us; its loop has stopped or never ran. What is
  // still armed was completed by the timer's disposal or by the system's
  // teardown, which cancels here.
  if (timerArmed_) clearTimer();
}

bool AskTimeouts::arm(Entry& entry, Clock::duration timeout) {
  Lane* lane = nullptr;
  Lane* idle = nullptr;
  for (std::size_t i = 0; i < laneCount_; ++i) {
    if (lanes_[i].timeout == timeout) {
      lane = &lanes_[i];
      break;
    }
    if (idle == nullptr && lanes_[i].head == nullptr) idle = &lanes_[i];
  }
  if (lane == nullptr) {
    if (idle != nullptr) {
      lane = idle;
    } else if (laneCount_ < kLanes) {
      lane = &lanes_[laneCount_++];
    } else {
      return false;
    }
    lane->timeout = timeout;
  }
  entry.deadline = Clock::deadlineAfter(isolate_.coarseNow(), timeout);
  // The timer first: if the isolate refuses it (stopped), nothing is
  // linked. While expireDue() runs, it re-arms for what is left.
  if (!firing_ && (!timerArmed_ || entry.deadline < timerAt_)) armTimer(entry.deadline);
  entry.lane = static_cast<std::uint8_t>(lane - lanes_.data());
  entry.next = nullptr;
  entry.prev = lane->tail;
  if (lane->tail != nullptr) {
    lane->tail->next = &entry;
  } else {
    lane->head = &entry;
  }
  lane->tail = &entry;
  if (live_++ == 0) IsolateHooks::holdTimers(isolate_);
  return true;
}

void AskTimeouts::unlink(Entry& entry) noexcept {
  Lane& lane = lanes_[entry.lane];
  if (entry.prev != nullptr) {
    entry.prev->next = entry.next;
  } else {
    lane.head = entry.next;
  }
  if (entry.next != nullptr) {
    entry.next->prev = entry.prev;
  } else {
    lane.tail = entry.prev;
  }
  entry.prev = entry.next = nullptr;
  entry.lane = kNoLane;
  // The timer stays where it is (it fires, finds nothing due and re-arms
  // if something is left); with no ask left it no longer holds a run until idle.
  if (--live_ == 0) IsolateHooks::releaseTimers(isolate_);
}

AskTimeouts::Lane* AskTimeouts::earliestLane() noexcept {
  Lane* best = nullptr;
  for (std::size_t i = 0; i < laneCount_; ++i) {
    Lane& lane = lanes_[i];
    if (lane.head != nullptr && (best == nullptr || lane.head->deadline < best->head->deadline)) {
      best = &lane;
    }
  }
  return best;
}

void AskTimeouts::onTimer(Task& task) {
  auto& self = static_cast<AskTimeouts&>(task);
  self.timerArmed_ = false;
  self.expireDue();
}

void AskTimeouts::expireDue() {
  // Due is what is due at the pass's time (coarse deadlines count from it).
  // A completion may ask again: its entry joins a lane, due later, and the
  // timer is re-armed below for whatever is left.
  failDue(isolate_.coarseNow(), make_error_code(Error::ErrAskTimeout));
  if (Lane* lane = earliestLane()) {
    try {
      armTimer(lane->head->deadline);
    } catch (...) {
      // The isolate stopped under a completion: the system's teardown fails
      // what is left.
    }
  }
}

// The loop stopped with the timer armed: every waiting ask fails, as its own
// timer's disposal would have failed it.
void AskTimeouts::onTimerDropped(Task& task) noexcept {
  auto& self = static_cast<AskTimeouts&>(task);
  if (self.clearing_) return;
  self.timerArmed_ = false;
  self.failDue(Clock::time_point::max(), make_error_code(Error::ErrActorSystemNotStarted));
}

void AskTimeouts::failDue(Clock::time_point until, std::error_code error) noexcept {
  firing_ = true;  // arm() from a completion leaves the timer to the caller
  while (Lane* lane = earliestLane()) {
    Entry& entry = *lane->head;
    if (entry.deadline > until) break;
    unlink(entry);
    static_cast<AskEndpoint&>(entry).complete(nullptr, error);
  }
  firing_ = false;
}

void AskTimeouts::armTimer(Clock::time_point deadline) {
  if (timerArmed_) clearTimer();
  const Clock::duration delay = std::max(Clock::duration::zero(), deadline - isolate_.coarseNow());
  // Unreferenced: the lanes hold the loop (holdTimers) only while they hold an ask.
  timer_ = isolate_.setTimeout(delay, *this, TimerOptions{.referenced = false, .coarse = true});
  timerArmed_ = true;
  timerAt_ = deadline;
}

void AskTimeouts::clearTimer() noexcept {
  clearing_ = true;
  isolate_.clearTimeout(timer_);
  clearing_ = false;
  timerArmed_ = false;
}

}  // namespace coreactor::detail
