// bench/schedule/Fire.cpp — schedule/fire/1M: one due one-shot fired and
// handled: 1M one-shots over 1 s of manual time, then the clock moves past
// them all.
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <memory>
#include <random>

#include "coreactor/ActorSystem.hpp"
#include "harness/BenchSupport.hpp"
#include "schedule/Families.hpp"

namespace coreactor::bench::schedule {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kFired = 1'000'000;

void fireDue(benchmark::State& state) {
  OpMeter meter;
  for (auto _ : state) {
    ManualClock clock;
    auto system = ActorSystem::create(
        "fire-bench",
        ActorSystemOptions::create().withManualRun().withClock(&clock).withLogLevel(LogLevel::Off));
    std::int64_t handled = 0;
    ActorRef sink = system->spawn("sink", [&](ReceiveContext& ctx) {
      if (ctx.is<Tick>()) ++handled;
    });
    system->runUntilIdle();
    std::mt19937_64 random(7);
    std::uniform_int_distribution<std::int64_t> delay(1, 1000);  // ms
    for (std::int64_t i = 0; i < kFired; ++i) {
      system->scheduleOnce(Tick{i}, sink, std::chrono::milliseconds(delay(random)));
    }
    clock.advance(1001ms);
    meter.measure(state, "due one-shots fired and handled", kFired, [&] {
      system->runUntilIdle();
      return system->scheduleCount() == 0 ? handled : handled - 1;
    });
  }
  meter.report(state);
}

}  // namespace

void registerFireRows() {
  registerTimed(benchmark::RegisterBenchmark("schedule/fire/1M", &fireDue)->Iterations(1));
}

}  // namespace coreactor::bench::schedule
