// bench/schedule/AddCancel.cpp — schedule/add+cancel/*: what a schedule and
// its cancel cost with 1M schedules live on the isolate.
//
//   schedule/add+cancel/handle     one call (a scheduleOnce, or a cancel by
//                                  handle), with 1M schedules live on the
//                                  isolate: 10,000 added, then cancelled in
//                                  random order; figure = time / 20,000 calls
//   schedule/add+cancel/reference  the same with a reference per schedule (the
//                                  system-wide namespace: a lock and a hash)
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/BenchSupport.hpp"
#include "schedule/Families.hpp"

namespace coreactor::bench::schedule {
namespace {

constexpr std::int64_t kBatch = 10'000;

// 1M schedules live on one isolate, far in the (manual) future: built once,
// shared by the add+cancel benchmarks, which leave it as they found it.
struct LiveSet {
  ManualClock clock;
  std::unique_ptr<ActorSystem> system = ActorSystem::create(
      "schedule-bench",
      ActorSystemOptions::create().withManualRun().withClock(&clock).withLogLevel(LogLevel::Off));
  ActorRef sink = system->spawn("sink", [](ReceiveContext&) {});
  std::mt19937_64 random{42};

  LiveSet() {
    system->runUntilIdle();
    std::uniform_int_distribution<std::int64_t> delay(10'000, 70'000);  // ms
    for (std::int64_t i = 0; i < kLive; ++i) {
      system->scheduleOnce(Tick{i}, sink, std::chrono::milliseconds(delay(random)));
    }
  }
  static LiveSet& instance() {
    static LiveSet set;
    return set;
  }
};

void addCancel(benchmark::State& state, bool named) {
  LiveSet& live = LiveSet::instance();
  ActorSystem& system = *live.system;
  if (static_cast<std::int64_t>(system.scheduleCount()) != kLive) {
    state.SkipWithError("the live set is not 1M schedules");
    return;
  }
  std::uniform_int_distribution<std::int64_t> delay(10'000, 70'000);
  std::vector<std::chrono::milliseconds> delays(kBatch);
  std::vector<std::string> names(named ? kBatch : 0);
  std::vector<ScheduleHandle> handles(kBatch);
  std::vector<std::size_t> order(kBatch);
  std::uint64_t round = 0;
  OpMeter meter;
  for (auto _ : state) {
    // Off the clock: this round's delays, names and cancel order.
    for (auto& d : delays) d = std::chrono::milliseconds(delay(live.random));
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(names.size()); ++i) {
      names[i] = "r" + std::to_string(round) + "." + std::to_string(i);
    }
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), live.random);
    ++round;
    meter.measure(state, "schedule and cancel calls", 2 * kBatch, [&] {
      std::int64_t ok = 0;
      for (std::int64_t i = 0; i < kBatch; ++i) {
        ScheduleResult r =
            named ? system.scheduleOnce(Tick{i}, live.sink, delays[i],
                                        ScheduleOptions::create().withReference(names[i]))
                  : system.scheduleOnce(Tick{i}, live.sink, delays[i]);
        handles[i] = r.handle();
        ok += handles[i].valid() ? 1 : 0;
      }
      const bool allLive = static_cast<std::int64_t>(system.scheduleCount()) == kLive + kBatch;
      for (std::size_t i : order) {
        ScheduleResult r =
            named ? system.cancelSchedule(names[i]) : system.cancelSchedule(handles[i]);
        ok += r.ok() ? 1 : 0;
      }
      // Counted only if the scheduler agrees: 1M + 10k after the adds, 1M after.
      if (!allLive || static_cast<std::int64_t>(system.scheduleCount()) != kLive) return ok - 1;
      return ok;
    });
  }
  meter.report(state);
}

void addCancelByHandle(benchmark::State& state) {
  addCancel(state, false);
}
void addCancelByReference(benchmark::State& state) {
  addCancel(state, true);
}

}  // namespace

void registerAddCancelRows() {
  registerTimed(benchmark::RegisterBenchmark("schedule/add+cancel/handle", &addCancelByHandle));
  registerTimed(
      benchmark::RegisterBenchmark("schedule/add+cancel/reference", &addCancelByReference));
}

}  // namespace coreactor::bench::schedule
