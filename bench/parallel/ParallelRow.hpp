// bench/parallel/ParallelRow.hpp — how each parallel workload becomes its
// rows: parallel/<workload>/<n> for every n of workloads::parallelCounts(),
// then placement/<workload>/run-<k> on the most isolates, then
// balanced/<workload>/<n> for n of 1 and the most isolates. A workload is a
// class with build(system, isolates) and the members runParallelRounds
// needs (bench/harness/ParallelRound.hpp); its file registers it here.
//
// A balanced row is its parallel row on a system with the balancer
// (balancerOfRows(): a period of 20 ms, the other settings the defaults)
// and the same placement. Before its timed rounds it plays checked rounds
// off the clock for kSettle, thirty periods, so that the balancer has
// moved what it moves and the figure is the settled placement's. Its crossings per op are
// those of the timed rounds (and of runParallelRounds' one warm-up round);
// `moves` counts every move the balancer made, the settling included,
// `moves_timed` those it made in the timed rounds (0: the placement had
// settled), `undone` the steps it undid (the throughput fell after them), and `forwarded_per_op`
// the messages that went through an entry a moved actor left, per op of the timed rounds
// (TransportStats::forwarded).
#pragma once

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/Results.hpp"
#include "harness/Workloads.hpp"
#include "parallel/ParallelBench.hpp"

namespace coreactor::bench::parallel {

/// The balancer of the balanced/* rows: it decides every 20 ms.
inline BalancerOptions balancerOfRows() {
  BalancerOptions options;
  options.period = std::chrono::milliseconds(20);
  return options;
}

/// How long a balanced row plays rounds off the clock before the timed ones:
/// thirty of the balancer's periods, or more (a round is not cut short). A
/// step takes four periods at least (its moves land, then two periods are
/// judged once the routes settled), and a workload may take several.
inline constexpr std::chrono::milliseconds kSettle{600};

/// How a row's system is made.
struct RowSystem {
  std::size_t isolates = 1;
  /// The system's placement run (0: the default), with the pairs placed by it too.
  std::size_t run = 0;
  /// With the balancer (balancerOfRows()), settling for kSettle first.
  bool balanced = false;
};

/// Plays checked rounds of `workload`, off the clock, until `settle` has
/// passed. False, with the row failed, if one of them did not finish, lost
/// work or threw.
template <class Workload>
bool playFor(benchmark::State& state, Workload& workload, std::chrono::nanoseconds settle) {
  const auto until = std::chrono::steady_clock::now() + settle;
  const auto onLost = [] {};
  do {
    const std::optional<OpMeter::Timed> round = playParallelRound(state, workload, onLost);
    if (!round || !checkCompleted(state, Workload::kWhat, workload.asked(), round->ran)) {
      return false;
    }
  } while (std::chrono::steady_clock::now() < until);
  return true;
}

/// A row's system of `row.isolates` isolates with `workload`'s actors.
template <class Workload>
std::unique_ptr<ActorSystem> buildRowSystem(Workload& workload, RowSystem row) {
  ActorSystemOptions options =
      ActorSystemOptions::create().withIsolates(row.isolates).withLogLevel(LogLevel::Warn);
  if (row.run != 0) {
    options = options.withPlacementRun(row.run);
    if constexpr (requires { workload.byHand; }) workload.byHand = false;
  }
  if (row.balanced) options = options.withBalancer(balancerOfRows());
  std::unique_ptr<ActorSystem> system = ActorSystem::create("parallel", options);
  workload.build(*system, row.isolates);
  return system;
}

/// Seconds per op of a round.
inline double secondsPerOp(const OpMeter::Timed& round) {
  return std::chrono::duration<double>(round.elapsed).count() /
         static_cast<double>(std::max<std::int64_t>(round.ran, 1));
}

/// One row: a threaded system of `row.isolates` isolates, the workload's
/// actors, then the rounds. The workload (which the actors count into)
/// outlives the system. A balanced row of more than one isolate keeps the
/// workload's one-isolate system (parallel/<workload>/1's) beside it, idle
/// until the row's timed rounds are done, then plays as many rounds on it
/// (kBesideSpeedupCounter): a vCPU's speed drifts from one minute to the
/// next, and a ratio of two rows run minutes apart carries that drift. Its
/// rounds are not interleaved with the row's: the balancer judges its steps
/// by the messages handled per period, which a pause would lower.
template <class Workload>
void runParallelRow(benchmark::State& state, RowSystem row) {
  Workload workload;
  Workload floorWorkload;
  std::unique_ptr<ActorSystem> system;
  std::unique_ptr<ActorSystem> floorSystem;
  const bool beside = row.balanced && row.isolates > 1;
  if (!setUp(state, [&] {
        system = buildRowSystem(workload, row);
        if (beside) floorSystem = buildRowSystem(floorWorkload, RowSystem{1, 0, false});
      })) {
    return;
  }
  if (row.balanced && !playFor(state, workload, kSettle)) return;
  const auto onLost = [] {};
  std::vector<double> timedPerOp;
  // How many messages crossed between isolates per op, over every round (the
  // warm-up's included: each round does the same work).
  const TransportStats before = system->transportStats();
  runParallelRounds(state, workload, onLost, [&](const OpMeter::Timed& timed) {
    timedPerOp.push_back(secondsPerOp(timed));
    return true;
  });
  if (state.error_occurred()) return;
  const TransportStats stats = system->transportStats();
  if (beside && !timedPerOp.empty()) {
    std::vector<double> floorPerOp;
    for (std::size_t k = 0; k <= timedPerOp.size(); ++k) {  // the first: its warm-up
      const std::optional<OpMeter::Timed> floor = playParallelRound(state, floorWorkload, onLost);
      if (!floor || !checkCompleted(state, Workload::kWhat, floorWorkload.asked(), floor->ran)) {
        return;
      }
      if (k != 0) floorPerOp.push_back(secondsPerOp(*floor));
    }
    state.counters[kBesideSpeedupCounter] =
        medianOfSamples(floorPerOp) / medianOfSamples(timedPerOp);
  }
  const double ops =
      static_cast<double>(workload.asked()) * static_cast<double>(state.iterations() + 1);
  state.counters[kCrossingsPerOpCounter] =
      static_cast<double>(stats.crossings - before.crossings) / ops;
  if (row.balanced) {
    state.counters[kMovesCounter] = static_cast<double>(stats.balancerMoves);
    state.counters[kTimedMovesCounter] =
        static_cast<double>(stats.balancerMoves - before.balancerMoves);
    state.counters[kUndoneCounter] = static_cast<double>(stats.balancerUndone);
    state.counters[kForwardedPerOpCounter] =
        static_cast<double>(stats.forwarded - before.forwarded) / ops;
  }
}

/// Registers one row of `Workload`.
template <class Workload>
void registerRow(const std::string& name, RowSystem row) {
  registerTimed(benchmark::RegisterBenchmark(name.c_str(), &runParallelRow<Workload>, row));
}

/// The workload's parallel/<workload>/<n> rows, then (with `placement`) its
/// placement/<workload>/run-<k> rows on the most isolates, then its
/// balanced/<workload>/<n> rows on one isolate and on the most.
template <class Workload>
void registerRows(const char* workload, bool placement = true) {
  const std::vector<std::size_t> counts = workloads::parallelCounts();
  for (const std::size_t n : counts) {
    registerRow<Workload>(workloads::parallelRow(workload, n), RowSystem{n, 0, false});
  }
  if (placement) {
    for (const std::size_t run : workloads::kPlacementRuns) {
      registerRow<Workload>(workloads::placementRow(workload, run),
                            RowSystem{counts.back(), run, false});
    }
  }
  for (const std::size_t n : {counts.front(), counts.back()}) {
    registerRow<Workload>(workloads::balancedRow(workload, n), RowSystem{n, 0, true});
  }
}

}  // namespace coreactor::bench::parallel
