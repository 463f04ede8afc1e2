// bench/actor/Tell.cpp — actor/tell/<N>: one message of a batch of N tells
// of a small struct, from the driving thread into one actor, handled. The
// CAF arm's row: bench/caf/Tell.cpp.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "actor/CountingActor.hpp"
#include "actor/Families.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/RingFloor.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::actor {
namespace {

void tellBatch(benchmark::State& state, std::int64_t batch) {
  auto system = manualSystem();
  Tally tally;
  const ActorRef sink = system->spawn<CountingActor>("sink", ActorOptions::create(), &tally);
  system->runUntilIdle();
  if (!checkCompleted(state, "actor started", 1, tally.started)) return;
  OpMeter meter;
  FloorPairing floor;
  for (auto _ : state) {
    const bool ok = floor.run(batch, [&] {
      return meter.measure(state, "messages", batch, [&] {
        tally.received = 0;
        for (std::int64_t i = 0; i < batch; ++i) sink.tell(Count{static_cast<int>(i)});
        system->runUntilIdle();
        return tally.received;
      });
    });
    if (!ok) break;
  }
  meter.report(state);
  floor.report(state);
}

}  // namespace

void registerTellRows() {
  for (const std::int64_t batch : workloads::kTellBatches) {
    registerTimed(
        benchmark::RegisterBenchmark(workloads::tellRow(batch).c_str(), &tellBatch, batch));
  }
}

}  // namespace coreactor::bench::actor
