// bench/actor/ActorBench.hpp — what bench/harness/main.cpp needs from the actor benchmarks.
//
// The timings report kNsPerOpCounter, the memory measurement
// kBytesPerOpCounter (bench/harness/BenchSupport.hpp); actor/memory also reports
// the side counters of bench/harness/MemoryProbe.hpp, which the table prints beside it.
#pragma once

namespace coreactor::bench {

/// The hidden command-line flag that makes coreactor-bench the child process
/// of actor/memory (a fresh heap for each measurement): it must come alone.
inline constexpr const char* kMemoryProbeFlag = "--actor-memory-probe";

/// Registers actor/tell/*, actor/pingpong/*, actor/ask/*, actor/spawn/*,
/// actor/memory and router/* with Google Benchmark. Call once, before
/// benchmark::RunSpecifiedBenchmarks.
void registerActorBenchmarks();

/// The child side of actor/memory: spawns the idle actors, prints one line of
/// measurements on stdout, returns the exit status (0, or 1 with the reason on
/// stderr).
int runActorMemoryProbe();

}  // namespace coreactor::bench
