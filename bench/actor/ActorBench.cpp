// bench/actor/ActorBench.cpp — what the actor runtime costs on top of the
// loop: a tell, a ping-pong exchange, an ask, a spawn, an idle actor's
// memory, and a tell through a router.
//
// The families, a file each, in the order they run (each file says what one
// "op" is in each of its rows):
//   actor/tell/1000, actor/tell/10000            Tell.cpp
//   actor/pingpong/10000                         PingPong.cpp
//   actor/ask/from-actor, one-at-a-time,         Ask.cpp
//   from-driver
//   actor/spawn/100, 10000, 100000               Spawn.cpp
//   actor/memory                                 Memory.cpp
//   router/direct, router/<logic>                Router.cpp
// The sizes are bench/harness/Workloads.hpp's, shared with the CAF arm
// (bench/caf/), which runs every row above but actor/ask/from-driver,
// router/consistent-hash and router/smallest-mailbox (CAF's actor_pool has
// neither logic) under the same names, in files of the same names, so that
// coreactor-bench can set them side by side.
//
// Every system runs in manual mode (manualSystem, bench/actor/Families.hpp):
// the benchmark's thread is the loop thread, tells from it take the local
// path, and runUntilIdle() runs the loop there, so no cross-thread wake-up
// is in any figure. The default dispatcher (HybridDispatcher(64)) and the
// default throughput (16 messages per turn) are used throughout.
//
// Completion: the actors count what they actually handled (started, received,
// stopped) in a tally the benchmark owns; after every iteration the counts
// are checked against what was asked (bench/harness/BenchSupport.hpp), and a
// mismatch fails the benchmark instead of producing a figure. The system and
// the long-lived actors are built outside the timed region; where spawning
// is the point, the spawns are timed and the clean-up is not. Each timed row
// but actor/ask/from-driver, the populations and the router rows pairs
// every round with a round of the ring floor right after it (FloorPairing,
// bench/harness/RingFloor.hpp); a routed row pairs its rounds with
// router/direct's instead (DirectPairing, bench/harness/RouterTallies.hpp).
#include "actor/ActorBench.hpp"

#include "actor/Families.hpp"

namespace coreactor::bench {

void registerActorBenchmarks() {
  actor::registerTellRows();
  actor::registerPingPongRows();
  actor::registerAskRows();
  actor::registerSpawnRows();
  actor::registerMemoryRows();
  actor::registerRouterRows();
}

}  // namespace coreactor::bench
