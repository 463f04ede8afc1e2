// bench/dispatch/Lateness.cpp — lateness/<dispatcher>: not a cost per op
// but the other side of it: how late a repeating 100 µs timer fires
// (median, µs) on an isolate kept busy by a volley under that dispatcher. A
// dispatcher that never yields to the loop buys its volley speed with
// timers that wait (volley/* beside lateness/* is the first chart of
// coreactor-bench).
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <string>
#include <vector>

#include "coreactor/Isolate.hpp"
#include "coreactor/Task.hpp"
#include "dispatch/DispatchBench.hpp"
#include "dispatch/Families.hpp"
#include "dispatch/Loop.hpp"
#include "dispatch/Volley.hpp"
#include "harness/BenchSupport.hpp"

namespace coreactor::bench::dispatch {
namespace {

/// A repeating timer that records how late each firing is (against its due
/// time, steady_clock) and ends the volley once it has all its firings.
class LatenessProbe final : public Task {
 public:
  using WallClock = std::chrono::steady_clock;

  LatenessProbe(Isolate& isolate, Volley& volley, std::vector<double>& lateness)
      : Task(&fire), isolate_(&isolate), volley_(&volley), lateness_(&lateness) {}

  void start() {
    fires_ = 0;
    arm();
  }
  std::int64_t fires() const noexcept { return fires_; }

 private:
  void arm() {
    due_ = WallClock::now() + kProbePeriod;
    isolate_->setTimeout(kProbePeriod, static_cast<Task&>(*this));
  }
  static void fire(Task& task) {
    LatenessProbe& self = static_cast<LatenessProbe&>(task);
    const WallClock::time_point now = WallClock::now();
    self.lateness_->push_back(std::chrono::duration<double, std::micro>(now - self.due_).count());
    ++self.fires_;
    if (!self.volley_->running()) return;  // the volley hit its cap: the timer was starved
    if (self.fires_ < kProbeFires) {
      self.arm();
    } else {
      self.volley_->finishAfterThisRoundTrip();
    }
  }

  Isolate* isolate_;
  Volley* volley_;
  std::vector<double>* lateness_;
  WallClock::time_point due_{};
  std::int64_t fires_ = 0;
};

void lateness(benchmark::State& state, DispatcherFactory make) {
  Loop loop(make, "bench-lateness");
  Volley volley(*loop.dispatcher, kLatenessRoundTripCap);
  std::vector<double> lateness;
  LatenessProbe probe(loop.isolate, volley, lateness);
  std::int64_t fires = 0;
  std::int64_t passes = 0;
  for (auto _ : state) {
    const LatenessProbe::WallClock::time_point start = LatenessProbe::WallClock::now();
    probe.start();
    loop.isolate.post(volley.start(), loop.dispatcher.get());
    loop.isolate.runUntilIdle();
    state.SetIterationTime(
        std::chrono::duration<double>(LatenessProbe::WallClock::now() - start).count());
    // Completed: every round trip had its request, and the probe took all its
    // firings (it ended the volley) or, when the volley ran to its cap, fired
    // at least once (after it, if the dispatcher starved it).
    const bool capped = volley.roundTrips() == kLatenessRoundTripCap;
    const std::int64_t wanted = capped ? std::max<std::int64_t>(probe.fires(), 1) : kProbeFires;
    if (!checkCompleted(state, "requests", volley.roundTrips(), volley.requests()) ||
        !checkCompleted(state, "probe firings", wanted, probe.fires())) {
      return;
    }
    fires += probe.fires();
    ++passes;
  }
  if (lateness.empty()) return;
  const auto mid = lateness.begin() + static_cast<std::ptrdiff_t>(lateness.size() / 2);
  std::nth_element(lateness.begin(), mid, lateness.end());
  state.counters[kMicrosCounter] = *mid;
  state.counters[kProbeFiresPerPassCounter] =
      static_cast<double>(fires) / static_cast<double>(passes);
}

}  // namespace

void registerLatenessRows() {
  for (const DispatcherKind& kind : kDispatchers) {
    registerTimed(benchmark::RegisterBenchmark(("lateness/" + std::string(kind.name)).c_str(),
                                               &lateness, kind.make));
  }
}

}  // namespace coreactor::bench::dispatch
