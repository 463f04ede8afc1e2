// bench/parallel/ParallelRow.hpp — how each parallel workload becomes its
// rows: parallel/<workload>/<n> for every n of workloads::parallelCounts(),
// then placement/<workload>/run-<k> on the most isolates. A workload is a
// class with build(system, isolates) and the members runParallelRounds
// needs (bench/harness/ParallelRound.hpp); its file registers it here.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/Workloads.hpp"
#include "parallel/ParallelBench.hpp"

namespace coreactor::bench::parallel {

/// One row: a threaded system of `isolates` isolates, the workload's actors,
/// then the rounds. The workload (which the actors count into) outlives the
/// system. `run`: the system's placement run (0: the default), with the
/// pairs placed by it too.
template <class Workload>
void runParallelRow(benchmark::State& state, std::size_t isolates, std::size_t run) {
  Workload workload;
  std::unique_ptr<ActorSystem> system;
  if (!setUp(state, [&] {
        ActorSystemOptions options =
            ActorSystemOptions::create().withIsolates(isolates).withLogLevel(LogLevel::Warn);
        if (run != 0) {
          options = options.withPlacementRun(run);
          if constexpr (requires { workload.byHand; }) workload.byHand = false;
        }
        system = ActorSystem::create("parallel", options);
        workload.build(*system, isolates);
      })) {
    return;
  }
  // How many messages crossed between isolates per op, over every round (the
  // warm-up's included: each round does the same work).
  const std::uint64_t crossedBefore = system->transportStats().crossings;
  runParallelRounds(state, workload, [] {});
  if (state.error_occurred()) return;
  const double ops =
      static_cast<double>(workload.asked()) * static_cast<double>(state.iterations() + 1);
  state.counters[kCrossingsPerOpCounter] =
      static_cast<double>(system->transportStats().crossings - crossedBefore) / ops;
}

/// The workload's parallel/<workload>/<n> rows, then its
/// placement/<workload>/run-<k> rows on the most isolates.
template <class Workload>
void registerRows(const char* workload) {
  const std::vector<std::size_t> counts = workloads::parallelCounts();
  for (const std::size_t n : counts) {
    registerTimed(benchmark::RegisterBenchmark(workloads::parallelRow(workload, n).c_str(),
                                               &runParallelRow<Workload>, n, std::size_t{0}));
  }
  for (const std::size_t run : workloads::kPlacementRuns) {
    registerTimed(benchmark::RegisterBenchmark(workloads::placementRow(workload, run).c_str(),
                                               &runParallelRow<Workload>, counts.back(), run));
  }
}

}  // namespace coreactor::bench::parallel
