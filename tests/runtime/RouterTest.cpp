// Routers (coreactor/Router.hpp, docs/routers.md): pools and groups, each
// logic, the messages a router acts on, the resizer, and bad input.
#include <gtest/gtest.h>

#include <atomic>
#include <map>
#include <set>
#include <stdexcept>
#include <string>
#include <thread>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/testkit/TestKit.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using testkit::TestKit;

struct Job {
  int n;
};
struct Said {
  ActorRef by;
  int n;
};
struct Boom {};
struct Slow {};

// Tells the probe who it is and what it got; throws on Boom.
struct Worker : Actor {
  explicit Worker(ActorRef probe) : probe(probe) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Boom>()) throw std::runtime_error("boom");
    if (const Job* j = ctx.get<Job>()) {
      probe.tell(Said{ctx.self(), j->n});
      if (ctx.sender()) ctx.reply(j->n * 10);
    }
  }
  ActorRef probe;
};

TEST(Router, ARoundRobinPoolGivesEachRouteeItsTurn) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool =
      kit.system().spawnPool<Worker>("pool", RouterOptions::roundRobin().withSize(3), probe.ref());
  for (int i = 0; i < 9; ++i) pool.tell(Job{i});
  kit.run();
  const auto said = probe.expectMsgs<Said>(9);
  std::map<std::uint64_t, std::vector<int>> byRoutee;
  for (const Said& s : said) byRoutee[s.by.id()].push_back(s.n);
  ASSERT_EQ(byRoutee.size(), 3u);
  for (const auto& [id, got] : byRoutee) {
    ASSERT_EQ(got.size(), 3u);
    EXPECT_EQ(got[1] - got[0], 3);
    EXPECT_EQ(got[2] - got[1], 3);
  }
}

// A pool past the eight routees its first array holds: the array grows
// while the pool sets its routees, before their count is published, and
// every routee set before the growth must still be there. From the
// driver's tells and from an actor's, every message reaches a routee, and
// every routee its turns.
TEST(Router, APoolLargerThanItsFirstArrayKeepsEveryRouteeAndLosesNoMessage) {
  TestKit kit;
  auto probe = kit.probe();
  constexpr int kRoutees = 20;
  ActorRef pool = kit.system().spawnPool<Worker>(
      "pool", RouterOptions::roundRobin().withSize(kRoutees), probe.ref());
  ActorRef sender = kit.system().spawn("sender", [pool](ReceiveContext& ctx) {
    if (ctx.is<Boom>()) {
      for (int i = 0; i < 5 * kRoutees; ++i) ctx.tell(pool, Job{i});
    }
  });
  for (int i = 0; i < 5 * kRoutees; ++i) pool.tell(Job{i});
  sender.tell(Boom{});
  kit.run();
  std::map<std::uint64_t, int> turns;
  for (const Said& s : probe.expectMsgs<Said>(10 * kRoutees)) ++turns[s.by.id()];
  ASSERT_EQ(turns.size(), static_cast<std::size_t>(kRoutees));
  for (const auto& [routee, n] : turns) EXPECT_EQ(n, 10) << routee;
}

TEST(Router, OnePerSenderOrderThroughARoundRobinPoolToOneRoutee) {
  // Senders on two isolates and a plain thread, one routee: each sender's
  // messages arrive in the order sent.
  auto system = ActorSystem::create("order", ActorSystemOptions::create().withIsolates(2));
  std::atomic<int> handled{0};
  std::atomic<int> reorders{0};
  struct Sink : Actor {
    Sink(std::atomic<int>* handled, std::atomic<int>* reorders)
        : handled(handled), reorders(reorders) {}
    void receive(ReceiveContext& ctx) override {
      const auto* m = ctx.get<std::pair<int, int>>();
      int& last = lastOf[m->first];
      if (m->second != last + 1) reorders->fetch_add(1);
      last = m->second;
      handled->fetch_add(1);
    }
    std::map<int, int> lastOf;
    std::atomic<int>* handled;
    std::atomic<int>* reorders;
  };
  ActorRef pool =
      system->spawnPool<Sink>("one", RouterOptions::roundRobin().withSize(1), &handled, &reorders);
  constexpr int kEach = 20000;
  std::vector<ActorRef> senders;
  for (int s = 0; s < 2; ++s) {
    senders.push_back(system->spawn(
        "sender-" + std::to_string(s),
        [pool, s](ReceiveContext& ctx) {
          if (ctx.is<int>()) {
            for (int i = 1; i <= kEach; ++i) pool.tell(std::make_pair(s, i), ctx.self());
          }
        },
        ActorOptions::create().withIsolate(static_cast<std::size_t>(s))));
  }
  for (const ActorRef& s : senders) s.tell(0);
  for (int i = 1; i <= kEach; ++i) pool.tell(std::make_pair(7, i));
  ASSERT_TRUE(test::eventually([&] { return handled.load() == 3 * kEach; }, 60s)) << handled.load();
  EXPECT_EQ(reorders.load(), 0);
  system->shutdown();
}

TEST(Router, ARouteeThatFailsIsRestartedByItsPoolAndKeepsWhatWasQueued) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool =
      kit.system().spawnPool<Worker>("pool", RouterOptions::roundRobin().withSize(1), probe.ref());
  pool.tell(Job{1});
  pool.tell(Boom{});
  pool.tell(Job{2});
  pool.tell(Job{3});
  kit.run();
  const auto said = probe.expectMsgs<Said>(3);
  EXPECT_EQ(said[0].n, 1);
  EXPECT_EQ(said[1].n, 2);
  EXPECT_EQ(said[2].n, 3);
  EXPECT_EQ(said[0].by, said[2].by) << "the same routee, restarted in place";
}

TEST(Router, AStoppedRouteeOfAPoolIsReplacedAndAGroupLetsItGo) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool =
      kit.system().spawnPool<Worker>("pool", RouterOptions::roundRobin().withSize(2), probe.ref());
  pool.tell(GetRoutees{}, probe.ref());
  kit.run();
  const auto before = probe.expectMsg<Routees>().routees;
  ASSERT_EQ(before.size(), 2u);
  kit.system().stop(before[0]);
  kit.run();
  pool.tell(GetRoutees{}, probe.ref());
  kit.run();
  const auto after = probe.expectMsg<Routees>().routees;
  ASSERT_EQ(after.size(), 2u);
  EXPECT_NE(after[0], before[0]);
  EXPECT_EQ(after[1], before[1]);

  ActorRef a = kit.system().spawn<Worker>("a", ActorOptions::create(), probe.ref());
  ActorRef b = kit.system().spawn<Worker>("b", ActorOptions::create(), probe.ref());
  ActorRef group = kit.system().spawnGroup("group", RouterOptions::roundRobin(), {a, b});
  kit.run();
  kit.system().stop(a);
  kit.run();
  group.tell(GetRoutees{}, probe.ref());
  kit.run();
  EXPECT_EQ(probe.expectMsg<Routees>().routees, std::vector<ActorRef>{b});
}

TEST(Router, ARouteeThatStopsLeavesItsSendersViewBeforeItsPoolHearsOfIt) {
  // An isolate keeps the cells of the routees living on it, for the routed
  // tells made there. A routee that stops drops out of that view as its
  // cell goes, before its pool hears of the stop. The sender takes turns
  // while the routee stops; in each it spawns an actor (one takes the
  // freed cell's block) and tells the pool two Jobs. Each Job is handled
  // by a routee or, when its turn falls on the stopped one, is a dead
  // letter; none reaches a newcomer.
  struct Quit {};
  struct Go {};
  struct Wait {
    int left;
  };
  constexpr int kTurns = 6;
  struct Counted : Actor {
    explicit Counted(int* handled) : handled(handled) {}
    void receive(ReceiveContext& ctx) override {
      if (ctx.is<Job>()) ++*handled;
      if (ctx.is<Quit>()) ctx.stop(ctx.self());
    }
    int* handled;
  };
  struct Sender : Actor {
    Sender(ActorRef pool, ActorRef first, int* newcomers)
        : pool(pool), first(first), newcomers(newcomers) {}
    void receive(ReceiveContext& ctx) override {
      if (ctx.is<Go>()) {
        ctx.tell(pool, Job{0});  // the view is made
        ctx.tell(first, Quit{});
        ctx.tell(ctx.self(), Wait{kTurns});
      }
      if (const Wait* w = ctx.get<Wait>()) {
        ctx.spawn<Counted>("", ActorOptions::create(), newcomers);
        ctx.tell(pool, Job{1});
        ctx.tell(pool, Job{2});
        if (w->left > 1) ctx.tell(ctx.self(), Wait{w->left - 1});
      }
    }
    ActorRef pool;
    ActorRef first;
    int* newcomers;
  };
  TestKit kit("view", ActorSystemOptions::create().withIsolates(1));  // all on one isolate
  auto probe = kit.probe();
  int handled = 0;
  int newcomers = 0;
  ActorRef pool =
      kit.system().spawnPool<Counted>("pool", RouterOptions::roundRobin().withSize(2), &handled);
  pool.tell(GetRoutees{}, probe.ref());
  kit.run();
  const auto routees = probe.expectMsg<Routees>().routees;
  ASSERT_EQ(routees.size(), 2u);
  int deadJobs = 0;
  kit.system().eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.recipient == routees[0] && d.messageType.find("Job") != std::string::npos) ++deadJobs;
  });
  // One message a turn: the routee's turns and the pool head's fall between the sender's.
  ActorRef sender = kit.system().spawn<Sender>("sender", ActorOptions::create().withThroughput(1),
                                               pool, routees[0], &newcomers);
  kit.run();
  sender.tell(Go{});
  kit.run();
  EXPECT_EQ(newcomers, 0);
  EXPECT_GT(deadJobs, 0);  // some turns fell on the stopped routee before its pool heard
  EXPECT_EQ(handled + deadJobs, 1 + 2 * kTurns);
}

TEST(Router, APoolWhoseRouteesCannotStartLetsThemGoInsteadOfReplacingThemForEver) {
  TestKit kit;
  auto probe = kit.probe();
  std::atomic<int> made{0};
  ActorRef pool = kit.system().spawnPool(
      "broken", RouterOptions::roundRobin().withSize(2), ActorFactory([&made] {
        made.fetch_add(1);
        struct Broken : Actor {
          void preStart(ReceiveContext&) override { throw std::runtime_error("cannot start"); }
          void receive(ReceiveContext&) override {}
        };
        return std::unique_ptr<Actor>(std::make_unique<Broken>());
      }));
  kit.run();  // returns: the replacements stop
  pool.tell(GetRoutees{}, probe.ref());
  kit.run();
  EXPECT_TRUE(probe.expectMsg<Routees>().routees.empty());
  EXPECT_GT(made.load(), 2);
  EXPECT_LE(made.load(), 2 + 100);
  std::vector<DeadLetter> dead;
  kit.system().eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) { dead.push_back(d); });
  pool.tell(Job{1});
  kit.run();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].reason, "the router has no routee");
}

// A consistent-hash pool of 4 keyed by a Job's number modulo 10, telling
// `probe` what each routee handled.
ActorRef keyedPool(TestKit& kit, testkit::TestProbe& probe) {
  return kit.system().spawnPool<Worker>(
      "pool", RouterOptions::consistentHash().withSize(4).withHashKey<Job>([](const Job& j) {
        return static_cast<std::uint64_t>(j.n % 10);
      }),
      probe.ref());
}

// A consistent-hash pool of 4 Workers whose messages carry their key (HashKeyed).
ActorRef hashKeyedPool(TestKit& kit, testkit::TestProbe& probe) {
  return kit.system().spawnPool<Worker>("pool", RouterOptions::consistentHash().withSize(4),
                                        probe.ref());
}

// Where the next `n` reports (each an M naming its routee `by`) went, by
// the key `keyOf` reads from each: the routees of every key, and every
// routee that reported.
struct KeyPlaces {
  std::map<int, std::set<std::uint64_t>> routeesOfKey;
  std::set<std::uint64_t> used;
};
template <class M, class KeyOf>
KeyPlaces placesOfKeys(testkit::TestProbe& probe, std::size_t n, KeyOf keyOf) {
  KeyPlaces places;
  for (const M& m : probe.expectMsgs<M>(n)) {
    places.routeesOfKey[keyOf(m)].insert(m.by.id());
    places.used.insert(m.by.id());
  }
  return places;
}

// The 100 Jobs keyedPool's routees handled: each key went to one routee,
// and the ten keys to more than one.
void expectOneRouteePerKey(testkit::TestProbe& probe) {
  const KeyPlaces places = placesOfKeys<Said>(probe, 100, [](const Said& s) { return s.n % 10; });
  for (const auto& [key, routees] : places.routeesOfKey) EXPECT_EQ(routees.size(), 1u) << key;
  EXPECT_GT(places.used.size(), 1u) << "ten keys over four routees use more than one";
}

TEST(Router, ConsistentHashingSendsOneKeyToOneRouteeAndAMessageWithoutAKeyIsErrNoRouteKey) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool = keyedPool(kit, probe);
  for (int i = 0; i < 100; ++i) pool.tell(Job{i});
  kit.run();
  expectOneRouteePerKey(probe);
  EXPECT_EQ(test::errorOf([&] { pool.tell(std::string("no key")); }), Error::ErrNoRouteKey);
  // HashKeyed carries its own key; the routee gets the message inside.
  pool.tell(HashKeyed(std::string_view("user-1"), Job{1000}));
  pool.tell(HashKeyed(std::string_view("user-1"), Job{1001}));
  kit.run();
  const auto keyed = probe.expectMsgs<Said>(2);
  EXPECT_EQ(keyed[0].by, keyed[1].by);
}

// The same from an actor, whose tells take the router's path for a sender
// on an isolate.
TEST(Router, ConsistentHashingFromAnActorSendsOneKeyToOneRoutee) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool = keyedPool(kit, probe);
  ActorRef sender = kit.system().spawn("sender", [pool](ReceiveContext& ctx) {
    if (ctx.is<Boom>()) {
      for (int i = 0; i < 100; ++i) ctx.tell(pool, Job{i});
    }
  });
  sender.tell(Boom{});
  kit.run();
  expectOneRouteePerKey(probe);
}

// A key that is a member (withHashKey<&V::member>), read from a word by
// the pick of a tell from an actor, must be the key the function form
// gives: the driver's tells take the general path, which calls it. The
// member is signed and not at the word's start, so a wrong shift or a
// lost sign sends a key's messages to two routees.
TEST(Router, AMemberKeyReadFromTheWordIsTheKeyItsFunctionGives) {
  struct Keyed {
    std::int16_t tag;
    std::int16_t key;
    std::int32_t n;
  };
  struct Seen {
    ActorRef by;
    int key;
  };
  struct Go {};
  struct Reporter : Actor {
    explicit Reporter(ActorRef probe) : probe(probe) {}
    void receive(ReceiveContext& ctx) override {
      if (const Keyed* k = ctx.get<Keyed>()) probe.tell(Seen{ctx.self(), k->key});
    }
    ActorRef probe;
  };
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool = kit.system().spawnPool<Reporter>(
      "pool", RouterOptions::consistentHash().withSize(4).withHashKey<&Keyed::key>(), probe.ref());
  constexpr int kKeys = 12;
  ActorRef sender = kit.system().spawn("sender", [pool](ReceiveContext& ctx) {
    if (ctx.is<Go>()) {
      for (int i = 0; i < 4 * kKeys; ++i) {
        ctx.tell(pool, Keyed{static_cast<std::int16_t>(i * 7),
                             static_cast<std::int16_t>(i % kKeys - 6), i});
      }
    }
  });
  sender.tell(Go{});
  kit.run();
  for (int i = 0; i < 4 * kKeys; ++i) {
    pool.tell(Keyed{static_cast<std::int16_t>(i * 3), static_cast<std::int16_t>(i % kKeys - 6), i});
  }
  kit.run();
  const KeyPlaces places =
      placesOfKeys<Seen>(probe, 8 * kKeys, [](const Seen& s) { return s.key; });
  ASSERT_EQ(places.routeesOfKey.size(), static_cast<std::size_t>(kKeys));
  for (const auto& [key, routees] : places.routeesOfKey) EXPECT_EQ(routees.size(), 1u) << key;
  EXPECT_GT(places.used.size(), 1u) << "twelve keys over four routees use more than one";
}

// A key function that keeps no state is called through a plain pointer
// (RouterOptions::HashKeyOf::wordKeyCall), one that keeps some through
// its std::function: both must give every key the same routee, by its
// place in the pool, from an actor's tell and from the driver's.
TEST(Router, AKeyFunctionWithNoStatePicksAsOneThatKeepsStateDoes) {
  TestKit kit;
  auto probe = kit.probe();
  const int offset = 0;
  ActorRef plain = kit.system().spawnPool<Worker>(
      "plain", RouterOptions::consistentHash().withSize(5).withHashKey<Job>([](const Job& j) {
        return static_cast<std::uint64_t>(j.n % 17);
      }),
      probe.ref());
  ActorRef keeping = kit.system().spawnPool<Worker>(
      "keeping",
      RouterOptions::consistentHash().withSize(5).withHashKey<Job>(
          [offset](const Job& j) { return static_cast<std::uint64_t>(j.n % 17 + offset); }),
      probe.ref());
  // Each routee's place in its pool.
  std::map<std::uint64_t, std::size_t> place;
  for (const ActorRef& pool : {plain, keeping}) {
    pool.tell(GetRoutees{}, probe.ref());
    kit.run();
    const auto routees = probe.expectMsg<Routees>().routees;
    ASSERT_EQ(routees.size(), 5u);
    for (std::size_t i = 0; i < routees.size(); ++i) place[routees[i].id()] = i;
  }
  constexpr int kJobs = 68;
  ActorRef sender = kit.system().spawn("sender", [plain, keeping](ReceiveContext& ctx) {
    if (ctx.is<Boom>()) {
      for (int i = 0; i < kJobs; ++i) {
        ctx.tell(plain, Job{i});
        ctx.tell(keeping, Job{i});
      }
    }
  });
  sender.tell(Boom{});
  kit.run();
  for (int i = 0; i < kJobs; ++i) {
    plain.tell(Job{i});
    keeping.tell(Job{i});
  }
  kit.run();
  // The place each key went to, by pool: one place per key, the same in both.
  std::map<int, std::set<std::size_t>> plainPlaces, keepingPlaces;
  for (const Said& s : probe.expectMsgs<Said>(4 * kJobs)) {
    const bool fromPlain = s.by.path().find("/plain/") != std::string::npos;
    (fromPlain ? plainPlaces : keepingPlaces)[s.n % 17].insert(place.at(s.by.id()));
  }
  ASSERT_EQ(plainPlaces.size(), 17u);
  std::set<std::size_t> used;
  for (int key = 0; key < 17; ++key) {
    ASSERT_EQ(plainPlaces[key].size(), 1u) << key;
    EXPECT_EQ(plainPlaces[key], keepingPlaces[key]) << key;
    used.insert(*plainPlaces[key].begin());
  }
  EXPECT_GT(used.size(), 1u) << "seventeen keys over five routees use more than one";
}

// Picks read a byte-wide cache for pools of up to 255 routees
// (RouterState::kSlotRoutees); a larger pool computes them, and every
// routee takes keys: none is past reach of the cache's bytes.
TEST(Router, ConsistentHashingOverMoreRouteesThanTheCacheHoldsReachesEveryRoutee) {
  TestKit kit;
  auto probe = kit.probe();
  constexpr std::size_t kRoutees = 300;
  ActorRef pool = kit.system().spawnPool<Worker>(
      "pool", RouterOptions::consistentHash().withSize(kRoutees), probe.ref());
  constexpr int kKeys = 10000;
  for (int round = 0; round < 2; ++round) {
    for (int k = 0; k < kKeys; ++k) pool.tell(HashKeyed(static_cast<std::uint64_t>(k), Job{k}));
  }
  kit.run();
  const KeyPlaces places = placesOfKeys<Said>(probe, 2 * kKeys, [](const Said& s) { return s.n; });
  for (const auto& [key, routees] : places.routeesOfKey) ASSERT_EQ(routees.size(), 1u) << key;
  EXPECT_EQ(places.used.size(), kRoutees);
}

TEST(Router, ConsistentHashingMovesOnlyTheKeysTheNewRouteeTakesWhenThePoolGrows) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool = hashKeyedPool(kit, probe);
  constexpr int kKeys = 1000;
  auto place = [&] {
    for (int k = 0; k < kKeys; ++k) pool.tell(HashKeyed(static_cast<std::uint64_t>(k), Job{k}));
    kit.run();
    std::map<int, std::uint64_t> at;
    for (const Said& s : probe.expectMsgs<Said>(kKeys)) at[s.n] = s.by.id();
    return at;
  };
  const auto before = place();
  pool.tell(AdjustPoolSize{1});
  pool.tell(GetRoutees{}, probe.ref());
  kit.run();
  const auto routees = probe.expectMsg<Routees>().routees;
  ASSERT_EQ(routees.size(), 5u);
  const auto after = place();
  int moved = 0;
  for (int k = 0; k < kKeys; ++k) {
    if (before.at(k) != after.at(k)) {
      ++moved;
      EXPECT_EQ(after.at(k), routees[4].id()) << "a key that moves goes to the new routee";
    }
  }
  EXPECT_GT(moved, kKeys / 10);      // the new routee takes its share (about a fifth)...
  EXPECT_LT(moved, kKeys * 3 / 10);  // ...and no more
}

// Keys in a row, and keys that differ only in their high bits (a shard
// number on top, say), each spread about evenly over the routees.
TEST(Router, ConsistentHashingSpreadsKeysInARowAndKeysOfHighBitsEvenly) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool = hashKeyedPool(kit, probe);
  constexpr int kKeys = 2000;
  for (const int shift : {0, 40}) {
    for (int k = 0; k < kKeys; ++k) {
      pool.tell(HashKeyed(static_cast<std::uint64_t>(k) << shift, Job{k}));
    }
    kit.run();
    std::map<std::uint64_t, int> share;
    for (const Said& s : probe.expectMsgs<Said>(kKeys)) ++share[s.by.id()];
    ASSERT_EQ(share.size(), 4u) << "keys shifted by " << shift;
    for (const auto& [routee, n] : share) {
      EXPECT_GT(n, kKeys * 15 / 100) << "keys shifted by " << shift;  // a quarter, about
      EXPECT_LT(n, kKeys * 35 / 100) << "keys shifted by " << shift;
    }
  }
}

TEST(Router, BroadcastGivesEveryRouteeACopy) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef all =
      kit.system().spawnPool<Worker>("all", RouterOptions::broadcast().withSize(3), probe.ref());
  all.tell(Job{1});
  kit.run();
  std::set<std::uint64_t> by;
  for (const Said& s : probe.expectMsgs<Said>(3)) by.insert(s.by.id());
  EXPECT_EQ(by.size(), 3u);
  ActorRef rr =
      kit.system().spawnPool<Worker>("rr", RouterOptions::roundRobin().withSize(3), probe.ref());
  rr.tell(Broadcast(Job{2}));
  kit.run();
  by.clear();
  for (const Said& s : probe.expectMsgs<Said>(3)) {
    EXPECT_EQ(s.n, 2);
    by.insert(s.by.id());
  }
  EXPECT_EQ(by.size(), 3u);
}

TEST(Router, AnAskThroughAPoolIsAnsweredByARoutee) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool =
      kit.system().spawnPool<Worker>("pool", RouterOptions::random().withSize(3), probe.ref());
  int got = 0;
  kit.system().ask(pool, Message(Job{4}), 5s, [&](Message* reply, std::error_code) {
    if (reply != nullptr) got = *reply->get<int>();
  });
  kit.run();
  EXPECT_EQ(got, 40);
  probe.expectMsg<Said>();
}

// Replies to a Job at once, or after `delay` on the kit's clock.
struct Replier : Actor {
  explicit Replier(std::chrono::nanoseconds delay) : delay(delay) {}
  void receive(ReceiveContext& ctx) override {
    if (const Job* j = ctx.get<Job>()) {
      if (delay == 0ns) {
        ctx.reply(j->n);
      } else {
        waiting.push_back({ctx.sender(), j->n});
        ctx.scheduleOnce(Slow{}, ctx.self(), delay);
      }
    } else if (ctx.is<Slow>() && !waiting.empty()) {
      waiting.front().first.tell(waiting.front().second + 1000, ctx.self());
      waiting.erase(waiting.begin());
    }
  }
  std::chrono::nanoseconds delay;
  std::vector<std::pair<ActorRef, int>> waiting;
};

TEST(Router, ScatterGatherTakesTheFirstReplyDespiteASlowAndADeadRoutee) {
  TestKit kit;
  std::vector<DeadLetter> dead;
  kit.system().eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) { dead.push_back(d); });
  ActorRef slow = kit.system().spawn<Replier>("slow", ActorOptions::create(), 3s);
  ActorRef gone = kit.system().spawn<Replier>("gone", ActorOptions::create(), 0ns);
  ActorRef fast = kit.system().spawn<Replier>("fast", ActorOptions::create(), 1s);
  kit.system().stop(gone);
  kit.run();
  ActorRef sg = kit.system().spawnGroup("sg", RouterOptions::scatterGather(5s), {slow, gone, fast});
  int got = 0;
  std::error_code error;
  kit.system().ask(sg, Message(Job{7}), 10s, [&](Message* reply, std::error_code e) {
    if (reply != nullptr) got = *reply->get<int>();
    error = e;
  });
  kit.run();
  kit.advance(1s);
  EXPECT_EQ(got, 1007) << "the fast routee's reply, the first";
  EXPECT_FALSE(error);
  kit.advance(3s);  // the slow one's late reply is a dead letter, not lost
  bool lateReply = false;
  for (const DeadLetter& d : dead) lateReply = lateReply || d.messageType == "int";
  EXPECT_TRUE(lateReply);

  // Nobody in time: the asker hears ErrAskTimeout.
  ActorRef lazy = kit.system().spawnGroup("lazy", RouterOptions::scatterGather(2s), {slow});
  error = {};
  kit.system().ask(lazy, Message(Job{8}), 10s, [&](Message*, std::error_code e) { error = e; });
  kit.run();
  kit.advance(2s);
  EXPECT_EQ(error, Error::ErrAskTimeout);
  kit.advance(5s);
}

TEST(Router, TailChoppingAsksOneMoreRouteeEachIntervalUntilOneReplies) {
  TestKit kit;
  std::atomic<int> asked{0};
  auto silent = [&asked](ReceiveContext& ctx) {
    if (ctx.is<Job>()) asked.fetch_add(1);
  };
  ActorRef s1 = kit.system().spawn("s1", silent);
  ActorRef s2 = kit.system().spawn("s2", silent);
  ActorRef s3 = kit.system().spawn("s3", silent);
  ActorRef replier = kit.system().spawn("replier", [&asked](ReceiveContext& ctx) {
    if (const Job* j = ctx.get<Job>()) {
      asked.fetch_add(1);
      ctx.reply(j->n);
    }
  });
  ActorRef tc =
      kit.system().spawnGroup("tc", RouterOptions::tailChopping(10s, 1s), {s1, s2, s3, replier});
  int got = 0;
  kit.system().ask(tc, Message(Job{5}), 20s, [&](Message* reply, std::error_code) {
    got = reply != nullptr ? *reply->get<int>() : -1;
  });
  kit.run();
  EXPECT_EQ(asked.load(), 1) << "one routee at first";
  int seconds = 0;
  while (got == 0 && seconds < 5) {
    kit.advance(1s);
    ++seconds;
    if (got == 0) {
      EXPECT_EQ(asked.load(), seconds + 1) << "one more each interval";
    }
  }
  EXPECT_EQ(got, 5);
  EXPECT_LE(seconds, 3);
  const int total = asked.load();
  kit.advance(10s);
  EXPECT_EQ(asked.load(), total) << "nobody is asked after the reply";
}

TEST(Router, SmallestMailboxKeepsOffARouteeThatIsStuck) {
  auto system = ActorSystem::create("smallest", ActorSystemOptions::create().withIsolates(2));
  std::atomic<bool> release{false};
  std::atomic<int> byStuck{0};
  std::atomic<int> byOther{0};
  std::atomic<int> index{0};
  ActorRef pool = system->spawnPool(
      "pool", RouterOptions::smallestMailbox().withSize(2), ActorFactory([&] {
        const int me = index.fetch_add(1);
        return std::unique_ptr<Actor>(std::make_unique<FunctionActor>([&, me](ReceiveContext&) {
          if (me == 0) {
            byStuck.fetch_add(1);
            while (!release.load()) std::this_thread::sleep_for(1ms);
          } else {
            byOther.fetch_add(1);
          }
        }));
      }));
  // One job at a time, each told once the free routee has handled every
  // job before it that did not go to the stuck one: a job that the free
  // routee does not take within the wait is counted as the stuck one's.
  constexpr int kJobs = 200;
  int toStuck = 0;
  for (int i = 0; i < kJobs && toStuck < 10; ++i) {
    pool.tell(Job{i});
    if (!test::eventually([&] { return byOther.load() + toStuck >= i + 1; }, 2000ms)) ++toStuck;
  }
  release.store(true);
  EXPECT_LE(toStuck, 2) << "round-robin would give it half";
  ASSERT_TRUE(test::eventually(
      [&] { return byStuck.load() + byOther.load() == kJobs || toStuck >= 10; }, 60s));
  system->shutdown();
}

TEST(Router, WatchingARouterGivesTerminatedOfTheRouterAndItsStopEndsThePool) {
  TestKit kit;
  auto probe = kit.probe();
  ActorRef pool =
      kit.system().spawnPool<Worker>("pool", RouterOptions::roundRobin().withSize(2), probe.ref());
  pool.tell(GetRoutees{}, probe.ref());
  kit.run();
  const auto routees = probe.expectMsg<Routees>().routees;
  ActorRef watcher = kit.system().spawn("watcher", [&, p = probe.ref()](ReceiveContext& ctx) {
    if (ctx.is<int>()) {
      ctx.watch(pool);
      for (const ActorRef& r : routees) ctx.watch(r);
    }
    if (const Terminated* t = ctx.get<Terminated>()) p.tell(t->actor);
  });
  watcher.tell(1);
  kit.run();
  pool.tell(PoisonPill{});
  kit.run();
  const auto gone = probe.expectMsgs<ActorRef>(3);
  EXPECT_EQ(gone.back(), pool) << "the routees first, then the router itself";
  std::vector<DeadLetter> dead;
  kit.system().eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) { dead.push_back(d); });
  pool.tell(Job{9});
  kit.run();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].reason, "the router has stopped");
  EXPECT_EQ(dead[0].recipient, pool);
}

TEST(Router, AGroupThatStoppedRoutesNothingMoreFromASenderThatUsedItBefore) {
  // A sender's isolate keeps the router it told last a load away, with its
  // view of the routees. The group's routees outlive it: a tell after the
  // stop must still find the router stopped, not its old routee. The
  // router's head lives on isolate 0, the sender and the routee on 1, where
  // no cell stops.
  struct Tell {};
  TestKit kit("stopped-group", ActorSystemOptions::create().withIsolates(2));
  auto probe = kit.probe();
  const ActorOptions onOne = ActorOptions::create().withIsolate(1);
  ActorRef routee = kit.system().spawn<Worker>("routee", onOne, probe.ref());
  ActorRef group = kit.system().spawnGroup("group", RouterOptions::roundRobin(), {routee});
  ActorRef sender = kit.system().spawn(
      "sender",
      [&, n = 0](ReceiveContext& ctx) mutable {
        if (ctx.is<Tell>()) ctx.tell(group, Job{n++});
      },
      onOne);
  sender.tell(Tell{});
  sender.tell(Tell{});
  kit.run();
  EXPECT_EQ(probe.expectMsg<Said>().n, 0);
  EXPECT_EQ(probe.expectMsg<Said>().n, 1);
  std::vector<DeadLetter> dead;
  kit.system().eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) { dead.push_back(d); });
  kit.system().stop(group);
  kit.run();
  sender.tell(Tell{});
  kit.run();
  probe.expectNoMsg();
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(dead[0].reason, "the router has stopped");
  EXPECT_EQ(dead[0].recipient, group);
}

TEST(Router, BadInputIsANamedError) {
  TestKit kit;
  auto& system = kit.system();
  EXPECT_EQ(test::errorOf([] { RouterOptions::roundRobin().withSize(0); }),
            Error::ErrInvalidPoolSize);
  EXPECT_EQ(test::errorOf([] { RouterOptions::roundRobin().withPerIsolate(0); }),
            Error::ErrInvalidPoolSize);
  EXPECT_EQ(
      test::errorOf([] { RouterOptions::roundRobin().withSize(RouterOptions::kMaxRoutees + 1); }),
      Error::ErrInvalidPoolSize);
  EXPECT_EQ(test::errorOf([&] { system.spawnGroup("empty", RouterOptions::random(), {}); }),
            Error::ErrInvalidPoolSize);
  EXPECT_EQ(test::errorOf([] { ResizerOptions::create(5, 2); }), Error::ErrInvalidResizer);
  EXPECT_EQ(test::errorOf([] { ResizerOptions::create(0, 0); }), Error::ErrInvalidResizer);
  EXPECT_EQ(test::errorOf([] { ResizerOptions::create(1, 4).withRampUp(0); }),
            Error::ErrInvalidResizer);
  EXPECT_EQ(test::errorOf([] { ResizerOptions::create(1, 4).withBackoff(1.5, 0.1); }),
            Error::ErrInvalidResizer);
  EXPECT_EQ(test::errorOf([] { ResizerOptions::create(1, 4).withInterval(0s); }),
            Error::ErrInvalidResizer);
  EXPECT_EQ(test::errorOf([] { RouterOptions::scatterGather(0s); }), Error::ErrInvalidTimeout);
  EXPECT_EQ(test::errorOf([] { RouterOptions::tailChopping(1s, -1s); }), Error::ErrInvalidTimeout);
  ActorRef a = system.spawn("a", [](ReceiveContext&) {});
  EXPECT_EQ(test::errorOf([&] { system.spawnGroup("g", RouterOptions::smallestMailbox(), {a}); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(test::errorOf([&] {
              system.spawnGroup(
                  "g", RouterOptions::roundRobin().withResizer(ResizerOptions::create(1, 2)), {a});
            }),
            Error::ErrInvalidResizer);
  EXPECT_EQ(
      test::errorOf([&] { system.spawnGroup("g", RouterOptions::roundRobin(), {ActorRef()}); }),
      Error::ErrInvalidOption);
  ActorRef pool = system.spawnPool(
      "p", RouterOptions::roundRobin(), ActorFactory([] {
        return std::unique_ptr<Actor>(std::make_unique<FunctionActor>([](ReceiveContext&) {}));
      }));
  EXPECT_EQ(test::errorOf([&] {
              system.spawnPool("p", RouterOptions::roundRobin(), ActorFactory([] {
                                 return std::unique_ptr<Actor>(
                                     std::make_unique<FunctionActor>([](ReceiveContext&) {}));
                               }));
            }),
            Error::ErrDuplicateName);
  struct MoveOnly {
    std::unique_ptr<int> p;
  };
  ActorRef all = system.spawnPool(
      "all", RouterOptions::broadcast().withSize(2), ActorFactory([] {
        return std::unique_ptr<Actor>(std::make_unique<FunctionActor>([](ReceiveContext&) {}));
      }));
  EXPECT_EQ(test::errorOf([&] { all.tell(MoveOnly{std::make_unique<int>(1)}); }),
            Error::ErrInvalidOption);
  kit.run();
  static_cast<void>(pool);
}

TEST(Resizer, APoolGrowsUnderPressureAndShrinksWhenTheLoadIsGone) {
  auto system = ActorSystem::create("resize", ActorSystemOptions::create().withIsolates(2));
  std::atomic<int> handled{0};
  ActorRef pool = system->spawnPool(
      "pool",
      RouterOptions::roundRobin()
          .withResizer(ResizerOptions::create(1, 4).withInterval(20ms).withBackoff(0.5, 0.5))
          .withRouteeOptions(ActorOptions::create().withThroughput(1)),
      ActorFactory([&handled] {
        return std::unique_ptr<Actor>(std::make_unique<FunctionActor>([&handled](ReceiveContext&) {
          std::this_thread::sleep_for(200us);
          handled.fetch_add(1);
        }));
      }));
  auto size = [&] {
    auto routees = system->ask<Routees>(pool, GetRoutees{}, 10s).get();
    return routees.routees.size();
  };
  EXPECT_EQ(size(), 1u) << "the lower bound to start with";
  std::size_t most = 1;
  int sent = 0;
  // Keep every routee pressed until the pool has grown (or a generous deadline).
  const auto deadline = std::chrono::steady_clock::now() + 60s;
  while (most < 4 && std::chrono::steady_clock::now() < deadline) {
    for (int i = 0; i < 200; ++i, ++sent) pool.tell(Job{sent});
    std::this_thread::sleep_for(10ms);
    most = std::max(most, size());
  }
  EXPECT_EQ(most, 4u) << "pressed routees grow the pool to its upper bound";
  ASSERT_TRUE(test::eventually([&] { return handled.load() == sent; }, 120s));
  EXPECT_TRUE(test::eventually([&] { return size() == 1u; }, 60s))
      << "idle routees shrink it back to the lower bound";
  const IsolateMetrics counted = system->metrics().total();
  EXPECT_GE(counted.poolsGrown, 1u);
  EXPECT_GE(counted.poolsShrunk, 1u);
  system->shutdown();
}

}  // namespace
}  // namespace coreactor
