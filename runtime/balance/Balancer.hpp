// The balancer of a system (ActorSystemOptions::withBalancer): each
// isolate samples its messages (CellTurn::invoke, one in sampleEvery)
// into its Sampling; every period each isolate hands its samples in on its
// own loop, and the isolate whose report completes the period's set makes
// the plan (Plan.hpp) and orders the moves (ActorSystem::move).
// docs/isolates.md, "The balancer".
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>
#include <mutex>
#include <vector>

#include "coreactor/ActorSystemOptions.hpp"
#include "coreactor/Clock.hpp"
#include "isolate/SleepCensus.hpp"
#include "runtime/balance/Plan.hpp"

namespace coreactor::detail {

class SystemCore;
struct IsolateRuntime;

/// One isolate's samples of the current period. Isolate-local.
///
/// The gap between samples follows the isolate's traffic, so that each
/// period has about kBudget samples whatever its messages cost: an isolate
/// that handles millions of cheap messages samples thinly, one that
/// handles a few hundred heavy ones samples most of them (a handful of
/// samples per actor would make its estimated work a matter of luck).
struct Sampling {
  /// The samples a period aims at. The plan's cost grows with them, and it
  /// runs on an isolate's loop; a few thousand tell the groups apart.
  static constexpr std::size_t kBudget = 2048;
  static constexpr std::uint32_t kMostEvery = 1u << 16;
  std::uint32_t every = 16;
  std::uint64_t seed = 0x9E3779B97F4A7C15ull;
  /// One sample in kTimedEvery times its handler (balance::Sample::timed):
  /// two clock reads per message sampled cost more than the rest of the
  /// sampling together (bench balanced/ring-one/2). The plan reckons the
  /// others at their actor's clocked mean.
  static constexpr std::uint32_t kTimedEvery = 4;
  std::uint32_t untilTimed = 1;
  std::vector<balance::Sample> taken;
  /// When the samples in `taken` began (the system's clock).
  Clock::time_point since{};
  /// The loop measures its idle time (a system on a real clock, whose
  /// periods are real time), and what it had measured at the last period.
  bool measured = false;
  std::uint64_t idleSeen = 0;
  /// The isolate's count of detoured messages at the last period.
  std::uint64_t detouredSeen = 0;
  /// The next gap: 1 .. 2 x every - 1, every on average. A fixed gap would
  /// sample the same actors over and over where traffic is periodic (a
  /// ring's token visits its members in turn).
  std::uint32_t nextGap() noexcept {
    seed ^= seed << 13;
    seed ^= seed >> 7;
    seed ^= seed << 17;
    return 1 + static_cast<std::uint32_t>(seed % (2 * std::uint64_t{every} - 1));
  }
  /// Keeps `sample`. A period that outgrows the budget (a burst after a
  /// quiet period, when the gap was short) samples half as often from
  /// each further budget's worth on: each sample carries its own gap, so
  /// the period's estimates stay right.
  void take(const balance::Sample& sample) {
    taken.push_back(sample);
    if (taken.size() % kBudget == 0 && every < kMostEvery) every *= 2;
  }
  /// The gap for the next period, from the `samples` this one took and the
  /// `messages` they stood for (the sum of their gaps): the gap that would
  /// have given about half the budget (up to kMostEvery, down to one
  /// message), changed only when the period took more than the budget or
  /// less than a quarter of it.
  static std::uint32_t nextEvery(std::uint32_t every, std::size_t samples,
                                 std::uint64_t messages) noexcept {
    if (samples > kBudget / 4 && samples <= kBudget) return every;
    const std::uint64_t fitted = std::max<std::uint64_t>(messages, every) / (kBudget / 2);
    return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(fitted, 1, kMostEvery));
  }
};

class Balancer {
 public:
  Balancer(SystemCore& core, BalancerOptions options);
  Balancer(const Balancer&) = delete;
  Balancer& operator=(const Balancer&) = delete;

  /// Turns sampling on and arms each isolate's period. On the thread that
  /// made the system, before the loops start.
  void start();
  /// Periods decided so far, and moves ordered that were done.
  std::uint64_t rounds() const noexcept { return rounds_.load(std::memory_order_relaxed); }
  std::uint64_t moves() const noexcept { return moves_.load(std::memory_order_relaxed); }
  /// Steps it undid because the throughput fell after them.
  std::uint64_t undone() const noexcept { return undone_.load(std::memory_order_relaxed); }

 private:
  /// On `rt`'s loop, each period: its samples in; the last of a period's
  /// set makes the plan.
  void tick(IsolateRuntime& rt);
  void arm(IsolateRuntime& rt);
  /// With the period's reports, one at a time (planning_).
  void decide(std::vector<balance::Report> reports);

  SystemCore& core_;
  BalancerOptions options_;
  std::mutex mutex_;  // reports_, reported_, unmovable_
  /// This period's report of each isolate so far (by index), and how many are in.
  std::vector<balance::Report> reports_;
  std::vector<bool> in_;
  std::size_t reported_ = 0;
  std::vector<std::uint64_t> unmovable_;  // failed for good since the last plan
  std::mutex planning_;                   // memory_, pausedSeen_
  balance::Memory memory_;
  /// The time all the loops slept at once (a real clock only), and what it
  /// was at the last plan.
  std::unique_ptr<SleepCensus> census_;
  std::uint64_t pausedSeen_ = 0;
  std::atomic<std::uint64_t> rounds_{0};
  std::atomic<std::uint64_t> moves_{0};
  std::atomic<std::uint64_t> undone_{0};
};

}  // namespace coreactor::detail
