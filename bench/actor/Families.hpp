// bench/actor/Families.hpp — the families of actor/*, one file each,
// registered in this order by bench/actor/ActorBench.cpp, and the system
// every one of them runs on.
#pragma once

#include <memory>

#include "coreactor/ActorSystem.hpp"

namespace coreactor::bench::actor {

/// A system in manual mode (ActorSystemOptions::withManualRun): the
/// benchmark's thread is the loop thread, tells from it take the local path,
/// and runUntilIdle() runs the loop there, so no cross-thread wake-up is in
/// any figure. The default dispatcher and throughput.
inline std::unique_ptr<ActorSystem> manualSystem() {
  return ActorSystem::create("bench", ActorSystemOptions::create().withManualRun());
}

/// actor/tell/<N> (Tell.cpp).
void registerTellRows();
/// actor/pingpong/<N> (PingPong.cpp).
void registerPingPongRows();
/// actor/ask/* (Ask.cpp).
void registerAskRows();
/// actor/spawn/<N> (Spawn.cpp).
void registerSpawnRows();
/// actor/memory (Memory.cpp).
void registerMemoryRows();
/// router/<logic> (Router.cpp).
void registerRouterRows();

}  // namespace coreactor::bench::actor
