// Many isolates: the rings between them, order per pair, backpressure, wake-ups,
// ask and death watch across isolates, placement. SPEC L5, X1-X4, A2, D8.
// Threaded systems (the rings are the path between loop threads); every wait
// has a generous deadline and the assertions are about counts and order.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Async.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;

struct Numbered {
  std::int64_t n;
};
struct Go {
  ActorRef to;
  std::int64_t count;
};

template <class F>
bool eventually(F&& done, std::chrono::seconds within = 60s) {
  const auto deadline = std::chrono::steady_clock::now() + within;
  while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(1ms);
  return done();
}

// Sends `count` numbered messages to `to` in one turn.
struct Burst : Actor {
  void receive(ReceiveContext& ctx) override {
    if (const Go* go = ctx.get<Go>()) {
      for (std::int64_t i = 0; i < go->count; ++i) ctx.tell(go->to, Numbered{i});
    }
  }
};

struct InOrder : Actor {
  InOrder(std::atomic<std::int64_t>* received, std::atomic<std::int64_t>* outOfOrder)
      : received(received), outOfOrder(outOfOrder) {}
  void receive(ReceiveContext& ctx) override {
    if (const Numbered* m = ctx.get<Numbered>()) {
      if (m->n != next) outOfOrder->fetch_add(1);
      next = m->n + 1;
      received->fetch_add(1);
    }
  }
  std::int64_t next = 0;
  std::atomic<std::int64_t>* received;
  std::atomic<std::int64_t>* outOfOrder;
};

TEST(Isolates, MessagesBetweenOnePairKeepTheirOrderThroughRingAndOverflow) {
  // SPEC A2, X1: 200k messages from isolate 0 to isolate 1 in one turn, through
  // a 16-slot ring, so most of them wait in the overflow list first.
  auto system = ActorSystem::create("order", ActorSystemOptions::create()
                                                 .withIsolates(2)
                                                 .withCrossIsolateBuffer(16, 1u << 20)
                                                 .withLogLevel(LogLevel::Off));
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  ActorRef sink = system->spawn<InOrder>("sink", ActorOptions::create().withIsolate(1), &received,
                                         &outOfOrder);
  ActorRef source = system->spawn<Burst>("source", ActorOptions::create().withIsolate(0));
  source.tell(Go{sink, 200000});
  ASSERT_TRUE(eventually([&] { return received.load() == 200000; })) << received.load();
  EXPECT_EQ(outOfOrder.load(), 0);
  system->shutdown();
}

TEST(Isolates, AFullRingAndOverflowListDeadLetterTheRestAndCountIt) {
  // SPEC X3: a 2-slot ring and an overflow list of 100: of 10,000 messages
  // sent in one turn, what does not fit is a dead letter; nothing vanishes.
  auto system = ActorSystem::create("backpressure", ActorSystemOptions::create()
                                                        .withIsolates(2)
                                                        .withCrossIsolateBuffer(2, 100)
                                                        .withLogLevel(LogLevel::Off));
  std::atomic<std::int64_t> dead{0};
  std::atomic<std::int64_t> backpressure{0};
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    dead.fetch_add(1);
    if (d.reason.find("backpressure") != std::string::npos) backpressure.fetch_add(1);
  });
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  ActorRef sink = system->spawn<InOrder>("sink", ActorOptions::create().withIsolate(1), &received,
                                         &outOfOrder);
  ActorRef source = system->spawn<Burst>("source", ActorOptions::create().withIsolate(0));
  source.tell(Go{sink, 10000});
  ASSERT_TRUE(eventually([&] { return received.load() + dead.load() == 10000; }))
      << received.load() << " + " << dead.load();
  EXPECT_GT(backpressure.load(), 0);
  EXPECT_EQ(backpressure.load(), dead.load());
  EXPECT_GE(received.load(), 102) << "the ring and the overflow list were used";
  system->shutdown();
}

struct Ball {
  int left;
};

TEST(Isolates, NoWakeUpIsLostBetweenTwoMostlySleepingIsolates) {
  // SPEC X1: 20,000 one-at-a-time round trips between two isolates that sleep
  // between messages; a lost wake-up would stall the volley.
  auto system = ActorSystem::create(
      "wake", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));
  std::promise<void> done;
  auto player = [&](ReceiveContext& ctx) {
    const Ball* b = ctx.get<Ball>();
    if (b == nullptr) return;
    if (b->left == 0) {
      done.set_value();
      return;
    }
    ctx.reply(Ball{b->left - 1});
  };
  ActorRef a = system->spawn("a", player, ActorOptions::create().withIsolate(0));
  ActorRef b = system->spawn("b", player, ActorOptions::create().withIsolate(1));
  a.tell(Ball{20000}, b);
  EXPECT_EQ(done.get_future().wait_for(120s), std::future_status::ready);
  system->shutdown();
}

struct Asker : AsyncActor {
  explicit Asker(ActorRef peer) : peer(peer) {}
  Async receiveAsync(ReceiveContext& ctx) override {
    if (!ctx.is<Go>()) co_return;
    ActorRef asker = ctx.sender();
    std::int64_t sum = 0;
    for (int i = 0; i < 100; ++i) {
      auto r = co_await ctx.askAsync<std::int64_t>(peer, Numbered{i}, 10s);
      if (r) sum += r.value();
    }
    asker.tell(sum);
  }
  ActorRef peer;
};

TEST(Isolates, AskAndDeathWatchWorkAcrossIsolates) {
  // SPEC A2, A3, A5 across isolates.
  auto system = ActorSystem::create(
      "ask", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));
  ActorRef doubler = system->spawn(
      "doubler",
      [](ReceiveContext& ctx) {
        if (const Numbered* n = ctx.get<Numbered>()) ctx.reply(n->n * 2);
      },
      ActorOptions::create().withIsolate(1));
  ActorRef asker = system->spawn<Asker>("asker", ActorOptions::create().withIsolate(0), doubler);
  EXPECT_EQ(system->ask<std::int64_t>(asker, Go{}, 30s).get(), 2 * (99 * 100 / 2));

  std::promise<ActorRef> terminated;
  ActorRef watcher = system->spawn(
      "watcher",
      [&](ReceiveContext& ctx) {
        if (const ActorRef* r = ctx.get<ActorRef>()) ctx.watch(*r);
        if (const Terminated* t = ctx.get<Terminated>()) terminated.set_value(t->actor);
      },
      ActorOptions::create().withIsolate(0));
  watcher.tell(doubler);
  system->stop(doubler);
  auto f = terminated.get_future();
  ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
  EXPECT_EQ(f.get(), doubler);
  system->shutdown();
}

TEST(Isolates, StopWithTheRingsFullAccountsForEveryMessage) {
  // SPEC X2: an immediate stop while two isolates flood each other: every
  // message sent is delivered or a dead letter, exactly once.
  auto system = ActorSystem::create("stop-under-load", ActorSystemOptions::create()
                                                           .withIsolates(2)
                                                           .withCrossIsolateBuffer(64, 1u << 20)
                                                           .withLogLevel(LogLevel::Off));
  std::atomic<std::int64_t> dead{0};
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.message != nullptr && d.message->is<Numbered>()) dead.fetch_add(1);
  });
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  std::vector<ActorRef> sinks;
  std::vector<ActorRef> sources;
  for (std::size_t i = 0; i < 4; ++i) {
    sinks.push_back(system->spawn<InOrder>("", ActorOptions::create().withIsolate(i % 2),
                                           &received, &outOfOrder));
    sources.push_back(system->spawn<Burst>("", ActorOptions::create().withIsolate(1 - i % 2)));
  }
  for (std::size_t i = 0; i < 4; ++i) sources[i].tell(Go{sinks[i], 50000});
  eventually([&] { return received.load() > 1000; });
  system->stop();
  EXPECT_EQ(received.load() + dead.load(), 4 * 50000) << received.load() << " + " << dead.load();
  EXPECT_EQ(outOfOrder.load(), 0);
}

TEST(Isolates, TheBufferOptionRefusesARingOfFewerThanTwoSlots) {
  // SPEC X3, bad input.
  EXPECT_EQ(test::errorOf([] { ActorSystemOptions::create().withCrossIsolateBuffer(1, 10); }),
            Error::ErrInvalidOption);
}

}  // namespace
}  // namespace coreactor
