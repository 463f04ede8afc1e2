// Moving actors under load (SPEC X4, with A2, A3, A7): sinks are moved at
// random between four isolates by a mover thread, and some move themselves,
// while actors on every isolate (half of them moving too), two plain
// threads and a Feeder send them numbered messages, asks fly both ways, and
// sinks stop and are replaced by fresh ones. Every message sent is handled
// or a dead letter, exactly once, and every sender's messages to a sink are
// handled in the order sent: the handled ones are the first of what it sent
// there, without a gap, the dead letters the rest. Every ask and every move
// ends, once.
//
// CI runs a bounded mode in seconds (smaller in a debug or sanitizer
// build); COREACTOR_STRESS_MESSAGES sets the number of messages, as for the
// other stress tests.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <memory>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/Feeder.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;

long messagesFromEnv() {
  if (const char* v = std::getenv("COREACTOR_STRESS_MESSAGES")) return std::atol(v);
#ifdef NDEBUG
  return 30'000'000;  // some 5 s on two cores
#else
  return 300'000;  // a debug or sanitizer build: the same shape, smaller
#endif
}

constexpr std::size_t kIsolates = 4;
constexpr std::size_t kSinks = 8;            // slots, each holding one living sink at a time
constexpr std::size_t kIncarnations = 1024;  // sinks ever spawned, at most
constexpr std::uint32_t kActorSenders = 8;   // two per isolate: even ids stay, odd ids move
constexpr std::uint32_t kThreadSenders = 2;  // then the plain threads
constexpr std::uint32_t kFeederSender = kActorSenders + kThreadSenders;
constexpr std::uint32_t kSenders = kFeederSender + 1;
// Messages sent and not yet handled or dead, at most (about): senders wait
// beyond it, so that sinks stop with a few queued, not with the whole run.
#ifdef NDEBUG
constexpr long kInFlight = 20'000;
#else
constexpr long kInFlight = 2'000;
#endif

bool senderMoves(std::uint32_t from) {
  return from < kActorSenders && from % 2 == 1;
}

// A numbered message: the `n`th that sender `from` sent to sink incarnation `sink`.
struct Seq {
  std::uint32_t from;
  std::uint32_t sink;
  std::uint64_t n;
};
struct Question {
  std::uint64_t n;
};
struct More {};

// What became of one sender's messages to one sink incarnation.
struct Cell {
  std::atomic<std::uint64_t> sent{0};
  std::atomic<std::uint64_t> handled{0};
  std::atomic<std::uint64_t> dead{0};
  std::atomic<std::uint64_t> deadMin{std::numeric_limits<std::uint64_t>::max()};
  std::atomic<std::uint64_t> deadMax{0};
  std::atomic<std::uint64_t> deadSum{0};
};

struct Shared {
  long target = 0;
  std::vector<ActorRef> refs = std::vector<ActorRef>(kIncarnations);  // written before published
  std::atomic<std::uint32_t> slots[kSinks] = {};  // slot -> the incarnation living there
  std::atomic<std::uint32_t> incarnations{0};
  std::vector<ActorRef> senders;  // the actor senders, fixed before the run
  std::unique_ptr<Cell[]> cells = std::make_unique<Cell[]>(kIncarnations * kSenders);

  std::atomic<long> sent{0};
  std::atomic<long> handled{0};
  std::atomic<long> dead{0};
  std::atomic<long> outOfOrderFromFixed{0};   // senders that never move
  std::atomic<long> outOfOrderFromMoving{0};  // actor senders that move
  std::atomic<int> actorSendersDone{0};
  // Per actor sender: how it last went on (1 told itself More, 2 scheduled
  // a More, 3 done), and Mores that became dead letters (must stay 0).
  std::atomic<int> lastStep[kActorSenders] = {};
  std::atomic<long> deadMores{0};
  // Set when nothing more was handled or dead-lettered for a long while
  // with the window full: messages were lost, and the senders give up
  // (instead of waiting for ever) so that the counts can say so.
  std::atomic<bool> stuck{false};

  std::atomic<long> asks{0};
  std::atomic<long> answered{0};
  std::atomic<long> askDead{0};        // ErrDead: the sink asked had stopped
  std::atomic<long> asksAbandoned{0};  // the asker stopped first: its callback never runs
  // Each must stay 0: asks that timed out (a request or its reply lost), by
  // who asked, and any other error or a wrong reply.
  std::atomic<long> sinkAskTimeouts{0};
  std::atomic<long> senderAskTimeouts{0};
  // Of the senders' asks that timed out: by a sender that moves, and to a
  // sink that was stopped by then.
  std::atomic<long> senderAskTimeoutsMoving{0};
  std::atomic<long> senderAskTimeoutsToStopped{0};
  std::atomic<long> askOtherError{0};

  std::atomic<long> moves{0};
  std::atomic<long> movesDone{0};
  std::atomic<long> movesDead{0};
  std::atomic<long> movesOtherError{0};  // must stay 0
  std::atomic<long> selfMoves{0};
  std::atomic<long> selfMovesDone{0};
  std::atomic<long> selfMovesDead{0};
  std::atomic<long> replaced{0};

  Cell& cell(std::uint32_t sink, std::uint32_t from) { return cells[sink * kSenders + from]; }

  // The sink living in a random slot now: its incarnation.
  template <class Rng>
  std::uint32_t pickSink(Rng& rng) const {
    return slots[rng() % kSinks].load(std::memory_order_acquire);
  }
  bool windowFull() const {
    return sent.load(std::memory_order_relaxed) - handled.load(std::memory_order_relaxed) -
               dead.load(std::memory_order_relaxed) >=
           kInFlight;
  }
  bool living(std::uint32_t incarnation) const {
    for (const auto& slot : slots) {
      if (slot.load() == incarnation) return true;
    }
    return false;
  }
  bool done() const { return sent.load(std::memory_order_relaxed) >= target || stuck.load(); }

  void onDead(const Seq& s) {
    Cell& c = cell(s.sink, s.from);
    c.dead.fetch_add(1);
    c.deadSum.fetch_add(s.n);
    std::uint64_t seen = c.deadMin.load();
    while (s.n < seen && !c.deadMin.compare_exchange_weak(seen, s.n)) {
    }
    seen = c.deadMax.load();
    while (s.n > seen && !c.deadMax.compare_exchange_weak(seen, s.n)) {
    }
    dead.fetch_add(1, std::memory_order_relaxed);
  }

  // The end of an ask, for whichever side asked.
  void answer(std::error_code error, bool isReply, bool bySink) {
    if (!error && isReply) {
      answered.fetch_add(1, std::memory_order_relaxed);
    } else if (error == Error::ErrDead) {
      askDead.fetch_add(1, std::memory_order_relaxed);
    } else if (error == Error::ErrAskTimeout) {
      (bySink ? sinkAskTimeouts : senderAskTimeouts).fetch_add(1);
    } else {
      askOtherError.fetch_add(1);
    }
  }
};

// Checks that every sender's numbers come 0, 1, 2, ...; now and then asks
// a sender actor, and (one in two) moves itself.
struct Sink : Actor {
  Sink(Shared* sh, std::uint32_t incarnation, std::uint32_t seed)
      : sh(sh), incarnation(incarnation), rng(seed), next(kSenders, 0) {}
  void receive(ReceiveContext& ctx) override {
    if (const Seq* s = ctx.get<Seq>()) {
      if (s->n != next[s->from]) {
        (senderMoves(s->from) ? sh->outOfOrderFromMoving : sh->outOfOrderFromFixed).fetch_add(1);
      }
      next[s->from] = s->n + 1;
      sh->cell(incarnation, s->from).handled.fetch_add(1, std::memory_order_relaxed);
      sh->handled.fetch_add(1, std::memory_order_relaxed);
      ++count;
      if (count % 512 == 0) askASender(ctx);
      if (incarnation % 2 == 0 && count % 300 == 0) {
        sh->selfMoves.fetch_add(1);
        ctx.move(ctx.self(), rng() % kIsolates);
      }
    } else if (const Question* q = ctx.get<Question>()) {
      ctx.reply(q->n + 1);
    } else if (const Moved* m = ctx.get<Moved>()) {
      if (!m->error) {
        sh->selfMovesDone.fetch_add(1);
      } else if (m->error == Error::ErrDead) {
        sh->selfMovesDead.fetch_add(1);
      } else {
        sh->movesOtherError.fetch_add(1);
      }
    }
  }
  void askASender(ReceiveContext& ctx) {
    ++asked;
    sh->asks.fetch_add(1, std::memory_order_relaxed);
    ctx.ask<std::uint64_t>(sh->senders[rng() % sh->senders.size()], Question{count}, 15s,
                           [this, n = count](ReceiveContext&, AskResult<std::uint64_t>& r) {
                             ++completed;
                             sh->answer(r.error(), r && r.value() == n + 1, true);
                           });
  }
  void postStop(ReceiveContext&) override { sh->asksAbandoned.fetch_add(asked - completed); }
  Shared* sh;
  std::uint32_t incarnation;
  std::minstd_rand rng;
  std::vector<std::uint64_t> next;  // per sender: the number it must send next
  std::uint64_t count = 0;
  long asked = 0;
  long completed = 0;
};

// Sends numbered messages to random sinks, a chunk a turn, until the run
// has sent its target (waiting, with a one-shot schedule, while too many
// are in flight); now and then asks a sink, and (odd ids) moves itself.
struct Sender : Actor {
  Sender(Shared* sh, std::uint32_t from)
      : sh(sh), from(from), rng(from * 7919 + 1), next(kIncarnations, 0) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<More>()) {
      if (sh->done()) {
        sh->lastStep[from].store(3);
        sh->actorSendersDone.fetch_add(1);
        return;
      }
      if (sh->windowFull()) {
        sh->lastStep[from].store(2);
        ctx.scheduleOnce(More{}, ctx.self(), 200us);
        return;
      }
      for (int i = 0; i < 16; ++i) {
        const std::uint32_t sink = sh->pickSink(rng);
        const std::uint64_t n = next[sink]++;
        sh->cell(sink, from).sent.fetch_add(1, std::memory_order_relaxed);
        sh->sent.fetch_add(1, std::memory_order_relaxed);
        ctx.tell(sh->refs[sink], Seq{from, sink, n});
      }
      ++chunks;
      if (chunks % 32 == 0) askASink(ctx);
      if (senderMoves(from) && chunks % 48 == 0) ctx.move(ctx.self(), rng() % kIsolates);
      sh->lastStep[from].store(1);
      ctx.tell(ctx.self(), More{});
    } else if (const Question* q = ctx.get<Question>()) {
      ctx.reply(q->n + 1);
    }
  }
  void askASink(ReceiveContext& ctx) {
    ++asked;
    sh->asks.fetch_add(1, std::memory_order_relaxed);
    const std::uint32_t sink = sh->pickSink(rng);
    ctx.ask<std::uint64_t>(sh->refs[sink], Question{chunks}, 15s,
                           [this, n = chunks, sink](ReceiveContext&, AskResult<std::uint64_t>& r) {
                             ++completed;
                             sh->answer(r.error(), r && r.value() == n + 1, false);
                             if (r.error() == Error::ErrAskTimeout) {
                               if (senderMoves(from)) sh->senderAskTimeoutsMoving.fetch_add(1);
                               if (!sh->living(sink)) sh->senderAskTimeoutsToStopped.fetch_add(1);
                             }
                           });
  }
  void postStop(ReceiveContext&) override { sh->asksAbandoned.fetch_add(asked - completed); }
  Shared* sh;
  std::uint32_t from;
  std::minstd_rand rng;
  std::vector<std::uint64_t> next;  // per sink incarnation
  std::uint64_t chunks = 0;
  long asked = 0;
  long completed = 0;
};

template <class F>
bool settle(F&& done) {
  const auto deadline = std::chrono::steady_clock::now() + 30s;
  while (!done() && std::chrono::steady_clock::now() < deadline) std::this_thread::sleep_for(2ms);
  return done();
}

TEST(MoveStress, EveryMessageIsHandledInOrderOrDeadLetteredWhileActorsMove) {
  // SPEC X4, A2, A3, A7
  Shared sh;
  sh.target = messagesFromEnv();
  auto system = ActorSystem::create(
      "move-stress",
      ActorSystemOptions::create().withIsolates(kIsolates).withLogLevel(LogLevel::Off));
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.message == nullptr) return;
    if (const Seq* s = d.message->get<Seq>()) sh.onDead(*s);
    if (d.message->is<More>()) sh.deadMores.fetch_add(1);
  });
  // A fresh sink in `slot`; gives the incarnation it replaced.
  auto spawnSink = [&](std::size_t slot, std::uint32_t seed) {
    const std::uint32_t k = sh.incarnations.fetch_add(1);
    sh.refs[k] =
        system->spawn<Sink>("", ActorOptions::create().withIsolate(seed % kIsolates), &sh, k, seed);
    return sh.slots[slot].exchange(k, std::memory_order_acq_rel);
  };
  for (std::size_t i = 0; i < kSinks; ++i) spawnSink(i, static_cast<std::uint32_t>(i));
  for (std::uint32_t i = 0; i < kActorSenders; ++i) {
    ActorOptions options = ActorOptions::create().withIsolate((i / 2) % kIsolates);
    if (!senderMoves(i)) options = options.withPinned();
    sh.senders.push_back(system->spawn<Sender>("sender-" + std::to_string(i), options, &sh, i));
  }

  const auto started = std::chrono::steady_clock::now();
  for (const ActorRef& s : sh.senders) s.tell(More{});
  std::vector<std::thread> threads;
  for (std::uint32_t t = 0; t < kThreadSenders + 1; ++t) {
    threads.emplace_back([&, from = kActorSenders + t] {
      std::minstd_rand rng(100 + from);
      std::vector<std::uint64_t> next(kIncarnations, 0);
      std::unique_ptr<Feeder> feeder;
      if (from == kFeederSender) feeder = std::make_unique<Feeder>(*system, 64);
      for (long i = 0; !sh.done(); ++i) {
        if (sh.windowFull()) {
          if (feeder) feeder->flush();
          std::this_thread::sleep_for(100us);
          continue;
        }
        const std::uint32_t sink = sh.pickSink(rng);
        const std::uint64_t n = next[sink]++;
        sh.cell(sink, from).sent.fetch_add(1, std::memory_order_relaxed);
        sh.sent.fetch_add(1, std::memory_order_relaxed);
        if (feeder) {
          feeder->tell(sh.refs[sink], Seq{from, sink, n});
        } else {
          sh.refs[sink].tell(Seq{from, sink, n});
        }
        if (i % 64 == 63) std::this_thread::yield();
      }
      if (feeder) feeder->flush();
    });
  }

  // The mover: a sink every few hundred microseconds, now and then a
  // sender, and now and then a sink stops and a fresh one takes its slot.
  // It keeps pace with the messages as well (some 20,000 moves and 400
  // replacements over the run, whatever its speed): a message to an actor
  // passes every entry the actor left on its way, so moves far ahead of the
  // messages (a sanitizer build) would only make every message slower.
  std::minstd_rand rng(4711);
  const long replaceEvery = std::max(1L, sh.target / 400);
  const long moveEvery = std::max(1L, sh.target / 20'000);
  long nextReplace = replaceEvery;
  long nextMove = 0;
  auto moveDone = [&sh](std::error_code error) {
    if (!error) {
      sh.movesDone.fetch_add(1);
    } else if (error == Error::ErrDead) {
      sh.movesDead.fetch_add(1);
    } else {
      sh.movesOtherError.fetch_add(1);
    }
  };
  long ended = 0;  // handled or dead, at the last sign of progress
  auto progressAt = std::chrono::steady_clock::now();
  while (!sh.done()) {
    std::this_thread::sleep_for(std::chrono::microseconds(100 + rng() % 400));
    if (const long now = sh.handled.load() + sh.dead.load(); now != ended || !sh.windowFull()) {
      ended = now;
      progressAt = std::chrono::steady_clock::now();
    } else if (std::chrono::steady_clock::now() - progressAt > 20s) {
      sh.stuck.store(true);
    }
    if (sh.sent.load() < nextMove) continue;
    nextMove = sh.sent.load() + moveEvery;
    const std::size_t to = rng() % kIsolates;
    const unsigned roll = rng() % 100;
    if (roll < 80) {
      sh.moves.fetch_add(1);
      system->move(sh.refs[sh.pickSink(rng)], to, moveDone);
    } else if (roll < 92) {
      const std::uint32_t from = static_cast<std::uint32_t>(rng() % kActorSenders) | 1u;
      sh.moves.fetch_add(1);
      system->move(sh.senders[from], to, moveDone);
    } else if (sh.sent.load() >= nextReplace && sh.incarnations.load() < kIncarnations) {
      nextReplace += replaceEvery;
      const std::size_t slot = rng() % kSinks;
      const std::uint32_t old = spawnSink(slot, static_cast<std::uint32_t>(rng()));
      system->stop(sh.refs[old]);
      sh.replaced.fetch_add(1);
    }
  }
  for (auto& t : threads) t.join();
  ASSERT_TRUE(settle([&] { return sh.actorSendersDone.load() == static_cast<int>(kActorSenders); }))
      << [&] {
           std::string left;
           for (std::uint32_t i = 0; i < kActorSenders; ++i) {
             if (sh.lastStep[i].load() == 3) continue;
             left += " sender " + std::to_string(i) + (senderMoves(i) ? " (moves)" : " (stays)") +
                     (sh.lastStep[i].load() == 1 ? " told itself More;" : " scheduled a More;");
           }
           return "actor senders that never went on:" + left + " " +
                  std::to_string(sh.deadMores.load()) + " Mores dead-lettered";
         }();
  const double seconds =
      std::chrono::duration<double>(std::chrono::steady_clock::now() - started).count();

  // Everything sent ends up handled or dead; every move and ask ends.
  ASSERT_TRUE(settle([&] { return sh.handled.load() + sh.dead.load() == sh.sent.load(); }))
      << "sent " << sh.sent.load() << ", handled " << sh.handled.load() << ", dead "
      << sh.dead.load();
  ASSERT_TRUE(settle([&] {
    return sh.movesDone.load() + sh.movesDead.load() + sh.movesOtherError.load() == sh.moves.load();
  }));
  const bool asksEnded = settle([&] {
    return sh.answered.load() + sh.askDead.load() + sh.sinkAskTimeouts.load() +
               sh.senderAskTimeouts.load() + sh.askOtherError.load() + sh.asksAbandoned.load() ==
           sh.asks.load();
  });
  const TransportStats stats = system->transportStats();
  system->shutdown();

  EXPECT_FALSE(sh.stuck.load()) << "the run stopped making progress: messages were lost";
  EXPECT_TRUE(asksEnded);
  EXPECT_EQ(sh.handled.load() + sh.dead.load(), sh.sent.load());
  EXPECT_EQ(sh.outOfOrderFromFixed.load(), 0)
      << "messages of senders that never moved came out of order";
  // Also a sender that moves while the actor it sends to moves too: what
  // it sent before its move is flushed before its first turn on the new
  // isolate (docs/isolates.md, "The sender's side").
  EXPECT_EQ(sh.outOfOrderFromMoving.load(), 0)
      << "messages of senders that moved came out of order";
  // To the message: per sender and sink, the handled ones are the first
  // `handled` it sent (the sink checked there was no gap), the dead letters
  // exactly the rest.
  long badCells = 0;
  for (std::uint32_t k = 0; k < sh.incarnations.load(); ++k) {
    for (std::uint32_t from = 0; from < kSenders; ++from) {
      const Cell& c = sh.cell(k, from);
      const std::uint64_t sent = c.sent.load(), handled = c.handled.load(), dead = c.dead.load();
      bool ok = handled + dead == sent;
      if (ok && dead > 0) {
        const std::uint64_t sum = (handled + sent - 1) * dead / 2;  // handled .. sent-1
        ok = c.deadMin.load() == handled && c.deadMax.load() == sent - 1 && c.deadSum.load() == sum;
      }
      if (!ok && ++badCells <= 10) {
        ADD_FAILURE() << "sink " << k << ", sender " << from << ": sent " << sent << ", handled "
                      << handled << ", dead " << dead << " (numbers " << c.deadMin.load() << ".."
                      << c.deadMax.load() << ")";
      }
    }
  }
  EXPECT_EQ(badCells, 0);
  EXPECT_EQ(sh.movesOtherError.load(), 0);
  EXPECT_EQ(sh.sinkAskTimeouts.load(), 0) << "asks of sinks (that move) to senders timed out";
  EXPECT_EQ(sh.senderAskTimeouts.load(), 0)
      << "asks of senders to sinks timed out: " << sh.senderAskTimeoutsMoving.load()
      << " by senders that move, " << sh.senderAskTimeoutsToStopped.load()
      << " to sinks stopped by then";
  EXPECT_EQ(sh.askOtherError.load(), 0) << "asks that failed otherwise or got a wrong reply";
  // A sink that stops with a move of itself under way hears no Moved.
  EXPECT_LE(sh.selfMovesDone.load() + sh.selfMovesDead.load(), sh.selfMoves.load());
  EXPECT_GT(sh.movesDone.load(), 0);
  EXPECT_GT(sh.replaced.load(), 0);
  EXPECT_LE(stats.moves, static_cast<std::uint64_t>(sh.movesDone.load() + sh.selfMovesDone.load()));
  EXPECT_GT(stats.moves, 0u);
  std::printf(
      "[ stress   ] %.1f s: sent %ld (handled %ld, dead letters %ld); moves: %ld asked (%ld done, "
      "%ld of stopped actors) + %ld by sinks themselves, %llu changed isolate, %llu forwarded; "
      "%ld sinks replaced; asks %ld (%ld answered, %ld to stopped actors, %ld abandoned, %ld + "
      "%ld timed out)\n",
      seconds, sh.sent.load(), sh.handled.load(), sh.dead.load(), sh.moves.load(),
      sh.movesDone.load(), sh.movesDead.load(), sh.selfMoves.load(),
      static_cast<unsigned long long>(stats.moves),
      static_cast<unsigned long long>(stats.forwarded), sh.replaced.load(), sh.asks.load(),
      sh.answered.load(), sh.askDead.load(), sh.asksAbandoned.load(), sh.sinkAskTimeouts.load(),
      sh.senderAskTimeouts.load());
}

}  // namespace
}  // namespace coreactor
