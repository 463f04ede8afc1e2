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
