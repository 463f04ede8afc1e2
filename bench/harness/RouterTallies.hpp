// bench/harness/RouterTallies.hpp — what the routees of router/<logic> and
// pool/cpu/<n> (bench/harness/Workloads.hpp) count in a round, the one check
// of a round against those counts, and the pairing of a routed row's rounds
// with router/direct's, for both arms: ours (bench/actor/Router.cpp,
// bench/parallel/Pool.cpp) and CAF's (bench/caf/Router.cpp,
// bench/caf/Pool.cpp). Like bench/harness/BenchSupport.hpp, it includes
// neither coreactor's runtime headers nor CAF's.
//
// Every routee counts on a cache line of its own what it handled (and, in
// pool/cpu, the sum of its jobs' results and the end-of-jobs markers it
// got); a round is checked against those counts, never against what the
// sender asked: a router that lost, duplicated or misrouted a message fails
// the row.
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <stdexcept>
#include <string>
#include <vector>

#include "harness/BenchSupport.hpp"
#include "harness/ParallelTallies.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench {

/// Beside a routed row's figure (router/<logic>): what one delivery costs
/// over what one message of router/direct costs, each round of the row
/// paired with a round of router/direct right after it, on the same thread
/// (DirectPairing); the median of those ratios.
inline constexpr const char* kVsDirectCounter = "vs_direct";
/// Beside router/broadcast's figure (ns per message told to the router):
/// ns per delivery, a copy handled by one routee.
inline constexpr const char* kNsPerDeliveryCounter = "ns_per_delivery";

}  // namespace coreactor::bench

namespace coreactor::bench::workloads {

/// How the messages of a round must have spread over the routees.
enum class Spread {
  kEven,   ///< each routee the same share (direct, round-robin, pool/cpu)
  kEvery,  ///< each routee every message (broadcast)
  kSome,   ///< each routee some: none left out (random, consistent hash, smallest mailbox)
};

/// What one routee did in a round, on a line of its own.
struct alignas(64) RouteeCounts {
  std::int64_t handled = 0;
  std::uint64_t sum = 0;  // pool/cpu: its jobs' results, summed
  std::int64_t ends = 0;  // pool/cpu: end-of-jobs markers (one a round)
};

/// The routees of one row, one RouteeCounts each. A pool's factory hands
/// them out with claim(), one per routee it makes.
class RouteeTally {
 public:
  explicit RouteeTally(std::size_t routees = static_cast<std::size_t>(kRoutees))
      : counts_(routees) {}

  /// Makes room for `routees` (between rounds; none claimed yet).
  void resize(std::size_t routees) {
    counts_ = std::vector<RouteeCounts>(routees);
    claimed_.store(0, std::memory_order_relaxed);
  }
  std::size_t size() const noexcept { return counts_.size(); }
  RouteeCounts& at(std::size_t i) { return counts_.at(i); }

  /// The counts of the next routee a factory makes; any thread. Throws
  /// when the factory makes more routees than the row counts (a restart).
  RouteeCounts* claim() {
    const std::size_t i = claimed_.fetch_add(1, std::memory_order_relaxed);
    if (i >= counts_.size()) throw std::logic_error("a pool made more routees than it was given");
    return &counts_[i];
  }

  /// Benchmark's thread, between rounds.
  void reset() {
    for (RouteeCounts& c : counts_) c = RouteeCounts{};
  }

  /// The messages handled in the round, all routees together.
  std::int64_t deliveries() const {
    std::int64_t all = 0;
    for (const RouteeCounts& c : counts_) all += c.handled;
    return all;
  }

  /// Whether `messages` messages, each delivered once (kEvery: to every
  /// routee), are what the routees handled and are spread as `spread`
  /// says. Sets `wrong` otherwise.
  void checkSpread(std::int64_t messages, Spread spread, std::string& wrong) const {
    const auto routees = static_cast<std::int64_t>(counts_.size());
    const std::int64_t all = deliveries();
    const std::int64_t expected = spread == Spread::kEvery ? messages * routees : messages;
    if (all != expected) {
      wrong = counted("deliveries handled", expected, all);
      return;
    }
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      const std::int64_t got = counts_[i].handled;
      const bool fits = spread == Spread::kEven    ? got == messages / routees
                        : spread == Spread::kEvery ? got == messages
                                                   : got > 0;
      if (!fits) {
        wrong = "routee " + std::to_string(i) + " handled " + std::to_string(got) + " of " +
                std::to_string(messages) +
                (spread == Spread::kEven    ? ", not an even share"
                 : spread == Spread::kEvery ? ", not every message"
                                            : ": none");
        return;
      }
    }
  }

  /// pool/cpu: the jobs handled; every routee's end-of-jobs marker came
  /// once, the jobs spread evenly (round-robin) and the results sum to
  /// `expectedSum` (poolCpuExpectedSum()). Sets `wrong` otherwise.
  std::int64_t jobs(std::uint64_t expectedSum, std::string& wrong) const {
    checkSpread(kPoolCpuJobs, Spread::kEven, wrong);
    std::uint64_t sum = 0;
    for (std::size_t i = 0; i < counts_.size(); ++i) {
      sum += counts_[i].sum;
      if (counts_[i].ends != 1) {
        wrong = "routee " + std::to_string(i) + " got " + std::to_string(counts_[i].ends) +
                " end-of-jobs markers, 1 expected";
      }
    }
    if (sum != expectedSum) wrong = "the routees' sums are not the sum of the jobs' results";
    return deliveries();
  }

 private:
  std::vector<RouteeCounts> counts_;
  std::atomic<std::size_t> claimed_{0};
};

/// The check of a router/* round in a row: false, with the row failed, when
/// the routees' counts do not add up (RouteeTally::checkSpread).
inline bool checkRouted(benchmark::State& state, const RouteeTally& tally, std::int64_t messages,
                        Spread spread) {
  std::string wrong;
  tally.checkSpread(messages, spread, wrong);
  if (wrong.empty()) return true;
  state.SkipWithError(("wrong result: " + wrong).c_str());
  return false;
}

/// Pairs each round of a routed row with a round of router/direct right
/// after it, on the same thread (so the same CPU, in the same minute), and
/// reports the median of the per-round ratios, ns per delivery of the row
/// over ns per message of router/direct, as kVsDirectCounter: a VM's vCPU
/// does not run at one speed from one minute to the next.
class DirectPairing {
 public:
  using Duration = std::chrono::steady_clock::duration;

  /// One pair of rounds: the row's (`deliveries` handled in `row`) and
  /// router/direct's (`messages` handled in `direct`).
  void add(Duration row, std::int64_t deliveries, Duration direct, std::int64_t messages) {
    if (deliveries <= 0 || messages <= 0 || direct.count() <= 0) return;
    const double rowPer =
        std::chrono::duration<double>(row).count() / static_cast<double>(deliveries);
    const double directPer =
        std::chrono::duration<double>(direct).count() / static_cast<double>(messages);
    ratios_.push_back(rowPer / directPer);
  }

  void report(benchmark::State& state) {
    if (ratios_.empty() || state.error_occurred()) return;
    std::sort(ratios_.begin(), ratios_.end());
    const std::size_t mid = ratios_.size() / 2;
    state.counters[kVsDirectCounter] =
        ratios_.size() % 2 == 1 ? ratios_[mid] : (ratios_[mid - 1] + ratios_[mid]) / 2;
  }

 private:
  std::vector<double> ratios_;
};

/// Beside a row whose messages fan out (router/broadcast): its figure per
/// delivery, from the figure the row reported (OpMeter::report).
inline void reportPerDelivery(benchmark::State& state, std::int64_t fanOut) {
  const auto figure = state.counters.find(kNsPerOpCounter);
  if (fanOut <= 1 || figure == state.counters.end() || state.error_occurred()) return;
  state.counters[kNsPerDeliveryCounter] = figure->second.value / static_cast<double>(fanOut);
}

}  // namespace coreactor::bench::workloads
