// bench/caf/Memory.cpp — actor/memory on CAF: resident bytes per idle actor,
// each measurement in a fresh child process (bench/harness/MemoryProbe.hpp;
// ours: bench/actor/Memory.cpp).
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdio>
#include <cstdlib>
#include <future>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "caf/Spawner.hpp"
#include "harness/MemoryProbe.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {

// The parent's side, one child process per repetition; the child is
// runMemoryProbe below.
void registerMemoryRows() {
  registerMemoryRow(kMemoryProbeFlag);
}

int runMemoryProbe() {
  using workloads::kIdleActors;
  return runMemoryProbeChild(kMemoryProbeFlag, [] {
    Tally tally;
    tally.shape = Shape::kIdle;
    tally.target = kIdleActors;
    // Made before the first point, and written to, so that its pages are in
    // the baseline rather than in the actors' figure.
    tally.refs.resize(static_cast<std::size_t>(kIdleActors));
    tally.refs.clear();
    MemoryReading reading;
    reading.bare = memoryNow();
    Arm arm(workloads::kMemoryRow);
    const caf::actor driver = arm.spawn(spawner, &tally);
    reading.system = memoryNow();
    Round idle;
    std::future<void> handled = idle.done.get_future();
    caf::anon_send(driver, Go{&idle});
    if (handled.wait_for(kRoundTimeout) != std::future_status::ready) {
      std::fprintf(stderr, "%s: the idle actors did not all handle their message\n",
                   kMemoryProbeFlag);
      std::_Exit(1);
    }
    reading.idle = memoryNow();
    if (!idleActorsReady(kMemoryProbeFlag, kIdleActors, tally.started, tally.received)) return 1;
    Round stopped;
    std::future<void> allStopped = stopped.done.get_future();
    caf::anon_send(driver, StopAll{&stopped});
    // A system with an actor that did not stop could not shut down: end here.
    if (allStopped.wait_for(kRoundTimeout) != std::future_status::ready) {
      std::fprintf(stderr, "%s: the idle actors did not all stop within %lld s\n", kMemoryProbeFlag,
                   static_cast<long long>(kRoundTimeout.count()));
      std::_Exit(1);
    }
    if (!idleActorsStopped(kMemoryProbeFlag, kIdleActors, tally.stopped)) std::_Exit(1);
    reading.actors = tally.received;
    printMemoryReading(reading);
    return 0;
  });
}

}  // namespace coreactor::bench::cafarm
