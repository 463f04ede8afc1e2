// bench/dispatch/Floors.cpp — the two floors beneath the dispatchers.
//
//   floor/ring           one 16-byte {fn, arg} entry pushed on a ring, popped and
//                        called indirectly, on one thread, as a chain (the callee
//                        pushes the next entry): the least any task queue costs
//                        (bench/harness/RingFloor.hpp, which the actor rows pair
//                        their rounds with too).
//   floor/asio-post      one Boost.Asio hop: a handler asio::post()s the next on
//                        an io_context(1); what our loop costs if it were plain Asio.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "coreactor/Asio.hpp"
#include "dispatch/Families.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/RingFloor.hpp"

namespace coreactor::bench::dispatch {
namespace {

// ---- floor/ring ------------------------------------------------------------------

void floorRing(benchmark::State& state) {
  FloorRing ring;
  OpMeter meter;
  for (auto _ : state) {
    const bool ok =
        meter.measure(state, "ring calls", kHops, [&] { return runFloorChain(ring, kHops); });
    if (!ok) break;
  }
  meter.report(state);
}

// ---- floor/asio-post -------------------------------------------------------------

struct AsioChain {
  boost::asio::io_context* io;
  std::int64_t ran;
  std::int64_t target;
};

struct AsioHop {
  AsioChain* chain;
  void operator()() const {
    if (++chain->ran < chain->target) boost::asio::post(*chain->io, AsioHop{chain});
  }
};

void floorAsioPost(benchmark::State& state) {
  // Concurrency hint 1, as the isolate's own io_context: one thread runs it.
  boost::asio::io_context io(1);
  AsioChain chain{&io, 0, kHops};
  OpMeter meter;
  for (auto _ : state) {
    chain.ran = 0;
    io.restart();  // run() returned last time because it ran out of work
    const bool ok = meter.measure(state, "asio handlers", kHops, [&] {
      boost::asio::post(io, AsioHop{&chain});
      io.run();
      return chain.ran;
    });
    if (!ok) break;
  }
  meter.report(state);
}

}  // namespace

void registerFloorRows() {
  registerTimed(benchmark::RegisterBenchmark("floor/ring", &floorRing));
  registerTimed(benchmark::RegisterBenchmark("floor/asio-post", &floorAsioPost));
}

}  // namespace coreactor::bench::dispatch
