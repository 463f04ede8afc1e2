// The system's options and its reports: the default dispatcher per isolate,
// DispatcherError, the event stream, bad input. SPEC D7, D8, D11, D12, A2, A8.
#include <gtest/gtest.h>

#include <future>
#include <set>
#include <thread>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Dispatchers.hpp"

namespace coreactor {
namespace {

using test::errorOf;

TEST(SystemOptions, RefuseBadValuesWithNamedErrors) {
  // Bad input
  EXPECT_EQ(errorOf([] { ActorOptions::create().withThroughput(0); }), Error::ErrInvalidThroughput);
  EXPECT_EQ(errorOf([] { ActorSystemOptions::create().withThroughput(0); }),
            Error::ErrInvalidThroughput);
  EXPECT_EQ(errorOf([] { ActorSystemOptions::create().withIsolates(0); }), Error::ErrInvalidOption);
  auto system = ActorSystem::create("bad", ActorSystemOptions::create().withManualRun());
  EXPECT_EQ(errorOf([&] {
              system->spawn(
                  "far", [](ReceiveContext&) {}, ActorOptions::create().withIsolate(3));
            }),
            Error::ErrIsolateOutOfRange);
  EXPECT_EQ(errorOf([&] { system->isolate(1); }), Error::ErrIsolateOutOfRange);
  EXPECT_EQ(errorOf([&] { system->spawn("a/b", [](ReceiveContext&) {}); }),
            Error::ErrInvalidOption);
}

TEST(SystemOptions, ReportMisuseOfTheSystemWithNamedErrors) {
  // Bad input: docs/errors.md rows ErrNotManual, ErrIsolateRunning, ErrDead.
  auto threaded = ActorSystem::create("threaded");
  EXPECT_EQ(errorOf([&] { threaded->runUntilIdle(); }), Error::ErrNotManual);
  threaded->shutdown();

  auto manual = ActorSystem::create("manual", ActorSystemOptions::create().withManualRun());
  std::error_code nested;
  ActorRef a = manual->spawn(
      "a", [&](ReceiveContext& ctx) { nested = errorOf([&] { ctx.system().runUntilIdle(); }); });
  a.tell(1);
  manual->runUntilIdle();
  EXPECT_EQ(nested, Error::ErrIsolateRunning);
  EXPECT_EQ(errorOf([] { ActorRef().tell(1); }), Error::ErrDead) << "no system to report to";
}

TEST(SystemOptions, RefuseEmptyPartsWithErrInvalidOption) {
  // Bad input: docs/errors.md row ErrInvalidOption.
  EXPECT_EQ(errorOf([] { ActorOptions::create().withDispatcher(nullptr); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(errorOf([] { ActorSystemOptions::create().withDispatcher(nullptr); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(errorOf([] { ActorSystemOptions::create().withDispatcherFactory({}); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(errorOf([] { ActorSystemOptions::create().withLogSink(nullptr); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(errorOf([] { MailboxOptions::priority({}); }), Error::ErrInvalidOption);
}

TEST(SystemOptions, AnAskPendingWhenTheSystemStopsFailsWithErrActorSystemNotStarted) {
  // docs/errors.md row ErrActorSystemNotStarted: the pending ask, and a
  // stopping parent that tries to spawn.
  ManualClock clock;  // the ask's hour-long timeout must not hold runUntilIdle
  auto system = ActorSystem::create("pending",
                                    ActorSystemOptions::create().withManualRun().withClock(&clock));
  ActorRef mute = system->spawn("mute", [](ReceiveContext&) {});
  auto reply = system->ask<int>(mute, 1, std::chrono::hours(1));
  system->runUntilIdle();
  EXPECT_EQ(reply.wait_for(std::chrono::seconds(0)), std::future_status::timeout);
  system->stop();
  ASSERT_EQ(reply.wait_for(std::chrono::seconds(0)), std::future_status::ready);
  EXPECT_EQ(errorOf([&] { reply.get(); }), Error::ErrActorSystemNotStarted);

  auto other = ActorSystem::create("stopping", ActorSystemOptions::create().withManualRun());
  std::error_code spawnWhileStopping;
  struct Late : Actor {
    explicit Late(std::error_code* e) : e(e) {}
    void receive(ReceiveContext& ctx) override {
      ctx.stop();
      *e = errorOf([&] { ctx.spawn("child", [](ReceiveContext&) {}); });
    }
    std::error_code* e;
  };
  ActorRef late = other->spawn<Late>("late", ActorOptions::create(), &spawnWhileStopping);
  late.tell(1);
  other->runUntilIdle();
  EXPECT_EQ(spawnWhileStopping, Error::ErrActorSystemNotStarted);
}

TEST(SystemOptions, GiveEachIsolateItsOwnInstanceOfTheDefaultDispatcher) {
  // SPEC D8
  auto system = ActorSystem::create(
      "d8", ActorSystemOptions::create().withManualRun().withIsolates(3).withDispatcher(
                Dispatchers::Hybrid(100)));
  std::set<Dispatcher*> instances;
  for (std::size_t i = 0; i < 3; ++i) {
    Dispatcher& d = system->dispatcher(i);
    instances.insert(&d);
    auto& hybrid = dynamic_cast<HybridDispatcher&>(d);
    EXPECT_EQ(hybrid.yieldEvery(), 100u);
    EXPECT_EQ(hybrid.isolate(), &system->isolate(i));
  }
  EXPECT_EQ(instances.size(), 3u);
}

TEST(SystemOptions, RefuseADefaultDispatcherThatCannotBeOnePerIsolate) {
  // SPEC D8: a third-party dispatcher without clone() needs a factory.
  struct Plain : Dispatcher {
    std::string_view id() const noexcept override { return "plain"; }
    void execute(Task& t) override { t.run(); }
  };
  EXPECT_EQ(errorOf([] {
              ActorSystem::create(
                  "x", ActorSystemOptions::create().withManualRun().withIsolates(2).withDispatcher(
                           std::make_shared<Plain>()));
            }),
            Error::ErrDispatcherNotClonable);
  int made = 0;
  auto system = ActorSystem::create(
      "factory",
      ActorSystemOptions::create().withManualRun().withIsolates(2).withDispatcherFactory([&] {
        ++made;
        return std::make_unique<ImmediateDispatcher>();
      }));
  EXPECT_EQ(made, 2);
}

TEST(SystemOptions, ShareAPerActorDispatcherOnlyWithinOneIsolate) {
  // SPEC D8
  auto system = ActorSystem::create("per-actor",
                                    ActorSystemOptions::create().withManualRun().withIsolates(2));
  auto own = std::make_shared<ImmediateDispatcher>();
  auto options = ActorOptions::create().withDispatcher(own);
  system->spawn(
      "a", [](ReceiveContext&) {}, options.withIsolate(0));
  system->spawn(
      "b", [](ReceiveContext&) {}, options.withIsolate(0));
  EXPECT_EQ(errorOf([&] {
              system->spawn(
                  "c", [](ReceiveContext&) {}, options.withIsolate(1));
            }),
            Error::ErrDispatcherBoundElsewhere);
}

TEST(SystemOptions, TheSystemFillsOnlyAnUnsetSinkAndReportsDispatcherErrors) {
  // SPEC D11, D12: a unit of no actor that throws reaches the event stream
  // (actor: none) through the sink the system filled in.
  auto system = ActorSystem::create("d11", ActorSystemOptions::create().withManualRun());
  std::vector<DispatcherError> errors;
  system->eventStream().subscribe<DispatcherError>(
      [&](const DispatcherError& e) { errors.push_back(e); });
  Dispatcher& d = system->dispatcher(0);
  system->isolate(0).post([&] { d.execute([] { throw std::runtime_error("no actor's work"); }); });
  testing::internal::CaptureStderr();
  system->runUntilIdle();
  const std::string err = testing::internal::GetCapturedStderr();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].dispatcherId, "hybrid-dispatcher");
  EXPECT_TRUE(errors[0].actor.isNone());
  EXPECT_EQ(describe(errors[0].cause), "no actor's work");
  EXPECT_NE(err.find("no actor's work"), std::string::npos) << "and a log record: " << err;

  int mine = 0;
  auto owned = std::make_shared<ImmediateDispatcher>();
  owned->setOnError([&](std::exception_ptr, std::string_view) { ++mine; });
  system->spawn(
      "x", [](ReceiveContext&) {}, ActorOptions::create().withDispatcher(owned));
  system->isolate(0).post([&] { owned->execute([] { throw std::runtime_error("mine"); }); });
  system->runUntilIdle();
  EXPECT_EQ(mine, 1) << "the owner's sink survived the spawn";
  EXPECT_EQ(errors.size(), 1u);
}

TEST(SystemOptions, ReportAFailingHookAsADispatcherErrorOfThatActor) {
  // SPEC D11: what fails around a handler is caught at the cell and carries
  // the actor whose turn it was.
  struct BadStop : Actor {
    void receive(ReceiveContext&) override {}
    void postStop(ReceiveContext&) override { throw std::runtime_error("postStop broke"); }
  };
  auto system = ActorSystem::create("hook", ActorSystemOptions::create().withManualRun());
  std::vector<DispatcherError> errors;
  system->eventStream().subscribe<DispatcherError>(
      [&](const DispatcherError& e) { errors.push_back(e); });
  ActorRef a = system->spawn<BadStop>("bad");
  system->runUntilIdle();
  testing::internal::CaptureStderr();
  system->stop(a);
  system->runUntilIdle();
  testing::internal::GetCapturedStderr();
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0].actor, a);
  EXPECT_EQ(describe(errors[0].cause), "postStop broke");
}

TEST(EventStream, DeliversToSubscribedActorsByTypeAndStopsAfterUnsubscribe) {
  // SPEC A8
  struct Custom {
    int n;
  };
  auto system = ActorSystem::create("events", ActorSystemOptions::create().withManualRun());
  std::vector<int> got;
  ActorRef listener =
      system->spawn("listener", [&](ReceiveContext& ctx) { got.push_back(ctx.get<Custom>()->n); });
  system->eventStream().subscribe<Custom>(listener);
  system->eventStream().publish(Custom{1});
  system->eventStream().publish(2);  // another type: not delivered
  system->runUntilIdle();
  system->eventStream().unsubscribe(listener);
  system->eventStream().publish(Custom{3});
  system->runUntilIdle();
  EXPECT_EQ(got, (std::vector<int>{1}));
}

TEST(ActorSystemThreads, KeepsOrderPerSenderFromManyThreads) {
  // SPEC A2: one receiver, three foreign senders, order per sender.
  auto system = ActorSystem::create("order");
  struct Item {
    int sender;
    int seq;
  };
  std::vector<int> last(3, -1);
  std::atomic<int> received{0};
  std::atomic<bool> inOrder{true};
  ActorRef sink = system->spawn("sink", [&](ReceiveContext& ctx) {
    const Item& item = *ctx.get<Item>();
    if (item.seq != last[item.sender] + 1) inOrder = false;
    last[item.sender] = item.seq;
    received.fetch_add(1);
  });
  std::vector<std::thread> senders;
  for (int s = 0; s < 3; ++s) {
    senders.emplace_back([&, s] {
      for (int i = 0; i < 20000; ++i) sink.tell(Item{s, i});
    });
  }
  for (auto& t : senders) t.join();
  const auto deadline = std::chrono::steady_clock::now() + std::chrono::seconds(60);
  while (received.load() < 60000 && std::chrono::steady_clock::now() < deadline) {
    std::this_thread::sleep_for(std::chrono::milliseconds(1));
  }
  system->shutdown();
  EXPECT_EQ(received.load(), 60000);
  EXPECT_TRUE(inOrder.load());
}

TEST(ActorSystemThreads, AccountsForEveryMessageSentWhileTheSystemStops) {
  // SPEC X2 (one isolate): sent = delivered + dead-lettered, even across stop.
  for (int round = 0; round < 10; ++round) {
    auto system = ActorSystem::create("stop-race");
    std::atomic<long> delivered{0};
    ActorRef sink = system->spawn("sink", [&](ReceiveContext&) { delivered.fetch_add(1); });
    std::thread sender([&] {
      for (int i = 0; i < 20000; ++i) sink.tell(i);
    });
    std::this_thread::sleep_for(std::chrono::microseconds(200 * round));
    system->stop();
    sender.join();
    EXPECT_EQ(delivered.load() + static_cast<long>(system->deadLetterCount()), 20000)
        << "round " << round;
  }
}

}  // namespace
}  // namespace coreactor
