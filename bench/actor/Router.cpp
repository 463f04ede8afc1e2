// bench/actor/Router.cpp — router/<logic>: one message of 10,000 told at
// once by an actor to 4 actors on its isolate, handled. The sender picks
// them itself, or a router does, on the sender's thread, before the same
// tell (coreactor/Router.hpp). The CAF arm's rows: bench/caf/Router.cpp.
//
//   router/direct            the sender tells actor i % 4 itself: the floor
//                            of a routed tell
//   router/round-robin       through a pool of 4 routees (withSize(4)),
//   router/random            with RouterOptions::roundRobin(), random(),
//   router/consistent-hash   consistentHash() (the key: the message's int,
//                            withHashKey<Count> and a function),
//   router/consistent-hash/member  (the same key as withHashKey<&Count::value>),
//   router/smallest-mailbox  smallestMailbox()
//   router/broadcast         through broadcast(): each message to all 4;
//                            ns per message told, ns_per_delivery beside it
//
// Each routed row pairs every round with a round of router/direct right
// after it, in the same system, and reports the median of the per-round
// ratios (ns per delivery over direct's ns per message) as vs_direct
// (bench/harness/RouterTallies.hpp). The routees count what they handled;
// every round is checked for the count and for the spread its logic gives.
#include <benchmark/benchmark.h>

#include <array>
#include <chrono>
#include <cstddef>
#include <cstdint>
#include <memory>
#include <utility>

#include "actor/CountingActor.hpp"
#include "actor/Families.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/RouterTallies.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::actor {
namespace {

using workloads::checkRouted;
using workloads::DirectPairing;
using workloads::kRoutedMessages;
using workloads::kRoutees;
using workloads::RouteeCounts;
using workloads::RouteeTally;
using workloads::Spread;

using Clock = std::chrono::steady_clock;

struct Go {};

/// Counts the Count messages it handles.
class Routee final : public Actor {
 public:
  explicit Routee(RouteeCounts* counts) : counts_(counts) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Count>()) ++counts_->handled;
  }

 private:
  RouteeCounts* counts_;
};

/// On Go, tells the router kRoutedMessages Counts.
class RoutedSender final : public Actor {
 public:
  explicit RoutedSender(ActorRef router) : router_(std::move(router)) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Go>()) return;
    for (std::int64_t i = 0; i < kRoutedMessages; ++i) {
      ctx.tell(router_, Count{static_cast<int>(i)});
    }
  }

 private:
  ActorRef router_;
};

using Targets = std::array<ActorRef, static_cast<std::size_t>(kRoutees)>;

/// On Go, tells the same Counts to its actors itself, each in turn.
class DirectSender final : public Actor {
 public:
  explicit DirectSender(Targets targets) : targets_(std::move(targets)) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<Go>()) return;
    for (std::int64_t i = 0; i < kRoutedMessages; ++i) {
      ctx.tell(targets_[static_cast<std::size_t>(i % kRoutees)], Count{static_cast<int>(i)});
    }
  }

 private:
  Targets targets_;
};

/// A sender and the actors it tells, counted.
struct Side {
  RouteeTally tally;
  ActorRef sender;
  std::int64_t fanOut = 1;  // deliveries per message told

  /// One round: Go to the sender, the loop run until idle. The messages
  /// told that were handled (deliveries over the fan-out), and the time.
  OpMeter::Timed play(ActorSystem& system) {
    tally.reset();
    const Clock::time_point start = Clock::now();
    sender.tell(Go{});
    system.runUntilIdle();
    const Clock::duration elapsed = Clock::now() - start;
    return OpMeter::Timed{tally.deliveries() / fanOut, elapsed};
  }
};

void buildDirect(ActorSystem& system, Side& side) {
  Targets targets;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    targets[i] = system.spawn<Routee>("", ActorOptions::create(), &side.tally.at(i));
  }
  side.sender = system.spawn<DirectSender>("direct", ActorOptions::create(), targets);
}

void buildPool(ActorSystem& system, Side& side, const RouterOptions& options) {
  RouteeTally* tally = &side.tally;
  const ActorRef pool = system.spawnPool(
      "pool", options.withSize(static_cast<std::size_t>(kRoutees)), ActorFactory([tally] {
        return std::unique_ptr<Actor>(std::make_unique<Routee>(tally->claim()));
      }));
  side.sender = system.spawn<RoutedSender>("sender", ActorOptions::create(), pool);
}

/// One round of `side` off the clock, checked, before the timed ones: the
/// mailboxes grown to a round's size, whichever row runs first.
bool warmUp(benchmark::State& state, ActorSystem& system, Side& side) {
  return OpMeter::unmeasured(state, "messages in the warm-up", kRoutedMessages,
                             [&] { return side.play(system).ran; });
}

/// A row's logic: its pool's options, how its messages spread, and how
/// many deliveries one message makes.
struct Logic {
  const char* name;
  RouterOptions (*options)();
  Spread spread;
  std::int64_t fanOut;
};

const Logic kLogics[] = {
    {"round-robin", [] { return RouterOptions::roundRobin(); }, Spread::kEven, 1},
    {"random", [] { return RouterOptions::random(); }, Spread::kSome, 1},
    {"consistent-hash",
     [] {
       return RouterOptions::consistentHash().withHashKey<Count>(
           [](const Count& c) { return static_cast<std::uint64_t>(c.value); });
     },
     Spread::kSome, 1},
    // The same key given as the member it is: read from the word, no call.
    {"consistent-hash/member",
     [] { return RouterOptions::consistentHash().withHashKey<&Count::value>(); }, Spread::kSome, 1},
    {"smallest-mailbox", [] { return RouterOptions::smallestMailbox(); }, Spread::kSome, 1},
    {"broadcast", [] { return RouterOptions::broadcast(); }, Spread::kEvery, kRoutees},
};

void directRow(benchmark::State& state) {
  auto system = manualSystem();
  Side direct;
  if (!setUp(state,
             [&] {
               buildDirect(*system, direct);
               system->runUntilIdle();
             }) ||
      !warmUp(state, *system, direct)) {
    return;
  }
  OpMeter meter;
  for (auto _ : state) {
    if (!meter.measureTimed(state, "messages", kRoutedMessages,
                            [&] { return direct.play(*system); }) ||
        !checkRouted(state, direct.tally, kRoutedMessages, Spread::kEven)) {
      break;
    }
  }
  meter.report(state);
}

void routedRow(benchmark::State& state, const Logic& logic) {
  auto system = manualSystem();
  Side routed;
  routed.fanOut = logic.fanOut;
  Side direct;
  if (!setUp(state,
             [&] {
               buildPool(*system, routed, logic.options());
               buildDirect(*system, direct);
               system->runUntilIdle();
             }) ||
      !warmUp(state, *system, routed) || !warmUp(state, *system, direct)) {
    return;
  }
  OpMeter meter;
  DirectPairing pairing;
  for (auto _ : state) {
    OpMeter::Timed row;
    if (!meter.measureTimed(state, "messages routed", kRoutedMessages,
                            [&] { return row = routed.play(*system); }) ||
        !checkRouted(state, routed.tally, kRoutedMessages, logic.spread)) {
      break;
    }
    // router/direct's round right after, off the figure.
    OpMeter::Timed floor;
    if (!OpMeter::unmeasured(state, "messages told directly", kRoutedMessages,
                             [&] { return (floor = direct.play(*system)).ran; }) ||
        !checkRouted(state, direct.tally, kRoutedMessages, Spread::kEven)) {
      break;
    }
    pairing.add(row.elapsed, row.ran * logic.fanOut, floor.elapsed, floor.ran);
  }
  meter.report(state);
  pairing.report(state);
  workloads::reportPerDelivery(state, logic.fanOut);
}

}  // namespace

void registerRouterRows() {
  registerTimed(benchmark::RegisterBenchmark(workloads::routerRow("direct").c_str(), &directRow));
  for (const Logic& logic : kLogics) {
    registerTimed(
        benchmark::RegisterBenchmark(workloads::routerRow(logic.name).c_str(), &routedRow, logic));
  }
}

}  // namespace coreactor::bench::actor
