// bench/dispatch/Hop.cpp — hop/<dispatcher>: one turn of a Task that
// re-executes itself through `Dispatcher&` (a virtual call, as an actor cell
// makes): scheduling alone, with no message work at all.
#include <benchmark/benchmark.h>

#include <cstdint>
#include <string>

#include "coreactor/Task.hpp"
#include "dispatch/Families.hpp"
#include "dispatch/Loop.hpp"
#include "harness/BenchSupport.hpp"

namespace coreactor::bench::dispatch {
namespace {

/// An actor cell's turn reduced to its scheduling: a Task that hands itself
/// back to its dispatcher, through the virtual `Dispatcher&`, until it has
/// run `target` times.
struct HopTask final : Task {
  HopTask(Dispatcher& dispatcher, std::int64_t target)
      : Task(&step), dispatcher(&dispatcher), target(target) {}

  static void step(Task& task) {
    HopTask& self = static_cast<HopTask&>(task);
    if (++self.ran < self.target) self.dispatcher->execute(static_cast<Task&>(self));
  }

  Dispatcher* dispatcher;
  std::int64_t target;
  std::int64_t ran = 0;
};

void hop(benchmark::State& state, DispatcherFactory make) {
  Loop loop(make, "bench-hop");
  HopTask task(*loop.dispatcher, kHops);
  OpMeter meter;
  for (auto _ : state) {
    task.ran = 0;
    // The first run is the post; the other kHops - 1 are dispatcher hops.
    const bool ok = meter.measure(state, "task runs", kHops, [&] {
      loop.isolate.post(task, loop.dispatcher.get());
      loop.isolate.runUntilIdle();
      return task.ran;
    });
    if (!ok) break;
  }
  meter.report(state);
}

}  // namespace

void registerHopRows() {
  for (const DispatcherKind& kind : kDispatchers) {
    registerTimed(
        benchmark::RegisterBenchmark(("hop/" + std::string(kind.name)).c_str(), &hop, kind.make));
  }
}

}  // namespace coreactor::bench::dispatch
