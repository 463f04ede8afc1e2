// What the transport between isolates costs in memory: an isolate that talks
// to no other costs the same whatever the system's size, and each ordered
// pair that talks adds its ring and a bounded rest, so a system of many
// isolates of which a few talk holds O(isolates + talking pairs), not a slot
// per pair of isolates. The figure is the transport's own count of what it
// holds (Link::bytesReserved, docs/isolates.md "What isolates cost in
// memory"), exact and the same on every machine, not the process's RSS.
// Sparse traffic among many isolates also keeps order and loses nothing,
// at a stop too. SPEC X1, X2, A2.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdint>
#include <memory>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"

namespace coreactor::detail {
// runtime/CrossingReceiver.cpp: the sum of Link::bytesReserved() over the
// system's isolates (this target cannot include runtime/SystemCore.hpp).
std::size_t transportBytesReserved(SystemCore& core) noexcept;
}  // namespace coreactor::detail

namespace coreactor {
namespace {

using namespace std::chrono_literals;

// A ring of kSlots slots holds 2 x kSlots cells of 32 bytes (a word
// crossing and its mark, half a line): small rings, so that what a pair
// costs besides its ring shows.
constexpr std::size_t kSlots = 64;
constexpr std::size_t kRingBytes = 2 * kSlots * 32;
// What a talking pair may cost besides its ring's cells: the ring's own
// indices (a few lines), the sender's Peer (three lines), at most a page
// of the sender's peer table (512 bytes) and a share of the directory
// (one pointer per 64 isolates, at most 512 bytes), a few list entries.
constexpr std::size_t kPairBytesBesidesRing = 2048;

struct Numbered {
  std::int64_t n;
};
struct Go {
  std::int64_t count;
};

std::size_t transportBytes(ActorSystem& system) {
  return detail::transportBytesReserved(detail::coreOf(system));
}

// Counts what arrives in order and what does not.
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

// On Go, sends the next `count` numbers (from 0 on the first Go) to each of
// its targets in turn (the first to each, then the second, ...), in one
// turn, and adds what it sent to `sent`.
struct Spray : Actor {
  Spray(std::vector<ActorRef> targets, std::atomic<std::int64_t>* sent)
      : targets(std::move(targets)), sent(sent) {}
  void receive(ReceiveContext& ctx) override {
    const Go* go = ctx.get<Go>();
    if (go == nullptr) return;
    for (std::int64_t i = 0; i < go->count; ++i, ++next) {
      for (const ActorRef& to : targets) ctx.tell(to, Numbered{next});
    }
    sent->fetch_add(go->count * static_cast<std::int64_t>(targets.size()));
  }
  std::int64_t next = 0;
  std::vector<ActorRef> targets;
  std::atomic<std::int64_t>* sent;
};

// A threaded system of `isolates` isolates where a few ordered pairs talk:
// six isolates send to the last one (its list of incoming rings outgrows
// its first line), and isolate 2 sprays isolates 3, isolates/2 and
// isolates-2 in turn (peers in different pages of its table, a different
// peer at each send). Each pair has a sink of its own, which checks order.
struct SparseTraffic {
  static constexpr std::size_t kPairs = 9;

  explicit SparseTraffic(std::size_t isolates)
      : system(ActorSystem::create("sparse", ActorSystemOptions::create()
                                                 .withIsolates(isolates)
                                                 .withCrossIsolateBuffer(kSlots, 1u << 20)
                                                 .withCrossIsolateBufferGrowth(kSlots)
                                                 .withLogLevel(LogLevel::Off))) {
    const std::size_t last = isolates - 1;
    for (std::size_t i = 0; i < 6; ++i) {
      const ActorRef sink = system->spawn<InOrder>("", ActorOptions::create().withIsolate(last),
                                                   &received, &outOfOrder);
      sources.push_back(
          system->spawn<Spray>("", ActorOptions::create().withIsolate((i * 37 + 1) % isolates),
                               std::vector<ActorRef>{sink}, &sent));
    }
    std::vector<ActorRef> sprayed;
    for (std::size_t to : {std::size_t{3}, isolates / 2, isolates - 2}) {
      sprayed.push_back(system->spawn<InOrder>("", ActorOptions::create().withIsolate(to),
                                               &received, &outOfOrder));
    }
    sources.push_back(
        system->spawn<Spray>("", ActorOptions::create().withIsolate(2), sprayed, &sent));
  }

  /// Every source sends `count` more to each of its sinks; waits until
  /// everything sent so far came.
  bool run(std::int64_t count) {
    for (const ActorRef& source : sources) source.tell(Go{count});
    expected += static_cast<std::int64_t>(kPairs) * count;
    return test::eventually([&] { return received.load() == expected; }, 60s);
  }

  std::atomic<std::int64_t> received{0};  // declared first: the sinks point at them
  std::atomic<std::int64_t> outOfOrder{0};
  std::atomic<std::int64_t> sent{0};
  std::int64_t expected = 0;
  std::unique_ptr<ActorSystem> system;
  std::vector<ActorRef> sources;
};

TEST(LinkMemory, AnIsolateThatTalksToNoOtherCostsTheSameWhateverTheSystemsSize) {
  // SPEC X1: the transport holds nothing per pair of isolates until the
  // pair talks. Manual systems: their driving thread runs every loop, and
  // nothing crosses.
  const auto idleBytes = [](std::size_t isolates) {
    auto system = ActorSystem::create(
        "idle", ActorSystemOptions::create().withIsolates(isolates).withManualRun().withLogLevel(
                    LogLevel::Off));
    system->runUntilIdle();
    return transportBytes(*system);
  };
  const std::size_t small = idleBytes(256);
  const std::size_t large = idleBytes(1024);
  EXPECT_EQ(large, 4 * small) << "256 isolates: " << small << " B, 1024: " << large << " B";
  EXPECT_LE(small / 256, std::size_t{1024}) << "bytes per idle isolate";
}

TEST(LinkMemory, AFewPairsTalkingAmongManyIsolatesDeliverInOrderAndCostTheirRingsAndLittleMore) {
  // SPEC X1, A2: nine pairs talk among 256 isolates; each message arrives,
  // in its pair's order, and the transport grows by each pair's ring and a
  // bounded rest, whatever the other isolates.
  SparseTraffic traffic(256);
  const std::size_t before = transportBytes(*traffic.system);
  ASSERT_TRUE(traffic.run(2000)) << traffic.received.load() << " of " << traffic.sent.load();
  EXPECT_EQ(traffic.outOfOrder.load(), 0);
  const std::size_t grown = transportBytes(*traffic.system) - before;
  EXPECT_GE(grown, SparseTraffic::kPairs * kRingBytes);
  EXPECT_LE(grown, SparseTraffic::kPairs * (kRingBytes + kPairBytesBesidesRing));
  // Talking again makes nothing new.
  const std::size_t settled = transportBytes(*traffic.system);
  ASSERT_TRUE(traffic.run(500));
  EXPECT_EQ(transportBytes(*traffic.system), settled);
  EXPECT_EQ(traffic.outOfOrder.load(), 0);
  traffic.system->shutdown();
}

// Two isolates with kSlots rings, which may grow (by default to 16 x
// kSlots) and shrink back: a Spray source on isolate 0 floods an InOrder
// sink on isolate 1, kMessages at a time.
struct PairFlood {
  static constexpr std::int64_t kMessages = 200000;
  PairFlood()
      : system(ActorSystem::create("pair-flood", ActorSystemOptions::create()
                                                     .withIsolates(2)
                                                     .withCrossIsolateBuffer(kSlots, 1u << 20)
                                                     .withLogLevel(LogLevel::Off))),
        sink(system->spawn<InOrder>("", ActorOptions::create().withIsolate(1), &received,
                                    &outOfOrder)),
        source(system->spawn<Spray>("", ActorOptions::create().withIsolate(0),
                                    std::vector<ActorRef>{sink}, &sent)),
        before(transportBytes(*system)) {}
  /// One more flood; true once all of it has arrived.
  bool flood() {
    source.tell(Go{kMessages});
    expected += kMessages;
    return test::eventually([&] { return received.load() == expected; }, 60s);
  }
  /// What the transport holds beyond what it held before the first flood.
  std::size_t grownBytes() const { return transportBytes(*system) - before; }
  /// The bytes of the ring the pair has by the counts: the first one once
  /// it shrank back, else four times larger for each growth.
  std::size_t ringBytesByStats() const {
    const TransportStats stats = system->transportStats();
    std::size_t bytes = kRingBytes;
    if (stats.ringsShrunk == 0) {
      for (std::uint64_t i = 0; i < stats.ringsGrown; ++i) bytes *= 4;
    }
    return bytes;
  }
  /// The transport holds the pair's ring (ringBytesByStats()) and its rest,
  /// no ring it had before: a switch done, the old ring freed.
  bool holdsOneRing() const {
    const std::size_t ring = ringBytesByStats();
    const std::size_t grown = grownBytes();
    return grown >= ring && grown <= ring + kPairBytesBesidesRing;
  }

  std::atomic<std::int64_t> received{0};  // declared first: the actors point at them
  std::atomic<std::int64_t> outOfOrder{0};
  std::atomic<std::int64_t> sent{0};
  std::int64_t expected = 0;
  std::unique_ptr<ActorSystem> system;
  ActorRef sink;
  ActorRef source;
  std::size_t before;
};

TEST(LinkMemory, ARingThatGrewIsCountedAtItsNewSizeAndTheRingsItReplacedAreFreed) {
  // SPEC X1, X3: a flood through a kSlots ring that may grow to 16 x kSlots.
  // The transport grows by the last ring the pair has, not by every ring it
  // had, and by no more than a pair's rest beside it. (A slow run may have
  // shrunk it back already: then it holds the first ring.)
  PairFlood pair;
  ASSERT_TRUE(pair.flood()) << pair.received.load();
  EXPECT_EQ(pair.outOfOrder.load(), 0);
  const std::uint64_t steps = pair.system->transportStats().ringsGrown;
  EXPECT_GE(steps, 1u);
  EXPECT_LE(steps, 2u) << "kSlots -> 4 x -> 16 x, no further";
  EXPECT_TRUE(test::eventually([&] { return pair.holdsOneRing(); }, 60s))
      << pair.grownBytes() << " bytes for a ring of " << pair.ringBytesByStats();
  pair.system->shutdown();
}

TEST(LinkMemory, AGrownRingGoesBackToItsFirstSizeOnceQuietAndGrowsAgainForTheNextFlood) {
  // SPEC X1, X3: after a flood, a second of quiet gives the larger ring
  // back: the pair costs its first ring again. The next flood grows it
  // again, and arrives in order through both switches.
  PairFlood pair;
  ASSERT_TRUE(pair.flood()) << pair.received.load();
  const std::uint64_t grew = pair.system->transportStats().ringsGrown;
  ASSERT_GE(grew, 1u) << "the flood made the ring grow";
  // Back to the first ring: one switch, straight to the first size.
  ASSERT_TRUE(test::eventually(
      [&] { return pair.system->transportStats().ringsShrunk == 1 && pair.holdsOneRing(); }, 60s))
      << pair.system->transportStats().ringsShrunk << " shrinks, " << pair.grownBytes() << " bytes";
  ASSERT_TRUE(pair.flood()) << pair.received.load();
  EXPECT_GT(pair.system->transportStats().ringsGrown, grew) << "the next flood grew it again";
  EXPECT_EQ(pair.outOfOrder.load(), 0);
  pair.system->shutdown();
}

TEST(LinkMemory, TheSameTrafficAmongFourTimesTheIsolatesCostsLessThanFourTimesTheMemory) {
  // SPEC X1: linear in isolates plus talking pairs, not quadratic in
  // isolates (a slot per peer in every isolate grew sixteenfold here).
  const auto bytesWith = [](std::size_t isolates) {
    SparseTraffic traffic(isolates);
    EXPECT_TRUE(traffic.run(100)) << traffic.received.load() << " of " << traffic.sent.load();
    EXPECT_EQ(traffic.outOfOrder.load(), 0);
    const std::size_t bytes = transportBytes(*traffic.system);
    traffic.system->shutdown();
    return bytes;
  };
  const std::size_t small = bytesWith(256);
  const std::size_t large = bytesWith(1024);
  EXPECT_LT(large, 4 * small) << "256 isolates: " << small << " B, 1024: " << large << " B";
}

TEST(LinkMemory, AStopWhileFewPairsAmongManyIsolatesFloodAccountsForEveryMessageOnce) {
  // SPEC X2: an immediate stop while the pairs of SparseTraffic flood
  // through their small rings and overflow lists: each message sent is
  // delivered or a dead letter, once, and each pair keeps its order.
  std::atomic<std::int64_t> dead{0};  // first: the subscriber counts into it until the end
  SparseTraffic traffic(64);
  traffic.system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.message != nullptr && d.message->is<Numbered>()) dead.fetch_add(1);
  });
  for (const ActorRef& source : traffic.sources) source.tell(Go{20000});
  test::eventually([&] { return traffic.received.load() > 1000; }, 60s);
  traffic.system->stop();
  // A source whose Go the stop reached first sent nothing; a turn that ran
  // sent all of its burst.
  EXPECT_GT(traffic.sent.load(), 0);
  EXPECT_EQ(traffic.received.load() + dead.load(), traffic.sent.load())
      << traffic.received.load() << " + " << dead.load();
  EXPECT_EQ(traffic.outOfOrder.load(), 0);
}

}  // namespace
}  // namespace coreactor
