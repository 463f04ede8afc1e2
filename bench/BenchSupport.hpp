// bench/BenchSupport.hpp — what every benchmark of coreactor-bench shares: the
// counters bench/main.cpp reads back, the completion check and the hand-held
// clock.
//
// A figure is only ever taken over work that actually ran: each benchmark's
// own code counts what completed, checkCompleted() compares it with what was
// asked, and a mismatch (or a throw) fails the benchmark with SkipWithError
// instead of producing a figure. Time is taken by hand around the work only
// (UseManualTime), so building systems, isolates, actors and tasks stays out
// of every figure unless the benchmark says it is the point.
#pragma once

#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <exception>
#include <string>

#include "coreactor/Error.hpp"

namespace coreactor::bench {

/// The user counter of a timing: nanoseconds per op that actually completed.
inline constexpr const char* kNsPerOpCounter = "ns_per_op";
/// The user counter of a memory measurement: bytes per unit (say, per idle actor).
inline constexpr const char* kBytesPerOpCounter = "bytes_per_op";

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
    const double seconds = std::chrono::duration<double>(elapsed).count();
    state.SetIterationTime(seconds);
    seconds_ += seconds;
    ops_ += ran;
    return true;
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
  static bool runGuarded(benchmark::State& state, Work& work, std::int64_t& ran) {
    try {
      ran = work();
      return true;
    } catch (...) {
      state.SkipWithError(("threw: " + describe(std::current_exception())).c_str());
      return false;
    }
  }

  double seconds_ = 0;
  std::int64_t ops_ = 0;
};

}  // namespace coreactor::bench
