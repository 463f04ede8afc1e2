// bench/caf/ParallelRow.hpp — how each parallel workload of the CAF arm
// becomes its rows, parallel/<workload>/<n> for every n of
// workloads::parallelCounts(), with n scheduler threads.
//
// The workloads are our arm's (bench/parallel/), with the same sizes, the
// same messages and the same checks (bench/harness/ParallelTallies.hpp);
// CAF's default (work-stealing) scheduler with n threads places the actors.
// Each workload keeps its actors' handles and drops them (release) before
// its Arm stops the system; the actors read one another's handles through
// the workload, never holding one of their own.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>

#include "caf/Arm.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/ParallelRound.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {

/// One row: CAF with `threads` scheduler threads, the workload's actors,
/// then the rounds. The workload (which the actors count into) outlives the
/// system; its handles do not.
template <class Workload>
void runParallelRow(benchmark::State& state, std::size_t threads) {
  Workload workload;
  Arm arm(workloads::parallelRow(Workload::kName, threads), threads);
  workload.build(arm);
  runParallelRounds(state, workload, [&] { arm.lost(kParallelRoundTimeout); });
  workload.release();
}

template <class Workload>
void registerParallelRows() {
  for (const std::size_t n : workloads::parallelCounts()) {
    registerTimed(benchmark::RegisterBenchmark(workloads::parallelRow(Workload::kName, n).c_str(),
                                               &runParallelRow<Workload>, n));
  }
}

}  // namespace coreactor::bench::cafarm
