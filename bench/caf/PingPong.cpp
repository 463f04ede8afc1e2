// bench/caf/PingPong.cpp — actor/pingpong/<N> on CAF: N round trips between
// two actors, started by one message (ours: bench/actor/PingPong.cpp).
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <cstdint>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

using workloads::kRoundTrips;

struct Rally {
  std::int64_t target = 0;
  std::int64_t pings = 0;  // received by the responder
  std::int64_t pongs = 0;  // received by the requester: completed round trips
  Round* round = nullptr;
};

/// Answers a Ping with a Pong: a handler's result goes back to the sender.
caf::behavior pingResponder(caf::event_based_actor*, Rally* rally) {
  return {[=](const Ping& ping) {
    ++rally->pings;
    return Pong{ping.n};
  }};
}

/// Starts the rally on Go, answers each Pong with the next Ping until the
/// target, then finishes the round.
caf::behavior pingRequester(caf::event_based_actor* self, caf::actor responder, Rally* rally) {
  return {
      [=](const Go& go) {
        rally->pings = 0;
        rally->pongs = 0;
        rally->round = go.round;
        go.round->begin = WallClock::now();
        self->send(responder, Ping{0});
      },
      [=](const Pong& pong) {
        if (++rally->pongs < rally->target) {
          self->send(responder, Ping{pong.n + 1});
        } else {
          rally->round->finish(rally->pongs);
        }
      },
  };
}

void pingPong(benchmark::State& state) {
  Rally rally;  // first: it outlives the actors that count into it
  Arm arm(workloads::pingPongRow());
  rally.target = kRoundTrips;
  const caf::actor responder = arm.spawn(pingResponder, &rally);
  const caf::actor requester = arm.spawn(pingRequester, responder, &rally);
  OpMeter meter;
  for (auto _ : state) {
    Round round;
    const bool ok = meter.measureTimed(state, "round trips", kRoundTrips,
                                       [&] { return arm.runRound(requester, round, Go{&round}); });
    // Every round trip needs its ping to have been handled too.
    if (!ok || !checkCompleted(state, "pings", kRoundTrips, rally.pings)) break;
  }
  meter.report(state);
}

}  // namespace

void registerPingPongRows() {
  registerTimed(benchmark::RegisterBenchmark(workloads::pingPongRow().c_str(), &pingPong));
}

}  // namespace coreactor::bench::cafarm
