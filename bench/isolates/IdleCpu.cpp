// bench/isolates/IdleCpu.cpp — isolates/idle-cpu: what a system costs when
// it has nothing to do.
//
//   isolates/idle-cpu      not a cost per op: the process's CPU time while a
//                          system of one isolate per CPU (at least two) sits
//                          idle, after a cross-isolate exchange, over 1 s of
//                          wall time (0.1 s with --quick), in % of one core.
#include <sys/resource.h>

#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <thread>

#include "coreactor/ActorSystem.hpp"
#include "isolates/Families.hpp"
#include "isolates/IsolatesBench.hpp"
#include "isolates/Pinning.hpp"
#include "isolates/Rally.hpp"

namespace coreactor::bench::isolates {
namespace {

/// The exchange that makes the rings before the system goes idle, the
/// settling time, and the window.
constexpr std::int64_t kWarmRoundTrips = 100;
constexpr auto kSettle = 100ms;
constexpr auto kWindow = 1s;
constexpr auto kQuickSettle = 50ms;
constexpr auto kQuickWindow = 100ms;

/// User and system CPU time of the whole process so far, in seconds.
double processCpuSeconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto seconds = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) + static_cast<double>(t.tv_usec) * 1e-6;
  };
  return seconds(usage.ru_utime) + seconds(usage.ru_stime);
}

void idleCpu(benchmark::State& state, bool quick) {
  const std::size_t isolates = std::max<std::size_t>(2, allowedCpus().size());
  for (auto _ : state) {
    Rally rally;  // outlives the system
    std::unique_ptr<ActorSystem> system;
    ActorRef requester;
    ActorRef responder;
    if (!setUp(state, [&] {
          system = threadedSystem(isolates);
          requester =
              system->spawn<Requester>("requester", ActorOptions::create().withIsolate(0), &rally);
          responder = system->spawn<Responder>(
              "responder", ActorOptions::create().withIsolate(isolates - 1), &rally);
        })) {
      break;
    }
    // Used once across isolates (the rings exist), then left alone.
    const Timed warm = rallyRound(rally, requester, responder, kWarmRoundTrips);
    if (!checkCompleted(state, "round trips before going idle", kWarmRoundTrips, warm.ran)) break;
    std::this_thread::sleep_for(quick ? kQuickSettle : kSettle);
    const double cpuBefore = processCpuSeconds();
    const Steady::time_point wallBefore = Steady::now();
    std::this_thread::sleep_for(quick ? kQuickWindow : kWindow);
    const double cpu = processCpuSeconds() - cpuBefore;
    const double wall = std::chrono::duration<double>(Steady::now() - wallBefore).count();
    state.counters[kCpuPercentCounter] = cpu / wall * 100;
    state.SetIterationTime(wall);
  }
}

}  // namespace

void registerIdleCpuRows(bool quick) {
  // One window per repetition.
  registerTimed(benchmark::RegisterBenchmark("isolates/idle-cpu", &idleCpu, quick)->Iterations(1));
}

}  // namespace coreactor::bench::isolates
