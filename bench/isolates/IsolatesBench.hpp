// bench/isolates/IsolatesBench.hpp — what bench/harness/main.cpp,
// bench/harness/Results.cpp and bench/harness/Charts.cpp need from the
// cross-isolate benchmarks (bench/isolates/): the floors of two threads on
// two CPUs, the isolate-to-isolate transport alone, and the actor rows
// across isolates.
#pragma once

#include <cstddef>
#include <cstdint>
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

/// isolates/move/<queued>: the family's prefix, and the row of moves with
/// `queued` messages in the mover's mailbox.
inline constexpr const char* kMoveFamily = "isolates/move/";
inline std::string moveRow(std::int64_t queued) {
  return kMoveFamily + std::to_string(queued);
}
/// isolates/move/<queued>, beside the figure (the p50 of a move, call to
/// arrival; bench/isolates/Move.cpp): the p50 (p99) of the moves back,
/// called while the mover is on the other isolate.
inline constexpr const char* kReturnP50Counter = "return_p50_ns";
inline constexpr const char* kReturnP99Counter = "return_p99_ns";
/// isolates/move/<queued>, beside the figure: the share of the probes told
/// right after each call that the actor handled on its new isolate, behind
/// the move, and of the queued messages that went with it, in percent.
inline constexpr const char* kProbesAfterMoveCounter = "probes_after_move_pct";
inline constexpr const char* kQueuedMovedCounter = "queued_moved_pct";
/// isolates/move/<queued>, set after the run (addMoveRatios): the row's
/// p99 over isolates/ask/cross's p99, the medians of this run.
inline constexpr const char* kP99OverAskCounter = "p99_x_ask_cross";

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
