// The actor system on one isolate: spawn, tell, throughput, order, stop,
// dead letters. SPEC A1, A2, A7, D7.
#include <gtest/gtest.h>

#include <atomic>
#include <future>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Dispatchers.hpp"
#include "coreactor/Isolate.hpp"

namespace coreactor {
namespace {

using test::errorOf;

std::unique_ptr<ActorSystem> manualSystem(
    ActorSystemOptions options = ActorSystemOptions::create()) {
  return ActorSystem::create("test", options.withManualRun());
}

struct Add {
  int n;
};
struct Get {};

struct Counter : Actor {
  int count = 0;
  void receive(ReceiveContext& ctx) override {
    if (auto* add = ctx.get<Add>()) {
      count += add->n;
    } else if (ctx.is<Get>()) {
      ctx.reply(count);
    }
  }
};

TEST(ActorSystem, SpawnsAnActorThatReceivesWhatIsToldInOrder) {
  // SPEC A1, A2
  auto system = manualSystem();
  std::vector<int> seen;
  ActorRef a = system->spawn("a", [&](ReceiveContext& ctx) { seen.push_back(*ctx.get<int>()); });
  for (int i = 0; i < 100; ++i) a.tell(i);
  system->runUntilIdle();
  ASSERT_EQ(seen.size(), 100u);
  for (int i = 0; i < 100; ++i) EXPECT_EQ(seen[i], i);
  EXPECT_EQ(a.path(), "/user/a");
  EXPECT_EQ(a.isolateIndex(), 0u);
}

TEST(ActorSystem, AsksFromOutsideAndGetsTheReply) {
  // SPEC A3
  auto system = ActorSystem::create("threads");
  ActorRef counter = system->spawn<Counter>("counter");
  for (int i = 1; i <= 10; ++i) counter.tell(Add{i});
  auto reply = system->ask<int>(counter, Get{}, std::chrono::seconds(30));
  ASSERT_EQ(reply.wait_for(std::chrono::seconds(30)), std::future_status::ready);
  EXPECT_EQ(reply.get(), 55);
  system->shutdown();
}

TEST(ActorSystem, HandlesAtMostThroughputMessagesPerTurn) {
  // SPEC D7: the actor's own knob counts messages per turn.
  auto system = manualSystem();
  std::map<std::uint64_t, int> perTurn;  // key: the isolate's unit count when it ran
  Isolate& isolate = system->isolate(0);
  ActorRef a = system->spawn(
      "a",
      [&](ReceiveContext&) { ++perTurn[isolate.stats().microtasks + isolate.stats().macrotasks]; },
      ActorOptions::create().withThroughput(5));
  system->runUntilIdle();
  for (int i = 0; i < 23; ++i) a.tell(i);
  system->runUntilIdle();
  std::vector<int> sizes;
  for (auto& [k, n] : perTurn) sizes.push_back(n);
  EXPECT_EQ(sizes, (std::vector<int>{5, 5, 5, 5, 3}));
}

TEST(ActorSystem, PublishesADeadLetterForAMessageToAStoppedActor) {
  // SPEC A7
  auto system = manualSystem();
  std::vector<DeadLetter> letters;
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) { letters.push_back(d); });
  ActorRef a = system->spawn("a", [](ReceiveContext&) {});
  system->runUntilIdle();
  system->stop(a);
  system->runUntilIdle();
  a.tell(42);
  system->runUntilIdle();
  ASSERT_EQ(letters.size(), 1u);
  EXPECT_EQ(letters[0].recipient, a);
  EXPECT_EQ(letters[0].messageType, "int");
  ASSERT_NE(letters[0].message, nullptr);
  EXPECT_EQ(*letters[0].message->get<int>(), 42);
  EXPECT_EQ(system->deadLetterCount(), 1u);
}

TEST(ActorSystem, RefusesADuplicateTopLevelName) {
  auto system = manualSystem();
  system->spawn("a", [](ReceiveContext&) {});
  EXPECT_EQ(errorOf([&] { system->spawn("a", [](ReceiveContext&) {}); }), Error::ErrDuplicateName);
}

}  // namespace
}  // namespace coreactor
