// The time every loop of a group slept at once (IsolateHooks::countSleeps):
// the time the group had no work at all, which is neither its loops' nor
// their actors' doing (a program that pauses between bursts, a client that
// sends in rounds). An actor system's balancer reads it to judge a step by
// the messages handled per working time rather than per period
// (runtime/balance/Plan.hpp).
//
// Only the loops' real sleeps count, not their idle poll windows: two
// loops passing a message back and forth both look for work between
// hops, and that time belongs to the work. A sleep costs a system call and
// a wake-up on each side; the census adds a lock round two counters.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <mutex>

namespace coreactor::detail {

class SleepCensus {
 public:
  explicit SleepCensus(std::size_t members) noexcept : members_(members) {}
  SleepCensus(const SleepCensus&) = delete;
  SleepCensus& operator=(const SleepCensus&) = delete;

  /// A member's loop is about to sleep.
  void fallAsleep() noexcept {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (++asleep_ == members_) since_ = now;
  }
  /// A member's loop woke.
  void wakeUp() noexcept {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    if (asleep_-- == members_) {
      nanos_ += static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now - since_).count());
    }
  }
  /// The nanoseconds all members slept at once so far (a sleep of all of
  /// them under way counts up to now).
  std::uint64_t allAsleepNanos() const noexcept {
    const auto now = std::chrono::steady_clock::now();
    std::lock_guard<std::mutex> lock(mutex_);
    std::uint64_t nanos = nanos_;
    if (asleep_ == members_) {
      nanos += static_cast<std::uint64_t>(
          std::chrono::duration_cast<std::chrono::nanoseconds>(now - since_).count());
    }
    return nanos;
  }

 private:
  mutable std::mutex mutex_;
  std::size_t members_;
  std::size_t asleep_ = 0;
  std::chrono::steady_clock::time_point since_{};
  std::uint64_t nanos_ = 0;
};

}  // namespace coreactor::detail
