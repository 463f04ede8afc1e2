// bench/isolates/Floors.hpp — the raw floors of two threads on two CPUs
// that the isolates/* rows are read against, in the same binary and the same
// run (bench/isolates/Floors.cpp), and how a row pairs its rounds with them.
//
//   floor/spsc-bulk        one 8-byte item through boost::lockfree::spsc_queue
//                          (1024 slots) from one thread to another: pushed one
//                          by one, popped 256 at a time; 1M per round.
//   floor/busy-poll-rtt    one round trip of two threads ping-ponging one
//                          atomic word, each busy-polling for its turn.
//   floor/eventfd-rtt      one round trip of two threads through two eventfds
//                          (blocking read, write): two wake-ups of a sleeper.
//
// A VM's vCPUs do not always run at one speed, and their topology may change
// from one minute to the next (floor/busy-poll-rtt reads 35 to 800 ns, floor/
// spsc-bulk 3 to 60 ns an item), so a ratio of two rows run minutes apart can
// compare two phases. With two CPUs a row follows each of its rounds, off
// the clock, with a round of its floor, and reports the median of the
// per-round ratios (PairedRatios) beside its figure; the targets read it.
#pragma once

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <optional>
#include <utility>
#include <vector>

#include "harness/Results.hpp"
#include "isolates/Families.hpp"

namespace coreactor::bench::isolates {

// Each round is a few milliseconds, so that Google Benchmark's --quick time
// (0.05 s a repetition) still averages several of them.

/// floor/spsc-bulk and isolates/transport/8B: items per round.
inline constexpr std::int64_t kBulkItems = 1'000'000;
/// Both rings' slots: the runtime's default ring between two isolates
/// (ActorSystemOptions::withCrossIsolateBuffer).
inline constexpr std::size_t kRingSlots = 1024;
/// What a consumer takes at once: transport::Link::kBatch, per peer and loop iteration.
inline constexpr std::size_t kConsumeBatch = 256;
/// floor/busy-poll-rtt: round trips per round (~1 us each between the two
/// vCPUs of this machine kind).
inline constexpr std::int64_t kBusyRoundTrips = 10'000;
/// floor/eventfd-rtt and isolates/pingpong/idle: round trips per round
/// (~25 us each: every message wakes a halted vCPU).
inline constexpr std::int64_t kWakeRoundTrips = 200;

/// One round of each floor: what ran in order (items, round trips) and how
/// long it took, measured on the thread that finished.
Timed spscFloorRound();
Timed busyPollRound();
Timed eventFdRound();

/// The ratio per op of a round of a row to the paired round of its floor
/// run right after it, or none if the floor's round did not finish.
std::optional<double> pairedRatio(const Timed& row, std::int64_t rowOps, const Timed& floor,
                                  std::int64_t floorOps);

/// A row's per-round ratios to the rounds paired with them, reported as
/// their median: kPairedFloorRatioCounter.
class PairedRatios {
 public:
  /// A round's ratio; without one (the paired round did not finish) the row
  /// fails with `why`, and this returns false.
  bool add(benchmark::State& state, const std::optional<double>& ratio, const char* why) {
    if (!ratio) {
      state.SkipWithError(why);
      return false;
    }
    ratios_.push_back(*ratio);
    return true;
  }
  void add(double ratio) { ratios_.push_back(ratio); }
  void report(benchmark::State& state) {
    if (!ratios_.empty() && !state.error_occurred()) {
      state.counters[kPairedFloorRatioCounter] = medianOfSamples(std::move(ratios_));
    }
  }

 private:
  std::vector<double> ratios_;
};

}  // namespace coreactor::bench::isolates
