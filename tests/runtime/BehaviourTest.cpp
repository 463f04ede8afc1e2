// The behaviour tools of ReceiveContext: become and unbecome, the stash,
// the receive timeout (docs/actors.md). Run on the TestKit's manual clock.
#include <gtest/gtest.h>

#include <stdexcept>
#include <string>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/testkit/TestKit.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using testkit::TestKit;

struct Boom {};
struct Open {};
struct Swap {};
struct Back {};

// Tells the probe "<mood>:<n>" for each int; Swap pushes or replaces the
// behaviour, Back unbecomes, Boom throws.
struct Moody : Actor {
  Moody(ActorRef probe, bool stack) : probe(probe), stack(stack) {}
  void receive(ReceiveContext& ctx) override { handle(ctx, "calm"); }
  void handle(ReceiveContext& ctx, const std::string& mood) {
    if (const int* n = ctx.get<int>()) probe.tell(mood + ":" + std::to_string(*n));
    if (ctx.is<Swap>()) {
      const std::string next = mood == "calm" ? "angry" : mood == "angry" ? "sad" : "calm";
      ctx.become([this, next](ReceiveContext& c) { handle(c, next); }, /*discardOld=*/!stack);
    }
    if (ctx.is<Back>()) ctx.unbecome();
    if (ctx.is<Boom>()) throw std::runtime_error("boom");
  }
  ActorRef probe;
  bool stack;
};

TEST(Behaviour, BecomeHandsTheNextMessagesToTheNewBehaviour) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef a = kit.system().spawn<Moody>("moody", ActorOptions::create(), probe.ref(), false);
  a.tell(1);
  a.tell(Swap{});
  a.tell(2);
  a.tell(Swap{});  // replaces angry with sad: nothing under it but receive()
  a.tell(3);
  a.tell(Back{});
  a.tell(4);
  a.tell(Back{});  // receive() is current: nothing happens
  a.tell(5);
  kit.run();
  EXPECT_EQ(probe.expectMsgs<std::string>(5),
            (std::vector<std::string>{"calm:1", "angry:2", "sad:3", "calm:4", "calm:5"}));
}

TEST(Behaviour, UnbecomeReturnsToTheBehaviourUnderAStackedOne) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef a = kit.system().spawn<Moody>("moody", ActorOptions::create(), probe.ref(), true);
  a.tell(Swap{});
  a.tell(Swap{});
  a.tell(1);
  a.tell(Back{});
  a.tell(2);
  a.tell(Back{});
  a.tell(3);
  kit.run();
  EXPECT_EQ(probe.expectMsgs<std::string>(3),
            (std::vector<std::string>{"sad:1", "angry:2", "calm:3"}));
}

TEST(Behaviour, AfterARestartTheInitialBehaviourReturns) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef a = kit.system().spawn<Moody>("moody", ActorOptions::create(), probe.ref(), true);
  a.tell(Swap{});
  a.tell(1);
  a.tell(Boom{});  // thrown in "angry": the user guardian restarts it
  a.tell(2);
  kit.run();
  EXPECT_EQ(probe.expectMsgs<std::string>(2), (std::vector<std::string>{"angry:1", "calm:2"}));
}

TEST(Behaviour, BecomeWithAnEmptyFunctionIsErrInvalidOption) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef a = kit.system().spawn("a", [p = probe.ref()](ReceiveContext& ctx) {
    p.tell(test::errorOf([&] { ctx.become(ReceiveContext::Behavior()); }));
  });
  a.tell(1);
  kit.run();
  EXPECT_EQ(probe.expectMsg<std::error_code>(), Error::ErrInvalidOption);
}

// Stashes ints until Open, then unstashes them all and reports the rest in
// order; Boom throws (after stashing, if it holds a stash).
struct Gate : Actor {
  explicit Gate(ActorRef probe) : probe(probe) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Open>()) {
      open = true;
      probe.tell(std::string("unstashed ") + std::to_string(ctx.unstashAll()));
    } else if (const int* n = ctx.get<int>()) {
      if (open) {
        probe.tell(*n);
      } else {
        ctx.stash();
      }
    } else if (ctx.is<Boom>()) {
      throw std::runtime_error("boom");
    }
  }
  ActorRef probe;
  bool open = false;
};

TEST(Stash, UnstashAllPutsTheStashedMessagesAheadOfTheMailboxInOrder) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef gate = kit.system().spawn<Gate>("gate", ActorOptions::create(), probe.ref());
  for (int i = 1; i <= 3; ++i) gate.tell(i);
  gate.tell(Open{});
  gate.tell(4);  // queued behind Open in the same turn: after the stashed ones
  gate.tell(5);
  kit.run();
  EXPECT_EQ(probe.expectMsg<std::string>(), "unstashed 3");
  EXPECT_EQ(probe.expectMsgs<int>(5), (std::vector<int>{1, 2, 3, 4, 5}));
  probe.expectNoMsg();
}

TEST(Stash, UnstashTakesTheOldestOnly) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef a = kit.system().spawn("a", [p = probe.ref()](ReceiveContext& ctx) {
    if (ctx.is<int>()) {
      ctx.stash();
      p.tell(ctx.stashSize());
    } else if (ctx.is<Open>()) {
      p.tell(ctx.unstash());
    }
  });
  a.tell(1);
  a.tell(2);
  kit.run();
  EXPECT_EQ(probe.expectMsgs<std::size_t>(2), (std::vector<std::size_t>{1, 2}));
  a.tell(Open{});
  kit.run();
  EXPECT_TRUE(probe.expectMsg<bool>());
  // 1 came back, was stashed again behind 2.
  EXPECT_EQ(probe.expectMsg<std::size_t>(), 2u);
}

TEST(Stash, PastItsBoundAStashIsErrStashFullAndTheMessageStaysCurrent) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef a = kit.system().spawn(
      "a",
      [p = probe.ref()](ReceiveContext& ctx) {
        const int n = *ctx.get<int>();
        const std::error_code e = test::errorOf([&] { ctx.stash(); });
        if (e) p.tell(std::make_pair(n, ctx.is<int>()));
        // A second stash of the same message has nothing left to stash.
        if (!e) p.tell(test::errorOf([&] { ctx.stash(); }));
      },
      ActorOptions::create().withStash(2));
  for (int i = 1; i <= 3; ++i) a.tell(i);
  kit.run();
  EXPECT_EQ(probe.expectMsg<std::error_code>(), Error::ErrInvalidOption);
  EXPECT_EQ(probe.expectMsg<std::error_code>(), Error::ErrInvalidOption);
  const auto [n, stillCurrent] = probe.expectMsg<std::pair<int, bool>>();
  EXPECT_EQ(n, 3);
  EXPECT_TRUE(stillCurrent);
  EXPECT_EQ(test::errorOf([] { ActorOptions::create().withStash(0); }), Error::ErrInvalidCapacity);
}

TEST(Stash, ARestartKeepsTheStashInOrderAheadOfTheMailbox) {
  TestKit kit;
  auto probe = kit.probe();
  struct Keeper : Actor {
    explicit Keeper(ActorRef probe) : probe(probe) {}
    void receive(ReceiveContext& ctx) override {
      if (ctx.is<Boom>()) throw std::runtime_error("boom");
      const int n = *ctx.get<int>();
      if (n < 0) {
        ctx.stash();  // the first instance keeps the negatives
      } else {
        probe.tell(n);
      }
    }
    ActorRef probe;
  };
  int made = 0;
  ActorRef a = kit.system().spawn("keeper", ActorFactory([&made, p = probe.ref()] {
                                    ++made;
                                    struct Second : Actor {
                                      explicit Second(ActorRef probe) : probe(probe) {}
                                      void receive(ReceiveContext& ctx) override {
                                        probe.tell(*ctx.get<int>());
                                      }
                                      ActorRef probe;
                                    };
                                    if (made == 1) return std::unique_ptr<Actor>(new Keeper(p));
                                    return std::unique_ptr<Actor>(new Second(p));
                                  }));
  a.tell(-1);
  a.tell(-2);
  a.tell(Boom{});
  a.tell(7);
  kit.run();
  EXPECT_EQ(made, 2);
  EXPECT_EQ(probe.expectMsgs<int>(3), (std::vector<int>{-1, -2, 7}));
}

TEST(Stash, WithDropARestartMakesTheStashDeadLetters) {
  TestKit kit;
  auto probe = kit.probe();
  std::vector<DeadLetter> dead;
  kit.system().eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) { dead.push_back(d); });
  ActorRef gate = kit.system().spawn<Gate>(
      "gate", ActorOptions::create().withStash(10, StashOnRestart::Drop), probe.ref());
  gate.tell(1);
  gate.tell(2);
  gate.tell(Boom{});
  gate.tell(Open{});
  gate.tell(3);
  kit.run();
  ASSERT_EQ(dead.size(), 2u);
  EXPECT_EQ(dead[0].messageType, "int");
  EXPECT_EQ(*dead[0].message->get<int>(), 1);
  EXPECT_EQ(*dead[1].message->get<int>(), 2);
  EXPECT_EQ(probe.expectMsg<std::string>(), "unstashed 0");
  EXPECT_EQ(probe.expectMsg<int>(), 3);
}

TEST(Stash, AStopMakesTheStashDeadLettersBeforeTheMailbox) {
  TestKit kit;
  auto probe = kit.probe();
  std::vector<int> dead;
  kit.system().eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (const int* n = d.message->get<int>()) dead.push_back(*n);
  });
  ActorRef gate = kit.system().spawn<Gate>("gate", ActorOptions::create(), probe.ref());
  gate.tell(1);
  gate.tell(2);
  kit.run();
  gate.tell(PoisonPill{});
  gate.tell(3);
  kit.run();
  EXPECT_EQ(dead, (std::vector<int>{1, 2, 3}));
}

TEST(ReceiveTimeout, ComesAfterTheIdleTimeAndEachMessageStartsItAnew) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef a = kit.system().spawn("idle", [p = probe.ref()](ReceiveContext& ctx) {
    if (ctx.is<Open>()) ctx.setReceiveTimeout(10s);
    if (ctx.is<ReceiveTimeout>()) p.tell(std::string("timeout"));
    if (ctx.is<Back>()) ctx.cancelReceiveTimeout();
  });
  a.tell(Open{});
  kit.run();
  kit.advance(9s);
  probe.expectNoMsg();
  a.tell(1);  // starts the idle time anew
  kit.run();
  kit.advance(9s);
  probe.expectNoMsg();
  kit.advance(1s);
  EXPECT_EQ(probe.expectMsg<std::string>(), "timeout");
  kit.advance(10s);  // idle again for a whole timeout: again
  EXPECT_EQ(probe.expectMsg<std::string>(), "timeout");
  a.tell(Back{});
  kit.run();
  kit.advance(60s);
  probe.expectNoMsg();
}

TEST(ReceiveTimeout, ARestartCancelsIt) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef a = kit.system().spawn("idle", [p = probe.ref()](ReceiveContext& ctx) {
    if (ctx.is<Open>()) ctx.setReceiveTimeout(5s);
    if (ctx.is<Boom>()) throw std::runtime_error("boom");
    if (ctx.is<ReceiveTimeout>()) p.tell(std::string("timeout"));
  });
  a.tell(Open{});
  a.tell(Boom{});
  kit.run();
  kit.advance(30s);
  probe.expectNoMsg();
}

TEST(ReceiveTimeout, ADurationThatIsNotPositiveIsErrInvalidTimeout) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef a = kit.system().spawn("idle", [p = probe.ref()](ReceiveContext& ctx) {
    p.tell(test::errorOf([&] { ctx.setReceiveTimeout(0s); }));
    p.tell(test::errorOf([&] { ctx.setReceiveTimeout(-1s); }));
  });
  a.tell(1);
  kit.run();
  EXPECT_EQ(probe.expectMsg<std::error_code>(), Error::ErrInvalidTimeout);
  EXPECT_EQ(probe.expectMsg<std::error_code>(), Error::ErrInvalidTimeout);
}

}  // namespace
}  // namespace coreactor
