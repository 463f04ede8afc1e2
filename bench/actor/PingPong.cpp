// bench/actor/PingPong.cpp — actor/pingpong/<N>: one round trip (ping ->
// pong) between two actors, of N started by a single tell: two tells, two
// turns. The CAF arm's row: bench/caf/PingPong.cpp.
#include <benchmark/benchmark.h>

#include <cstdint>

#include "actor/Families.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/RingFloor.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::actor {
namespace {

struct Ping {
  int n;
};
struct Pong {
  int n;
};

struct Rally {
  std::int64_t target = 0;
  std::int64_t pings = 0;  // received by the responder
  std::int64_t pongs = 0;  // received by the requester: completed round trips
};

/// Both sides of the ping-pong: answers a Ping with a Pong, and a Pong with
/// the next Ping until `target` round trips are done. Always ctx.reply: the
/// sender is the other side.
class Player final : public Actor {
 public:
  explicit Player(Rally* rally) : rally_(rally) {}
  void receive(ReceiveContext& ctx) override {
    if (const Ping* ping = ctx.get<Ping>()) {
      ++rally_->pings;
      ctx.reply(Pong{ping->n});
    } else if (const Pong* pong = ctx.get<Pong>()) {
      if (++rally_->pongs < rally_->target) ctx.reply(Ping{pong->n + 1});
    }
  }

 private:
  Rally* rally_;
};

void pingPong(benchmark::State& state, std::int64_t roundTrips) {
  auto system = manualSystem();
  Rally rally;
  rally.target = roundTrips;
  const ActorRef requester = system->spawn<Player>("requester", ActorOptions::create(), &rally);
  const ActorRef responder = system->spawn<Player>("responder", ActorOptions::create(), &rally);
  system->runUntilIdle();
  OpMeter meter;
  FloorPairing floor;
  for (auto _ : state) {
    const bool ok = floor.run(roundTrips, [&] {
      return meter.measure(state, "round trips", roundTrips, [&] {
        rally.pings = 0;
        rally.pongs = 0;
        // The one tell that starts the rally, as if the requester had sent it.
        responder.tell(Ping{0}, requester);
        system->runUntilIdle();
        return rally.pongs;
      });
    });
    // Every round trip needs its ping to have been handled too.
    if (!ok || !checkCompleted(state, "pings", roundTrips, rally.pings)) break;
  }
  meter.report(state);
  floor.report(state);
}

}  // namespace

void registerPingPongRows() {
  registerTimed(benchmark::RegisterBenchmark(workloads::pingPongRow().c_str(), &pingPong,
                                             workloads::kRoundTrips));
}

}  // namespace coreactor::bench::actor
