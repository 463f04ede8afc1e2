// bench/caf/Router.cpp — router/<logic> on CAF: one actor tells 10,000
// one-int messages at once to 4 actors, all handled, on one scheduler
// thread (ours: bench/actor/Router.cpp). router/direct: the sender tells
// actor i % 4 itself. router/round-robin, router/random, router/broadcast:
// through a caf::actor_pool of 4 workers with the policy of that name
// (actor_pool::round_robin(), random(), broadcast()), which dispatches on
// the sender's thread as ours does. CAF's pool has no consistent-hash and
// no smallest-mailbox policy: those rows are ours only.
//
// After its batch the sender sends each of the 4 actors a Flush directly
// (CAF keeps the order between two actors, and the pool enqueues a message
// into its worker on the sender's behalf, in the sender's turn); the last
// Flush handled ends the round. Each routed row pairs every round with a
// round of router/direct right after it, in the same system, as ours does
// (vs_direct, bench/harness/RouterTallies.hpp).
#include <caf/actor_pool.hpp>
#include <caf/all.hpp>

#include <benchmark/benchmark.h>

#include <array>
#include <cstddef>
#include <cstdint>
#include <vector>

#include "caf/Arm.hpp"
#include "caf/Families.hpp"
#include "caf/Messages.hpp"
#include "harness/BenchSupport.hpp"
#include "harness/RouterTallies.hpp"
#include "harness/Workloads.hpp"

namespace coreactor::bench::cafarm {
namespace {

using workloads::checkRouted;
using workloads::DirectPairing;
using workloads::kRoutedMessages;
using workloads::kRoutees;
using workloads::RouteeCounts;
using workloads::RouteeTally;
using workloads::Spread;

/// A sender and the actors it tells, counted; the worker thread's.
struct Side {
  RouteeTally tally;
  std::vector<caf::actor> routees;
  caf::actor sender;
  std::int64_t fanOut = 1;   // deliveries per message told
  std::int64_t pending = 0;  // Flushes still to come this round

  /// The handles dropped before the Arm stops the system.
  void release() {
    routees.clear();
    sender = nullptr;
  }
};

/// Counts its Count messages; the last Flush of a round ends it.
class Routee final : public caf::event_based_actor {
 public:
  Routee(caf::actor_config& config, RouteeCounts* counts, Side* side)
      : caf::event_based_actor(config), counts_(counts), side_(side) {}
  caf::behavior make_behavior() override {
    return {
        [this](const Count&) { ++counts_->handled; },
        [this](const Flush& flush) {
          if (--side_->pending == 0) flush.round->finish(side_->tally.deliveries() / side_->fanOut);
        },
    };
  }

 private:
  RouteeCounts* counts_;
  Side* side_;
};

/// A batch's end: a Flush to each of the side's actors, directly.
void flushAll(caf::event_based_actor* self, Side* side, Round* round) {
  side->pending = static_cast<std::int64_t>(side->routees.size());
  for (const caf::actor& routee : side->routees) self->send(routee, Flush{round});
}

/// On Go, tells the pool kRoutedMessages Counts.
caf::behavior routedSender(caf::event_based_actor* self, caf::actor pool, Side* side) {
  return {[=](const Go& go) {
    go.round->begin = WallClock::now();
    for (std::int64_t i = 0; i < kRoutedMessages; ++i) {
      self->send(pool, Count{static_cast<int>(i)});
    }
    flushAll(self, side, go.round);
  }};
}

using Targets = std::array<caf::actor, static_cast<std::size_t>(kRoutees)>;

/// On Go, tells the same Counts to its actors itself, each in turn.
caf::behavior directSender(caf::event_based_actor* self, Targets targets, Side* side) {
  return {[=](const Go& go) {
    go.round->begin = WallClock::now();
    for (std::int64_t i = 0; i < kRoutedMessages; ++i) {
      self->send(targets[static_cast<std::size_t>(i % kRoutees)], Count{static_cast<int>(i)});
    }
    flushAll(self, side, go.round);
  }};
}

void buildDirect(Arm& arm, Side& side) {
  Targets targets;
  for (std::size_t i = 0; i < targets.size(); ++i) {
    targets[i] = arm.spawn<Routee>(&side.tally.at(i), &side);
    side.routees.push_back(targets[i]);
  }
  side.sender = arm.spawn(directSender, targets, &side);
}

void buildPool(Arm& arm, Side& side, caf::actor_pool::policy policy) {
  const caf::actor pool = arm.keep(caf::actor_pool::make(
      arm.system().dummy_execution_unit(), static_cast<std::size_t>(kRoutees),
      [&] {
        caf::actor routee = arm.spawn<Routee>(side.tally.claim(), &side);
        side.routees.push_back(routee);
        return routee;
      },
      std::move(policy)));
  side.sender = arm.spawn(routedSender, pool, &side);
}

/// One round of `side`: the messages told that were handled, and the time.
OpMeter::Timed play(Arm& arm, Side& side) {
  side.tally.reset();
  Round round;
  return arm.runRound(side.sender, round, Go{&round});
}

/// One round of `side` off the clock, checked, before the timed ones, as
/// ours plays one.
bool warmUp(benchmark::State& state, Arm& arm, Side& side) {
  return OpMeter::unmeasured(state, "messages in the warm-up", kRoutedMessages,
                             [&] { return play(arm, side).ran; });
}

/// A row's logic: its pool's policy, how its messages spread, and how many
/// deliveries one message makes.
struct Logic {
  const char* name;
  caf::actor_pool::policy (*policy)();
  Spread spread;
  std::int64_t fanOut;
};

const Logic kLogics[] = {
    {"round-robin", &caf::actor_pool::round_robin, Spread::kEven, 1},
    {"random", &caf::actor_pool::random, Spread::kSome, 1},
    {"broadcast", &caf::actor_pool::broadcast, Spread::kEvery, kRoutees},
};

void directRow(benchmark::State& state) {
  Side direct;
  Arm arm(workloads::routerRow("direct"));
  buildDirect(arm, direct);
  if (!warmUp(state, arm, direct)) {
    direct.release();
    return;
  }
  OpMeter meter;
  for (auto _ : state) {
    if (!meter.measureTimed(state, "messages", kRoutedMessages,
                            [&] { return play(arm, direct); }) ||
        !checkRouted(state, direct.tally, kRoutedMessages, Spread::kEven)) {
      break;
    }
  }
  meter.report(state);
  direct.release();
}

void routedRow(benchmark::State& state, const Logic& logic) {
  Side routed;
  routed.fanOut = logic.fanOut;
  Side direct;
  Arm arm(workloads::routerRow(logic.name));
  buildPool(arm, routed, logic.policy());
  buildDirect(arm, direct);
  if (!warmUp(state, arm, routed) || !warmUp(state, arm, direct)) {
    routed.release();
    direct.release();
    return;
  }
  OpMeter meter;
  DirectPairing pairing;
  for (auto _ : state) {
    OpMeter::Timed row;
    if (!meter.measureTimed(state, "messages routed", kRoutedMessages,
                            [&] { return row = play(arm, routed); }) ||
        !checkRouted(state, routed.tally, kRoutedMessages, logic.spread)) {
      break;
    }
    // router/direct's round right after, off the figure.
    const OpMeter::Timed floor = play(arm, direct);
    if (!checkCompleted(state, "messages told directly", kRoutedMessages, floor.ran) ||
        !checkRouted(state, direct.tally, kRoutedMessages, Spread::kEven)) {
      break;
    }
    pairing.add(row.elapsed, row.ran * logic.fanOut, floor.elapsed, floor.ran);
  }
  meter.report(state);
  pairing.report(state);
  workloads::reportPerDelivery(state, logic.fanOut);
  routed.release();
  direct.release();
}

}  // namespace

void registerRouterRows() {
  registerTimed(benchmark::RegisterBenchmark(workloads::routerRow("direct").c_str(), &directRow));
  for (const Logic& logic : kLogics) {
    registerTimed(
        benchmark::RegisterBenchmark(workloads::routerRow(logic.name).c_str(), &routedRow, logic));
  }
}

}  // namespace coreactor::bench::cafarm
