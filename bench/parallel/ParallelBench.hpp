// bench/parallel/ParallelBench.hpp — the parallel workloads of our arm
// (parallel/<workload>/<n>: bench/parallel/; sizes and names in
// bench/harness/Workloads.hpp, shared with the CAF arm).
#pragma once

namespace coreactor::bench {

/// Beside a parallel row's figure (ours only): the messages that crossed
/// from one isolate to another per op (ActorSystem::transportStats).
inline constexpr const char* kCrossingsPerOpCounter = "crossings_per_op";

/// Registers parallel/<workload>/<n> for every workload and every n of
/// workloads::parallelCounts() with Google Benchmark. Call once, from the
/// main thread, before benchmark::RunSpecifiedBenchmarks.
void registerParallelBenchmarks();

}  // namespace coreactor::bench
