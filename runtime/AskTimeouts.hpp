// The timeouts of the asks whose reply slots live on one isolate, behind
// one timer of that isolate.
//
// Asks come and go at the rate of messages, and nearly all of them with one
// of a few timeouts. Asks with the same timeout expire in the order they
// were made (their deadlines count from the loop pass's time, which never
// goes back), so each timeout has a lane: a doubly linked list through the
// reply slots themselves, oldest first. Arming appends to a lane, a reply
// unlinks its slot: both O(1), no timer-table entry of its own, no clock
// read (TimerOptions::coarse). The one timer is armed for the earliest
// deadline among the lanes' heads and is not moved when a head leaves
// early: when it fires it expires what is due and re-arms for what is left.
// The timer is unreferenced; the lanes hold the loop (IsolateHooks::holdTimers)
// while an ask waits, so a run until idle waits for a waiting ask's
// timeout but not for a deadline nobody holds any more.
//
// At most kLanes different timeouts have lanes at once; an ask with yet
// another timeout gets a timer of its own (arm() returns false). An emptied
// lane gives its place to the next new timeout. Isolate-local throughout.
//
// A timeout past the end of the clock's timeline (nanoseconds::max(), a
// century) saturates there (Clock::deadlineAfter, here and in the isolate's
// own timers): its ask waits for ever, and the timer still follows the
// nearest deadline of the other lanes
// (AskTimeouts.AnAskWithAHugeTimeoutNeverDelaysAShortOnesTimeout,
// AskTimeouts.AHugeTimeoutOnATimerOfItsOwnNeverDelaysTheLanes).
#pragma once

#include <array>
#include <cstddef>
#include <cstdint>
#include <system_error>

#include "coreactor/Clock.hpp"
#include "coreactor/Isolate.hpp"
#include "coreactor/Task.hpp"

namespace coreactor::detail {

class AskEndpoint;

class AskTimeouts final : public Task {
 public:
  static constexpr std::size_t kLanes = 8;

  /// The links of one reply slot in its lane (AskEndpoint derives from it).
  struct Entry {
    Entry* prev = nullptr;
    Entry* next = nullptr;
    Clock::time_point deadline{};
    std::uint8_t lane = kNoLane;
  };

  explicit AskTimeouts(Isolate& isolate) noexcept;
  ~AskTimeouts();
  AskTimeouts(const AskTimeouts&) = delete;
  AskTimeouts& operator=(const AskTimeouts&) = delete;

  /// Arms `entry` to expire `timeout` from the pass's time. False when the
  /// lanes are all taken by other timeouts: the caller arms a timer itself.
  bool arm(Entry& entry, Clock::duration timeout);
  /// Disarms `entry` if it is armed here.
  void cancel(Entry& entry) noexcept {
    if (entry.lane != kNoLane) unlink(entry);
  }

 private:
  static constexpr std::uint8_t kNoLane = 0xFF;
  struct Lane {
    Clock::duration timeout{};
    Entry* head = nullptr;
    Entry* tail = nullptr;
  };
  static void onTimer(Task& task);
  static void onTimerDropped(Task& task) noexcept;
  void unlink(Entry& entry) noexcept;
  /// The lane whose head is due first, or nullptr when no ask waits.
  Lane* earliestLane() noexcept;
  void expireDue();
  /// Unlinks and fails, oldest deadline first, every ask due by `until`.
  void failDue(Clock::time_point until, std::error_code error) noexcept;
  void armTimer(Clock::time_point deadline);
  void clearTimer() noexcept;

  Isolate& isolate_;
  std::array<Lane, kLanes> lanes_{};
  std::size_t laneCount_ = 0;
  std::size_t live_ = 0;
  TimerId timer_{};
  Clock::time_point timerAt_{};
  bool timerArmed_ = false;
  bool firing_ = false;    // failDue() runs: arm() leaves the timer to its caller
  bool clearing_ = false;  // clearTimeout() disposes of our task: not a stop
};

}  // namespace coreactor::detail
