// The system's options and its reports: the default dispatcher per isolate,
// DispatcherError, the event stream, bad input. SPEC D7, D8, D11, D12, A2, A8.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <set>
#include <string>
#include <thread>
#include <unordered_set>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Dispatchers.hpp"
#include "coreactor/testkit/TestKit.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
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

TEST(Shutdown, EndsWhileMoreThreadsThanCpusKeepTellingAndAccountsForEveryMessage) {
  // SPEC X2: from the moment a graceful shutdown begins, a tell from a
  // foreign thread is a dead letter; what was queued before is taken;
  // shutdown() returns however hard the senders push, and every message is
  // handled or dead-lettered.
  auto system = ActorSystem::create("flooded", ActorSystemOptions::create().withIsolates(2));
  std::atomic<long> handled{0};
  std::vector<ActorRef> sinks;
  for (std::size_t i = 0; i < 4; ++i) {
    sinks.push_back(system->spawn(
        "sink-" + std::to_string(i), [&](ReceiveContext&) { handled.fetch_add(1); },
        ActorOptions::create().withIsolate(i % 2)));
  }
  const std::size_t senders = std::thread::hardware_concurrency() + 3;
  std::atomic<bool> go{true};
  std::atomic<long> sent{0};
  std::vector<std::thread> threads;
  for (std::size_t t = 0; t < senders; ++t) {
    threads.emplace_back([&, t] {
      long mine = 0;
      for (std::size_t i = t; go.load(std::memory_order_relaxed); ++i, ++mine) {
        sinks[i % sinks.size()].tell(static_cast<int>(i));
      }
      sent.fetch_add(mine);
    });
  }
  ASSERT_TRUE(test::eventually([&] { return handled.load() > 10000; }, 60s));
  auto done = std::async(std::launch::async, [&] { system->shutdown(); });
  const bool ended = done.wait_for(120s) == std::future_status::ready;
  go.store(false);
  for (std::thread& t : threads) t.join();
  ASSERT_TRUE(ended) << "shutdown() did not return while " << senders << " threads kept telling";
  done.get();
  EXPECT_FALSE(system->running());
  EXPECT_EQ(handled.load() + static_cast<long>(system->deadLetterCount()), sent.load());
  EXPECT_GT(system->deadLetterCount(), 0u) << "the tells after the shutdown began";
}

// ---- where a system ends: foreign references, several systems on one thread --------

struct Get {};

TEST(SystemBoundaries, AReferenceFromAnotherSystemIsDeadThereAndNeverReachesItsNamesake) {
  // SPEC A2, A3, A5: b->stop, b->ask and a watch in b of a's reference treat
  // it as dead for b; b's actor with the same id is untouched.
  auto a = ActorSystem::create("a", ActorSystemOptions::create().withManualRun());
  auto b = ActorSystem::create("b", ActorSystemOptions::create().withManualRun());
  int handledInA = 0;
  int handledInB = 0;
  ActorRef inA = a->spawn("x", [&](ReceiveContext& ctx) {
    ++handledInA;
    if (ctx.is<Get>()) ctx.reply(1);
  });
  ActorRef inB = b->spawn("x", [&](ReceiveContext& ctx) {
    ++handledInB;
    if (ctx.is<Get>()) ctx.reply(2);
  });
  a->runUntilIdle();
  b->runUntilIdle();
  ASSERT_EQ(inA.id(), inB.id()) << "the test needs two actors with the same id";
  ASSERT_NE(inA, inB);

  b->stop(inA);
  auto asked = b->ask<int>(inA, Get{}, 1s);
  ASSERT_EQ(asked.wait_for(0s), std::future_status::ready) << "a dead target fails at once";
  EXPECT_EQ(errorOf([&] { asked.get(); }), Error::ErrDead);
  std::vector<ActorRef> terminated;
  ActorRef watcher = b->spawn("watcher", [&](ReceiveContext& ctx) {
    if (ctx.is<std::string>()) ctx.watch(inA);
    if (auto* t = ctx.get<Terminated>()) terminated.push_back(t->actor);
  });
  watcher.tell(std::string("watch"));
  b->runUntilIdle();
  ASSERT_EQ(terminated.size(), 1u) << "watching a reference that is dead here: Terminated at once";
  EXPECT_EQ(terminated[0], inA);

  // Both actors with that id still live and answer in their own systems.
  inB.tell(Get{});
  inA.tell(Get{});
  b->runUntilIdle();
  a->runUntilIdle();
  EXPECT_EQ(handledInB, 1);
  EXPECT_EQ(handledInA, 1);
  EXPECT_EQ(b->ask<int>(inB, Get{}, 1s).get(), 2);
  EXPECT_EQ(a->ask<int>(inA, Get{}, 1s).get(), 1);

  // As keys, the two references are two (std::hash takes the system too).
  std::unordered_set<ActorRef> keys{inA, inB};
  EXPECT_EQ(keys.size(), 2u);
  EXPECT_NE(std::hash<ActorRef>()(inA), std::hash<ActorRef>()(inB));
  EXPECT_EQ(keys.count(inA), 1u);
  EXPECT_EQ(keys.count(inB), 1u);
}

TEST(SystemBoundaries, AnyNumberOfManualSystemsShareAThreadAndEachIsDriven) {
  // SPEC A12: two TestKits on one thread, the second made and destroyed
  // while the first lives; each keeps driving its own system.
  testkit::TestKit first("first");
  testkit::TestProbe probe = first.probe();
  {
    testkit::TestKit second("second");
    testkit::TestProbe other = second.probe();
    ActorRef echo = second.system().spawn("echo", [](ReceiveContext& ctx) {
      if (auto* n = ctx.get<int>()) ctx.reply(*n + 1);
    });
    echo.tell(1, other.ref());
    EXPECT_EQ(other.expectMsg<int>(), 2);
    // A schedule made from the driving thread lives on the target's isolate at once.
    EXPECT_FALSE(second.system().scheduleOnce(7, other.ref(), 1s).wait());
    second.advance(1s);
    EXPECT_EQ(other.expectMsg<int>(), 7);
  }
  EXPECT_FALSE(first.system().scheduleOnce(std::string("tick"), probe.ref(), 2s).wait())
      << "the first kit's system is still driven by this thread";
  first.advance(2s);
  EXPECT_EQ(probe.expectMsg<std::string>(), "tick");
}

TEST(SystemBoundaries, RunUntilIdleFromAThreadOtherThanTheCreatorsIsErrNotOnIsolate) {
  // Bad input: docs/errors.md row ErrNotOnIsolate.
  auto manual = ActorSystem::create("manual", ActorSystemOptions::create().withManualRun());
  std::error_code fromElsewhere;
  std::thread([&] { fromElsewhere = errorOf([&] { manual->runUntilIdle(); }); }).join();
  EXPECT_EQ(fromElsewhere, Error::ErrNotOnIsolate);
  EXPECT_EQ(errorOf([&] { manual->runUntilIdle(); }), std::error_code()) << "its creator drives it";
}

// ---- subscribers that throw -----------------------------------------------------------

TEST(EventStream, ASubscriberThatThrowsIsReportedAndEveryoneElseCarriesOn) {
  // SPEC A7, A8, D11: a throwing DeadLetter callback reaches neither the
  // sender's tell nor a stop's dispose path; it becomes a DispatcherError
  // ("event-stream") and the other subscribers still get the event.
  auto system = ActorSystem::create("throwing", ActorSystemOptions::create().withManualRun());
  int letters = 0;
  std::vector<std::string> errors;
  system->eventStream().subscribe<DeadLetter>(std::function<void(const DeadLetter&)>(
      [](const DeadLetter&) { throw std::runtime_error("subscriber fails"); }));
  system->eventStream().subscribe<DeadLetter>(
      std::function<void(const DeadLetter&)>([&](const DeadLetter&) { ++letters; }));
  system->eventStream().subscribe<DispatcherError>(std::function<void(const DispatcherError&)>(
      [&](const DispatcherError& e) { errors.push_back(e.dispatcherId); }));
  ActorRef gone = system->spawn("gone", [](ReceiveContext&) {});
  system->stop(gone);
  system->runUntilIdle();
  std::error_code fromTell;
  ActorRef sender = system->spawn(
      "sender", [&](ReceiveContext& ctx) { fromTell = errorOf([&] { ctx.tell(gone, 1); }); });
  sender.tell(0);
  system->runUntilIdle();
  EXPECT_EQ(fromTell, std::error_code()) << "the subscriber's throw escaped the tell";
  EXPECT_EQ(letters, 1);
  ASSERT_EQ(errors.size(), 1u);
  EXPECT_EQ(errors[0], "event-stream");

  // The stop's dispose path publishes what is still queued: no terminate.
  ActorRef busy = system->spawn("busy", [](ReceiveContext&) {});
  system->runUntilIdle();
  for (int i = 0; i < 3; ++i) busy.tell(i);
  system->stop();
  EXPECT_EQ(letters, 4);
  EXPECT_EQ(errors.size(), 4u);
}

// ---- shutdown begun inside, and destruction from inside --------------------------------

struct Stopping : Actor {
  explicit Stopping(std::atomic<int>* stops, int children = 0)
      : stops_(stops), children_(children) {}
  void preStart(ReceiveContext& ctx) override {
    for (int i = 0; i < children_; ++i) {
      ctx.spawn<Stopping>("c" + std::to_string(i), ActorOptions::create(), stops_);
    }
  }
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<std::string>()) ctx.system().shutdown();
  }
  void postStop(ReceiveContext&) override {
    // A slow hook: without waiting, the owner's destructor overtakes most of them.
    std::this_thread::sleep_for(1ms);
    stops_->fetch_add(1);
  }
  std::atomic<int>* stops_;
  int children_;
};

TEST(Shutdown, AShutdownBegunInAHandlerIsWaitedForByTheOwnerAndEveryPostStopRunsOnce) {
  // SPEC A1, A5: the owner's shutdown() and the destructor both wait for the
  // graceful stop a handler began; every postStop runs exactly once.
  for (bool ownerCallsShutdown : {true, false}) {
    std::atomic<int> stops{0};
    auto system = ActorSystem::create("inside", ActorSystemOptions::create().withIsolates(2));
    std::vector<ActorRef> tops;
    for (int i = 0; i < 8; ++i) {
      tops.push_back(
          system->spawn<Stopping>("t" + std::to_string(i), ActorOptions::create(), &stops, 3));
    }
    tops[0].tell(std::string("shut down"));
    ASSERT_TRUE(test::eventually([&] { return !system->running(); }, 30s));
    if (ownerCallsShutdown) system->shutdown();
    system.reset();
    EXPECT_EQ(stops.load(), 8 * 4) << (ownerCallsShutdown ? "shutdown()" : "the destructor");
  }
}

struct Counted : Actor {
  explicit Counted(std::atomic<int>* gone) : gone_(gone) {}
  ~Counted() override { gone_->fetch_add(1); }
  void receive(ReceiveContext& ctx) override { ctx.reply(0); }
  std::atomic<int>* gone_;
};

TEST(Shutdown, DestroyingTheSystemInsideItsOwnHandlerStopsItAndTearsItDownAfterwards) {
  // SPEC A1: no abort (a loop would join its own thread); the system stops
  // as stop() does and its teardown completes once the handler has returned.
  for (bool manual : {false, true}) {
    std::atomic<int> gone{0};
    auto options = ActorSystemOptions::create();
    if (manual) options = options.withManualRun();
    ActorSystem* system = ActorSystem::create("doomed", options).release();
    ActorRef bystander = system->spawn<Counted>("bystander", ActorOptions::create(), &gone);
    ASSERT_EQ(system->ask<int>(bystander, 1, 30s).get(), 0) << "it has started";
    std::atomic<bool> returned{false};
    // No other thread may be inside a call on the system while it is
    // destroyed: the handler waits until the tell that woke it has returned.
    std::atomic<bool> told{false};
    ActorRef killer = system->spawn("killer", [&, system](ReceiveContext&) {
      while (!told.load()) std::this_thread::yield();
      delete system;
      returned = true;  // the handler goes on after the delete
    });
    killer.tell(1);
    told = true;
    if (manual) system->runUntilIdle();  // returns after freeing what the handler orphaned
    EXPECT_TRUE(test::eventually([&] { return returned.load() && gone.load() == 1; }, 30s))
        << (manual ? "manual" : "threaded");
  }
}

}  // namespace
}  // namespace coreactor
