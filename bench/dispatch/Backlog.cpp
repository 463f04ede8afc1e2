// bench/dispatch/Backlog.cpp — <dispatcher>/backlog/<N>: one unit of N
// distinct tasks that a single macrotask executes at once before the loop
// runs them. A flat figure across N is the O(1)-per-unit claim of the hybrid
// (HybridDispatcher.hpp); immediate is the reference row.
#include <benchmark/benchmark.h>

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>

#include "coreactor/Task.hpp"
#include "dispatch/Families.hpp"
#include "dispatch/Loop.hpp"
#include "harness/BenchSupport.hpp"

namespace coreactor::bench::dispatch {
namespace {

/// One unit of a backlog: a distinct task object that counts its run.
struct CountedUnit final : Task {
  CountedUnit() : Task(&step) {}
  static void step(Task& task) { ++*static_cast<CountedUnit&>(task).ran; }
  std::int64_t* ran = nullptr;
};

/// The macrotask that executes all N units at once, as a burst of spawns or
/// a fan-out would: the hybrid spends its budget on the first 64 and must
/// carry the rest across its yields.
class Backlog final : public Task {
 public:
  Backlog(Dispatcher& dispatcher, std::int64_t units)
      : Task(&handOver),
        dispatcher_(&dispatcher),
        size_(units),
        units_(std::make_unique<CountedUnit[]>(static_cast<std::size_t>(units))) {
    for (std::int64_t i = 0; i < size_; ++i) units_[static_cast<std::size_t>(i)].ran = &ran_;
  }

  std::int64_t ran() const noexcept { return ran_; }
  void reset() noexcept { ran_ = 0; }

 private:
  static void handOver(Task& task) {
    Backlog& self = static_cast<Backlog&>(task);
    for (std::int64_t i = 0; i < self.size_; ++i) {
      self.dispatcher_->execute(static_cast<Task&>(self.units_[static_cast<std::size_t>(i)]));
    }
  }

  Dispatcher* dispatcher_;
  std::int64_t size_;
  std::int64_t ran_ = 0;
  std::unique_ptr<CountedUnit[]> units_;
};

void backlog(benchmark::State& state, DispatcherFactory make, std::int64_t units) {
  Loop loop(make, "bench-backlog");
  Backlog backlog(*loop.dispatcher, units);
  auto pass = [&] {
    backlog.reset();
    loop.isolate.post(backlog, loop.dispatcher.get());
    loop.isolate.runUntilIdle();
    return backlog.ran();
  };
  // One pass off the clock grows the isolate's and the dispatcher's rings to
  // the backlog and faults the units in: the figure is the steady state of a
  // long-lived isolate, not the first allocation of 16 MiB of ring.
  if (!OpMeter::unmeasured(state, "units", units, pass)) return;
  OpMeter meter;
  for (auto _ : state) {
    if (!meter.measure(state, "units", units, pass)) break;
  }
  meter.report(state);
}

}  // namespace

void registerBacklogRows() {
  // The hybrid, whose claim this is, then immediate as the reference rows.
  for (const std::string_view name : {"hybrid", "immediate"}) {
    const DispatcherKind& kind = kindNamed(name);
    for (const std::int64_t units :
         {std::int64_t{1'000}, std::int64_t{100'000}, std::int64_t{1'000'000}}) {
      registerTimed(benchmark::RegisterBenchmark(
          (std::string(name) + "/backlog/" + std::to_string(units)).c_str(), &backlog, kind.make,
          units));
    }
  }
}

}  // namespace coreactor::bench::dispatch
