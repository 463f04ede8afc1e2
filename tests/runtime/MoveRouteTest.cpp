// After a move: senders reach the actor's new isolate without a lasting
// extra hop (each isolate gets an entry of its own), and a sender that moves
// keeps its order to actors on third isolates (runtime/Move.hpp). Threaded
// systems of three isolates; the assertions are about counts and order.
#include <gtest/gtest.h>

#include <atomic>
#include <thread>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "runtime/SystemCore.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;

template <class F>
bool eventually(F&& done) {
  return test::eventually(std::forward<F>(done), 60s);
}

struct Numbered {
  std::int64_t n;
};
struct Burst {
  ActorRef to;
  std::int64_t first;
  std::int64_t count;
};
struct Hop {
  std::size_t isolate;
};
struct Count {};
// Spawns a Sink here, counting into `received`.
struct SpawnSink {
  std::atomic<std::int64_t>* received;
  std::atomic<std::int64_t>* outOfOrder;
};

// Counts numbered messages, and how many came out of order.
struct Sink : Actor {
  Sink(std::atomic<std::int64_t>* received, std::atomic<std::int64_t>* outOfOrder, int work = 0)
      : work(work), received(received), outOfOrder(outOfOrder) {}
  void receive(ReceiveContext& ctx) override {
    if (const Numbered* m = ctx.get<Numbered>()) {
      // A little work a message, so that a backlog builds in the rings.
      for (int i = 0; i < work; ++i) spin = spin * 31 + static_cast<unsigned>(i);
      if (m->n != next) outOfOrder->fetch_add(1);
      next = m->n + 1;
      received->fetch_add(1);
    } else if (ctx.is<Count>()) {
      ctx.reply(next);
    }
  }
  std::int64_t next = 0;
  int work = 0;
  volatile unsigned spin = 0;
  std::atomic<std::int64_t>* received;
  std::atomic<std::int64_t>* outOfOrder;
};

// Sends bursts of numbered messages; moves itself when told.
struct Source : Actor {
  void receive(ReceiveContext& ctx) override {
    if (const Burst* b = ctx.get<Burst>()) {
      for (std::int64_t i = 0; i < b->count; ++i) ctx.tell(b->to, Numbered{b->first + i});
    } else if (const Hop* h = ctx.get<Hop>()) {
      ctx.move(ctx.self(), h->isolate);
    } else if (const SpawnSink* s = ctx.get<SpawnSink>()) {
      ctx.reply(ctx.spawn<Sink>("", ActorOptions::create().withIsolate(ctx.isolateIndex()),
                                s->received, s->outOfOrder));
    }
  }
};

// A sink spawned on isolate 0 and moved to isolate 1 before a source on
// `sourceIsolate` sends it `bursts` bursts of 100, each awaited: what the
// system counted.
TransportStats streamToAMovedSink(std::size_t isolates, std::size_t sourceIsolate,
                                  std::int64_t bursts) {
  auto system = ActorSystem::create("routes", ActorSystemOptions::create().withIsolates(isolates));
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  const ActorRef sink =
      system->spawn<Sink>("sink", ActorOptions::create().withIsolate(0), &received, &outOfOrder);
  const ActorRef source =
      system->spawn<Source>("source", ActorOptions::create().withIsolate(sourceIsolate));
  system->move(sink, 1).get();
  constexpr std::int64_t kEach = 100;
  for (std::int64_t b = 0; b < bursts; ++b) {
    source.tell(Burst{sink, b * kEach, kEach});
    EXPECT_TRUE(eventually([&] { return received.load() == (b + 1) * kEach; }));
  }
  EXPECT_EQ(outOfOrder.load(), 0);
  EXPECT_EQ(system->ask<std::int64_t>(sink, Count{}, 30s).get(), bursts * kEach);
  return system->transportStats();
}

// SPEC X4
TEST(MoveRoutes, SendersOfAThirdIsolateStopPassingTheEntryTheActorLeft) {
  // The first bursts passed the entry on isolate 0; once isolate 2 had an
  // entry of its own, none did: far fewer than the 20,000 messages sent.
  EXPECT_LT(streamToAMovedSink(3, 2, 200).forwarded, 400u);
}

// SPEC X4
TEST(MoveRoutes, SendersOnTheActorsNewIsolateReachItThereWithoutACrossing) {
  const TransportStats stats = streamToAMovedSink(2, 1, 100);
  EXPECT_LT(stats.forwarded, 400u);
  EXPECT_LT(stats.crossings, 1000u);
}

// SPEC X4
TEST(MoveRoutes, AnIsolateKeepsItsRouteWhileTheActorLivesAndForgetsItWhenItStops) {
  auto system = ActorSystem::create("routes", ActorSystemOptions::create().withIsolates(2));
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  const ActorRef sink =
      system->spawn<Sink>("sink", ActorOptions::create().withIsolate(1), &received, &outOfOrder);
  const ActorRef source = system->spawn<Source>("source", ActorOptions::create().withIsolate(0));
  constexpr std::int64_t kEach = 100;
  std::int64_t sent = 0;
  const auto burst = [&] {
    source.tell(Burst{sink, sent, kEach});
    sent += kEach;
    EXPECT_TRUE(eventually([&] { return received.load() == sent; }));
  };
  EXPECT_EQ(system->transportStats().routes, 0u);
  // Over to the source's isolate: the source's isolate is given a route.
  system->move(sink, 0).get();
  for (int b = 0; b < 10; ++b) burst();
  EXPECT_EQ(system->transportStats().routes, 1u);
  // Back home: the route led to the entry the sink left on the source's
  // isolate, now a Forward. The first message that takes it points it
  // where that Forward leads; the 1,000 after it go straight to the sink,
  // none through the Forward, and still once each, in order.
  system->move(sink, 1).get();
  const std::uint64_t forwardedBefore = system->transportStats().forwarded;
  for (int b = 0; b < 10; ++b) burst();
  EXPECT_LT(system->transportStats().forwarded - forwardedBefore, 10u);
  EXPECT_EQ(outOfOrder.load(), 0);
  EXPECT_EQ(system->ask<std::int64_t>(sink, Count{}, 30s).get(), sent);
  // Over again: a route again, which its stop ends.
  system->move(sink, 0).get();
  for (int b = 0; b < 10; ++b) burst();
  EXPECT_EQ(system->transportStats().routes, 1u);
  EXPECT_EQ(outOfOrder.load(), 0);
  system->stop(sink);
  EXPECT_TRUE(eventually([&] { return system->transportStats().routes == 0u; }));
}

// SPEC X4, A2
TEST(MoveRoutes, AnActorFoundAtOnceOnItsNewIsolateIsFollowedWhenItLeavesAndForgottenWhenItStops) {
  // Sends from the sink's new isolate find it in that isolate's route
  // cache. Bursts are told while the sink moves away and back, with no
  // wait between them: each message arrives once, in order. After its stop
  // a burst becomes dead letters, none handled: a cache line left behind
  // would hand them to the freed cell, whose block the next actor spawned
  // on that isolate takes.
  auto system = ActorSystem::create("routes", ActorSystemOptions::create().withIsolates(2));
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  const ActorRef sink =
      system->spawn<Sink>("sink", ActorOptions::create().withIsolate(0), &received, &outOfOrder);
  const ActorRef source = system->spawn<Source>("source", ActorOptions::create().withIsolate(1));
  system->move(sink, 1).get();
  constexpr std::int64_t kEach = 500;
  std::int64_t sent = 0;
  for (int round = 0; round < 20; ++round) {
    source.tell(Burst{sink, sent, kEach});
    sent += kEach;
    auto moved = system->move(sink, static_cast<std::size_t>(round % 2));
    source.tell(Burst{sink, sent, kEach});
    sent += kEach;
    moved.get();
  }
  ASSERT_TRUE(eventually([&] { return received.load() == sent; }));
  EXPECT_EQ(outOfOrder.load(), 0);
  EXPECT_EQ(system->ask<std::int64_t>(sink, Count{}, 30s).get(), sent);
  // On the source's isolate, sent from there: in the cache.
  system->move(sink, 1).get();
  for (int b = 0; b < 3; ++b) {
    source.tell(Burst{sink, sent, kEach});
    sent += kEach;
    ASSERT_TRUE(eventually([&] { return received.load() == sent; }));
  }
  // Another actor moved there keeps the isolate's routes in use.
  std::atomic<std::int64_t> kept{0};
  std::atomic<std::int64_t> keptOutOfOrder{0};
  const ActorRef keeper =
      system->spawn<Sink>("keeper", ActorOptions::create().withIsolate(0), &kept, &keptOutOfOrder);
  system->move(keeper, 1).get();
  source.tell(Burst{keeper, 0, kEach});
  ASSERT_TRUE(eventually([&] { return kept.load() == kEach; }));
  ASSERT_EQ(system->transportStats().routes, 2u);
  system->stop(sink);
  ASSERT_TRUE(eventually([&] { return system->transportStats().routes == 1u; }));
  std::atomic<std::int64_t> newcomer{0};
  std::atomic<std::int64_t> newcomerOutOfOrder{0};
  const ActorRef next =
      system->ask<ActorRef>(source, SpawnSink{&newcomer, &newcomerOutOfOrder}, 30s).get();
  const std::uint64_t deadBefore = system->deadLetterCount();
  source.tell(Burst{sink, 0, kEach});
  EXPECT_TRUE(eventually([&] { return system->deadLetterCount() == deadBefore + kEach; }));
  EXPECT_EQ(system->ask<std::int64_t>(next, Count{}, 30s).get(), 0);
  EXPECT_EQ(newcomer.load(), 0);
  EXPECT_EQ(received.load(), sent);
  EXPECT_EQ(keptOutOfOrder.load(), 0);
}

// SPEC X4
TEST(MoveRoutes, SendersOnTheIsolateTheActorLeftAskForTheirRouteOnce) {
  // The sink leaves the source's isolate, the one its reference names: the
  // entry it left there asks for that isolate's route once, and each
  // message after crosses once, straight to the sink.
  auto system = ActorSystem::create("routes", ActorSystemOptions::create().withIsolates(2));
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  const ActorRef sink =
      system->spawn<Sink>("sink", ActorOptions::create().withIsolate(0), &received, &outOfOrder);
  const ActorRef source = system->spawn<Source>("source", ActorOptions::create().withIsolate(0));
  system->move(sink, 1).get();
  constexpr std::int64_t kBursts = 200;
  constexpr std::int64_t kEach = 100;
  const TransportStats before = system->transportStats();
  for (std::int64_t b = 0; b < kBursts; ++b) {
    source.tell(Burst{sink, b * kEach, kEach});
    ASSERT_TRUE(eventually([&] { return received.load() == (b + 1) * kEach; }));
  }
  const TransportStats after = system->transportStats();
  // The messages, plus the route's request and its Marker: not a new
  // route (a request and a Marker more) for every burst.
  EXPECT_LE(after.crossings - before.crossings, static_cast<std::uint64_t>(kBursts * kEach + 20));
  EXPECT_EQ(outOfOrder.load(), 0);
  // Each passed the entry the sink left, straight on: all forwarded, and
  // none a way around (what a balancer waits out before it judges a move).
  EXPECT_GE(after.forwarded - before.forwarded, static_cast<std::uint64_t>(kBursts * kEach - 20));
  EXPECT_LT(detail::coreOf(*system).runtime(0).counts.detoured.load(), 20u);
}

// SPEC X4, A2
TEST(MoveRoutes, ASenderThatMovesKeepsItsOrderToAnActorOfAThirdIsolate) {
  auto system = ActorSystem::create("routes", ActorSystemOptions::create().withIsolates(3));
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  // Slower than the source: a backlog waits in the old ring.
  const ActorRef sink = system->spawn<Sink>("sink", ActorOptions::create().withIsolate(2),
                                            &received, &outOfOrder, 200);
  const ActorRef source = system->spawn<Source>("source", ActorOptions::create().withIsolate(1));
  // Bursts from isolate 1 and isolate 0 in turn, each hop between two
  // bursts told in the same breath: what it sent before a hop must land
  // before what it sends after, though the sink's isolate looks at the
  // ring from isolate 0 first.
  constexpr std::int64_t kRounds = 100;
  constexpr std::int64_t kEach = 2000;
  for (std::int64_t r = 0; r < kRounds; ++r) {
    source.tell(Burst{sink, r * kEach, kEach});
    source.tell(Hop{static_cast<std::size_t>(r % 2)});
  }
  ASSERT_TRUE(eventually([&] { return received.load() == kRounds * kEach; }));
  EXPECT_EQ(outOfOrder.load(), 0);
  EXPECT_GT(system->transportStats().moves, 0u);
}

}  // namespace
}  // namespace coreactor
