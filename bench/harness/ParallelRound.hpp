// bench/harness/ParallelRound.hpp — how a round of a parallel workload
// (parallel/<workload>/<n>, bench/harness/Workloads.hpp) is started, ended,
// timed and checked, in both arms: ours (bench/parallel/, a threaded system
// of n isolates) and CAF's (bench/caf/, n scheduler threads); what it checks
// is in bench/harness/ParallelTallies.hpp. Like
// bench/harness/BenchSupport.hpp, it includes neither coreactor's runtime
// headers nor CAF's.
//
// A round is timed from its start, on the benchmark's thread just before the
// kick-off messages, to the end of the last of its parts (a pair, a token,
// an actor's replies, the gathered sum), on the thread that finished it:
// the benchmark's thread waking up is not in the figure, one thread's or
// isolate's waking up at the start is, in both arms. Then the workload counts
// what its actors actually did, and a round that did not finish, lost or
// duplicated work, or computed a wrong result fails the row.
#pragma once

#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <exception>
#include <optional>
#include <string>
#include <utility>

#include "harness/BenchSupport.hpp"
#include "harness/Completion.hpp"

namespace coreactor::bench {

/// How long the benchmark's thread waits for one round. Rounds take
/// milliseconds; one that has not finished after this lost work.
inline constexpr std::chrono::seconds kParallelRoundTimeout{30};

/// The end of one round: how many parts are still running, when the last
/// one finished, and the wake-up of the benchmark's thread (a Completion,
/// which says why it is no promise made anew each round). Lives as long as
/// the workload and is reset between rounds.
class RoundEnd {
 public:
  using Clock = std::chrono::steady_clock;

  /// Benchmark's thread, between rounds (no part running): the parts the
  /// next round must finish.
  void reset(std::int64_t parts) {
    remaining_.store(parts, std::memory_order_relaxed);
    completion_.reset();
  }
  /// An actor's side, once its part is done: the last part takes the time
  /// and wakes the benchmark's thread. The decrement orders every part's
  /// writes before the benchmark's thread reads them (acquire-release).
  void partDone() {
    if (remaining_.fetch_sub(1, std::memory_order_acq_rel) != 1) return;
    end_ = Clock::now();
    completion_.raise();
  }
  /// Benchmark's thread: false if `timeout` passed first.
  bool waitFor(std::chrono::nanoseconds timeout) { return completion_.waitFor(timeout); }
  /// When the last part finished; read after waitFor() returned true.
  Clock::time_point end() const { return end_; }

 private:
  std::atomic<std::int64_t> remaining_{0};
  Clock::time_point end_{};
  Completion completion_;
};

/// Plays one round of `workload` (the members runParallelRounds lists):
/// resets it, starts it, waits for its last part and checks what its actors
/// did. The ops that ran and the time they took, taken on the thread that
/// ended the round; nothing, with the row failed, if the round did not finish
/// in time (after `onLost`), was wrong or threw.
template <class Workload, class OnLost>
std::optional<OpMeter::Timed> playParallelRound(benchmark::State& state, Workload& workload,
                                                OnLost& onLost) {
  try {
    workload.reset();
    workload.end.reset(workload.parts());
    const RoundEnd::Clock::time_point begin = RoundEnd::Clock::now();
    workload.start();
    if (!workload.end.waitFor(kParallelRoundTimeout)) {
      onLost();
      state.SkipWithError(("a round did not finish within " +
                           std::to_string(kParallelRoundTimeout.count()) + " s: work was lost")
                              .c_str());
      return std::nullopt;
    }
    std::string wrong;
    const std::int64_t ran = workload.done(wrong);
    if (!wrong.empty()) {
      state.SkipWithError(("wrong result: " + wrong).c_str());
      return std::nullopt;
    }
    return OpMeter::Timed{ran, workload.end.end() - begin};
  } catch (...) {
    state.SkipWithError(("threw: " + describe(std::current_exception())).c_str());
    return std::nullopt;
  }
}

/// Runs the rounds of a parallel row: one warm-up round off the clock (every
/// actor started, every path between threads made), then one per iteration,
/// each checked. `workload` has:
///   static constexpr const char* kWhat;  what one op is, for a mismatch
///   RoundEnd end;
///   std::int64_t asked() const;          ops in a round
///   std::int64_t parts() const;          parts that finish on their own
///   void reset();                        benchmark's thread, between rounds
///   void start();                        the kick-off messages
///   std::int64_t done(std::string& wrong) const;  the ops that ran, and
///                                        what was wrong (a lost, duplicated
///                                        or misrouted message, a wrong sum)
/// `onLost` runs when a round did not finish in time, before the row fails
/// (the CAF arm ends its process there). `afterRound`, given each timed
/// round, runs after it, off the clock; false ends the row (it has failed).
template <class Workload, class OnLost, class AfterRound>
void runParallelRounds(benchmark::State& state, Workload& workload, OnLost&& onLost,
                       AfterRound&& afterRound) {
  const std::int64_t asked = workload.asked();
  const auto play = [&] { return playParallelRound(state, workload, onLost); };
  const std::optional<OpMeter::Timed> warm = play();
  if (!warm || !checkCompleted(state, Workload::kWhat, asked, warm->ran)) return;
  OpMeter meter;
  for (auto _ : state) {
    const std::optional<OpMeter::Timed> timed = play();
    if (!timed || !meter.measureTimed(state, Workload::kWhat, asked, [&] { return *timed; }) ||
        !afterRound(*timed)) {
      break;
    }
  }
  meter.report(state);
}

template <class Workload, class OnLost>
void runParallelRounds(benchmark::State& state, Workload& workload, OnLost&& onLost) {
  runParallelRounds(state, workload, std::forward<OnLost>(onLost),
                    [](const OpMeter::Timed&) { return true; });
}

}  // namespace coreactor::bench
