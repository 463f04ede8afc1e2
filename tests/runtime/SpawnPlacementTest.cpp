// Where each spawned actor lands (requirement X4): the defaults (top-level
// actors go round the isolates, a child stays with its parent) and each
// placement option, with the order in which they win, and the rebalance the
// docs describe (stop and respawn elsewhere). Manual systems: nothing here
// depends on threads or time.
#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

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

// ---- rebalancing: stop, then respawn elsewhere (docs/isolates.md, "Moving work elsewhere")

struct Work {
  int key;
  int seq;
};
struct MoveKey {
  int key;
  std::uint32_t isolate;
};
struct Handed {  // what an entity's next incarnation needs: sent to its owner from postStop
  int key;
  int next;
};
struct Handled {
  int key;
  int seq;
  std::uint32_t isolate;
};
struct Ledger {
  std::vector<Handled> handled;
  int gaps = 0;      // a work item that was not the one its entity expected next
  int unhanded = 0;  // an incarnation stopped without handing its state over first
};

class Entity final : public Actor {
 public:
  Entity(int key, int next, Ledger* ledger) : key_(key), next_(next), ledger_(ledger) {}
  void receive(ReceiveContext& ctx) override {
    const Work* work = ctx.get<Work>();
    if (work == nullptr) return;
    if (work->seq != next_) ++ledger_->gaps;
    ledger_->handled.push_back({work->key, work->seq, ctx.self().isolateIndex()});
    next_ = work->seq + 1;
  }
  void postStop(ReceiveContext& ctx) override { ctx.tell(ctx.parent(), Handed{key_, next_}); }

 private:
  int key_;
  int next_;
  Ledger* ledger_;
};

/// Owns one entity per key and forwards each key's work to it. A MoveKey
/// stops the entity with a PoisonPill (what it holds is still handled),
/// holds the key's work meanwhile, and at Terminated spawns the next
/// incarnation on the isolate asked for, with the state the last one
/// handed over, and forwards what it held.
class Owner final : public Actor {
 public:
  explicit Owner(Ledger* ledger) : ledger_(ledger) {}
  void receive(ReceiveContext& ctx) override {
    if (const Work* work = ctx.get<Work>()) {
      Key& key = keyOf(ctx, work->key);
      if (key.moving) {
        key.held.push_back(*work);
      } else {
        key.entity.tell(*work);
      }
    } else if (const MoveKey* move = ctx.get<MoveKey>()) {
      Key& key = keyOf(ctx, move->key);
      key.to = move->isolate;
      if (!key.moving) key.entity.tell(PoisonPill{});
      key.moving = true;
    } else if (const Handed* handed = ctx.get<Handed>()) {
      keys_[handed->key].next = handed->next;
      keys_[handed->key].handed = true;
    } else if (const Terminated* gone = ctx.get<Terminated>()) {
      for (auto& [id, key] : keys_) {
        if (key.entity != gone->actor) continue;
        if (!key.handed) ++ledger_->unhanded;
        key.entity = ctx.spawn<Entity>("", ActorOptions::create().withIsolate(key.to), id, key.next,
                                       ledger_);
        ctx.watch(key.entity);
        key.moving = key.handed = false;
        for (const Work& held : key.held) key.entity.tell(held);
        key.held.clear();
      }
    }
  }

 private:
  struct Key {
    ActorRef entity;
    std::uint32_t to = 0;
    bool moving = false;
    bool handed = false;
    int next = 0;
    std::vector<Work> held;
  };
  Key& keyOf(ReceiveContext& ctx, int id) {
    Key& key = keys_[id];
    if (key.entity.isNone()) {  // a child: on the owner's isolate
      key.entity = ctx.spawn<Entity>("", ActorOptions::create(), id, 0, ledger_);
      ctx.watch(key.entity);
    }
    return key;
  }
  std::map<int, Key> keys_;
  Ledger* ledger_;
};

TEST(SpawnPlacement, AnEntityStoppedAndRespawnedElsewhereHandlesItsWorkOnceInOrderWhereItMoved) {
  // SPEC X4, A5: the rebalance docs/isolates.md describes, stop and respawn
  // under an owner that forwards by key: three keys, 600 work items, and
  // three moves, one retargeted while in progress. Every item is handled
  // once, in order, by the incarnation on the isolate its key had when it
  // was sent; each incarnation hands its state over before its Terminated;
  // nothing becomes a dead letter.
  auto system = ActorSystem::create("rebalance",
                                    ActorSystemOptions::create().withManualRun().withIsolates(2));
  Ledger ledger;
  const ActorRef owner =
      system->spawn<Owner>("owner", ActorOptions::create().withIsolate(0), &ledger);
  constexpr int kKeys = 3;
  constexpr int kItems = 600;
  std::uint32_t where[kKeys] = {0, 0, 0};
  int sent[kKeys] = {0, 0, 0};
  int movedFrom[kKeys] = {0, 0, 0};  // the key's first item sent since its last move
  std::map<std::pair<int, int>, std::uint32_t> expected;  // (key, seq) -> isolate
  const auto move = [&](int key, std::uint32_t to) {
    owner.tell(MoveKey{key, to});
    where[key] = to;
    movedFrom[key] = sent[key];
  };
  for (int i = 0; i < kItems; ++i) {
    const Work work{i % kKeys, i / kKeys};
    owner.tell(work);
    expected[{work.key, work.seq}] = where[work.key];
    ++sent[work.key];
    if (i == 150) {
      move(1, 1);
      system->runUntilIdle();  // this move ends before more work comes
    } else if (i == 300) {
      move(2, 1);  // work keeps coming while it moves: held by the owner
    } else if (i == 303) {
      // Retargeted before the move ended: what the owner held since the
      // move began goes to the new target too.
      for (int seq = movedFrom[2]; seq < sent[2]; ++seq) expected[{2, seq}] = 0;
      move(2, 0);
    } else if (i == 450) {
      move(1, 0);
    }
  }
  system->runUntilIdle();

  ASSERT_EQ(ledger.handled.size(), static_cast<std::size_t>(kItems));
  std::map<int, std::vector<int>> seqs;
  for (const Handled& h : ledger.handled) {
    seqs[h.key].push_back(h.seq);
    EXPECT_EQ(h.isolate, (expected[{h.key, h.seq}])) << "key " << h.key << ", item " << h.seq;
  }
  for (int key = 0; key < kKeys; ++key) {
    std::vector<int> inOrder(kItems / kKeys);
    for (int s = 0; s < kItems / kKeys; ++s) inOrder[static_cast<std::size_t>(s)] = s;
    EXPECT_EQ(seqs[key], inOrder) << "key " << key;
  }
  EXPECT_EQ(ledger.gaps, 0);
  EXPECT_EQ(ledger.unhanded, 0);
  EXPECT_EQ(system->deadLetterCount(), 0u);
  system->shutdown();
}

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
