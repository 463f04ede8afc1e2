// bench/schedule/Lateness.cpp — schedule/lateness/*: how late one-shots
// fire on a threaded system.
//
//   schedule/lateness/idle         p50 fire lateness of 200 one-shots spread
//   schedule/lateness/volley       over 40 ms, on a threaded system: idle, and
//                                  with a perpetual ping-pong volley on the
//                                  same isolate (the default hybrid
//                                  dispatcher); p99 and the lateness in
//                                  dispatcher units go beside it
#include <benchmark/benchmark.h>

#include <atomic>
#include <chrono>
#include <cstdint>
#include <future>
#include <memory>
#include <random>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/BenchSupport.hpp"
#include "schedule/Families.hpp"
#include "schedule/ScheduleBench.hpp"

namespace coreactor::bench::schedule {
namespace {

using namespace std::chrono_literals;

constexpr int kLateShots = 200;

using Steady = std::chrono::steady_clock;

struct Due {
  Steady::time_point at;
};
struct Shoot {};
struct Ball {};

void lateness(benchmark::State& state, bool volley) {
  for (auto _ : state) {
    auto system = ActorSystem::create("lateness-bench",
                                      ActorSystemOptions::create().withLogLevel(LogLevel::Off));
    std::atomic<bool> stopVolley{false};
    std::uint64_t units = 0;  // volley messages handled: on the isolate only
    std::vector<double> lateUs;
    std::promise<void> allFired;
    ActorRef recorder = system->spawn("recorder", [&](ReceiveContext& ctx) {
      if (const Due* due = ctx.get<Due>()) {
        lateUs.push_back(
            std::chrono::duration<double, std::micro>(Steady::now() - due->at).count());
        if (lateUs.size() == kLateShots) allFired.set_value();
      }
    });
    ActorRef shooter = system->spawn("shooter", [&](ReceiveContext& ctx) {
      if (!ctx.is<Shoot>()) return;
      std::mt19937_64 random(11);
      std::uniform_int_distribution<int> delayUs(1000, 40000);
      for (int i = 0; i < kLateShots; ++i) {
        const auto delay = std::chrono::microseconds(delayUs(random));
        ctx.scheduleOnce(Due{Steady::now() + delay}, recorder, delay);
      }
    });
    auto volleyHandler = [&](ReceiveContext& ctx) {
      ++units;
      if (!stopVolley.load(std::memory_order_relaxed)) ctx.reply(Ball{});
    };
    ActorRef a = system->spawn("a", volleyHandler);
    ActorRef b = system->spawn("b", volleyHandler);
    const Steady::time_point start = Steady::now();
    if (volley) a.tell(Ball{}, b);
    shooter.tell(Shoot{});
    const bool done = allFired.get_future().wait_for(30s) == std::future_status::ready;
    const double seconds = std::chrono::duration<double>(Steady::now() - start).count();
    stopVolley = true;
    system->shutdown();
    if (!checkCompleted(state, "one-shots fired", kLateShots,
                        done ? static_cast<std::int64_t>(lateUs.size()) : 0)) {
      return;
    }
    if (volley && units == 0) {
      state.SkipWithError("the volley never ran");
      return;
    }
    // Units between due and fire: the lateness times the volley's own rate
    // in this run (at idle there are none to count).
    const double unitsPerUs = static_cast<double>(units) / (seconds * 1e6);
    state.counters[kLateUsCounter] = percentileOf(lateUs, 0.5);
    state.counters[kLateUsP99Counter] = percentileOf(lateUs, 0.99);
    state.counters[kLateUnitsP50Counter] = percentileOf(lateUs, 0.5) * unitsPerUs;
    state.counters[kLateUnitsP99Counter] = percentileOf(lateUs, 0.99) * unitsPerUs;
    state.SetIterationTime(seconds);
  }
}

void latenessIdle(benchmark::State& state) {
  lateness(state, false);
}
void latenessVolley(benchmark::State& state) {
  lateness(state, true);
}

}  // namespace

void registerLatenessRows() {
  registerTimed(
      benchmark::RegisterBenchmark("schedule/lateness/idle", &latenessIdle)->Iterations(1));
  registerTimed(
      benchmark::RegisterBenchmark("schedule/lateness/volley", &latenessVolley)->Iterations(1));
}

}  // namespace coreactor::bench::schedule
