// bench/isolates/IsolatesBench.hpp — what bench/harness/main.cpp,
// bench/harness/Results.cpp and bench/harness/Charts.cpp need from the
// cross-isolate benchmarks (bench/isolates/): the floors of two threads on
// two CPUs, the isolate-to-isolate transport alone, and the actor rows
// across isolates.
#pragma once

#include <cstddef>
#include <string>

namespace coreactor::bench {

/// isolates/idle-cpu: the process's CPU time over the window, in percent of
/// one core (the figure).
inline constexpr const char* kCpuPercentCounter = "cpu_percent";
/// isolates/ask/cross: the median over rounds of a round's p50 (p99) over
/// the busy-poll round trip measured right after it.
inline constexpr const char* kP50PairedCounter = "p50_x_floor_paired";
inline constexpr const char* kP99PairedCounter = "p99_x_floor_paired";
/// isolates/pingpong/loaded, beside the figure: messages the background load
/// handled on each isolate per round trip (what a crossing waited behind).
inline constexpr const char* kLoadPerRoundTripCounter = "load_msgs_per_rtt";

/// isolates/scaling/<n>: the family's prefix, and the name of the row of n
/// isolates.
inline constexpr const char* kScalingFamily = "isolates/scaling/";
inline std::string scalingRow(std::size_t isolates) {
  return kScalingFamily + std::to_string(isolates);
}

/// Registers floor/spsc-bulk, floor/busy-poll-rtt, floor/eventfd-rtt,
/// floor/moodycamel-bulk and isolates/* with Google Benchmark. `quick` shortens isolates/idle-cpu's
/// window (the one row whose length is not Google Benchmark's to choose).
/// Call once, from the main thread, before benchmark::RunSpecifiedBenchmarks.
void registerIsolatesBenchmarks(bool quick);

/// True when the two-sided rows run their two threads (or isolates) pinned
/// to two distinct CPUs: the process may run on at least two. On one CPU
/// nothing is pinned and the rows measure time-sharing, not a crossing.
bool crossThreadsPinned();

}  // namespace coreactor::bench
