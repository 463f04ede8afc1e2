// bench/harness/BenchSupport.hpp — what every benchmark of both arms shares
// (coreactor-bench and coreactor-bench-caf): the counters the harness reads
// back, the completion check, the hand-held clock, how a timed row is
// registered and how a latency row reads its percentiles. It includes
// neither coreactor's runtime headers nor CAF's, so that each arm can use it
// alone.
//
// A figure is only ever taken over work that actually ran: each benchmark's
// own code counts what completed, checkCompleted() compares it with what was
// asked, and a mismatch (or a throw) fails the benchmark with SkipWithError
// instead of producing a figure. Time is taken by hand around the work only
// (UseManualTime), so building systems, isolates, actors and tasks stays out
// of every figure unless the benchmark says it is the point. Where the work
// runs on another thread than the benchmark's (the CAF arm's worker), that
// thread takes the time itself and hands it back (OpMeter::measureTimed).
#pragma once

#include <benchmark/benchmark.h>
#include <malloc.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <exception>
#include <string>
#include <vector>

// Header-only here: the CAF arm includes it without linking coreactor.
#include "coreactor/Error.hpp"

namespace coreactor::bench {

/// The user counter of a timing: nanoseconds per op that actually completed.
inline constexpr const char* kNsPerOpCounter = "ns_per_op";
/// The user counter of a memory measurement: bytes per unit (say, per idle actor).
inline constexpr const char* kBytesPerOpCounter = "bytes_per_op";
/// The user counter of a latency measurement: microseconds (say, a timer's
/// median lateness).
inline constexpr const char* kMicrosCounter = "latency_us";

/// isolates/ask/*: the median latency of one ask, in ns (the figure), and
/// beside it the 99th percentile.
inline constexpr const char* kP50NsCounter = "p50_ns";
inline constexpr const char* kP99NsCounter = "p99_ns";

/// A row's cost over its floor's, each round of the row paired with a round
/// of the floor run right after it, so that both see the same phase of the
/// machine (the same CPU, the same minute); the median of those ratios. The
/// round trips and transports across isolates (bench/isolates/Floors.hpp) and
/// the single-threaded actor rows (bench/harness/RingFloor.hpp) report it
/// beside their figure, and the targets read this one when it is there.
inline constexpr const char* kPairedFloorRatioCounter = "x_floor_paired";

// glibc adapts its mmap and trim thresholds to the program's history: once a
// large block is freed (hybrid/backlog/1000000 frees 16 MiB rings), blocks of
// up to that size come from the heap and freed memory stays mapped. A figure
// must not depend on which benchmarks ran before it (--benchmark_filter), so
// the thresholds are pinned where the adaptation ends up (32 MiB is glibc's
// ceiling for the mmap threshold; trim at twice that, as glibc sets it). Both
// arms pin them, so that both allocate under the same rules.
// The actor rows do not need it: an isolate's thread keeps the mailbox
// segments and cells its bursts need parked (isolate/CacheTrim.hpp), so
// actor/tell/10000 and actor/spawn/100000 read the same with
// --malloc-defaults, which skips the pinning.
inline constexpr int kMmapThreshold = 32 << 20;
inline constexpr int kTrimThreshold = 64 << 20;

/// Pins glibc's thresholds (above). Call first thing in main, but not in a
/// memory probe's child: a fresh process with glibc's start-up settings is its point.
inline void pinMallocThresholds() {
  mallopt(M_MMAP_THRESHOLD, kMmapThreshold);
  mallopt(M_TRIM_THRESHOLD, kTrimThreshold);
}

/// Fails the benchmark unless `ran == asked`. Figures count what ran, never
/// what was asked, so a runtime that loses work cannot look fast.
inline bool checkCompleted(benchmark::State& state, const char* what, std::int64_t asked,
                           std::int64_t ran) {
  if (ran == asked) return true;
  const std::string message = std::string("completion mismatch: asked for ") +
                              std::to_string(asked) + " " + what + ", " + std::to_string(ran) +
                              " ran";
  state.SkipWithError(message.c_str());
  return false;
}

/// Registers `b` as a row timed by hand (OpMeter, SetIterationTime), shown in
/// microseconds: how every row of both arms but a memory one is registered.
inline benchmark::internal::Benchmark* registerTimed(benchmark::internal::Benchmark* b) {
  return b->UseManualTime()->Unit(benchmark::kMicrosecond);
}

/// Runs a row's set-up (building its system, its threads, its actors),
/// failing the row, rather than the run, on a throw. Returns false then.
template <class SetUp>
bool setUp(benchmark::State& state, SetUp&& build) {
  try {
    build();
    return true;
  } catch (...) {
    state.SkipWithError(("set-up threw: " + describe(std::current_exception())).c_str());
    return false;
  }
}

/// The `p`-th quantile (0.5: the median) of `values`, which must not be
/// empty: the value at rank floor(p * (n - 1)) of the sorted values.
inline double percentileOf(std::vector<double> values, double p) {
  std::sort(values.begin(), values.end());
  return values[static_cast<std::size_t>(p * static_cast<double>(values.size() - 1))];
}

/// A latency row's figure and the counter beside it (isolates/ask/*, both
/// arms): the median of every latency measured, in ns, and the 99th
/// percentile.
inline void reportLatencies(benchmark::State& state, const std::vector<double>& ns) {
  state.counters[kP50NsCounter] = percentileOf(ns, 0.5);
  state.counters[kP99NsCounter] = percentileOf(ns, 0.99);
}

/// Accumulates the hand-measured time and the completed ops of one benchmark
/// run, and reports them as ns per op (kNsPerOpCounter).
class OpMeter {
 public:
  using WallClock = std::chrono::steady_clock;

  /// Runs `work` (which returns how many ops actually ran) on the clock, checks
  /// the count against `asked`, and on success records the time as this
  /// iteration's. Returns false, with the benchmark failed, otherwise.
  template <class Work>
  bool measure(benchmark::State& state, const char* what, std::int64_t asked, Work&& work) {
    const WallClock::time_point start = WallClock::now();
    std::int64_t ran = 0;
    if (!runGuarded(state, work, ran)) return false;
    const WallClock::duration elapsed = WallClock::now() - start;
    if (!checkCompleted(state, what, asked, ran)) return false;
    record(state, ran, elapsed);
    return true;
  }

  /// What one run of measureTimed's work hands back: the ops that actually
  /// ran and the time they took, measured by the thread that ran them.
  struct Timed {
    std::int64_t ran = 0;
    WallClock::duration elapsed{};
  };

  /// As measure, for work that runs on another thread and takes its own time
  /// there (from the first op to the last one's completion), so that handing
  /// the work over and waiting for it stay out of the figure. `work` returns
  /// a Timed.
  template <class Work>
  bool measureTimed(benchmark::State& state, const char* what, std::int64_t asked, Work&& work) {
    Timed timed;
    if (!runGuarded(
            state, [&] { return (timed = work()).ran; }, timed.ran))
      return false;
    if (!checkCompleted(state, what, asked, timed.ran)) return false;
    record(state, timed.ran, timed.elapsed);
    return true;
  }

  /// For work measured over a window rather than a fixed count: records what
  /// `timed` says ran in the window as this iteration's. The caller has
  /// checked that work for loss and order (there is no count to ask for).
  void recordWindow(benchmark::State& state, const Timed& timed) {
    record(state, timed.ran, timed.elapsed);
  }

  /// The same check, off the clock: for a pass that only warms up, or the
  /// clean-up after a timed pass.
  template <class Work>
  static bool unmeasured(benchmark::State& state, const char* what, std::int64_t asked,
                         Work&& work) {
    std::int64_t ran = 0;
    return runGuarded(state, work, ran) && checkCompleted(state, what, asked, ran);
  }

  void report(benchmark::State& state) const {
    if (state.error_occurred() || ops_ == 0) return;
    state.counters[kNsPerOpCounter] =
        benchmark::Counter(seconds_ * 1e9 / static_cast<double>(ops_));
    state.SetItemsProcessed(ops_);
  }

 private:
  // A throw out of the library (say, a ring that cannot grow) fails the
  // benchmark with its message rather than terminating the whole run.
  template <class Work>
  static bool runGuarded(benchmark::State& state, Work&& work, std::int64_t& ran) {
    try {
      ran = work();
      return true;
    } catch (...) {
      state.SkipWithError(("threw: " + describe(std::current_exception())).c_str());
      return false;
    }
  }

  void record(benchmark::State& state, std::int64_t ran, WallClock::duration elapsed) {
    const double seconds = std::chrono::duration<double>(elapsed).count();
    state.SetIterationTime(seconds);
    seconds_ += seconds;
    ops_ += ran;
  }

  double seconds_ = 0;
  std::int64_t ops_ = 0;
};

}  // namespace coreactor::bench
