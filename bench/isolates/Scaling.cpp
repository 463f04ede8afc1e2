// bench/isolates/Scaling.cpp — isolates/scaling/<n>: n isolates, each with
// its own ping-pong pair, all at once.
//
//   isolates/scaling/<n>   one round trip, aggregate: n isolates, each running
//                          its own ping-pong pair (both actors on it), all at
//                          once; total time over total round trips. n = 1..N,
//                          N the CPUs this process may use (at least 2; past 8,
//                          powers of two and N).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <thread>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/Completion.hpp"
#include "isolates/Families.hpp"
#include "isolates/Floors.hpp"
#include "isolates/IsolatesBench.hpp"
#include "isolates/Pinning.hpp"
#include "isolates/Rally.hpp"

namespace coreactor::bench::isolates {
namespace {

/// Each pair plays from the start of a round; its round trips are counted
/// over a window that opens after the warm-up, when every pair plays (about
/// a million round trips a pair in 20 ms).
constexpr auto kScalingWarmUp = 2ms;
constexpr auto kScalingWindow = 20ms;
/// Every n up to this many CPUs, then powers of two.
constexpr std::size_t kEveryIsolateCountUpTo = 8;

/// A rally that plays until told to stop (isolates/scaling/<n>): the
/// benchmark's thread reads how far it got at both edges of a window, so
/// that the pairs are counted only while every one of them plays. With
/// fixed work per pair, a pair on a faster CPU would finish first and the
/// slowest pair's tail would run alone.
struct OpenRally : RallyCounts {
  struct alignas(64) {
    std::atomic<bool> stop{false};  // written by the benchmark's thread, once a round
  } control;
  Completion stopped;

  /// Benchmark's thread, between rounds.
  void reset() {
    resetCounts();
    control.stop.store(false, std::memory_order_relaxed);
    stopped.reset();
  }

  // The requester's side (RequesterOf), on its isolate.
  void begin() {}
  bool wantsMore(std::int64_t) const { return !control.stop.load(std::memory_order_relaxed); }
  void finish() { stopped.raise(); }
};

using OpenRequester = RequesterOf<OpenRally>;
using OpenResponder = ResponderOf<OpenRally>;

/// One pair per isolate of a scaling row, and what they count.
struct ScalingPairs {
  std::vector<std::unique_ptr<OpenRally>> rallies;  // outlive the system
  std::unique_ptr<ActorSystem> system;
  std::vector<ActorRef> requesters;
  std::vector<ActorRef> responders;
};

/// The pairs `which` play at once for a window: the round trips all of them
/// completed inside it and its length, or nothing (with `why` set) when a
/// pair did not stop in time or lost or reordered a message.
std::optional<OpMeter::Timed> scalingWindow(ScalingPairs& pairs,
                                            const std::vector<std::size_t>& which,
                                            std::string& why) {
  for (std::size_t k : which) pairs.rallies[k]->reset();
  for (std::size_t k : which) pairs.requesters[k].tell(Serve{pairs.responders[k]});
  std::this_thread::sleep_for(kScalingWarmUp);
  const auto done = [&] {
    std::int64_t sum = 0;
    for (std::size_t k : which) sum += pairs.rallies[k]->pongs();
    return sum;
  };
  const std::int64_t before = done();
  const Steady::time_point opened = Steady::now();
  std::this_thread::sleep_for(kScalingWindow);
  // A loaded machine may complete nothing in the planned window: the window
  // stays open until a round trip has completed (a slow figure, not a
  // failure); only a pair that never completes one within kGiveUp fails.
  std::int64_t after = done();
  const Steady::time_point latest = opened + kGiveUp;
  while (after <= before && Steady::now() < latest) {
    std::this_thread::sleep_for(1ms);
    after = done();
  }
  const Steady::time_point closed = Steady::now();
  for (std::size_t k : which) pairs.rallies[k]->control.stop.store(true, std::memory_order_relaxed);
  const Steady::time_point deadline = Steady::now() + kGiveUp;
  for (std::size_t k : which) {
    if (!pairs.rallies[k]->stopped.waitFor(deadline - Steady::now())) {
      why = "a pair did not stop";
      return std::nullopt;
    }
  }
  // Every ping answered, every pong in order: nothing lost, nothing reordered.
  for (std::size_t k : which) {
    const OpenRally& rally = *pairs.rallies[k];
    const std::int64_t pongs = rally.pongs();
    if (rally.pings() != pongs || rally.ordered() != pongs) {
      why = "pair " + std::to_string(k) + ": " + std::to_string(rally.pings()) + " pings, " +
            std::to_string(pongs) + " pongs, " + std::to_string(rally.ordered()) + " in order";
      return std::nullopt;
    }
  }
  if (after <= before) {
    why = "no round trip within " + std::to_string(kGiveUp.count()) + " s";
    return std::nullopt;
  }
  return OpMeter::Timed{after - before, closed - opened};
}

/// Round trips per second of a window.
double rateOf(const OpMeter::Timed& t) {
  return static_cast<double>(t.ran) / std::chrono::duration<double>(t.elapsed).count();
}

/// isolates/scaling/<n>: n isolates, each running its own ping-pong pair, all
/// at once; the figure is the aggregate: the window over every round trip
/// completed in it. A VM's vCPUs do not always run at one speed (for
/// minutes at a time one may run a ping-pong 1.8x slower than the other),
/// so "N x one isolate" is not one number. With
/// pinning, each round is followed (off the clock) by a window of each pair
/// alone on its CPU, and the row reports the median over rounds of
/// (sum of the pairs' rates alone) / (their rate together): 1 when the
/// isolates do not slow each other down at all, N times the speed of one
/// isolate when the CPUs are alike.
void scaling(benchmark::State& state, std::size_t isolates) {
  ScalingPairs pairs;
  if (!setUp(state, [&] {
        pairs.system = threadedSystem(isolates);
        pinIsolates(*pairs.system, isolates);
        for (std::size_t k = 0; k < isolates; ++k) {
          pairs.rallies.push_back(std::make_unique<OpenRally>());
          const ActorOptions here = ActorOptions::create().withIsolate(k);
          pairs.requesters.push_back(
              pairs.system->spawn<OpenRequester>("", here, pairs.rallies[k].get()));
          pairs.responders.push_back(
              pairs.system->spawn<OpenResponder>("", here, pairs.rallies[k].get()));
        }
      })) {
    return;
  }
  std::vector<std::size_t> all(isolates);
  for (std::size_t k = 0; k < isolates; ++k) all[k] = k;
  const bool paired = isolates >= 2 && pinning();
  PairedRatios pairedRatios;
  OpMeter meter;
  for (auto _ : state) {
    std::string why;
    // The count is what the window saw done (checked for loss and order
    // inside); there is no fixed number to ask for.
    const std::optional<OpMeter::Timed> together = scalingWindow(pairs, all, why);
    if (!together) {
      state.SkipWithError(("scaling: " + why).c_str());
      break;
    }
    meter.recordWindow(state, *together);
    if (paired) {
      double alone = 0;
      for (std::size_t k = 0; k < isolates; ++k) {
        const std::optional<OpMeter::Timed> one = scalingWindow(pairs, {k}, why);
        if (!one) break;
        alone += rateOf(*one);
      }
      if (!why.empty()) {
        state.SkipWithError(("scaling, a pair alone: " + why).c_str());
        break;
      }
      pairedRatios.add(alone / rateOf(*together));
    }
  }
  meter.report(state);
  pairedRatios.report(state);
}

/// isolates/scaling/<n>: every n up to kEveryIsolateCountUpTo, then powers of
/// two, and always N itself (the CPUs, at least 2).
std::vector<std::size_t> scalingCounts() {
  const std::size_t most = std::max<std::size_t>(2, allowedCpus().size());
  std::vector<std::size_t> counts;
  for (std::size_t n = 1; n <= most; n = n < kEveryIsolateCountUpTo ? n + 1 : 2 * n) {
    counts.push_back(n);
  }
  if (counts.back() != most) counts.push_back(most);
  return counts;
}

}  // namespace

void registerScalingRows() {
  for (const std::size_t n : scalingCounts()) {
    registerTimed(benchmark::RegisterBenchmark(scalingRow(n).c_str(), &scaling, n));
  }
}

}  // namespace coreactor::bench::isolates
