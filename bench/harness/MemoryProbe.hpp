// bench/harness/MemoryProbe.hpp — actor/memory's method, shared by both arms: resident
// bytes per idle actor, each measurement taken in a fresh child process.
//
// Resident memory is a process-wide figure, and a heap that earlier benchmarks
// grew and freed would serve the actors from pages already counted, making
// them look free. So each measurement runs in a fresh child process (the arm's
// own executable again, with its probe flag alone), which reports three points:
//   bare    before the actor system exists,
//   system  after the system was created (and, for coreactor, a first
//           runUntilIdle: the guardian),
//   idle    after 100,000 actors were spawned, started and each given one
//           message, all of it handled.
// bytes per idle actor = (idle - system) / actors, RSS from /proc/self/statm;
// the system's fixed cost (system - bare) is reported apart. malloc's own count
// of bytes in use (mallinfo2) is reported beside it as a cross-check: RSS
// counts whole pages, malloc counts what it handed out.
#pragma once

#include <benchmark/benchmark.h>

#include <cstdint>
#include <cstdio>
#include <exception>
#include <string>

// Header-only here: the CAF arm includes it without linking coreactor.
#include "coreactor/Error.hpp"

namespace coreactor::bench {

/// actor/memory: resident bytes of the empty system itself (after create, less before).
inline constexpr const char* kSystemBytesCounter = "system_bytes";
/// actor/memory: the part of kSystemBytesCounter that malloc handed out (the
/// rest is code and libraries paged in by first use, and thread stacks).
inline constexpr const char* kSystemHeapBytesCounter = "system_heap_bytes";
/// actor/memory: malloc's bytes in use per idle actor (a cross-check of the RSS figure).
inline constexpr const char* kHeapBytesPerOpCounter = "heap_bytes_per_op";

struct MemoryPoint {
  long long rss = 0;   // resident bytes
  long long heap = 0;  // bytes malloc has handed out (arenas + mmapped chunks)
};

/// This process's resident bytes (/proc/self/statm), or -1 if they cannot be read.
std::int64_t residentBytes();
/// The bytes malloc has handed out and not had back, over all its arenas and
/// the blocks it mapped on its own.
std::int64_t heapInUse();

/// This process's resident bytes (0 if they cannot be read) and malloc's
/// bytes in use, now.
MemoryPoint memoryNow();

/// What the child reports.
struct MemoryReading {
  MemoryPoint bare;
  MemoryPoint system;
  MemoryPoint idle;
  long long actors = 0;  ///< idle actors that were started and handled their message
};

/// The child's side: prints `reading` on stdout as the one line the parent parses.
void printMemoryReading(const MemoryReading& reading);

/// The child's checks, the same in both arms: true when all `actors` idle
/// actors started and handled their one message; false with the counts on
/// stderr otherwise.
bool idleActorsReady(const char* probeFlag, std::int64_t actors, std::int64_t started,
                     std::int64_t received);
/// The same once they were stopped: the actors that count must also be
/// whole, so every one of them stops cleanly.
bool idleActorsStopped(const char* probeFlag, std::int64_t actors, std::int64_t stopped);

/// Runs the child's side, `probe` returning its exit status; a throw is
/// exit status 1, with what was thrown on stderr.
template <class Probe>
int runMemoryProbeChild(const char* probeFlag, Probe&& probe) {
  try {
    return probe();
  } catch (...) {
    std::fprintf(stderr, "%s: threw: %s\n", probeFlag, describe(std::current_exception()).c_str());
    return 1;
  }
}

/// The benchmark's side, one child per iteration: runs this program again
/// with `probeFlag` alone, checks that it reported `actors` idle actors, and
/// sets kBytesPerOpCounter and the counters above from the last reading.
void measureMemoryInChild(benchmark::State& state, const char* probeFlag, std::int64_t actors);

/// Registers actor/memory, the same row in both arms: one child process
/// (this program again, with `probeFlag` alone) per repetition, a single
/// iteration each, over workloads::kIdleActors idle actors.
void registerMemoryRow(const char* probeFlag);

}  // namespace coreactor::bench
