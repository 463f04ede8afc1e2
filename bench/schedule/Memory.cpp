// bench/schedule/Memory.cpp — schedule/memory*: what a live schedule costs
// in memory, and what the scheduler keeps once they are all cancelled.
//
//   schedule/memory                resident bytes per live schedule (1M
//                                  unnamed, an 8-byte message each); beside
//                                  it, the process's RSS before, with them
//                                  live, and after cancelling them all
//   schedule/memory/named          the same with a reference per schedule
//                                  (the entries and the name table)
#include <benchmark/benchmark.h>

#include <chrono>
#include <cstdint>
#include <cstdio>
#include <memory>
#include <string>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/MemoryProbe.hpp"
#include "isolate/CacheTrim.hpp"
#include "schedule/Families.hpp"
#include "schedule/ScheduleBench.hpp"

namespace coreactor::bench::schedule {
namespace {

using namespace std::chrono_literals;

// schedule/memory*, beside the figure (extras of the JSON file): the
// process's RSS in bytes before the schedules were made, with them live and
// after they were all cancelled; and what it kept, in bytes per schedule.
constexpr const char* kRssBeforeCounter = "rss_before";
constexpr const char* kRssPeakCounter = "rss_peak";
constexpr const char* kRssAfterCounter = "rss_after";
constexpr const char* kKeptBytesPerScheduleCounter = "kept_bytes_per_schedule";
constexpr const char* kHeapBytesPerScheduleCounter = "heap_bytes_per_schedule";  // malloc's

// RSS, because that is what a user sees and what the scheduler's memory
// policy is about: its entry chunks and its name table come straight from
// the OS and go back to it (runtime/schedule/ScheduleEntries.hpp), which malloc's own
// counters do not show (malloc's growth goes beside the figure, a
// cross-check that it holds next to nothing). 1M schedules made, then all
// cancelled: the figure is what each costs while live; the RSS before, at
// the peak and after the cancels goes beside it, and the first repetition's
// to stderr as it is measured.
//
// In-process RSS is only the schedules' own when their memory is fresh from
// the OS: pages that malloc freed earlier and kept would serve them
// unseen. Entries and names come from mapPages, so it is; a scheduler
// that took them from malloc again would need actor/memory's fresh child
// process instead (bench/harness/MemoryProbe.hpp).
void memory(benchmark::State& state, bool named, bool& shown) {
  const char* row = named ? "schedule/memory/named" : "schedule/memory";
  for (auto _ : state) {
    ManualClock clock;
    auto system = ActorSystem::create(
        "memory-bench",
        ActorSystemOptions::create().withManualRun().withClock(&clock).withLogLevel(LogLevel::Off));
    ActorRef sink = system->spawn("sink", [](ReceiveContext&) {});
    system->runUntilIdle();
    std::vector<ScheduleHandle> handles(named ? 0 : kLive);  // touched before the first reading
    const auto nameOf = [](std::int64_t i) { return "r" + std::to_string(i); };  // inline: no block
    const std::int64_t before = residentBytes();
    const std::int64_t heapBefore = heapInUse();
    for (std::int64_t i = 0; i < kLive; ++i) {
      if (named) {
        system->scheduleOnce(Tick{i}, sink, 1h, ScheduleOptions::create().withReference(nameOf(i)));
      } else {
        handles[i] = system->scheduleOnce(Tick{i}, sink, 1h).handle();
      }
    }
    const std::int64_t live = static_cast<std::int64_t>(system->scheduleCount());
    const std::int64_t peak = residentBytes();
    const std::int64_t heapPeak = heapInUse();
    std::int64_t cancelled = 0;
    for (std::int64_t i = 0; i < kLive; ++i) {
      const bool ok =
          named ? system->cancelSchedule(nameOf(i)).ok() : system->cancelSchedule(handles[i]).ok();
      cancelled += ok ? 1 : 0;
    }
    // Empty chunks go back at the second trim after the cancels (two trim
    // periods of the scheduler's clock: runtime/schedule/ScheduleEntries.hpp, TrimTask).
    for (int trim = 0; trim < 2; ++trim) {
      clock.advance(detail::kTrimPeriod);
      system->runUntilIdle();
    }
    const std::int64_t after = residentBytes();
    if (!checkCompleted(state, "live schedules", kLive, live) ||
        !checkCompleted(state, "cancelled schedules", kLive,
                        system->scheduleCount() == 0 ? cancelled : cancelled - 1)) {
      return;
    }
    if (before < 0) {
      state.SkipWithError("no /proc/self/statm: RSS cannot be read");
      return;
    }
    const double mib = 1024.0 * 1024.0;
    state.counters[kBytesPerScheduleCounter] =
        static_cast<double>(peak - before) / static_cast<double>(kLive);
    state.counters[kRssBeforeCounter] = static_cast<double>(before);
    state.counters[kRssPeakCounter] = static_cast<double>(peak);
    state.counters[kRssAfterCounter] = static_cast<double>(after);
    state.counters[kKeptBytesPerScheduleCounter] =
        static_cast<double>(after - before) / static_cast<double>(kLive);
    state.counters[kHeapBytesPerScheduleCounter] =
        static_cast<double>(heapPeak - heapBefore) / static_cast<double>(kLive);
    if (shown) continue;
    shown = true;
    std::fprintf(stderr,
                 "     %s: RSS %.1f MiB before, %.1f MiB with 1M live, %.1f MiB after "
                 "cancelling them: keeps %.2f MiB (%.1f%% of what they took)\n",
                 row, static_cast<double>(before) / mib, static_cast<double>(peak) / mib,
                 static_cast<double>(after) / mib, static_cast<double>(after - before) / mib,
                 100.0 * static_cast<double>(after - before) / static_cast<double>(peak - before));
  }
}

void memoryUnnamed(benchmark::State& state) {
  static bool shown = false;  // on stderr: the first repetition's readings
  memory(state, false, shown);
}
void memoryNamed(benchmark::State& state) {
  static bool shown = false;
  memory(state, true, shown);
}

}  // namespace

void registerMemoryRows() {
  benchmark::RegisterBenchmark("schedule/memory", &memoryUnnamed)->Iterations(1);
  benchmark::RegisterBenchmark("schedule/memory/named", &memoryNamed)->Iterations(1);
}

}  // namespace coreactor::bench::schedule
