// bench/actor/Spawn.cpp — actor/spawn/<N>: what an actor's life costs. The
// CAF arm's rows: bench/caf/Spawn.cpp.
//
//   actor/spawn/100        one actor's whole life: spawned, started (preStart),
//                          stopped (system->stop, postStop); 100 per iteration.
//   actor/spawn/<N>        one actor spawned and started, N at once (N = 10k,
//                          100k: their ratio is the O(1)-per-spawn claim);
//                          stopping them is off the clock, but checked.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <vector>

#include "actor/CountingActor.hpp"
#include "actor/Families.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/RingFloor.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::actor {
namespace {

/// Stops every actor of `refs` and runs the loop until they have all stopped.
/// Returns how many postStop hooks ran.
std::int64_t stopAll(ActorSystem& system, const std::vector<ActorRef>& refs, Tally& tally) {
  tally.stopped = 0;
  for (const ActorRef& ref : refs) system.stop(ref);
  system.runUntilIdle();
  return tally.stopped;
}

/// actor/spawn/100: spawn, start and stop, all on the clock.
void spawnLifecycle(benchmark::State& state, std::int64_t actors) {
  auto system = manualSystem();
  system->runUntilIdle();
  Tally tally;
  std::vector<ActorRef> refs;
  refs.reserve(static_cast<std::size_t>(actors));
  OpMeter meter;
  FloorPairing floor;
  for (auto _ : state) {
    const bool ok = floor.run(actors, [&] {
      return meter.measure(state, "actors through start and stop", actors, [&] {
        refs.clear();
        tally = Tally{};
        for (std::int64_t i = 0; i < actors; ++i) {
          refs.push_back(system->spawn<CountingActor>("", ActorOptions::create(), &tally));
        }
        system->runUntilIdle();
        // Not all started: report that count, and the check fails on it.
        if (tally.started != actors) return tally.started;
        return stopAll(*system, refs, tally);
      });
    });
    if (!ok) break;
  }
  meter.report(state);
  floor.report(state);
}

/// actor/spawn/<N>: spawn and start on the clock; the stop is checked off it.
void spawnPopulation(benchmark::State& state, std::int64_t actors) {
  auto system = manualSystem();
  system->runUntilIdle();
  Tally tally;
  std::vector<ActorRef> refs;
  refs.reserve(static_cast<std::size_t>(actors));
  OpMeter meter;
  for (auto _ : state) {
    refs.clear();
    tally = Tally{};
    const bool ok = meter.measure(state, "actors started", actors, [&] {
      for (std::int64_t i = 0; i < actors; ++i) {
        refs.push_back(system->spawn<CountingActor>("", ActorOptions::create(), &tally));
      }
      system->runUntilIdle();
      return tally.started;
    });
    if (!ok || !OpMeter::unmeasured(state, "actors stopped", actors,
                                    [&] { return stopAll(*system, refs, tally); })) {
      break;
    }
  }
  meter.report(state);
}

}  // namespace

void registerSpawnRows() {
  registerTimed(
      benchmark::RegisterBenchmark(workloads::spawnRow(workloads::kLifecycleActors).c_str(),
                                   &spawnLifecycle, workloads::kLifecycleActors));
  for (const std::int64_t actors : workloads::kPopulations) {
    registerTimed(benchmark::RegisterBenchmark(workloads::spawnRow(actors).c_str(),
                                               &spawnPopulation, actors));
  }
}

}  // namespace coreactor::bench::actor
