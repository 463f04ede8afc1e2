// The balancer at work in a system (ActorSystemOptions::withBalancer): on a
// manual system whose periods pass on a ManualClock, a ring spread the
// worst way over two isolates ends gathered on one, with every token hop
// counted and the moves in the metrics; a pinned actor stays. The decision
// itself is tested on made-up traffic in BalancerPlanTest.cpp.
#include <gtest/gtest.h>

#include <set>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Metrics.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;

struct Token {
  std::int64_t hops;
};
struct Where {};
struct Next {
  ActorRef next;
};

struct Member : Actor {
  explicit Member(std::int64_t* hops) : hops(hops) {}
  void receive(ReceiveContext& ctx) override {
    if (const Next* n = ctx.get<Next>()) {
      next = n->next;
    } else if (const Token* t = ctx.get<Token>()) {
      ++*hops;
      if (t->hops > 1) ctx.tell(next, Token{t->hops - 1});
    } else if (ctx.is<Where>()) {
      ctx.reply(ctx.isolateIndex());
    }
  }
  std::int64_t* hops;
  ActorRef next;
};

std::size_t whereIs(ActorSystem& system, const ActorRef& actor) {
  std::size_t at = ~std::size_t{0};
  system.ask(actor, Message(Where{}), 1s, [&](Message* reply, std::error_code) {
    if (reply != nullptr) at = *reply->get<std::size_t>();
  });
  system.runUntilIdle();
  return at;
}

// Two isolates driven by this thread, a balancer deciding every 10 ms of
// `clock`, sampling every message.
std::unique_ptr<ActorSystem> balancedSystem(ManualClock& clock) {
  BalancerOptions balancer;
  balancer.period = 10ms;
  balancer.sampleEvery = 1;
  return ActorSystem::create(
      "balance",
      ActorSystemOptions::create().withIsolates(2).withManualRun().withClock(&clock).withBalancer(
          balancer));
}

// SPEC X4
TEST(Balancer, ARingSpreadTheWorstWayOverTwoIsolatesEndsOnOne) {
  ManualClock clock;
  auto system = balancedSystem(clock);
  constexpr int kMembers = 16;
  std::int64_t hops = 0;
  std::vector<ActorRef> ring;
  for (int i = 0; i < kMembers; ++i) {
    ring.push_back(system->spawn<Member>("m" + std::to_string(i),
                                         ActorOptions::create().withIsolate(i % 2), &hops));
  }
  for (int i = 0; i < kMembers; ++i) ring[i].tell(Next{ring[(i + 1) % kMembers]});
  std::int64_t sent = 0;
  for (int period = 0; period < 12; ++period) {
    ring[0].tell(Token{kMembers * 8});
    sent += kMembers * 8;
    system->runUntilIdle();
    clock.advance(10ms);
    system->runUntilIdle();
  }
  EXPECT_EQ(hops, sent);  // every hop handled once, through every move
  std::set<std::size_t> isolates;
  for (const ActorRef& member : ring) isolates.insert(whereIs(*system, member));
  EXPECT_EQ(isolates.size(), 1u) << "the ring is still spread";
  const TransportStats stats = system->transportStats();
  EXPECT_GE(stats.balancerMoves, static_cast<std::uint64_t>(kMembers / 2));
  EXPECT_GE(stats.balancerRounds, 5u);
  EXPECT_EQ(stats.moves, stats.balancerMoves);
  // The moves are in the metrics too.
  MetricsSnapshot snapshot = system->metrics();
  EXPECT_EQ(snapshot.total().balancerMoves, stats.balancerMoves);
  EXPECT_NE(snapshot.prometheusText().find("coreactor_balancer_moves_total"), std::string::npos);
}

// SPEC X4
TEST(Balancer, APinnedActorStaysWhereItWasSpawned) {
  ManualClock clock;
  auto system = balancedSystem(clock);
  std::int64_t hops = 0;
  // Two members that only talk to each other, one pinned on each isolate.
  const ActorRef a =
      system->spawn<Member>("a", ActorOptions::create().withIsolate(0).withPinned(), &hops);
  const ActorRef b =
      system->spawn<Member>("b", ActorOptions::create().withIsolate(1).withPinned(), &hops);
  a.tell(Next{b});
  b.tell(Next{a});
  for (int period = 0; period < 8; ++period) {
    a.tell(Token{64});
    system->runUntilIdle();
    clock.advance(10ms);
    system->runUntilIdle();
  }
  EXPECT_EQ(hops, 8 * 64);
  EXPECT_EQ(whereIs(*system, a), 0u);
  EXPECT_EQ(whereIs(*system, b), 1u);
  EXPECT_EQ(system->transportStats().moves, 0u);
}

struct Job {};

// Handles each Job in about `cost` of real time (a manual clock's period is
// no time the loop spent: the balancer reckons a message at its handler's
// clocked time).
struct Busy : Actor {
  Busy(std::chrono::microseconds cost, std::int64_t* done) : cost(cost), done(done) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Job>()) {
      const auto until = std::chrono::steady_clock::now() + cost;
      while (std::chrono::steady_clock::now() < until) {
      }
      ++*done;
    } else if (ctx.is<Where>()) {
      ctx.reply(ctx.isolateIndex());
    }
  }
  std::chrono::microseconds cost;
  std::int64_t* done;
};

// SPEC X4: a few heavy messages a period, at the default sampling: the
// isolate samples more often until each actor's work shows (one in 64
// would see one message a period), and the busy actors, all spawned on
// isolate 0, end spread over both isolates. Each actor handles one job a
// turn and their turns come in a fixed order, so the clocked samples (one
// in four) fall on the same actors every period: the others count at the
// isolate's clocked mean, not as free.
TEST(Balancer, FewHeavyMessagesOfActorsAllOnOneIsolateSpreadOverBoth) {
  ManualClock clock;
  BalancerOptions balancer;
  balancer.period = 10ms;
  auto system = ActorSystem::create(
      "heavy",
      ActorSystemOptions::create().withIsolates(2).withManualRun().withClock(&clock).withBalancer(
          balancer));
  constexpr int kActors = 8;
  constexpr int kJobs = 8;  // per actor and period: 64 x 100 us, most of a 10 ms period
  std::int64_t done = 0;
  std::vector<ActorRef> busy;
  for (int i = 0; i < kActors; ++i) {
    busy.push_back(system->spawn<Busy>("b" + std::to_string(i),
                                       ActorOptions::create().withIsolate(0).withThroughput(1),
                                       100us, &done));
  }
  std::int64_t sent = 0;
  for (int period = 0; period < 16; ++period) {
    for (int j = 0; j < kJobs; ++j) {
      for (const ActorRef& b : busy) b.tell(Job{});
    }
    sent += kActors * kJobs;
    system->runUntilIdle();
    clock.advance(10ms);
    system->runUntilIdle();
  }
  EXPECT_EQ(done, sent);
  int onZero = 0;
  for (const ActorRef& b : busy) onZero += whereIs(*system, b) == 0 ? 1 : 0;
  EXPECT_GE(onZero, kActors / 2 - 1) << "of " << kActors;
  EXPECT_LE(onZero, kActors / 2 + 1) << "of " << kActors;
}

TEST(Balancer, BadSettingsAreNamedErrors) {
  BalancerOptions zeroPeriod;
  zeroPeriod.period = 0ms;
  EXPECT_EQ(test::errorOf([&] { ActorSystemOptions::create().withBalancer(zeroPeriod); }),
            Error::ErrInvalidOption);
  BalancerOptions noSamples;
  noSamples.sampleEvery = 0;
  EXPECT_EQ(test::errorOf([&] { ActorSystemOptions::create().withBalancer(noSamples); }),
            Error::ErrInvalidOption);
  BalancerOptions noMoves;
  noMoves.maxMovesPerActor = 0;
  EXPECT_EQ(test::errorOf([&] { ActorSystemOptions::create().withBalancer(noMoves); }),
            Error::ErrInvalidOption);
}

}  // namespace
}  // namespace coreactor
