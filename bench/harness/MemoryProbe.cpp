// bench/harness/MemoryProbe.cpp — see the header.
#include "harness/MemoryProbe.hpp"

#include <malloc.h>
#include <unistd.h>

#include <cstdio>

#include "harness/BenchSupport.hpp"
#include "harness/ChildProcess.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench {
namespace {

/// Runs the child, waits for it and parses its line. False, with `error` set,
/// if it could not run or failed its own completion checks.
bool probeMemory(const char* probeFlag, MemoryReading& reading, std::string& error) {
  const ChildResult child = runChild({"/proc/self/exe", probeFlag});
  if (!child.started) {
    error = "the memory probe: " + child.error;
    return false;
  }
  if (child.exitCode != 0) {
    error = "the memory probe (" + std::string(probeFlag) + ") failed; its stderr above says why";
    return false;
  }
  if (std::sscanf(child.out.c_str(), "memory-probe %lld %lld %lld %lld %lld %lld %lld",
                  &reading.actors, &reading.bare.rss, &reading.bare.heap, &reading.system.rss,
                  &reading.system.heap, &reading.idle.rss, &reading.idle.heap) != 7) {
    error = "the memory probe printed no reading: '" + child.out + "'";
    return false;
  }
  return true;
}

}  // namespace

std::int64_t residentBytes() {
  std::int64_t bytes = -1;
  if (std::FILE* statm = std::fopen("/proc/self/statm", "r")) {
    long long size = 0;
    long long resident = 0;
    if (std::fscanf(statm, "%lld %lld", &size, &resident) == 2) {
      bytes = static_cast<std::int64_t>(resident) * sysconf(_SC_PAGESIZE);
    }
    std::fclose(statm);
  }
  return bytes;
}

std::int64_t heapInUse() {
  const struct mallinfo2 info = mallinfo2();
  return static_cast<std::int64_t>(info.uordblks + info.hblkhd);
}

MemoryPoint memoryNow() {
  MemoryPoint point;
  const std::int64_t rss = residentBytes();
  point.rss = rss < 0 ? 0 : static_cast<long long>(rss);
  point.heap = static_cast<long long>(heapInUse());
  return point;
}

void printMemoryReading(const MemoryReading& reading) {
  std::printf("memory-probe %lld %lld %lld %lld %lld %lld %lld\n", reading.actors, reading.bare.rss,
              reading.bare.heap, reading.system.rss, reading.system.heap, reading.idle.rss,
              reading.idle.heap);
}

bool idleActorsReady(const char* probeFlag, std::int64_t actors, std::int64_t started,
                     std::int64_t received) {
  if (started == actors && received == actors) return true;
  std::fprintf(stderr, "%s: %lld of %lld actors started, %lld messages of %lld handled\n",
               probeFlag, static_cast<long long>(started), static_cast<long long>(actors),
               static_cast<long long>(received), static_cast<long long>(actors));
  return false;
}

bool idleActorsStopped(const char* probeFlag, std::int64_t actors, std::int64_t stopped) {
  if (stopped == actors) return true;
  std::fprintf(stderr, "%s: %lld of %lld actors stopped\n", probeFlag,
               static_cast<long long>(stopped), static_cast<long long>(actors));
  return false;
}

void measureMemoryInChild(benchmark::State& state, const char* probeFlag, std::int64_t actors) {
  MemoryReading reading;
  for (auto _ : state) {
    std::string error;
    if (!probeMemory(probeFlag, reading, error)) {
      state.SkipWithError(error.c_str());
      return;
    }
    if (!checkCompleted(state, "idle actors", actors, reading.actors)) return;
  }
  const auto perActor = [&](long long MemoryPoint::*field) {
    return static_cast<double>(reading.idle.*field - reading.system.*field) /
           static_cast<double>(reading.actors);
  };
  state.counters[kBytesPerOpCounter] = perActor(&MemoryPoint::rss);
  state.counters[kHeapBytesPerOpCounter] = perActor(&MemoryPoint::heap);
  state.counters[kSystemBytesCounter] = static_cast<double>(reading.system.rss - reading.bare.rss);
  state.counters[kSystemHeapBytesCounter] =
      static_cast<double>(reading.system.heap - reading.bare.heap);
}

void registerMemoryRow(const char* probeFlag) {
  benchmark::RegisterBenchmark(workloads::kMemoryRow, [probeFlag](benchmark::State& state) {
    measureMemoryInChild(state, probeFlag, workloads::kIdleActors);
  })->Iterations(1);
}

}  // namespace coreactor::bench
