// bench/actor/Memory.cpp — actor/memory: resident bytes (RSS) per idle
// actor: 100,000 actors, each started and given one message, measured in a
// child process, a fresh heap each time (bench/harness/MemoryProbe.hpp says
// why and how). The CAF arm's row: bench/caf/Memory.cpp.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <vector>

#include "actor/ActorBench.hpp"
#include "actor/CountingActor.hpp"
#include "actor/Families.hpp"
#include "harness/MemoryProbe.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench {
namespace actor {

// The parent's side, one child process per repetition; the child is
// runActorMemoryProbe below.
void registerMemoryRows() {
  registerMemoryRow(kMemoryProbeFlag);
}

}  // namespace actor

int runActorMemoryProbe() {
  using actor::Count;
  using actor::CountingActor;
  using actor::Tally;
  using workloads::kIdleActors;
  return runMemoryProbeChild(kMemoryProbeFlag, [] {
    // Made before the first point, and written to, so that its pages are in
    // the baseline rather than in the actors' figure.
    std::vector<ActorRef> refs(static_cast<std::size_t>(kIdleActors));
    Tally tally;
    const MemoryPoint bare = memoryNow();
    auto system = actor::manualSystem();
    system->runUntilIdle();
    const MemoryPoint empty = memoryNow();
    for (ActorRef& ref : refs) {
      ref = system->spawn<CountingActor>("", ActorOptions::create(), &tally);
    }
    system->runUntilIdle();
    for (const ActorRef& ref : refs) ref.tell(Count{1});
    system->runUntilIdle();
    const MemoryPoint idle = memoryNow();
    if (!idleActorsReady(kMemoryProbeFlag, kIdleActors, tally.started, tally.received)) return 1;
    system->shutdown();
    if (!idleActorsStopped(kMemoryProbeFlag, kIdleActors, tally.stopped)) return 1;
    printMemoryReading(MemoryReading{bare, empty, idle, static_cast<long long>(tally.received)});
    return 0;
  });
}

}  // namespace coreactor::bench
