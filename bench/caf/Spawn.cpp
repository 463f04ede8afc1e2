// bench/caf/Spawn.cpp — actor/spawn/<N> on CAF: an actor's whole life
// (actor/spawn/100), and N spawned and started at once (ours:
// bench/actor/Spawn.cpp).
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "caf/Spawner.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

/// actor/spawn/100: spawn, start and stop, all on the clock.
void spawnLifecycle(benchmark::State& state, std::int64_t actors) {
  Tally tally;  // first: it outlives the actors that count into it
  Arm arm(workloads::spawnRow(actors));
  tally.shape = Shape::kLifecycle;
  tally.target = actors;
  tally.refs.reserve(static_cast<std::size_t>(actors));
  const caf::actor driver = arm.spawn(spawner, &tally);
  tally.spawner = driver;
  OpMeter meter;
  for (auto _ : state) {
    Round round;
    const bool ok = meter.measureTimed(state, "actors through start and stop", actors,
                                       [&] { return arm.runRound(driver, round, Go{&round}); });
    if (!ok || !checkCompleted(state, "actors started", actors, tally.started)) break;
  }
  meter.report(state);
}

/// actor/spawn/<N>: spawn and start on the clock; the stop is checked off it.
void spawnPopulation(benchmark::State& state, std::int64_t actors) {
  Tally tally;  // first: it outlives the actors that count into it
  Arm arm(workloads::spawnRow(actors));
  tally.shape = Shape::kPopulation;
  tally.target = actors;
  tally.refs.reserve(static_cast<std::size_t>(actors));
  const caf::actor driver = arm.spawn(spawner, &tally);
  OpMeter meter;
  for (auto _ : state) {
    Round started;
    if (!meter.measureTimed(state, "actors started", actors,
                            [&] { return arm.runRound(driver, started, Go{&started}); })) {
      break;
    }
    Round stopped;
    if (!OpMeter::unmeasured(state, "actors stopped", actors, [&] {
          return arm.runRound(driver, stopped, StopAll{&stopped}).ran;
        })) {
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

}  // namespace coreactor::bench::cafarm
