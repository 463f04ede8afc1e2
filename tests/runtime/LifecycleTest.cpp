// Lifecycle hooks, children, stopping a subtree, death watch. SPEC A5.
#include <gtest/gtest.h>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"

namespace coreactor {
namespace {

using test::errorOf;
using Entries = std::vector<std::string>;

std::unique_ptr<ActorSystem> manualSystem() {
  return ActorSystem::create("lifecycle", ActorSystemOptions::create().withManualRun());
}

struct Recorder : Actor {
  explicit Recorder(std::vector<std::string>* log, std::string name, int children = 0)
      : log_(log), name_(std::move(name)), children_(children) {}
  void preStart(ReceiveContext& ctx) override {
    log_->push_back(name_ + ".preStart");
    for (int i = 0; i < children_; ++i) {
      ctx.spawn<Recorder>(name_ + std::to_string(i), ActorOptions::create(), log_,
                          name_ + std::to_string(i));
    }
  }
  void postStop(ReceiveContext&) override { log_->push_back(name_ + ".postStop"); }
  void receive(ReceiveContext& ctx) override {
    if (auto* s = ctx.get<std::string>()) log_->push_back(name_ + ".got " + *s);
  }
  std::vector<std::string>* log_;
  std::string name_;
  int children_;
};

TEST(Lifecycle, RunsPreStartBeforeTheFirstMessageAndPostStopAfterTheLast) {
  // SPEC A5
  auto system = manualSystem();
  Entries log;
  ActorRef a = system->spawn<Recorder>("a", ActorOptions::create(), &log, std::string("a"));
  a.tell(std::string("one"));
  a.tell(PoisonPill{});
  a.tell(std::string("after the pill"));
  system->runUntilIdle();
  EXPECT_EQ(log, (Entries{"a.preStart", "a.got one", "a.postStop"}));
  EXPECT_EQ(system->deadLetterCount(), 1u) << "what follows the pill is a dead letter";
}

TEST(Lifecycle, StopsChildrenBeforeTheirParent) {
  // SPEC A5: stopping a subtree, deepest first.
  auto system = manualSystem();
  Entries log;
  ActorRef root = system->spawn<Recorder>("p", ActorOptions::create(), &log, std::string("p"), 2);
  system->runUntilIdle();
  ASSERT_EQ(log.size(), 3u);
  log.clear();
  system->stop(root);
  system->runUntilIdle();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log.back(), "p.postStop");
}

TEST(Lifecycle, TellsWatchersWhenAnActorHasStopped) {
  // SPEC A5: death watch.
  auto system = manualSystem();
  ActorRef target = system->spawn("target", [](ReceiveContext&) {});
  std::vector<ActorRef> terminated;
  ActorRef watcher = system->spawn("watcher", [&](ReceiveContext& ctx) {
    if (ctx.is<std::string>()) ctx.watch(target);
    if (auto* t = ctx.get<Terminated>()) terminated.push_back(t->actor);
  });
  watcher.tell(std::string("watch"));
  system->runUntilIdle();
  EXPECT_TRUE(terminated.empty());
  target.tell(PoisonPill{});
  system->runUntilIdle();
  ASSERT_EQ(terminated.size(), 1u);
  EXPECT_EQ(terminated[0], target);
}

TEST(Lifecycle, WatchingAnActorThatAlreadyStoppedTellsAtOnce) {
  // SPEC A5
  auto system = manualSystem();
  ActorRef target = system->spawn("target", [](ReceiveContext&) {});
  system->stop(target);
  system->runUntilIdle();
  int terminated = 0;
  ActorRef watcher = system->spawn("watcher", [&](ReceiveContext& ctx) {
    if (ctx.is<std::string>()) ctx.watch(target);
    if (ctx.is<Terminated>()) ++terminated;
  });
  watcher.tell(std::string("watch"));
  system->runUntilIdle();
  EXPECT_EQ(terminated, 1);
}

TEST(Lifecycle, StartAndStopHeldBeforeAnyTurnRunInOrderWithTheSystemMessagesAround) {
  // SPEC A5: Start and Stop wait in flags while no other system message
  // does, the rest in a queue; whatever order they arrive in, they are
  // handled in that order. A child spawned, watched and stopped by its
  // parent in one handler, before its first turn, starts and stops once,
  // and the watch is answered whether it came before or after the stop.
  auto system = manualSystem();
  Entries log;
  std::vector<ActorRef> spawned;
  std::vector<ActorRef> terminated;
  ActorRef parent = system->spawn("parent", [&](ReceiveContext& ctx) {
    if (const Terminated* t = ctx.get<Terminated>()) {
      terminated.push_back(t->actor);
      return;
    }
    if (const std::string* order = ctx.get<std::string>()) {
      const std::string name = *order;
      ActorRef c = ctx.spawn<Recorder>(name, ActorOptions::create(), &log, name);
      spawned.push_back(c);
      if (name == "watch-then-stop") {
        ctx.watch(c);  // queued behind Start (held), then Stop behind it
        ctx.stop(c);
      } else {
        ctx.stop(c);  // held too: Start then Stop, then the watch queued
        ctx.watch(c);
      }
    }
  });
  parent.tell(std::string("watch-then-stop"));
  system->runUntilIdle();
  parent.tell(std::string("stop-then-watch"));
  system->runUntilIdle();
  EXPECT_EQ(log, (Entries{"watch-then-stop.preStart", "watch-then-stop.postStop",
                          "stop-then-watch.preStart", "stop-then-watch.postStop"}));
  EXPECT_EQ(terminated, spawned);

  // And a top-level actor stopped before its first turn, twice.
  ActorRef a = system->spawn<Recorder>("a", ActorOptions::create(), &log, std::string("a"));
  system->stop(a);
  system->stop(a);
  system->runUntilIdle();
  EXPECT_EQ(log.size(), 6u);
  EXPECT_EQ(log[4], "a.preStart");
  EXPECT_EQ(log[5], "a.postStop");
}

TEST(Lifecycle, UnwatchedActorsSendNoTerminated) {
  auto system = manualSystem();
  ActorRef target = system->spawn("target", [](ReceiveContext&) {});
  int terminated = 0;
  ActorRef watcher = system->spawn("watcher", [&](ReceiveContext& ctx) {
    if (auto* s = ctx.get<std::string>()) {
      if (*s == "watch") ctx.watch(target);
      if (*s == "unwatch") ctx.unwatch(target);
    }
    if (ctx.is<Terminated>()) ++terminated;
  });
  watcher.tell(std::string("watch"));
  watcher.tell(std::string("unwatch"));
  system->runUntilIdle();
  system->stop(target);
  system->runUntilIdle();
  EXPECT_EQ(terminated, 0);
}

TEST(Lifecycle, KnowsItsChildrenByNameAndRefusesDuplicates) {
  // SPEC A5, bad input: duplicate child names.
  auto system = manualSystem();
  std::error_code duplicate;
  std::vector<ActorRef> kids;
  ActorRef found;
  ActorRef parent = system->spawn("parent", [&](ReceiveContext& ctx) {
    ctx.spawn("kid", [](ReceiveContext&) {});
    duplicate = errorOf([&] { ctx.spawn("kid", [](ReceiveContext&) {}); });
    ctx.spawn("", [](ReceiveContext&) {});
    kids = ctx.children();
    found = ctx.child("kid");
  });
  parent.tell(1);
  system->runUntilIdle();
  EXPECT_EQ(duplicate, Error::ErrDuplicateName);
  ASSERT_EQ(kids.size(), 2u);
  EXPECT_EQ(found, kids[0]);
  EXPECT_EQ(kids[0].path(), "/user/parent/kid");
  EXPECT_EQ(kids[1].path(), "/user/parent/$1");
}

TEST(Lifecycle, ANameIsFreeAgainOnceItsActorStops) {
  auto system = manualSystem();
  ActorRef first = system->spawn("same", [](ReceiveContext&) {});
  system->stop(first);
  system->runUntilIdle();
  ActorRef second = system->spawn("same", [](ReceiveContext&) {});
  EXPECT_NE(first, second);
  second.tell(1);
  first.tell(1);
  system->runUntilIdle();
  EXPECT_EQ(system->deadLetterCount(), 1u) << "the old reference stays dead";
}

TEST(Lifecycle, ShutdownStopsEveryActorAndRunsEveryPostStop) {
  // SPEC A1: graceful shutdown.
  auto system = manualSystem();
  Entries log;
  system->spawn<Recorder>("a", ActorOptions::create(), &log, std::string("a"), 3);
  system->spawn<Recorder>("b", ActorOptions::create(), &log, std::string("b"), 1);
  system->runUntilIdle();
  system->shutdown();
  int postStops = 0;
  for (auto& e : log) postStops += e.ends_with(".postStop") ? 1 : 0;
  EXPECT_EQ(postStops, 6);
  EXPECT_FALSE(system->running());
  EXPECT_EQ(errorOf([&] { system->spawn("late", [](ReceiveContext&) {}); }),
            Error::ErrActorSystemNotStarted);
}

TEST(Lifecycle, PublishesLifecycleEvents) {
  // SPEC A8
  auto system = manualSystem();
  int started = 0;
  int stopped = 0;
  system->eventStream().subscribe<ActorStarted>([&](const ActorStarted&) { ++started; });
  system->eventStream().subscribe<ActorStopped>([&](const ActorStopped& e) {
    ++stopped;
    EXPECT_EQ(e.path, "/user/x");
  });
  ActorRef x = system->spawn("x", [](ReceiveContext&) {});
  system->runUntilIdle();
  system->stop(x);
  system->runUntilIdle();
  EXPECT_EQ(started, 1);
  EXPECT_EQ(stopped, 1);
}

TEST(Lifecycle, AStopInPreStartTakesEffectWhenPreStartReturns) {
  // SPEC A5: ctx.stop() in preStart is kept: the actor stops after the
  // hook returns (postStop once, watchers told, no message handled).
  auto system = manualSystem();
  Entries log;
  struct QuitsAtOnce : Actor {
    explicit QuitsAtOnce(Entries* l) : log(l) {}
    void preStart(ReceiveContext& ctx) override {
      log->push_back("preStart");
      ctx.stop();
    }
    void receive(ReceiveContext&) override { log->push_back("receive"); }
    void postStop(ReceiveContext&) override { log->push_back("postStop"); }
    Entries* log;
  };
  std::vector<ActorRef> terminated;
  ActorRef quitter;
  ActorRef parent = system->spawn("parent", [&](ReceiveContext& ctx) {
    if (ctx.is<std::string>()) {
      quitter = ctx.spawn<QuitsAtOnce>("quitter", ActorOptions::create(), &log);
      ctx.watch(quitter);
      quitter.tell(1);  // queued behind the start: a dead letter once it stops
    }
    if (auto* t = ctx.get<Terminated>()) terminated.push_back(t->actor);
  });
  parent.tell(std::string("spawn"));
  system->runUntilIdle();
  EXPECT_EQ(log, (Entries{"preStart", "postStop"}));
  ASSERT_EQ(terminated.size(), 1u);
  EXPECT_EQ(terminated[0], quitter);
  EXPECT_EQ(system->deadLetterCount(), 1u);
  quitter.tell(2);
  system->runUntilIdle();
  EXPECT_EQ(system->deadLetterCount(), 2u) << "it takes no more messages";
  EXPECT_EQ(log.size(), 2u);
}

TEST(Lifecycle, AStopSentDuringATurnLetsThatTurnFinishThenGoesBeforeWhatIsStillQueued) {
  // SPEC A5: a turn is never cut short. A stop from another thread reaches
  // the actor when its isolate next takes what other threads sent, after
  // the turn in progress, which goes on with the messages queued before it
  // (up to throughput); what is queued when the stop is handled is dead.
  using namespace std::chrono_literals;
  auto system = ActorSystem::create("stop-in-a-turn", ActorSystemOptions::create().withIsolates(1));
  std::atomic<bool> holding{false};
  std::atomic<bool> stopSent{false};
  std::vector<int> got;  // written on the loop, read once the actor has stopped
  std::atomic<long> atStop{-1};
  struct Holder : Actor {
    Holder(std::atomic<bool>* h, std::atomic<bool>* s, std::vector<int>* g, std::atomic<long>* a)
        : holding(h), stopSent(s), got(g), atStop(a) {}
    void receive(ReceiveContext& ctx) override {
      const int* n = ctx.get<int>();
      if (n == nullptr) return;
      if (*n == 0) {  // the long turn: it ends once the stop has been sent
        holding->store(true);
        test::eventually([&] { return stopSent->load(); }, std::chrono::minutes(1));
      }
      got->push_back(*n);
    }
    void postStop(ReceiveContext&) override { atStop->store(static_cast<long>(got->size())); }
    std::atomic<bool>* holding;
    std::atomic<bool>* stopSent;
    std::vector<int>* got;
    std::atomic<long>* atStop;
  };
  ActorRef holder =
      system->spawn<Holder>("holder", ActorOptions::create(), &holding, &stopSent, &got, &atStop);
  // 0, 1 and 2 queued in one turn of an actor of the same isolate: all in
  // the mailbox before the holder's turn begins.
  ActorRef feeder = system->spawn("feeder", [holder](ReceiveContext&) {
    for (int n = 0; n < 3; ++n) holder.tell(n);
  });
  feeder.tell(std::string("go"));
  ASSERT_TRUE(test::eventually([&] { return holding.load(); }, 60s));
  system->stop(holder);
  holder.tell(3);  // behind the stop, from the same thread: a dead letter
  stopSent.store(true);
  ASSERT_TRUE(test::eventually([&] { return atStop.load() >= 0; }, 60s));
  EXPECT_EQ(got, (std::vector<int>{0, 1, 2}));
  EXPECT_TRUE(test::eventually([&] { return system->deadLetterCount() == 1; }, 60s));
  system->shutdown();
}

}  // namespace
}  // namespace coreactor
