// bench/ActorBench.hpp — what bench/main.cpp needs from the actor benchmarks.
//
// The timings report kNsPerOpCounter, the memory measurement
// kBytesPerOpCounter (bench/BenchSupport.hpp); actor/memory also reports
// the side counters below, which the table prints beside it.
#pragma once

namespace coreactor::bench {

/// actor/memory: resident bytes of the empty system itself (after create, less before).
inline constexpr const char* kSystemBytesCounter = "system_bytes";
/// actor/memory: the part of kSystemBytesCounter that malloc handed out (the
/// rest is code and libraries paged in by first use).
inline constexpr const char* kSystemHeapBytesCounter = "system_heap_bytes";
/// actor/memory: malloc's bytes in use per idle actor (a cross-check of the RSS figure).
inline constexpr const char* kHeapBytesPerOpCounter = "heap_bytes_per_op";

/// The hidden command-line flag that makes coreactor-bench the child process
/// of actor/memory (a fresh heap for each measurement): it must come alone.
inline constexpr const char* kMemoryProbeFlag = "--actor-memory-probe";

/// Registers actor/tell/*, actor/pingpong/*, actor/ask/*, actor/spawn/* and
/// actor/memory with Google Benchmark. Call once, before
/// benchmark::RunSpecifiedBenchmarks.
void registerActorBenchmarks();

/// The child side of actor/memory: spawns the idle actors, prints one line of
/// measurements on stdout, returns the exit status (0, or 1 with the reason on
/// stderr).
int runActorMemoryProbe();

}  // namespace coreactor::bench
