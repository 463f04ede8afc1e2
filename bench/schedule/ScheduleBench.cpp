// bench/schedule/ScheduleBench.cpp — the scheduler's benchmarks (SPEC S10):
//
//   schedule/add+cancel/handle     one call (a scheduleOnce, or a cancel by
//                                  handle), with 1M schedules live on the
//                                  isolate: 10,000 added, then cancelled in
//                                  random order; figure = time / 20,000 calls
//   schedule/add+cancel/reference  the same with a reference per schedule (the
//                                  system-wide namespace: a lock and a hash)
//   schedule/fire/1M               one due one-shot fired and handled: 1M
//                                  one-shots over 1 s of manual time, then the
//                                  clock moves past them all
//   schedule/memory                resident bytes per live schedule (1M
//                                  unnamed, an 8-byte message each); beside
//                                  it, the process's RSS before, with them
//                                  live, and after cancelling them all
//   schedule/memory/named          the same with a reference per schedule
//                                  (the entries and the name table)
//   schedule/lateness/idle         p50 fire lateness of 200 one-shots spread
//   schedule/lateness/volley       over 40 ms, on a threaded system: idle, and
//                                  with a perpetual ping-pong volley on the
//                                  same isolate (the default hybrid
//                                  dispatcher); p99 and the lateness in
//                                  dispatcher units go beside it
//
// The calls are made from the driving thread of a manual system, which owns
// its isolate: the same path as an actor scheduling for itself, minus the
// actor. Every count is checked against what the scheduler reports
// (scheduleCount) and what the sink actors received.
#include "schedule/ScheduleBench.hpp"

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <future>
#include <memory>
#include <random>
#include <string>
#include <vector>

#include "harness/BenchSupport.hpp"
#include "harness/MemoryProbe.hpp"
#include "coreactor/ActorSystem.hpp"
#include "isolate/CacheTrim.hpp"

namespace coreactor::bench {
namespace {

using namespace std::chrono_literals;

constexpr std::int64_t kLive = 1'000'000;
constexpr std::int64_t kBatch = 10'000;
constexpr std::int64_t kFired = 1'000'000;
constexpr int kLateShots = 200;

// schedule/memory*, beside the figure (extras of the JSON file): the
// process's RSS in bytes before the schedules were made, with them live and
// after they were all cancelled; and what it kept, in bytes per schedule.
constexpr const char* kRssBeforeCounter = "rss_before";
constexpr const char* kRssPeakCounter = "rss_peak";
constexpr const char* kRssAfterCounter = "rss_after";
constexpr const char* kKeptBytesPerScheduleCounter = "kept_bytes_per_schedule";
constexpr const char* kHeapBytesPerScheduleCounter = "heap_bytes_per_schedule";  // malloc's

struct Tick {
  std::int64_t n;
};

// 1M schedules live on one isolate, far in the (manual) future: built once,
// shared by the add+cancel benchmarks, which leave it as they found it.
struct LiveSet {
  ManualClock clock;
  std::unique_ptr<ActorSystem> system = ActorSystem::create(
      "schedule-bench",
      ActorSystemOptions::create().withManualRun().withClock(&clock).withLogLevel(LogLevel::Off));
  ActorRef sink = system->spawn("sink", [](ReceiveContext&) {});
  std::mt19937_64 random{42};

  LiveSet() {
    system->runUntilIdle();
    std::uniform_int_distribution<std::int64_t> delay(10'000, 70'000);  // ms
    for (std::int64_t i = 0; i < kLive; ++i) {
      system->scheduleOnce(Tick{i}, sink, std::chrono::milliseconds(delay(random)));
    }
  }
  static LiveSet& instance() {
    static LiveSet set;
    return set;
  }
};

void addCancel(benchmark::State& state, bool named) {
  LiveSet& live = LiveSet::instance();
  ActorSystem& system = *live.system;
  if (static_cast<std::int64_t>(system.scheduleCount()) != kLive) {
    state.SkipWithError("the live set is not 1M schedules");
    return;
  }
  std::uniform_int_distribution<std::int64_t> delay(10'000, 70'000);
  std::vector<std::chrono::milliseconds> delays(kBatch);
  std::vector<std::string> names(named ? kBatch : 0);
  std::vector<ScheduleHandle> handles(kBatch);
  std::vector<std::size_t> order(kBatch);
  std::uint64_t round = 0;
  OpMeter meter;
  for (auto _ : state) {
    // Off the clock: this round's delays, names and cancel order.
    for (auto& d : delays) d = std::chrono::milliseconds(delay(live.random));
    for (std::int64_t i = 0; i < static_cast<std::int64_t>(names.size()); ++i) {
      names[i] = "r" + std::to_string(round) + "." + std::to_string(i);
    }
    for (std::size_t i = 0; i < order.size(); ++i) order[i] = i;
    std::shuffle(order.begin(), order.end(), live.random);
    ++round;
    meter.measure(state, "schedule and cancel calls", 2 * kBatch, [&] {
      std::int64_t ok = 0;
      for (std::int64_t i = 0; i < kBatch; ++i) {
        ScheduleResult r =
            named ? system.scheduleOnce(Tick{i}, live.sink, delays[i],
                                        ScheduleOptions::create().withReference(names[i]))
                  : system.scheduleOnce(Tick{i}, live.sink, delays[i]);
        handles[i] = r.handle();
        ok += handles[i].valid() ? 1 : 0;
      }
      const bool allLive = static_cast<std::int64_t>(system.scheduleCount()) == kLive + kBatch;
      for (std::size_t i : order) {
        ScheduleResult r =
            named ? system.cancelSchedule(names[i]) : system.cancelSchedule(handles[i]);
        ok += r.ok() ? 1 : 0;
      }
      // Counted only if the scheduler agrees: 1M + 10k after the adds, 1M after.
      if (!allLive || static_cast<std::int64_t>(system.scheduleCount()) != kLive) return ok - 1;
      return ok;
    });
  }
  meter.report(state);
}

void addCancelByHandle(benchmark::State& state) {
  addCancel(state, false);
}
void addCancelByReference(benchmark::State& state) {
  addCancel(state, true);
}

void fireDue(benchmark::State& state) {
  OpMeter meter;
  for (auto _ : state) {
    ManualClock clock;
    auto system = ActorSystem::create(
        "fire-bench",
        ActorSystemOptions::create().withManualRun().withClock(&clock).withLogLevel(LogLevel::Off));
    std::int64_t handled = 0;
    ActorRef sink = system->spawn("sink", [&](ReceiveContext& ctx) {
      if (ctx.is<Tick>()) ++handled;
    });
    system->runUntilIdle();
    std::mt19937_64 random(7);
    std::uniform_int_distribution<std::int64_t> delay(1, 1000);  // ms
    for (std::int64_t i = 0; i < kFired; ++i) {
      system->scheduleOnce(Tick{i}, sink, std::chrono::milliseconds(delay(random)));
    }
    clock.advance(1001ms);
    meter.measure(state, "due one-shots fired and handled", kFired, [&] {
      system->runUntilIdle();
      return system->scheduleCount() == 0 ? handled : handled - 1;
    });
  }
  meter.report(state);
}

// RSS, because that is what a user sees and what the scheduler's memory
// policy is about: its entry chunks and its name table come straight from
// the OS and go back to it (runtime/Scheduler.hpp), which malloc's own
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
    // periods of the scheduler's clock: runtime/Scheduler.hpp, TrimTask).
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

// ---- lateness ------------------------------------------------------------------------

using Steady = std::chrono::steady_clock;

struct Due {
  Steady::time_point at;
};
struct Shoot {};
struct Ball {};

void lateness(benchmark::State& state, bool volley) {
  for (auto _ : state) {
    auto system = ActorSystem::create("lateness-bench",
                                      ActorSystemOptions::create().withLogLevel(LogLevel::Off));
    std::atomic<bool> stopVolley{false};
    std::uint64_t units = 0;  // volley messages handled: on the isolate only
    std::vector<double> lateUs;
    std::promise<void> allFired;
    ActorRef recorder = system->spawn("recorder", [&](ReceiveContext& ctx) {
      if (const Due* due = ctx.get<Due>()) {
        lateUs.push_back(
            std::chrono::duration<double, std::micro>(Steady::now() - due->at).count());
        if (lateUs.size() == kLateShots) allFired.set_value();
      }
    });
    ActorRef shooter = system->spawn("shooter", [&](ReceiveContext& ctx) {
      if (!ctx.is<Shoot>()) return;
      std::mt19937_64 random(11);
      std::uniform_int_distribution<int> delayUs(1000, 40000);
      for (int i = 0; i < kLateShots; ++i) {
        const auto delay = std::chrono::microseconds(delayUs(random));
        ctx.scheduleOnce(Due{Steady::now() + delay}, recorder, delay);
      }
    });
    auto volleyHandler = [&](ReceiveContext& ctx) {
      ++units;
      if (!stopVolley.load(std::memory_order_relaxed)) ctx.reply(Ball{});
    };
    ActorRef a = system->spawn("a", volleyHandler);
    ActorRef b = system->spawn("b", volleyHandler);
    const Steady::time_point start = Steady::now();
    if (volley) a.tell(Ball{}, b);
    shooter.tell(Shoot{});
    const bool done = allFired.get_future().wait_for(30s) == std::future_status::ready;
    const double seconds = std::chrono::duration<double>(Steady::now() - start).count();
    stopVolley = true;
    system->shutdown();
    if (!checkCompleted(state, "one-shots fired", kLateShots,
                        done ? static_cast<std::int64_t>(lateUs.size()) : 0)) {
      return;
    }
    if (volley && units == 0) {
      state.SkipWithError("the volley never ran");
      return;
    }
    // Units between due and fire: the lateness times the volley's own rate
    // in this run (at idle there are none to count).
    const double unitsPerUs = static_cast<double>(units) / (seconds * 1e6);
    state.counters[kLateUsCounter] = percentileOf(lateUs, 0.5);
    state.counters[kLateUsP99Counter] = percentileOf(lateUs, 0.99);
    state.counters[kLateUnitsP50Counter] = percentileOf(lateUs, 0.5) * unitsPerUs;
    state.counters[kLateUnitsP99Counter] = percentileOf(lateUs, 0.99) * unitsPerUs;
    state.SetIterationTime(seconds);
  }
}

void latenessIdle(benchmark::State& state) {
  lateness(state, false);
}
void latenessVolley(benchmark::State& state) {
  lateness(state, true);
}

}  // namespace

void registerScheduleBenchmarks() {
  registerTimed(benchmark::RegisterBenchmark("schedule/add+cancel/handle", &addCancelByHandle));
  registerTimed(
      benchmark::RegisterBenchmark("schedule/add+cancel/reference", &addCancelByReference));
  registerTimed(benchmark::RegisterBenchmark("schedule/fire/1M", &fireDue)->Iterations(1));
  benchmark::RegisterBenchmark("schedule/memory", &memoryUnnamed)->Iterations(1);
  benchmark::RegisterBenchmark("schedule/memory/named", &memoryNamed)->Iterations(1);
  registerTimed(
      benchmark::RegisterBenchmark("schedule/lateness/idle", &latenessIdle)->Iterations(1));
  registerTimed(
      benchmark::RegisterBenchmark("schedule/lateness/volley", &latenessVolley)->Iterations(1));
}

}  // namespace coreactor::bench
