// Feeding actors from foreign threads (requirement X1, X2, X3,
// A2): a plain tell through the target isolate's foreign inbox, and a
// Feeder's batches. Threaded systems with generous deadlines: every
// assertion is about what arrived and in which order, never about time.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Clock.hpp"
#include "coreactor/Feeder.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using test::errorOf;

/// Records the ints it gets, in order, and what it had when it stopped.
struct Recorder : Actor {
  Recorder(std::vector<int>* got, std::atomic<long>* atStop) : got_(got), atStop_(atStop) {}
  void receive(ReceiveContext& ctx) override {
    if (const int* n = ctx.get<int>()) got_->push_back(*n);
  }
  void postStop(ReceiveContext&) override { atStop_->store(static_cast<long>(got_->size())); }
  std::vector<int>* got_;
  std::atomic<long>* atStop_;
};

TEST(Foreign, TellsFromAThreadArriveInOrderAndAStopAfterThemLandsBehindThem) {
  // SPEC A2, X1: one thread's messages and its system message share one FIFO.
  auto system = ActorSystem::create("foreign", ActorSystemOptions::create().withIsolates(2));
  std::vector<int> got;
  std::atomic<long> atStop{-1};
  ActorRef actor =
      system->spawn<Recorder>("r", ActorOptions::create().withIsolate(1), &got, &atStop);
  for (int i = 0; i < 10000; ++i) actor.tell(i);
  actor.tell(PoisonPill{});
  ASSERT_TRUE(test::eventually([&] { return atStop.load() >= 0; }, 60s));
  ASSERT_EQ(atStop.load(), 10000) << "every tell before the pill was handled";
  for (int i = 0; i < 10000; ++i) ASSERT_EQ(got[static_cast<std::size_t>(i)], i);
  system->shutdown();
}

/// Counts the ints it is told; answers a Count with how many so far.
struct Count {
  int round = 0;
};
struct Counter : Actor {
  void receive(ReceiveContext& ctx) override {
    if (ctx.get<int>() != nullptr) ++told;
    if (ctx.get<Count>() != nullptr) ctx.reply(told);
  }
  int told = 0;
};

/// Logs what it gets: a tell as its int, an ask as minus its round.
struct OrderLog : Actor {
  explicit OrderLog(std::vector<int>* log) : log_(log) {}
  void receive(ReceiveContext& ctx) override {
    if (const int* n = ctx.get<int>()) log_->push_back(*n);
    if (const Count* ask = ctx.get<Count>()) {
      log_->push_back(-ask->round);
      ctx.reply(ask->round);
    }
  }
  std::vector<int>* log_;
};

TEST(Foreign, AnAskFromAThreadLandsBehindEveryTellThatThreadSentBefore) {
  // SPEC A2, A3: an ask's request is a message of its sender; from a
  // foreign thread it keeps its place behind that thread's tells, in the
  // future form and the callback form, with one isolate and with two.
  for (std::size_t isolates : {1, 2}) {
    auto system = ActorSystem::create("order", ActorSystemOptions::create().withIsolates(isolates));
    ActorRef counter =
        system->spawn<Counter>("counter", ActorOptions::create().withIsolate(isolates - 1));
    int sent = 0;
    for (int round = 0; round < 60; ++round) {
      const int n = 1 + (round * 257) % 1500;  // 1 to 1,500: several looks of the inbox
      for (int i = 0; i < n; ++i) counter.tell(i);
      sent += n;
      int counted = -1;
      if (round % 2 == 0) {
        counted = system->ask<int>(counter, Count{round}, 60s).get();
      } else {
        std::promise<int> reply;
        system->ask(counter, Message(Count{round}), 60s, [&](Message* m, std::error_code e) {
          reply.set_value(e ? -1 : *m->get<int>());
        });
        counted = reply.get_future().get();
      }
      ASSERT_EQ(counted, sent) << "round " << round << " with " << isolates << " isolate(s)";
    }
    system->shutdown();
  }
}

TEST(Foreign, ATellAfterAnAskFromTheSameThreadLandsBehindTheAsksRequest) {
  // SPEC A2: the other direction; the asks are not waited for before the
  // next tell.
  for (std::size_t isolates : {1, 2}) {
    auto system = ActorSystem::create("order", ActorSystemOptions::create().withIsolates(isolates));
    std::vector<int> log;
    ActorRef actor =
        system->spawn<OrderLog>("log", ActorOptions::create().withIsolate(isolates - 1), &log);
    std::vector<AskFuture<int>> replies;
    constexpr int kRounds = 200;
    for (int round = 1; round <= kRounds; ++round) {
      replies.push_back(system->ask<int>(actor, Count{round}, 60s));
      actor.tell(round);
    }
    for (int round = 1; round <= kRounds; ++round) {
      ASSERT_EQ(replies[static_cast<std::size_t>(round - 1)].get(), round);
    }
    system->shutdown();  // the log is read once the actor has stopped
    ASSERT_EQ(log.size(), 2u * kRounds);
    for (int round = 1; round <= kRounds; ++round) {
      EXPECT_EQ(log[static_cast<std::size_t>(2 * round - 2)], -round)
          << "the ask of round " << round;
      EXPECT_EQ(log[static_cast<std::size_t>(2 * round - 1)], round)
          << "the tell of round " << round;
    }
  }
}

TEST(Foreign, OnAManualSystemTheDrivingThreadsAskLandsBehindItsTells) {
  // SPEC A2, A12: the thread that drives a manual system, same rule.
  ManualClock clock;
  auto system = ActorSystem::create(
      "manual", ActorSystemOptions::create().withManualRun().withClock(&clock).withIsolates(2));
  ActorRef counter = system->spawn<Counter>("counter", ActorOptions::create().withIsolate(1));
  int sent = 0;
  for (int round = 0; round < 20; ++round) {
    const int n = 1 + (round * 131) % 700;
    for (int i = 0; i < n; ++i) counter.tell(i);
    sent += n;
    ASSERT_EQ(system->ask<int>(counter, Count{round}, 60s).get(), sent) << "round " << round;
  }
}

TEST(Feeder, GathersPerIsolateAndDeliversEverythingInOrderOnceFlushed) {
  // SPEC A2, X1: a Feeder's batches, to actors on two isolates.
  auto system = ActorSystem::create("feeder", ActorSystemOptions::create().withIsolates(2));
  std::vector<int> got0, got1;
  std::atomic<long> stop0{-1}, stop1{-1};
  ActorRef a = system->spawn<Recorder>("a", ActorOptions::create().withIsolate(0), &got0, &stop0);
  ActorRef b = system->spawn<Recorder>("b", ActorOptions::create().withIsolate(1), &got1, &stop1);
  {
    Feeder feeder(*system, 64);
    for (int i = 0; i < 1000; ++i) {
      feeder.tell(a, i);
      feeder.tell(b, i);
    }
    EXPECT_EQ(feeder.pending(), 1000u - 15u * 64u + 1000u - 15u * 64u)
        << "whole batches of 64 went in as they filled; the rest waits";
    feeder.tell(a, PoisonPill{});
    feeder.tell(b, PoisonPill{});
    feeder.flush();
    EXPECT_EQ(feeder.pending(), 0u);
  }
  ASSERT_TRUE(test::eventually([&] { return stop0.load() >= 0 && stop1.load() >= 0; }, 60s));
  ASSERT_EQ(got0.size(), 1000u);
  ASSERT_EQ(got1.size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(got0[static_cast<std::size_t>(i)], i);
    ASSERT_EQ(got1[static_cast<std::size_t>(i)], i);
  }
  system->shutdown();
}

TEST(Feeder, ItsDestructorFlushesAndAManualSystemTakesTheBatchWhenItRuns) {
  // SPEC X1: the batch is delivered by the driving thread's next run.
  auto system = ActorSystem::create("manual-feeder", ActorSystemOptions::create().withManualRun());
  std::vector<int> got;
  std::atomic<long> atStop{-1};
  ActorRef a = system->spawn<Recorder>("a", ActorOptions::create(), &got, &atStop);
  system->runUntilIdle();
  {
    Feeder feeder(*system);
    for (int i = 0; i < 10; ++i) feeder.tell(a, i);
    system->runUntilIdle();
    EXPECT_TRUE(got.empty()) << "nothing is delivered before its batch is flushed";
  }
  system->runUntilIdle();
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2, 3, 4, 5, 6, 7, 8, 9}));
}

TEST(Feeder, WhatItFlushesToAStoppedSystemIsDeadLetteredAndCounted) {
  // SPEC X2: nothing is lost silently.
  auto system = ActorSystem::create("stopped-feeder", ActorSystemOptions::create().withIsolates(2));
  ActorRef a = system->spawn(
      "a", [](ReceiveContext&) {}, ActorOptions::create().withIsolate(1));
  Feeder feeder(*system);
  system->stop();
  const auto before = system->deadLetterCount();
  for (int i = 0; i < 100; ++i) feeder.tell(a, i);
  feeder.flush();
  EXPECT_EQ(system->deadLetterCount(), before + 100);
}

/// Holds its isolate while it handles a Hold, until `gate` opens; counts
/// the ints it gets and how many came in order.
struct Held : Actor {
  Held(std::shared_future<void> gate, std::atomic<int>* holds, std::atomic<int>* got,
       std::atomic<int>* inOrder)
      : gate_(std::move(gate)), holds_(holds), got_(got), inOrder_(inOrder) {}
  void receive(ReceiveContext& ctx) override {
    if (const int* n = ctx.get<int>()) {
      if (*n == got_->load()) inOrder_->fetch_add(1);
      got_->fetch_add(1);
    } else {
      holds_->fetch_add(1);
      gate_.wait();
    }
  }
  std::shared_future<void> gate_;
  std::atomic<int>* holds_;
  std::atomic<int>* got_;
  std::atomic<int>* inOrder_;
};

struct Hold {};

TEST(Feeder, ItsFlushWaitsWhileTheInboxHoldsItsLimitInLettersOfBatches) {
  // SPEC X3: a Feeder's batch counts its letters against the limit, not as
  // one item, so a feeding thread waits for room and loses nothing.
  auto system = ActorSystem::create(
      "feeder-limit",
      ActorSystemOptions::create().withIsolates(1).withForeignInboxLimit(100).withLogLevel(
          LogLevel::Off));
  std::promise<void> release;
  std::atomic<int> holds{0}, got{0}, inOrder{0};
  ActorRef sink = system->spawn<Held>("sink", ActorOptions::create(), release.get_future().share(),
                                      &holds, &got, &inOrder);
  sink.tell(Hold{});
  ASSERT_TRUE(test::eventually([&] { return holds.load() == 1; }, 60s));
  std::thread feeding([&] {
    Feeder feeder(*system, 64);
    for (int i = 0; i < 1000; ++i) feeder.tell(sink, i);
  });
  EXPECT_TRUE(test::eventually([&] { return system->transportStats().foreignBlocked > 0; }, 60s))
      << "two batches of 64 exceed a limit of 100 letters";
  release.set_value();
  feeding.join();
  ASSERT_TRUE(test::eventually([&] { return got.load() == 1000; }, 60s)) << got.load();
  EXPECT_EQ(inOrder.load(), 1000);
  system->shutdown();
}

TEST(Feeder, ABatchLargerThanALookIsDeliveredInOrderAndAStopHalfwayLosesNothing) {
  // SPEC X2, A2: three batches of 1,000, each delivered over several looks
  // of the loop (a look takes 256 letters), in order. In the second round
  // the actor holds its loop once it has handled 300, the system is
  // stopped meanwhile, and every message not handled by then (those in its
  // mailbox, the rest of the first batch, which the loop had begun, and
  // the two others) is a dead letter.
  for (const bool stopHalfway : {false, true}) {
    auto system = ActorSystem::create(
        "feeder-batches", ActorSystemOptions::create().withIsolates(1).withLogLevel(LogLevel::Off));
    std::promise<void> release;
    std::atomic<int> holds{0}, got{0}, inOrder{0};
    ActorRef sink = system->spawn<Held>("sink", ActorOptions::create(),
                                        release.get_future().share(), &holds, &got, &inOrder);
    const auto before = system->deadLetterCount();
    {
      Feeder feeder(*system, 1000);
      for (int i = 0; i < 3000; ++i) {
        if (stopHalfway && i == 300) feeder.tell(sink, Hold{});
        feeder.tell(sink, i);
      }
      EXPECT_EQ(feeder.pending(), stopHalfway ? 1u : 0u) << "three whole batches went in";
    }
    if (stopHalfway) {
      ASSERT_TRUE(test::eventually([&] { return holds.load() == 1; }, 60s));
      std::thread stopper([&] { system->stop(); });
      std::this_thread::sleep_for(10ms);  // not needed for the sums; lets stop() begin first
      release.set_value();
      stopper.join();
      const auto dead = static_cast<int>(system->deadLetterCount() - before);
      EXPECT_GE(got.load(), 300) << "the hold came after the 300th";
      EXPECT_EQ(got.load() + dead, 3000) << got.load() << " delivered, " << dead << " dead";
      EXPECT_GE(dead, 2000) << "the two batches behind the one begun were never opened";
      EXPECT_EQ(inOrder.load(), got.load()) << "what was delivered came in order";
    } else {
      ASSERT_TRUE(test::eventually([&] { return got.load() == 3000; }, 60s)) << got.load();
      EXPECT_EQ(inOrder.load(), 3000);
      EXPECT_EQ(system->deadLetterCount(), before);
      system->shutdown();
    }
  }
}

TEST(Feeder, ABatchOfZeroIsANamedErrorAndFromAnActorItTellsAtOnce) {
  // Bad input: docs/errors.md row ErrInvalidOption.
  auto system = ActorSystem::create("feeder-misuse", ActorSystemOptions::create().withManualRun());
  EXPECT_EQ(errorOf([&] { Feeder feeder(*system, 0); }), Error::ErrInvalidOption);
  std::vector<int> got;
  std::atomic<long> atStop{-1};
  ActorRef sink = system->spawn<Recorder>("sink", ActorOptions::create(), &got, &atStop);
  std::size_t pendingInside = 99;
  ActorRef user = system->spawn("user", [&](ReceiveContext& ctx) {
    Feeder feeder(ctx.system(), 8);
    feeder.tell(sink, 7);
    pendingInside = feeder.pending();
  });
  user.tell(1);
  system->runUntilIdle();
  EXPECT_EQ(pendingInside, 0u) << "on one of the system's isolates a tell goes at once";
  EXPECT_EQ(got, std::vector<int>{7});
}

}  // namespace
}  // namespace coreactor
