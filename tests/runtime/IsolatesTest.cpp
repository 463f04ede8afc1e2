// Many isolates: the rings between them, order per pair, backpressure, wake-ups,
// ask and death watch across isolates, placement. SPEC L5, X1-X4, A2, D8.
// Threaded systems (the rings are the path between loop threads); every wait
// has a generous deadline and the assertions are about counts and order.
// One file per suite: the cross-isolate tests share the rally and flood
// helpers at its top, which is why it is longer than most.
#include <gtest/gtest.h>

#include <sched.h>

#include <atomic>
#include <future>
#include <map>
#include <random>
#include <set>
#include <string>
#include <thread>

#include "IsolateHold.hpp"
#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Async.hpp"
#include "coreactor/MicrotaskDispatcher.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using test::allowedCpus;

struct Numbered {
  std::int64_t n;
};
struct Go {
  ActorRef to;
  std::int64_t count;
  std::int64_t first = 0;  // the number of the first message
};
struct WhereAmI {};

template <class F>
bool eventually(F&& done) {
  return test::eventually(std::forward<F>(done), 60s);
}

// Sends `count` numbered messages to `to` in one turn, and adds them to
// `sent` if given.
struct Burst : Actor {
  Burst() = default;
  explicit Burst(std::atomic<std::int64_t>* sent) : sent(sent) {}
  void receive(ReceiveContext& ctx) override {
    if (const Go* go = ctx.get<Go>()) {
      for (std::int64_t i = 0; i < go->count; ++i) ctx.tell(go->to, Numbered{go->first + i});
      if (sent != nullptr) sent->fetch_add(go->count);
    }
  }
  std::atomic<std::int64_t>* sent = nullptr;
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

// A Burst source on isolate 0 and an InOrder sink on isolate 1, with what
// the sink counts and what the source sent.
struct Stream01 {
  explicit Stream01(ActorSystem& system)
      : sink(system.spawn<InOrder>("sink", ActorOptions::create().withIsolate(1), &received,
                                   &outOfOrder)),
        source(system.spawn<Burst>("source", ActorOptions::create().withIsolate(0), &sent)) {}
  std::atomic<std::int64_t> received{0};  // declared first: the actors point at them
  std::atomic<std::int64_t> outOfOrder{0};
  std::atomic<std::int64_t> sent{0};
  ActorRef sink;
  ActorRef source;
};

TEST(Isolates, MessagesBetweenOnePairKeepTheirOrderThroughRingAndOverflow) {
  // SPEC A2, X1: 200k messages from isolate 0 to isolate 1 in one turn, through
  // a 16-slot ring, so most of them wait in the overflow list first. The
  // sender sleeps whenever less than half the ring is free and is woken by
  // the receiver once half is: a lost wake-up would stall the stream.
  auto system = ActorSystem::create("order", ActorSystemOptions::create()
                                                 .withIsolates(2)
                                                 .withCrossIsolateBuffer(16, 1u << 20)
                                                 .withLogLevel(LogLevel::Off));
  Stream01 stream(*system);
  auto& [received, outOfOrder, sent, sink, source] = stream;
  source.tell(Go{sink, 200000});
  ASSERT_TRUE(eventually([&] { return received.load() == 200000; })) << received.load();
  EXPECT_EQ(outOfOrder.load(), 0);
  system->shutdown();
}

TEST(Isolates, WordsAndOtherMessagesAcrossIsolatesKeepOrderAndSender) {
  // SPEC A2, X1: a word (8 bytes, trivially copyable) from an actor or from
  // no sender is built in the ring's slot; a wider message, and a word
  // whose sender belongs to another system, take the general path. Mixed in
  // one stream through a small ring and its overflow list, they arrive in
  // order, each with its own sender.
  auto system = ActorSystem::create("mixed", ActorSystemOptions::create()
                                                 .withIsolates(2)
                                                 .withCrossIsolateBuffer(16, 1u << 20)
                                                 .withLogLevel(LogLevel::Off));
  auto other = ActorSystem::create("other", ActorSystemOptions::create().withManualRun());
  const ActorRef stranger = other->spawn("stranger", [](ReceiveContext&) {});
  std::vector<std::pair<std::int64_t, ActorRef>> seen;  // written by isolate 1 only
  std::atomic<std::int64_t> count{0};
  const ActorRef sink = system->spawn(
      "sink",
      [&](ReceiveContext& ctx) {
        if (const Numbered* m = ctx.get<Numbered>()) seen.emplace_back(m->n, ctx.sender());
        if (const std::string* s = ctx.get<std::string>()) {
          seen.emplace_back(std::stoll(*s), ctx.sender());
        }
        count.fetch_add(1);
      },
      ActorOptions::create().withIsolate(1));
  constexpr std::int64_t kMessages = 20000;
  ActorRef source;  // set before the first Go
  source = system->spawn(
      "source",
      [&](ReceiveContext& ctx) {
        if (!ctx.is<Go>()) return;
        for (std::int64_t i = 0; i < kMessages; ++i) {
          switch (i % 4) {
            case 0:
              ctx.tell(sink, Numbered{i});  // a word, from this actor
              break;
            case 1:
              ctx.tell(sink, std::to_string(i));  // not a word
              break;
            case 2:
              sink.tell(Numbered{i}, stranger);  // a word with a sender of another system
              break;
            default:
              sink.tell(Numbered{i});  // a word with no sender
          }
        }
      },
      ActorOptions::create().withIsolate(0));
  source.tell(Go{sink, 0});
  ASSERT_TRUE(eventually([&] { return count.load() == kMessages; })) << count.load();
  system->shutdown();
  ASSERT_EQ(seen.size(), static_cast<std::size_t>(kMessages));
  for (std::int64_t i = 0; i < kMessages; ++i) {
    const auto& [n, sender] = seen[static_cast<std::size_t>(i)];
    ASSERT_EQ(n, i);
    const ActorRef want = i % 4 == 2 ? stranger : i % 4 == 3 ? ActorRef() : source;
    ASSERT_EQ(sender, want) << "message " << i;
  }
}

// Two systems of two isolates whose isolate-0 source sends kMessages
// mixed messages (words and strings, alternating) to an isolate-1 sink in
// one turn, while the sink holds its first message until that turn has
// ended: the ring fills at once and the rest waits in the overflow list.
struct HeldFlood {
  static constexpr std::int64_t kMessages = 50000;
  explicit HeldFlood(ActorSystemOptions options)
      : system(ActorSystem::create("held-flood",
                                   options.withIsolates(2).withLogLevel(LogLevel::Off))) {
    sink = system->spawn(
        "sink",
        [this](ReceiveContext& ctx) {
          std::int64_t n = -1;
          if (const Numbered* m = ctx.get<Numbered>()) n = m->n;
          if (const std::string* m = ctx.get<std::string>()) n = std::stoll(*m);
          if (n < 0) return;
          if (n == 0) eventually([&] { return sourceDone.load(); });
          if (n != next) outOfOrder.fetch_add(1);
          next = n + 1;
          received.fetch_add(1);
        },
        ActorOptions::create().withIsolate(1));
    source = system->spawn(
        "source",
        [this](ReceiveContext& ctx) {
          if (!ctx.is<Go>()) return;
          for (std::int64_t i = 0; i < kMessages; ++i) {
            if (i % 2 == 0) {
              ctx.tell(sink, Numbered{i});  // a word: a small item
            } else {
              ctx.tell(sink, std::to_string(i));  // a big item
            }
          }
          sourceDone.store(true);
        },
        ActorOptions::create().withIsolate(0));
  }
  /// Starts the flood; true once all of it has arrived.
  bool sendAll() {
    source.tell(Go{sink, 0});
    return eventually([&] { return received.load() == kMessages; });
  }
  std::atomic<bool> sourceDone{false};
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  std::int64_t next = 0;  // the sink's own
  std::unique_ptr<ActorSystem> system;
  ActorRef sink;
  ActorRef source;
};

TEST(Isolates, AFloodGrowsItsRingStepByStepAndKeepsItsOrderAcrossEachSwitch) {
  // SPEC X3, A2: a 16-slot ring that may grow to 1024 slots, four times at
  // a step: the flood that waits in the overflow list makes it grow to 64,
  // 256 and 1024 slots, each larger ring taking over behind a switch in the
  // one before; every message arrives, in order, words and others alike.
  HeldFlood flood(ActorSystemOptions::create()
                      .withCrossIsolateBuffer(16, 1u << 20)
                      .withCrossIsolateBufferGrowth(1024));
  ASSERT_TRUE(flood.sendAll()) << flood.received.load();
  EXPECT_EQ(flood.outOfOrder.load(), 0);
  const TransportStats stats = flood.system->transportStats();
  EXPECT_EQ(stats.ringsGrown, 3u) << "16 -> 64 -> 256 -> 1024 slots, and no further";
  EXPECT_EQ(stats.refused, 0u);
  flood.system->shutdown();
}

TEST(Isolates, ARingWhoseGrowthIsItsOwnSizeNeverGrows) {
  // SPEC X3: withCrossIsolateBufferGrowth at the ring's size keeps it; the
  // same flood then crosses through the overflow list alone.
  HeldFlood flood(ActorSystemOptions::create()
                      .withCrossIsolateBuffer(16, 1u << 20)
                      .withCrossIsolateBufferGrowth(16));
  ASSERT_TRUE(flood.sendAll()) << flood.received.load();
  EXPECT_EQ(flood.outOfOrder.load(), 0);
  const TransportStats stats = flood.system->transportStats();
  EXPECT_EQ(stats.ringsGrown, 0u);
  EXPECT_GT(stats.overflowed, static_cast<std::uint64_t>(HeldFlood::kMessages / 2));
  flood.system->shutdown();
}

TEST(Isolates, AStopWhileARingWaitsForItsSwitchAccountsForEveryMessage) {
  // SPEC X2, X3: the system stops as soon as the source's turn has ended,
  // with most of the flood in the overflow list and a larger ring made
  // (its switch in the full ring or still waiting); and once more after a
  // few thousand arrived, with switches behind. Every message sent is
  // delivered or a dead letter, exactly once.
  for (const std::int64_t before : {std::int64_t{0}, std::int64_t{5000}}) {
    HeldFlood flood(ActorSystemOptions::create()
                        .withCrossIsolateBuffer(16, 1u << 20)
                        .withCrossIsolateBufferGrowth(1024));
    std::atomic<std::int64_t> dead{0};
    flood.system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
      if (d.message != nullptr && (d.message->is<Numbered>() || d.message->is<std::string>())) {
        dead.fetch_add(1);
      }
    });
    flood.source.tell(Go{flood.sink, 0});
    ASSERT_TRUE(eventually([&] { return flood.sourceDone.load(); }));
    if (before > 0) {
      ASSERT_TRUE(eventually([&] { return flood.received.load() >= before; }));
    }
    flood.system->stop();
    EXPECT_EQ(flood.received.load() + dead.load(), HeldFlood::kMessages)
        << flood.received.load() << " + " << dead.load() << " (held until " << before << ")";
    EXPECT_EQ(flood.outOfOrder.load(), 0);
  }
}

TEST(Isolates, TheGrowthOptionRefusesZeroAndMoreThanAMillionSlots) {
  // SPEC X3, bad input.
  EXPECT_EQ(test::errorOf([] { ActorSystemOptions::create().withCrossIsolateBufferGrowth(0); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(test::errorOf([] {
              ActorSystemOptions::create().withCrossIsolateBufferGrowth((std::size_t{1} << 20) + 1);
            }),
            Error::ErrInvalidOption);
  EXPECT_EQ(ActorSystemOptions::create().maxRingSlots(), 16u * 1024u) << "the default";
  EXPECT_EQ(ActorSystemOptions::create().withCrossIsolateBuffer(64, 10).maxRingSlots(), 16u * 64u);
}

struct OtherWord {
  std::int32_t n;
};

/// A sink that records what it gets, in order, as (kind, number): kind 0 a
/// Numbered, 1 an OtherWord, 2 a string. `seen` is written by its isolate only.
struct Recorder : Actor {
  Recorder(std::vector<std::pair<int, std::int64_t>>* seen, std::atomic<std::int64_t>* count)
      : seen(seen), count(count) {}
  void receive(ReceiveContext& ctx) override {
    if (const Numbered* m = ctx.get<Numbered>()) seen->emplace_back(0, m->n);
    if (const OtherWord* m = ctx.get<OtherWord>()) seen->emplace_back(1, m->n);
    if (const std::string* m = ctx.get<std::string>()) seen->emplace_back(2, std::stoll(*m));
    count->fetch_add(1);
  }
  std::vector<std::pair<int, std::int64_t>>* seen;
  std::atomic<std::int64_t>* count;
};

TEST(Isolates, RunsOfWordsAmongOtherMessagesAndTargetsKeepEachPairsOrder) {
  // SPEC A2, X1: words of one sender and type to one target, sent one after
  // another, cross as runs of up to four in a line; anything else sent to
  // that isolate (another type, another target, a message that is no word)
  // ends a run. Random stretches of each, over several turns, through a
  // small ring (so runs also form from the overflow list) and through the
  // default one: each sink sees exactly what was sent to it, in order.
  for (const std::size_t ringSlots : {std::size_t{16}, std::size_t{1024}}) {
    auto system = ActorSystem::create("runs", ActorSystemOptions::create()
                                                  .withIsolates(2)
                                                  .withCrossIsolateBuffer(ringSlots, 1u << 20)
                                                  .withLogLevel(LogLevel::Off));
    std::atomic<std::int64_t> count{0};
    std::vector<std::pair<int, std::int64_t>> seen[2];      // by each sink's isolate
    std::vector<std::pair<int, std::int64_t>> expected[2];  // by the source's
    std::atomic<std::int64_t> total{0};
    std::atomic<int> turns{0};
    ActorRef sinks[2];
    for (int k = 0; k < 2; ++k) {
      sinks[k] = system->spawn<Recorder>("sink" + std::to_string(k),
                                         ActorOptions::create().withIsolate(1), &seen[k], &count);
    }
    const ActorRef source = system->spawn(
        "source",
        [&](ReceiveContext& ctx) {
          if (!ctx.is<Go>()) return;
          std::int64_t n = total.load();
          std::mt19937 random(static_cast<unsigned>(n) + 17);
          for (int stretch = 0; stretch < 400; ++stretch) {
            const int to = static_cast<int>(random() % 2);
            const int kind = random() % 5 < 3 ? 0 : random() % 2 == 0 ? 1 : 2;
            const int length = 1 + static_cast<int>(random() % 11);
            for (int i = 0; i < length; ++i, ++n) {
              expected[to].emplace_back(kind, n);
              if (kind == 0) ctx.tell(sinks[to], Numbered{n});
              if (kind == 1) ctx.tell(sinks[to], OtherWord{static_cast<std::int32_t>(n)});
              if (kind == 2) ctx.tell(sinks[to], std::to_string(n));
            }
          }
          total.store(n);
          turns.fetch_add(1);
        },
        ActorOptions::create().withIsolate(0));
    constexpr int kTurns = 5;
    for (int turn = 0; turn < kTurns; ++turn) source.tell(Go{});
    ASSERT_TRUE(eventually([&] { return turns.load() == kTurns && count.load() == total.load(); }))
        << count.load() << " of " << total.load();
    system->shutdown();
    for (int k = 0; k < 2; ++k) {
      EXPECT_EQ(seen[k], expected[k]) << "sink " << k << ", ring " << ringSlots;
    }
  }
}

TEST(Isolates, AWordNeverOvertakesARunThatWaitsForRoomInTheRing) {
  // SPEC A2, X1, X3: a run of words needs an aligned pair of the ring's
  // cells, a lone word one cell. With the receiver's isolate held, the first
  // turn fills the smallest ring (four cells) and puts `queued` words in the
  // overflow list; once they are through, a second turn, again held, sends
  // `lone` words of alternating types, then five of one type and one of the
  // other. The run of four can find the ring without a pair while one cell
  // is free, at any count of the list's periodic flush: the words after it
  // must still wait behind it. Swept over every count of a flush period and
  // every position in the ring, the sink sees each pair's messages in order.
  auto send = [](ReceiveContext& ctx, const ActorRef& to, std::int64_t n, int type) {
    if (type == 0) {
      ctx.tell(to, Numbered{n});
    } else {
      ctx.tell(to, OtherWord{static_cast<std::int32_t>(n)});
    }
  };
  for (int queued = 0; queued < 64; ++queued) {
    for (int lone = 0; lone < 4; ++lone) {
      auto system = ActorSystem::create("overtake", ActorSystemOptions::create()
                                                        .withIsolates(2)
                                                        .withCrossIsolateBuffer(2, 1u << 20)
                                                        .withLogLevel(LogLevel::Off));
      std::atomic<std::int64_t> count{0};
      std::vector<std::pair<int, std::int64_t>> seen;  // by isolate 1
      const ActorRef sink =
          system->spawn<Recorder>("sink", ActorOptions::create().withIsolate(1), &seen, &count);
      std::vector<std::pair<int, std::int64_t>> expected;  // by isolate 0
      std::int64_t n = 0;                                  // by isolate 0
      std::atomic<std::int64_t> sent{0};                   // the messages of the turns done
      const ActorRef source = system->spawn(
          "source",
          [&](ReceiveContext& ctx) {
            const Go* go = ctx.get<Go>();
            if (go == nullptr) return;
            std::vector<int> types;
            if (go->first == 0) {
              for (int i = 0; i < 4 + queued; ++i) types.push_back(i % 2);
            } else {
              for (int i = 0; i < lone; ++i) types.push_back(i % 2);
              types.insert(types.end(), {0, 0, 0, 0, 0, 1});
            }
            for (const int type : types) {
              expected.emplace_back(type, n);
              send(ctx, sink, n++, type);
            }
            sent.store(n);
          },
          ActorOptions::create().withIsolate(0));
      for (const std::int64_t turn : {0, 1}) {
        test::IsolateHold hold(*system, 1, "hold" + std::to_string(turn));
        ASSERT_TRUE(hold.held());
        const std::int64_t before = sent.load();
        source.tell(Go{sink, 0, turn});
        // The sender's turn ends before the receiver takes anything.
        ASSERT_TRUE(eventually([&] { return sent.load() != before; }));
        hold.release();
        ASSERT_TRUE(eventually([&] { return count.load() == sent.load(); }))
            << count.load() << " of " << sent.load();
      }
      const TransportStats stats = system->transportStats();
      EXPECT_EQ(stats.crossings, static_cast<std::uint64_t>(sent.load()))
          << "each message counted once, " << queued << " queued, " << lone << " lone";
      EXPECT_LE(stats.overflowed, stats.crossings) << "each counted once";
      system->shutdown();
      ASSERT_EQ(seen, expected) << queued << " queued, " << lone << " lone";
    }
  }
}

struct Marker {
  std::int64_t n;
};

/// The sink of the tests of messages handled as they leave the ring, whose
/// turns must keep a queued turn's rules: it tells itself a Marker every
/// `every` messages of type M, throws once at `fails` (the guardian
/// restarts it, and that message is gone) and stops itself at `stops`. It
/// keeps what it handled, in order, and counts the dead letters of both
/// kinds.
template <class M>
struct RuleSink {
  RuleSink(std::int64_t fails, std::int64_t every, std::int64_t stops)
      : fails(fails), every(every), stops(stops) {}

  const std::int64_t fails;
  const std::int64_t every;
  const std::int64_t stops;
  std::vector<std::int64_t> numbers;  // by the sink's isolate
  std::atomic<std::int64_t> handled{0}, markersSent{0}, markersHandled{0};
  std::atomic<std::int64_t> dead{0}, deadMarkers{0};
  std::atomic<bool> failed{false};

  ActorRef spawn(ActorSystem& system, const ActorOptions& options) {
    system.eventStream().subscribe<DeadLetter>([this](const DeadLetter& d) {
      if (d.message && d.message->is<M>()) dead.fetch_add(1);
      if (d.message && d.message->is<Marker>()) deadMarkers.fetch_add(1);
    });
    return system.spawn(
        "sink",
        [this](ReceiveContext& ctx) {
          if (ctx.is<Marker>()) {
            markersHandled.fetch_add(1);
            return;
          }
          const M* m = ctx.get<M>();
          if (m == nullptr) return;
          if (m->n == fails && !failed.load()) {
            failed.store(true);
            throw std::runtime_error("the one failure");
          }
          numbers.push_back(m->n);
          handled.fetch_add(1);
          if (m->n % every == 0) {
            ctx.tell(ctx.self(), Marker{m->n});
            markersSent.fetch_add(1);
          }
          if (m->n == stops) ctx.stop(ctx.self());
        },
        options);
  }
  /// Handled, dead, or the one that failed.
  std::int64_t accounted() const { return handled.load() + dead.load() + (failed.load() ? 1 : 0); }
  /// Once `sent` messages went out: each is handled in order or is a dead
  /// letter, and so is every Marker. Shuts the system down.
  void check(ActorSystem& system, std::int64_t sent) {
    ASSERT_TRUE(eventually([&] {
      return handled.load() + dead.load() == sent - 1 &&
             markersHandled.load() + deadMarkers.load() == markersSent.load();
    })) << handled.load()
        << " + " << dead.load() << " of " << sent - 1;
    system.shutdown();
    EXPECT_EQ(handled.load(), stops) << "0 .. stops, but for the one that failed";
    ASSERT_EQ(numbers.size(), static_cast<std::size_t>(stops));
    for (std::size_t i = 1; i < numbers.size(); ++i) ASSERT_LT(numbers[i - 1], numbers[i]) << i;
    EXPECT_EQ(numbers.back(), stops);
    EXPECT_GT(markersHandled.load(), 0);
  }
};

TEST(Isolates, WordsHandledAsTheyLeaveTheRingKeepOrderThroughSelfTellsFailuresAndAStop) {
  // SPEC A2, A5, A6, A7, X1, X2: words taken from a ring for an idle actor
  // on the hybrid dispatcher are handled at once, in a turn of their own,
  // not queued first. That turn must behave as a queued one (RuleSink: a
  // Marker to itself every 97 messages, one throw, a stop); the rest of
  // each run then waits in the mailbox or becomes a dead letter.
  constexpr std::int64_t kSent = 20000;
  for (const std::uint32_t throughput : {1u, 16u}) {
    SCOPED_TRACE("throughput " + std::to_string(throughput));
    auto system = ActorSystem::create(
        "inline", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));
    // Each Go's four words cross as one word, then a run of three: the
    // failure and the stop fall inside a run, which has words left after them.
    RuleSink<Numbered> sink{5001, 97, 15002};
    const ActorRef to =
        sink.spawn(*system, ActorOptions::create().withIsolate(1).withThroughput(throughput));
    // Four words a turn, and every other turn only once the sink is done
    // with what came before: most runs find it idle.
    const ActorRef source = system->spawn<Burst>("source", ActorOptions::create().withIsolate(0));
    for (std::int64_t first = 0; first < kSent; first += 4) {
      source.tell(Go{to, 4, first});
      if ((first / 4) % 2 == 1) continue;
      const auto deadline = std::chrono::steady_clock::now() + 10s;
      while (sink.accounted() < first + 4 && std::chrono::steady_clock::now() < deadline) {
        std::this_thread::yield();
      }
    }
    sink.check(*system, kSent);
  }
}

/// A message wider than a word (24 bytes): it crosses as a whole Message.
struct Wide {
  std::int64_t n;
  std::int64_t twice;
  std::int64_t thrice;
};

TEST(Isolates, AWideMessageForAnIdleActorIsHandledWhereItLeavesTheRing) {
  // SPEC A2, X1: a message that is no word, taken from a ring for an idle
  // actor, is handled at once in a turn of its own, as words are: a volley
  // of 300 round trips between two isolates keeps its order and runs no
  // microtask on either isolate for its turns.
  constexpr std::int64_t kTrips = 300;
  auto system = ActorSystem::create(
      "wide", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));
  std::vector<std::int64_t> pinged, ponged;  // by isolates 1 and 0
  std::atomic<bool> done{false};
  const ActorRef pong = system->spawn(
      "pong",
      [&](ReceiveContext& ctx) {
        if (const Wide* w = ctx.get<Wide>()) {
          pinged.push_back(w->n);
          ctx.reply(Wide{w->n, 2 * w->n, 3 * w->n});
        }
      },
      ActorOptions::create().withIsolate(1));
  const ActorRef ping = system->spawn(
      "ping",
      [&](ReceiveContext& ctx) {
        if (const Wide* w = ctx.get<Wide>()) {
          if (!ctx.sender().isNone()) {
            ponged.push_back(w->twice + w->thrice == 5 * w->n ? w->n : -1);
            if (w->n + 1 == kTrips) {
              done.store(true);
              return;
            }
          }
          const std::int64_t next = ctx.sender().isNone() ? 0 : w->n + 1;
          ctx.tell(pong, Wide{next, 0, 0});
        }
      },
      ActorOptions::create().withIsolate(0));
  const MetricsSnapshot before = system->metrics();
  ping.tell(Wide{0, 0, 0});
  ASSERT_TRUE(eventually([&] { return done.load(); }));
  const MetricsSnapshot after = system->metrics();
  ASSERT_EQ(pinged.size(), static_cast<std::size_t>(kTrips));
  ASSERT_EQ(ponged.size(), static_cast<std::size_t>(kTrips));
  for (std::int64_t k = 0; k < kTrips; ++k) {
    ASSERT_EQ(pinged[static_cast<std::size_t>(k)], k);
    ASSERT_EQ(ponged[static_cast<std::size_t>(k)], k);
  }
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_LT(after.isolates[i].microtasks - before.isolates[i].microtasks,
              static_cast<std::uint64_t>(kTrips) / 4)
        << "isolate " << i << ": each turn ran where its message was taken";
  }
  system->shutdown();
}

TEST(Isolates, WideMessagesHandledAsTheyLeaveTheRingKeepOrderThroughASelfTellAFailureAndAStop) {
  // SPEC A2, A5, A6, X2: the turn of a wide message taken from a ring
  // behaves as a queued one (RuleSink: a Marker to itself every 7
  // messages, one throw, a stop).
  constexpr std::int64_t kSent = 400;
  auto system = ActorSystem::create(
      "wide-rules", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));
  RuleSink<Wide> sink{101, 7, 301};
  const ActorRef to = sink.spawn(*system, ActorOptions::create().withIsolate(1));
  // One message a turn, each once the sink is done with the one before
  // (up to a bound): most find it idle.
  const ActorRef source = system->spawn(
      "source",
      [](ReceiveContext& ctx) {
        if (const Go* go = ctx.get<Go>()) ctx.tell(go->to, Wide{go->first, 0, 0});
      },
      ActorOptions::create().withIsolate(0));
  for (std::int64_t n = 0; n < kSent; ++n) {
    source.tell(Go{to, 1, n});
    const auto deadline = std::chrono::steady_clock::now() + 10s;
    while (sink.accounted() < n + 1 && std::chrono::steady_clock::now() < deadline) {
      std::this_thread::yield();
    }
  }
  sink.check(*system, kSent);
}

// Tells itself a message for as long as `run` holds: on the microtask
// dispatcher, a chain of microtasks that never ends on its own.
struct Spinner : Actor {
  explicit Spinner(std::atomic<bool>* run, std::atomic<std::int64_t>* turns)
      : run(run), turns(turns) {}
  void receive(ReceiveContext& ctx) override {
    turns->fetch_add(1, std::memory_order_relaxed);
    if (run->load(std::memory_order_relaxed)) ctx.tell(ctx.self(), WhereAmI{});
  }
  std::atomic<bool>* run;
  std::atomic<std::int64_t>* turns;
};

TEST(Isolates, MessagesReachAnIsolateWhoseMicrotaskChainNeverEnds) {
  // SPEC X1, D4: on the microtask dispatcher a self-telling actor keeps the
  // receiving isolate in one microtask drain forever. What another isolate
  // sends still arrives, in order, while that chain runs: the drain looks at
  // the rings between its units.
  auto system = ActorSystem::create("endless-chain",
                                    ActorSystemOptions::create()
                                        .withIsolates(2)
                                        .withDispatcher(std::make_shared<MicrotaskDispatcher>())
                                        .withLogLevel(LogLevel::Off));
  // The sink is started before the chain begins (it has handled a first
  // message): once the chain runs, isolate 1 takes nothing from its inbox
  // (foreign threads) any more, only from the rings.
  Stream01 stream(*system);
  auto& [received, outOfOrder, sent, sink, source] = stream;
  source.tell(Go{sink, 1});
  ASSERT_TRUE(eventually([&] { return received.load() == 1; }));
  std::atomic<bool> run{true};
  std::atomic<std::int64_t> turns{0};
  ActorRef spinner =
      system->spawn<Spinner>("spinner", ActorOptions::create().withIsolate(1), &run, &turns);
  spinner.tell(WhereAmI{});
  ASSERT_TRUE(eventually([&] { return turns.load() > 1000; }));
  source.tell(Go{sink, 5000, 1});
  EXPECT_TRUE(eventually([&] { return received.load() == 5001; })) << received.load();
  EXPECT_EQ(outOfOrder.load(), 0);
  // The chain was still running when the last message arrived.
  const std::int64_t before = turns.load();
  EXPECT_TRUE(eventually([&] { return turns.load() > before; }));
  run = false;
  system->shutdown();
}

TEST(Isolates, AFullRingAndOverflowListDeadLetterTheRestAndCountIt) {
  // SPEC X3: a 2-slot ring and an overflow list of 100: of 10,000 messages
  // sent in one turn, what does not fit is a dead letter; nothing vanishes.
  // The receiving isolate is held busy until the whole burst is sent, so the
  // ring cannot drain while the sender fills it, however the threads run.
  auto system = ActorSystem::create(
      "backpressure",
      ActorSystemOptions::create().withIsolates(2).withCrossIsolateBuffer(2, 100).withLogLevel(
          LogLevel::Off));
  std::atomic<std::int64_t> dead{0};
  std::atomic<std::int64_t> backpressure{0};
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    dead.fetch_add(1);
    if (d.reason.find("backpressure") != std::string::npos) backpressure.fetch_add(1);
  });
  Stream01 stream(*system);
  auto& [received, outOfOrder, sent, sink, source] = stream;
  test::IsolateHold hold(*system, 1);
  ASSERT_TRUE(hold.held());
  source.tell(Go{sink, 10000});
  ASSERT_TRUE(eventually([&] { return sent.load() == 10000; }));
  hold.release();
  ASSERT_TRUE(eventually([&] { return received.load() + dead.load() == 10000; }))
      << received.load() << " + " << dead.load();
  EXPECT_GT(backpressure.load(), 0);
  EXPECT_EQ(backpressure.load(), dead.load());
  const TransportStats stats = system->transportStats();
  EXPECT_EQ(stats.refused, static_cast<std::uint64_t>(backpressure.load())) << "counted";
  EXPECT_GT(stats.overflowed, 0u);
  EXPECT_GE(received.load(), 102) << "the ring and the overflow list were used";
  EXPECT_EQ(outOfOrder.load(), 0);
  system->shutdown();
}

struct Ball {
  int left;
};

/// A volley of `rounds` one-at-a-time round trips between two isolates whose
/// idle poll window is `window`; true if it finished (120 s deadline).
bool volleyAcross(std::chrono::nanoseconds window, int rounds) {
  auto system = ActorSystem::create(
      "wake", ActorSystemOptions::create().withIsolates(2).withIdlePoll(window).withLogLevel(
                  LogLevel::Off));
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
  a.tell(Ball{rounds}, b);
  const bool finished = done.get_future().wait_for(120s) == std::future_status::ready;
  system->shutdown();
  return finished;
}

TEST(Isolates, NoWakeUpIsLostBetweenTwoMostlySleepingIsolates) {
  // SPEC X1: 20,000 one-at-a-time round trips between two isolates that sleep
  // between messages (no idle poll window); a lost wake-up would stall the volley.
  EXPECT_TRUE(volleyAcross(std::chrono::nanoseconds{0}, 20000));
}

TEST(Isolates, NoWakeUpIsLostWhenMessagesMeetTheEndOfTheIdlePollWindow) {
  // SPEC X1: with a window about as long as a round trip, messages land in
  // the window, at its end, or after the peer fell asleep; with the default
  // window, nearly all of them land in it and are taken from the window
  // itself. None of them stalls the volley.
  EXPECT_TRUE(volleyAcross(std::chrono::microseconds(1), 20000));
  EXPECT_TRUE(volleyAcross(ActorSystemOptions::kDefaultIdlePoll, 20000));
}

TEST(Isolates, AnIdleIsolatePollsForWorkBeforeItSleepsWhenItHasACpuOfItsOwn) {
  // SPEC X1, L5: the idle poll window of each isolate, reported in placement().
  const std::size_t cpus = allowedCpus().size();
  const auto windowOf = [](const ActorSystemOptions& options) {
    auto system = ActorSystem::create("poll", options.withLogLevel(LogLevel::Off));
    std::vector<std::chrono::nanoseconds> windows;
    for (const IsolatePlacement& p : system->placement()) windows.push_back(p.idlePoll);
    system->shutdown();
    return windows;
  };
  using Windows = std::vector<std::chrono::nanoseconds>;
  const std::chrono::nanoseconds byDefault = ActorSystemOptions::kDefaultIdlePoll;
  EXPECT_EQ(windowOf(ActorSystemOptions::create().withIsolates(1)), Windows{byDefault});
  EXPECT_EQ(windowOf(ActorSystemOptions::create().withIsolates(cpus + 1)),
            Windows(cpus + 1, std::chrono::nanoseconds{0}))
      << "more isolates than CPUs: a spinning isolate would take another's CPU";
  EXPECT_EQ(windowOf(ActorSystemOptions::create().withIsolates(1).withIdlePoll(5us)),
            Windows{std::chrono::nanoseconds(5us)});
  EXPECT_EQ(windowOf(ActorSystemOptions::create().withIsolates(1).withIdlePoll(0us)),
            Windows{std::chrono::nanoseconds{0}});
  EXPECT_EQ(windowOf(ActorSystemOptions::create().withManualRun().withIdlePoll(5us)),
            Windows{std::chrono::nanoseconds{0}})
      << "a manual run's caller drives the loop";
}

TEST(Isolates, AnIdlePollWindowOutsideItsBoundsIsANamedError) {
  // SPEC X1: a window is bounded.
  EXPECT_EQ(test::errorOf(
                [] { ActorSystemOptions::create().withIdlePoll(std::chrono::nanoseconds{-1}); }),
            Error::ErrInvalidOption);
  EXPECT_EQ(test::errorOf([] {
              ActorSystemOptions::create().withIdlePoll(ActorSystemOptions::kMaxIdlePoll +
                                                        std::chrono::nanoseconds{1});
            }),
            Error::ErrInvalidOption);
  EXPECT_EQ(test::errorOf([] {
              ActorSystemOptions::create().withIdlePoll(ActorSystemOptions::kMaxIdlePoll);
            }),
            std::error_code{});
}

struct Asker : AsyncActor {
  explicit Asker(ActorRef peer) : peer(peer) {}
  Async receiveAsync(ReceiveContext& ctx) override {
    if (!ctx.is<Go>()) co_return;
    ActorRef asker = ctx.sender();
    std::int64_t sum = 0;
    for (int i = 0; i < 100; ++i) {
      auto r = co_await ctx.ask<std::int64_t>(peer, Numbered{i}, 10s);
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
  std::atomic<std::int64_t> sent{0};
  std::vector<ActorRef> sinks;
  std::vector<ActorRef> sources;
  for (std::size_t i = 0; i < 4; ++i) {
    sinks.push_back(system->spawn<InOrder>("", ActorOptions::create().withIsolate(i % 2), &received,
                                           &outOfOrder));
    sources.push_back(
        system->spawn<Burst>("", ActorOptions::create().withIsolate(1 - i % 2), &sent));
  }
  for (std::size_t i = 0; i < 4; ++i) sources[i].tell(Go{sinks[i], 50000});
  eventually([&] { return received.load() > 1000; });
  system->stop();
  // A source whose Go the stop reached first sent nothing: what counts is
  // what the sources sent (whole bursts: a turn runs to its end).
  EXPECT_GE(sent.load(), 50000);
  EXPECT_EQ(sent.load() % 50000, 0);
  EXPECT_EQ(received.load() + dead.load(), sent.load()) << received.load() << " + " << dead.load();
  EXPECT_EQ(outOfOrder.load(), 0);
}

// In one turn, sends numbered messages to `to` until the receiver has
// counted more than `beyond` of them (at most `cap` messages, for at most a
// minute), letting other threads run every 64 sends, and notes how many it
// sent and how many had arrived by the end of the turn.
struct SendUntilReceived : Actor {
  SendUntilReceived(std::atomic<std::int64_t>* received, std::int64_t beyond, std::int64_t cap,
                    std::atomic<std::int64_t>* sent, std::atomic<std::int64_t>* seenInTurn)
      : received(received), beyond(beyond), cap(cap), sent(sent), seenInTurn(seenInTurn) {}
  void receive(ReceiveContext& ctx) override {
    const Go* go = ctx.get<Go>();
    if (go == nullptr) return;
    const auto deadline = std::chrono::steady_clock::now() + 60s;
    std::int64_t n = 0;
    while (received->load() <= beyond && std::chrono::steady_clock::now() < deadline) {
      if (n < cap) ctx.tell(go->to, Numbered{n++});
      if (n % 64 == 0) std::this_thread::yield();
    }
    sent->store(n);
    seenInTurn->store(received->load());
  }
  std::atomic<std::int64_t>* received;
  std::int64_t beyond;
  std::int64_t cap;
  std::atomic<std::int64_t>* sent;
  std::atomic<std::int64_t>* seenInTurn;
};

TEST(Isolates, AFloodFromOneTurnReachesItsReceiverBeforeTheTurnEnds) {
  // SPEC X1, X3: a turn that sends far more than the ring holds keeps the
  // rest in its overflow list, and moves it into the ring as room appears
  // while the turn is still sending: the receiver gets more than a ring's
  // worth before the sending turn ends (it used to get the rest only after).
  constexpr std::int64_t kSlots = 64;
  auto system = ActorSystem::create("flood", ActorSystemOptions::create()
                                                 .withIsolates(2)
                                                 .withCrossIsolateBuffer(kSlots, 1u << 22)
                                                 .withLogLevel(LogLevel::Off));
  std::atomic<std::int64_t> received{0};
  std::atomic<std::int64_t> outOfOrder{0};
  std::atomic<std::int64_t> sent{-1};
  std::atomic<std::int64_t> seenInTurn{-1};
  const ActorRef sink =
      system->spawn<InOrder>("sink", ActorOptions::create().withIsolate(1), &received, &outOfOrder);
  const ActorRef source =
      system->spawn<SendUntilReceived>("source", ActorOptions::create().withIsolate(0), &received,
                                       4 * kSlots, 1'000'000, &sent, &seenInTurn);
  source.tell(Go{sink, 0});
  ASSERT_TRUE(eventually([&] { return seenInTurn.load() >= 0; }));
  EXPECT_GT(seenInTurn.load(), 4 * kSlots) << "of " << sent.load() << " sent";
  EXPECT_TRUE(eventually([&] { return received.load() == sent.load(); }))
      << received.load() << " of " << sent.load();
  EXPECT_EQ(outOfOrder.load(), 0);
  system->shutdown();
}

TEST(Isolates, WordsThatCrossIntoABoundedMailboxKeepItsPolicy) {
  // SPEC X1, A4: a word that crossed goes into an unbounded mailbox as a
  // word; into a bounded one it takes the Message path, and the mailbox's
  // policy applies: what it drops is a dead letter, nothing is lost.
  auto system = ActorSystem::create(
      "bounded-across", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));
  std::atomic<std::int64_t> dead{0};
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.message != nullptr && d.message->is<Numbered>()) dead.fetch_add(1);
  });
  std::atomic<std::int64_t> received{0};
  const ActorRef sink = system->spawn(
      "sink",
      [&](ReceiveContext& ctx) {
        if (ctx.is<Numbered>()) received.fetch_add(1);
      },
      ActorOptions::create().withIsolate(1).withMailbox(MailboxOptions::bounded(10)));
  const ActorRef source = system->spawn<Burst>("source", ActorOptions::create().withIsolate(0));
  {
    test::IsolateHold hold(*system, 1);  // the 100 words wait in the ring
    ASSERT_TRUE(hold.held());
    source.tell(Go{sink, 100});
    // The source's turn has run once a message sent after Go comes back.
    EXPECT_EQ(system
                  ->ask<std::int64_t>(system->spawn(
                                          "echo",
                                          [](ReceiveContext& ctx) {
                                            if (const Numbered* n = ctx.get<Numbered>()) {
                                              ctx.reply(n->n);
                                            }
                                          },
                                          ActorOptions::create().withIsolate(0)),
                                      Numbered{7}, 30s)
                  .get(),
              7);
  }
  EXPECT_TRUE(eventually([&] { return received.load() + dead.load() == 100; }))
      << received.load() << " + " << dead.load();
  EXPECT_GE(received.load(), 10);
  EXPECT_GT(dead.load(), 0);  // a look takes at least 16: more than the mailbox holds
  system->shutdown();
}

TEST(Isolates, AForeignThreadWaitsForRoomInAFullInboxAndLosesNothing) {
  // SPEC X3 for foreign threads: block, counted.
  auto system = ActorSystem::create(
      "foreign",
      ActorSystemOptions::create().withIsolates(1).withForeignInboxLimit(100).withLogLevel(
          LogLevel::Off));
  std::promise<void> release;
  std::shared_future<void> gate = release.get_future().share();
  std::atomic<int> received{0};
  ActorRef slow = system->spawn("slow", [&](ReceiveContext& ctx) {
    if (ctx.is<WhereAmI>()) gate.wait();  // holds the isolate until released
    if (ctx.is<Numbered>()) received.fetch_add(1);
  });
  slow.tell(WhereAmI{});
  std::thread sender([&] {
    for (int i = 0; i < 1000; ++i) slow.tell(Numbered{i});
  });
  EXPECT_TRUE(eventually([&] { return system->transportStats().foreignBlocked > 0; }));
  release.set_value();
  sender.join();
  EXPECT_TRUE(eventually([&] { return received.load() == 1000; })) << received.load();
  EXPECT_EQ(test::errorOf([] { ActorSystemOptions::create().withForeignInboxLimit(0); }),
            Error::ErrInvalidOption);
  system->shutdown();
}

TEST(Isolates, TheBufferOptionRefusesARingOfFewerThanTwoSlots) {
  // SPEC X3, bad input.
  EXPECT_EQ(test::errorOf([] { ActorSystemOptions::create().withCrossIsolateBuffer(1, 10); }),
            Error::ErrInvalidOption);
}

// ---- placement and pinning (SPEC L5, X4) ---------------------------------------------

// Replies with the CPUs its thread may run on.
void reportAffinity(ReceiveContext& ctx) {
  if (ctx.is<WhereAmI>()) ctx.reply(allowedCpus());
}

TEST(Isolates, ByDefaultASystemRunsOneIsolatePerCpuItMayUse) {
  // SPEC L5: the default count comes from the topology (the process's cpuset).
  auto system =
      ActorSystem::create("default", ActorSystemOptions::create().withLogLevel(LogLevel::Off));
  EXPECT_EQ(system->isolateCount(), allowedCpus().size());
  const auto placement = system->placement();
  ASSERT_EQ(placement.size(), system->isolateCount());
  for (const IsolatePlacement& p : placement) {
    EXPECT_FALSE(p.pinned) << "no pinning unless asked";
    EXPECT_EQ(p.cpus, allowedCpus());
  }
  system->shutdown();
  auto manual = ActorSystem::create("manual", ActorSystemOptions::create().withManualRun());
  EXPECT_EQ(manual->isolateCount(), 1u) << "a manual system drives one loop unless told";
}

TEST(Isolates, PinnedPerCoreEachIsolateRunsOnItsOwnCpu) {
  // SPEC L5: pinning per core, verified from inside each isolate's thread.
  const std::vector<unsigned> cpus = allowedCpus();
  if (cpus.size() < 2) GTEST_SKIP() << "one CPU: nothing to pin apart";
  auto system = ActorSystem::create("pinned", ActorSystemOptions::create()
                                                  .withIsolates(2)
                                                  .withPinning(Pinning::PerCore)
                                                  .withLogLevel(LogLevel::Off));
  std::vector<std::vector<unsigned>> seen;
  for (std::size_t i = 0; i < 2; ++i) {
    ActorRef probe = system->spawn("where" + std::to_string(i), reportAffinity,
                                   ActorOptions::create().withIsolate(i));
    seen.push_back(system->ask<std::vector<unsigned>>(probe, WhereAmI{}, 30s).get());
  }
  const auto placement = system->placement();
  if (!placement[0].pinned) GTEST_SKIP() << "this machine cannot pin: " << placement[0].note;
  for (std::size_t i = 0; i < 2; ++i) {
    EXPECT_TRUE(placement[i].pinned);
    EXPECT_EQ(placement[i].cpus, std::vector<unsigned>{cpus[i]});
    EXPECT_EQ(seen[i], placement[i].cpus) << "isolate " << i << " runs where it says";
  }
  system->shutdown();
}

TEST(Isolates, PinnedPerNumaNodeAnIsolateMayUseEveryCpuOfItsNode) {
  // SPEC L5.
  auto system = ActorSystem::create("numa", ActorSystemOptions::create()
                                                .withIsolates(1)
                                                .withPinning(Pinning::PerNumaNode)
                                                .withLogLevel(LogLevel::Off));
  ActorRef probe = system->spawn("where", reportAffinity);
  const auto seen = system->ask<std::vector<unsigned>>(probe, WhereAmI{}, 30s).get();
  const auto placement = system->placement();
  if (!placement[0].pinned) GTEST_SKIP() << "this machine cannot pin: " << placement[0].note;
  EXPECT_GE(placement[0].numaNode, 0);
  EXPECT_EQ(seen, placement[0].cpus);
  system->shutdown();
}

TEST(Isolates, APinningOrANodeTheMachineCannotGiveIsANamedError) {
  // SPEC L5, bad input.
  const std::size_t cpus = allowedCpus().size();
  EXPECT_EQ(test::errorOf([&] {
              ActorSystem::create("too-many",
                                  ActorSystemOptions::create().withIsolates(cpus + 1).withPinning(
                                      Pinning::PerCore));
            }),
            Error::ErrInvalidOption);
  EXPECT_EQ(test::errorOf([] {
              ActorSystem::create("no-node", ActorSystemOptions::create().withNumaNode(999));
            }),
            Error::ErrInvalidOption);
  EXPECT_EQ(test::errorOf([&] {
              ActorSystem::create(
                  "stacked", ActorSystemOptions::create().withNumaNode(0).withIsolates(cpus + 1));
            }),
            Error::ErrInvalidOption)
      << "a node binds: no more isolates than its CPUs";
  EXPECT_EQ(test::errorOf([] { ActorSystemOptions::create().withNumaNode(-1); }),
            Error::ErrInvalidOption);
  // Unpinned, more isolates than CPUs is allowed (they share the CPUs).
  auto shared = ActorSystem::create(
      "shared", ActorSystemOptions::create().withIsolates(cpus + 1).withLogLevel(LogLevel::Off));
  EXPECT_EQ(shared->isolateCount(), cpus + 1);
  shared->shutdown();
}

TEST(Isolates, PlacementByIndexByKeyRoundRobinAndByDefaultTheParentsIsolate) {
  // SPEC X4.
  // Plain round-robin for the children below (a placement run of 1); the
  // default run is SpawnPlacement's to test.
  auto system = ActorSystem::create(
      "place", ActorSystemOptions::create().withIsolates(4).withManualRun().withPlacementRun(1));
  std::map<std::string, std::uint32_t> first;
  std::set<std::uint32_t> used;
  for (int i = 0; i < 64; ++i) {
    const std::string key = "user-" + std::to_string(i % 16);
    ActorRef a = system->spawn(
        "", [](ReceiveContext&) {}, ActorOptions::create().withKey(key));
    auto [it, inserted] = first.emplace(key, a.isolateIndex());
    EXPECT_EQ(it->second, a.isolateIndex()) << "the same key, the same isolate";
    used.insert(a.isolateIndex());
  }
  EXPECT_GE(used.size(), 3u) << "16 keys spread over the isolates";
  EXPECT_EQ(system
                ->spawn(
                    "on2", [](ReceiveContext&) {}, ActorOptions::create().withIsolate(2))
                .isolateIndex(),
            2u);
  std::vector<std::uint32_t> children;
  ActorRef parent = system->spawn(
      "parent",
      [&](ReceiveContext& ctx) {
        if (!ctx.is<WhereAmI>()) return;
        children.push_back(ctx.spawn("kid", [](ReceiveContext&) {}).isolateIndex());
        for (int i = 0; i < 4; ++i) {
          children.push_back(ctx.spawn(
                                    "rr" + std::to_string(i), [](ReceiveContext&) {},
                                    ActorOptions::create().withRoundRobin())
                                 .isolateIndex());
        }
      },
      ActorOptions::create().withIsolate(3));
  parent.tell(WhereAmI{});
  system->runUntilIdle();
  ASSERT_EQ(children.size(), 5u);
  EXPECT_EQ(children[0], 3u) << "a child lives on its parent's isolate";
  EXPECT_EQ(std::set<std::uint32_t>(children.begin() + 1, children.end()).size(), 4u)
      << "round-robin children go round all four";
}

// ---- bad input across isolates ------------------------------------------------------

struct Burst2 {
  ActorRef far;
};

TEST(Isolates, AnAskRefusedByBackpressureFailsAtOnceWithErrMailboxFull) {
  // SPEC X3: the request is a "backpressure" dead letter and the asker hears
  // ErrMailboxFull at once, not at its timeout.
  auto system = ActorSystem::create(
      "refused-ask",
      ActorSystemOptions::create().withIsolates(2).withCrossIsolateBuffer(2, 0).withLogLevel(
          LogLevel::Off));
  // Isolate 1 is held in a handler of `far`: it takes nothing from its
  // rings from now on, so its ring fills.
  test::IsolateHold hold(*system, 1);
  ASSERT_TRUE(hold.held());
  const ActorRef far = hold.actor();
  std::promise<std::error_code> answer;
  ActorRef asker = system->spawn(
      "asker",
      [&](ReceiveContext& ctx) {
        if (!ctx.is<Burst2>()) return;
        for (int i = 0; i < 8; ++i) ctx.tell(far, Numbered{i});  // fills the 2-slot ring
        ctx.ask<int>(far, Numbered{99}, 60s,
                     [&](ReceiveContext&, AskResult<int>& r) { answer.set_value(r.error()); });
      },
      ActorOptions::create().withIsolate(0));
  asker.tell(Burst2{far});
  auto f = answer.get_future();
  ASSERT_EQ(f.wait_for(30s), std::future_status::ready) << "not at the 60 s timeout";
  EXPECT_EQ(f.get(), Error::ErrMailboxFull);
  hold.release();
  system->shutdown();
}

TEST(Isolates, AnIsolateIndexOutOfRangeIsRefusedEverywhere) {
  // SPEC X4, bad input: the system's calls and a child's placement.
  auto system =
      ActorSystem::create("range", ActorSystemOptions::create().withIsolates(2).withManualRun());
  EXPECT_EQ(test::errorOf([&] { system->dispatcher(2); }), Error::ErrIsolateOutOfRange);
  EXPECT_EQ(test::errorOf([&] { system->isolate(7); }), Error::ErrIsolateOutOfRange);
  std::error_code childError;
  ActorRef parent = system->spawn("parent", [&](ReceiveContext& ctx) {
    if (!ctx.is<WhereAmI>()) return;
    childError = test::errorOf([&] {
      ctx.spawn(
          "kid", [](ReceiveContext&) {}, ActorOptions::create().withIsolate(5));
    });
  });
  parent.tell(WhereAmI{});
  system->runUntilIdle();
  EXPECT_EQ(childError, Error::ErrIsolateOutOfRange);
}

}  // namespace
}  // namespace coreactor
