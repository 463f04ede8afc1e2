// Where each spawned actor lands (requirement X4): the defaults (top-level
// actors go round the isolates, a child stays with its parent) and each
// placement option, with the order in which they win. A manual system of
// four isolates: nothing here depends on threads or time.
#include <gtest/gtest.h>

#include <algorithm>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"

namespace coreactor {
namespace {

using test::errorOf;

// Plain round-robin (a placement run of 1) unless told otherwise, whatever
// the default run.
std::unique_ptr<ActorSystem> fourIsolates(const char* name = "placement", std::size_t run = 1) {
  return ActorSystem::create(
      name, ActorSystemOptions::create().withManualRun().withIsolates(4).withPlacementRun(run));
}

void idle(ReceiveContext&) {}

TEST(SpawnPlacement, TopLevelActorsGoRoundTheIsolatesAndAChildStaysWithItsParent) {
  // SPEC X4
  auto system = fourIsolates();
  std::vector<std::uint32_t> tops;
  for (int i = 0; i < 8; ++i) tops.push_back(system->spawn("", idle).isolateIndex());
  EXPECT_EQ(tops, (std::vector<std::uint32_t>{0, 1, 2, 3, 0, 1, 2, 3}));
  std::vector<ActorRef> children;
  ActorRef parent = system->spawn("parent", [&](ReceiveContext& ctx) {
    for (int i = 0; i < 3; ++i) children.push_back(ctx.spawn("", idle));
  });
  parent.tell(1);
  system->runUntilIdle();
  ASSERT_EQ(children.size(), 3u);
  for (const ActorRef& child : children) EXPECT_EQ(child.isolateIndex(), parent.isolateIndex());
}

TEST(SpawnPlacement, AnActorSpawnedNearAPeerLandsOnThePeersIsolateAtTheTopAndAsAChild) {
  // SPEC X4: spawn-near keeps a chatty pair on one loop.
  auto system = fourIsolates();
  system->spawn("", idle);  // the next top-level spawn would go to isolate 1
  ActorRef ping = system->spawn("ping", idle, ActorOptions::create().withIsolate(2));
  ActorRef pong = system->spawn("pong", idle, ActorOptions::create().withIsolateOf(ping));
  EXPECT_EQ(pong.isolateIndex(), 2u);
  ActorRef child;
  ActorRef parent = system->spawn(
      "parent",
      [&](ReceiveContext& ctx) {
        child = ctx.spawn("near-pong", idle, ActorOptions::create().withIsolateOf(pong));
      },
      ActorOptions::create().withIsolate(3));
  parent.tell(1);
  system->runUntilIdle();
  EXPECT_EQ(child.isolateIndex(), 2u) << "near its peer, not with its parent";
  // A peer that has stopped still names its isolate.
  system->stop(ping);
  system->runUntilIdle();
  EXPECT_EQ(system->spawn("late", idle, ActorOptions::create().withIsolateOf(ping)).isolateIndex(),
            2u);
}

TEST(SpawnPlacement, SpawnNearNothingOrNearAnotherSystemsActorIsANamedError) {
  // Bad input: docs/errors.md row ErrInvalidOption.
  auto system = fourIsolates();
  auto other = fourIsolates("other");
  ActorRef foreign = other->spawn("foreign", idle);
  EXPECT_EQ(
      errorOf([&] { system->spawn("a", idle, ActorOptions::create().withIsolateOf(ActorRef())); }),
      Error::ErrInvalidOption);
  EXPECT_EQ(
      errorOf([&] { system->spawn("b", idle, ActorOptions::create().withIsolateOf(foreign)); }),
      Error::ErrInvalidOption);
  // Nothing was left behind: the names are free again.
  EXPECT_EQ(errorOf([&] { system->spawn("a", idle); }), std::error_code());
}

TEST(SpawnPlacement, AnIsolateWinsOverAPeerAPeerOverAKeyAndAKeyOverRoundRobin) {
  // SPEC X4: the order in which the placement options apply.
  auto system = fourIsolates();
  ActorRef peer = system->spawn("peer", idle, ActorOptions::create().withIsolate(1));
  const auto keyed = system->spawn("k0", idle, ActorOptions::create().withKey("user-7"));
  const std::uint32_t keyIsolate = keyed.isolateIndex();
  EXPECT_EQ(system->spawn("k1", idle, ActorOptions::create().withKey("user-7")).isolateIndex(),
            keyIsolate)
      << "the same key, the same isolate";
  EXPECT_EQ(system
                ->spawn("all", idle,
                        ActorOptions::create()
                            .withRoundRobin()
                            .withKey("user-7")
                            .withIsolateOf(peer)
                            .withIsolate(3))
                .isolateIndex(),
            3u);
  EXPECT_EQ(
      system
          ->spawn("near", idle,
                  ActorOptions::create().withRoundRobin().withKey("user-7").withIsolateOf(peer))
          .isolateIndex(),
      1u);
  EXPECT_EQ(system->spawn("key", idle, ActorOptions::create().withRoundRobin().withKey("user-7"))
                .isolateIndex(),
            keyIsolate);
}

TEST(SpawnPlacement, ARoundRobinChildLeavesItsParentsIsolate) {
  // SPEC X4
  auto system = fourIsolates();
  std::vector<std::uint32_t> where;
  ActorRef parent = system->spawn(
      "parent",
      [&](ReceiveContext& ctx) {
        for (int i = 0; i < 4; ++i) {
          where.push_back(
              ctx.spawn("", idle, ActorOptions::create().withRoundRobin()).isolateIndex());
        }
      },
      ActorOptions::create().withIsolate(0));
  parent.tell(1);
  system->runUntilIdle();
  std::sort(where.begin(), where.end());
  EXPECT_EQ(where, (std::vector<std::uint32_t>{0, 1, 2, 3})) << "one on each isolate";
}

TEST(SpawnPlacement, TopLevelActorsGoRoundTheIsolatesARunAtATime) {
  // SPEC X4: withPlacementRun(3): three on isolate 0, three on 1, ... round.
  auto system = fourIsolates("runs", 3);
  std::vector<std::uint32_t> tops;
  for (int i = 0; i < 14; ++i) tops.push_back(system->spawn("", idle).isolateIndex());
  EXPECT_EQ(tops, (std::vector<std::uint32_t>{0, 0, 0, 1, 1, 1, 2, 2, 2, 3, 3, 3, 0, 0}));
  // A withRoundRobin() child takes its turn in the same runs, and a plain
  // child still stays with its parent.
  std::vector<std::uint32_t> children;
  ActorRef parent = system->spawn(
      "parent",
      [&](ReceiveContext& ctx) {
        children.push_back(
            ctx.spawn("", idle, ActorOptions::create().withRoundRobin()).isolateIndex());
        children.push_back(ctx.spawn("", idle).isolateIndex());
      },
      ActorOptions::create().withIsolate(3));
  parent.tell(1);
  system->runUntilIdle();
  EXPECT_EQ(children, (std::vector<std::uint32_t>{0, 3})) << "the third of isolate 0's run";
  EXPECT_EQ(system->spawn("", idle).isolateIndex(), 1u) << "the next run starts after the child";
}

TEST(SpawnPlacement, TheDefaultPlacementRunIsTheDocumentedOne) {
  // SPEC X4: a system that does not choose places kDefaultPlacementRun at a time.
  const std::size_t run = ActorSystemOptions::kDefaultPlacementRun;
  EXPECT_EQ(ActorSystemOptions::create().placementRun(), run);
  auto system = ActorSystem::create("default-run",
                                    ActorSystemOptions::create().withManualRun().withIsolates(4));
  for (std::size_t i = 0; i < 3 * 4 * run; ++i) {
    EXPECT_EQ(system->spawn("", idle).isolateIndex(), (i / run) % 4) << "spawn " << i;
  }
}

TEST(SpawnPlacement, APlacementRunOfNoActorIsANamedError) {
  // Bad input: docs/errors.md row ErrInvalidOption.
  EXPECT_EQ(errorOf([] { ActorSystemOptions::create().withPlacementRun(0); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(ActorSystemOptions::create().withPlacementRun(5).placementRun(), 5u);
}

}  // namespace
}  // namespace coreactor
