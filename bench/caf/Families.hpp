// bench/caf/Families.hpp — the CAF arm's families, one file each, named as
// our arm's are and registered in this order by bench/caf/CafBench.cpp.
#pragma once

namespace coreactor::bench::cafarm {

/// The hidden flag that makes this program actor/memory's child (alone).
inline constexpr const char* kMemoryProbeFlag = "--caf-memory-probe";

/// actor/tell/<N> (Tell.cpp).
void registerTellRows();
/// actor/pingpong/<N> (PingPong.cpp).
void registerPingPongRows();
/// actor/ask/*, isolates/ask/* (Ask.cpp).
void registerAskRows();
/// actor/spawn/<N> (Spawn.cpp).
void registerSpawnRows();
/// actor/memory (Memory.cpp).
void registerMemoryRows();
/// actor/memory's child: the CAF side of bench/harness/MemoryProbe.hpp.
int runMemoryProbe();
/// parallel/pairs/<n> (Pairs.cpp).
void registerPairsRows();
/// parallel/forkjoin/<n> (ForkJoin.cpp).
void registerForkJoinRows();
/// parallel/ring-one/<n>, parallel/ring-many/<n> (Ring.cpp).
void registerRingRows();
/// parallel/all-to-all/<n> (AllToAll.cpp).
void registerAllToAllRows();
/// parallel/pipeline/<n> (Pipeline.cpp).
void registerPipelineRows();
/// router/direct, router/<logic> (Router.cpp).
void registerRouterRows();
/// pool/cpu/<n> (Pool.cpp).
void registerPoolRows();

}  // namespace coreactor::bench::cafarm
