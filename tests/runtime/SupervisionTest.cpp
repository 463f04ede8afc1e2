// Supervision: resume, restart, stop, escalate; one-for-one, all-for-one;
// restart limits. SPEC A6, D10.
#include <gtest/gtest.h>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"

namespace coreactor {
namespace {

struct Boom {};
struct Count {};

struct Stats {
  int instances = 0;
  int restarts = 0;
  int handled = 0;
  int stops = 0;
  int lastState = -1;
};

// Keeps a counter in its state; throws on Boom.
struct Worker : Actor {
  explicit Worker(Stats* s) : stats(s) { ++stats->instances; }
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Boom>()) throw std::runtime_error("boom");
    if (ctx.is<Count>()) {
      ++state;
      ++stats->handled;
      stats->lastState = state;
    }
  }
  void postRestart(ReceiveContext&, const std::exception_ptr&) override { ++stats->restarts; }
  void postStop(ReceiveContext&) override { ++stats->stops; }
  Stats* stats;
  int state = 0;
};

// A parent with a given strategy and workers; it hands their refs out.
struct Parent : Actor {
  Parent(SupervisorStrategy s, std::vector<Stats>* stats, std::vector<ActorRef>* kids, Stats* self)
      : strategy(std::move(s)), stats(stats), kids(kids), selfStats(self) {
    ++selfStats->instances;
  }
  void preStart(ReceiveContext& ctx) override {
    kids->clear();
    for (std::size_t i = 0; i < stats->size(); ++i) {
      kids->push_back(
          ctx.spawn<Worker>("w" + std::to_string(i), ActorOptions::create(), &(*stats)[i]));
    }
  }
  void receive(ReceiveContext&) override {}
  void postStop(ReceiveContext&) override { ++selfStats->stops; }
  SupervisorStrategy supervisorStrategy() override { return strategy; }
  SupervisorStrategy strategy;
  std::vector<Stats>* stats;
  std::vector<ActorRef>* kids;
  Stats* selfStats;
};

struct Family {
  std::unique_ptr<ActorSystem> system =
      ActorSystem::create("supervision", ActorSystemOptions::create().withManualRun());
  std::vector<Stats> stats;
  std::vector<ActorRef> kids;
  Stats parentStats;
  ActorRef parent;
  Family(SupervisorStrategy strategy, int children) : stats(children) {
    parent = system->spawn<Parent>("parent", ActorOptions::create(), std::move(strategy), &stats,
                                   &kids, &parentStats);
    system->runUntilIdle();
  }
};

SupervisorStrategy always(Directive d) {
  return SupervisorStrategy::oneForOne([d](const std::exception_ptr&) { return d; });
}

TEST(Supervision, ResumeKeepsTheStateAndSkipsTheFailedMessage) {
  // SPEC A6
  Family f(always(Directive::Resume), 1);
  ActorRef w = f.kids[0];
  w.tell(Count{});
  w.tell(Boom{});
  w.tell(Count{});
  f.system->runUntilIdle();
  EXPECT_EQ(f.stats[0].handled, 2);
  EXPECT_EQ(f.stats[0].lastState, 2) << "the same instance carried on";
  EXPECT_EQ(f.stats[0].instances, 1);
}

TEST(Supervision, RestartKeepsTheReferenceAndTheMailboxButNotTheState) {
  // SPEC A6: a restart keeps the actor's reference and its mailbox.
  Family f(always(Directive::Restart), 1);
  ActorRef w = f.kids[0];
  w.tell(Count{});
  w.tell(Boom{});
  w.tell(Count{});  // queued behind the failure: survives in the mailbox
  w.tell(Count{});
  f.system->runUntilIdle();
  EXPECT_EQ(f.stats[0].instances, 2);
  EXPECT_EQ(f.stats[0].restarts, 1);
  EXPECT_EQ(f.stats[0].handled, 3);
  EXPECT_EQ(f.stats[0].lastState, 2) << "a fresh instance counted the last two";
  EXPECT_EQ(f.system->deadLetterCount(), 0u);
}

TEST(Supervision, StopEndsTheFailedChild) {
  // SPEC A6
  Family f(always(Directive::Stop), 2);
  f.kids[0].tell(Boom{});
  f.kids[0].tell(Count{});
  f.kids[1].tell(Count{});
  f.system->runUntilIdle();
  EXPECT_EQ(f.stats[0].stops, 1);
  EXPECT_EQ(f.stats[0].handled, 0);
  EXPECT_EQ(f.stats[1].handled, 1) << "one-for-one: the sibling is untouched";
  EXPECT_EQ(f.stats[1].stops, 0);
}

TEST(Supervision, AllForOneAppliesTheDirectiveToEverySibling) {
  // SPEC A6
  Family f(SupervisorStrategy::allForOne(), 3);
  f.kids[1].tell(Boom{});
  f.system->runUntilIdle();
  for (const Stats& s : f.stats) {
    EXPECT_EQ(s.instances, 2);
    EXPECT_EQ(s.restarts, 1);
  }
}

TEST(Supervision, EscalateFailsTheParentToItsOwnSupervisor) {
  // SPEC A6: the guardian restarts the parent, whose default preRestart stops
  // its children; the new parent instance spawns fresh ones.
  Family f(always(Directive::Escalate), 2);
  f.kids[0].tell(Boom{});
  f.system->runUntilIdle();
  EXPECT_EQ(f.parentStats.instances, 2) << "the parent was restarted";
  EXPECT_EQ(f.stats[0].stops, 1);
  EXPECT_EQ(f.stats[1].stops, 1);
  EXPECT_EQ(f.stats[0].instances, 2) << "the new parent spawned its children anew";
  EXPECT_EQ(f.parent, f.parent) << "the parent kept its reference";
}

TEST(Supervision, StopsAChildThatRestartsTooOften) {
  // SPEC A6: restart limits.
  Family f(
      SupervisorStrategy::oneForOne(SupervisorStrategy::restartAlways, 2, std::chrono::minutes(1)),
      1);
  for (int i = 0; i < 5; ++i) f.kids[0].tell(Boom{});
  f.system->runUntilIdle();
  EXPECT_EQ(f.stats[0].restarts, 2);
  EXPECT_EQ(f.stats[0].stops, 1);
}

TEST(Supervision, AThrowFromAHandlerNeverReachesTheDispatcher) {
  // SPEC D10
  Family f(always(Directive::Resume), 1);
  int dispatcherErrors = 0;
  f.system->eventStream().subscribe<DispatcherError>(
      [&](const DispatcherError&) { ++dispatcherErrors; });
  f.kids[0].tell(Boom{});
  f.system->runUntilIdle();
  EXPECT_EQ(dispatcherErrors, 0);
  EXPECT_EQ(f.system->isolate(0).stats().taskErrors, 0u);
}

TEST(Supervision, TheGuardianRestartsAFailingTopLevelActor) {
  auto system = ActorSystem::create("top", ActorSystemOptions::create().withManualRun());
  Stats stats;
  ActorRef w = system->spawn<Worker>("w", ActorOptions::create(), &stats);
  w.tell(Boom{});
  w.tell(Count{});
  system->runUntilIdle();
  EXPECT_EQ(stats.instances, 2);
  EXPECT_EQ(stats.handled, 1);
}

}  // namespace
}  // namespace coreactor
