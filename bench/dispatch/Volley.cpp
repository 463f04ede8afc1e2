// bench/dispatch/Volley.cpp — volley/<dispatcher>: one round trip of the
// seeds' request/response volley (A executes B, B executes A: two hops),
// 10,000 per run (bench/dispatch/Volley.hpp).
#include <benchmark/benchmark.h>

#include <memory>
#include <string>

#include "dispatch/Families.hpp"
#include "dispatch/Loop.hpp"
#include "dispatch/Volley.hpp"
#include "harness/BenchSupport.hpp"

namespace coreactor::bench::dispatch {
namespace {

void volley(benchmark::State& state, DispatcherFactory make) {
  // On the heap, as a system holds its isolates: on the stack, the
  // kernel's random offset of the stack moved volley/hybrid by up to a
  // fifth from one run of the same binary to the next (with that offset
  // fixed, setarch -R, it read the same every time).
  auto heldLoop = std::make_unique<Loop>(make, "bench-volley");
  Loop& loop = *heldLoop;
  auto heldVolley = std::make_unique<Volley>(*loop.dispatcher, kVolleyRoundTrips);
  Volley& volley = *heldVolley;
  OpMeter meter;
  for (auto _ : state) {
    const bool ok = meter.measure(state, "round trips", kVolleyRoundTrips, [&] {
      loop.isolate.post(volley.start(), loop.dispatcher.get());
      loop.isolate.runUntilIdle();
      return volley.roundTrips();
    });
    // Every round trip needs its request to have run too.
    if (!ok || !checkCompleted(state, "requests", kVolleyRoundTrips, volley.requests())) break;
  }
  meter.report(state);
}

}  // namespace

void registerVolleyRows() {
  for (const DispatcherKind& kind : kDispatchers) {
    registerTimed(benchmark::RegisterBenchmark(("volley/" + std::string(kind.name)).c_str(),
                                               &volley, kind.make));
  }
}

}  // namespace coreactor::bench::dispatch
