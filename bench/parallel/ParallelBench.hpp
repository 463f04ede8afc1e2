// bench/parallel/ParallelBench.hpp — the parallel workloads of our arm
// (parallel/<workload>/<n>: bench/parallel/; sizes and names in
// bench/harness/Workloads.hpp, shared with the CAF arm).
#pragma once

namespace coreactor::bench {

/// Beside a parallel row's figure (ours only): the messages that crossed
/// from one isolate to another per op (ActorSystem::transportStats).
inline constexpr const char* kCrossingsPerOpCounter = "crossings_per_op";

/// Beside a balanced row's figure (balanced/*): the moves the balancer made
/// in the row's system, its rounds off the clock included
/// (TransportStats::balancerMoves).
inline constexpr const char* kMovesCounter = "moves";
/// Of those, the moves made while the row was timed.
inline constexpr const char* kTimedMovesCounter = "moves_timed";
/// Beside a balanced row's figure: the balancer's steps it undid because
/// the throughput fell after them (TransportStats::balancerUndone).
inline constexpr const char* kUndoneCounter = "undone";
/// Beside a balanced row's figure: the messages an entry a moved actor left
/// sent on, per op (TransportStats::forwarded).
inline constexpr const char* kForwardedPerOpCounter = "forwarded_per_op";
/// Beside a balanced row of more than one isolate: its speedup over the
/// workload on one isolate without the balancer (parallel/<workload>/1's
/// system, kept beside the row's), as many rounds of it played right after
/// the row's timed ones: the median of those over the row's median
/// (ParallelRow.hpp).
inline constexpr const char* kBesideSpeedupCounter = "speedup_beside";

/// balanced/converge/ring (bench/parallel/Converge.cpp) and its counters:
/// hops per second over the first and the last tenth of its run, over the
/// same ring on one isolate, and last / one.
inline constexpr const char* kConvergeRow = "balanced/converge/ring";
inline constexpr const char* kFirstTenthCounter = "first_tenth_hops_per_s";
inline constexpr const char* kLastTenthCounter = "last_tenth_hops_per_s";
inline constexpr const char* kOneIsolateCounter = "one_isolate_hops_per_s";
inline constexpr const char* kLastVsOneCounter = "last_vs_one";

/// Registers parallel/<workload>/<n> for every workload and every n of
/// workloads::parallelCounts(), the placement/* and balanced/* rows, and
/// pool/cpu/<n>, with Google Benchmark. Call once, from the main thread, before
/// benchmark::RunSpecifiedBenchmarks.
void registerParallelBenchmarks();

}  // namespace coreactor::bench
