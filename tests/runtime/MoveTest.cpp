// Moving actors between isolates (docs/isolates.md, "Moving an actor"): the
// actor keeps its state, its reference, its watchers and its asks; every
// sender's messages keep their order and none is lost or doubled; what
// cannot move says why. Threaded systems with generous deadlines, and
// manual ones where a step-by-step order is asserted.
#include <gtest/gtest.h>

#include <atomic>
#include <cstdio>
#include <future>
#include <map>
#include <mutex>
#include <optional>
#include <random>
#include <string>
#include <thread>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Async.hpp"
#include "coreactor/Feeder.hpp"
#include "coreactor/MicrotaskDispatcher.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using test::errorOf;

// A system of `isolates` isolates driven by this thread, its time on `clock`.
std::unique_ptr<ActorSystem> manualSystem(ManualClock& clock, std::size_t isolates) {
  return ActorSystem::create(
      "move",
      ActorSystemOptions::create().withIsolates(isolates).withManualRun().withClock(&clock));
}

template <class F>
bool eventually(F&& done) {
  return test::eventually(std::forward<F>(done), 60s);
}

struct Add {
  int n;
};
struct Where {};
struct State {
  int total;
  std::size_t isolate;
};
struct MoveTo {
  std::size_t isolate;
};
// Names an actor to watch, ask, or send to.
struct WatchIt {
  ActorRef actor;
};

// Counts what it is told, says where it is, and moves itself on request.
struct Counter : Actor {
  void receive(ReceiveContext& ctx) override {
    if (const Add* a = ctx.get<Add>()) {
      total += a->n;
    } else if (ctx.is<Where>()) {
      ctx.reply(State{total, ctx.isolateIndex()});
    } else if (const MoveTo* m = ctx.get<MoveTo>()) {
      ctx.move(ctx.self(), m->isolate);
    } else if (const Moved* moved = ctx.get<Moved>()) {
      lastMove = *moved;
    }
  }
  int total = 0;
  Moved lastMove{};
};

State stateOf(ActorSystem& system, const ActorRef& actor) {
  return system.ask<State>(actor, Where{}, 30s).get();
}

// A move whose outcome crosses back as a value, through the completion
// form: where a move may fail on another thread (ErrDead), a future's
// exception would be freed by whichever thread lets go of it last, with a
// count libstdc++ keeps out of TSan's sight.
std::future<std::error_code> moveLater(ActorSystem& system, const ActorRef& actor, std::size_t to) {
  auto outcome = std::make_shared<std::promise<std::error_code>>();
  std::future<std::error_code> future = outcome->get_future();
  system.move(actor, to, [outcome](std::error_code error) { outcome->set_value(error); });
  return future;
}

// SPEC X4
TEST(Move, AnActorMovesWithItsStateAndKeepsItsReference) {
  auto system = ActorSystem::create("move", ActorSystemOptions::create().withIsolates(2));
  const ActorRef counter = system->spawn<Counter>("counter", ActorOptions::create().withIsolate(0));
  for (int i = 1; i <= 10; ++i) counter.tell(Add{i});
  system->move(counter, 1).get();
  EXPECT_EQ(stateOf(*system, counter).isolate, 1u);
  for (int i = 11; i <= 20; ++i) counter.tell(Add{i});
  const State s = stateOf(*system, counter);
  EXPECT_EQ(s.total, 210);
  EXPECT_EQ(s.isolate, 1u);
  EXPECT_EQ(system->transportStats().moves, 1u);
  // And back, and on again: the reference still reaches it.
  system->move(counter, 0).get();
  EXPECT_EQ(stateOf(*system, counter).isolate, 0u);
  system->move(counter, 1).get();
  counter.tell(Add{1});
  EXPECT_EQ(stateOf(*system, counter).total, 211);
  EXPECT_EQ(system->transportStats().moves, 3u);
}

TEST(Move, AMoveToWhereItIsIsDoneAtOnce) {
  auto system = ActorSystem::create("move", ActorSystemOptions::create().withIsolates(2));
  const ActorRef counter = system->spawn<Counter>("counter", ActorOptions::create().withIsolate(1));
  system->move(counter, 1).get();
  EXPECT_EQ(system->transportStats().moves, 0u);
  EXPECT_EQ(stateOf(*system, counter).isolate, 1u);
}

TEST(Move, AnActorMovesItselfAndHearsMovedWhenItIsThere) {
  ManualClock clock;
  auto system = manualSystem(clock, 2);
  const ActorRef counter = system->spawn<Counter>("counter", ActorOptions::create().withIsolate(0));
  counter.tell(MoveTo{1});
  counter.tell(Add{5});
  system->runUntilIdle();
  std::optional<State> where;
  std::error_code askError;
  system->ask(counter, Message(Where{}), 1s, [&](Message* reply, std::error_code error) {
    askError = error;
    if (reply != nullptr) where = *reply->get<State>();
  });
  system->runUntilIdle();
  ASSERT_TRUE(where.has_value()) << askError.message();
  EXPECT_EQ(where->isolate, 1u);
  EXPECT_EQ(where->total, 5);
  EXPECT_EQ(system->transportStats().moves, 1u);
}

// ---- what cannot move -------------------------------------------------------------

struct UsesItsIsolate : Actor {
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Where>()) {
      (void)ctx.isolate();  // may keep a timer or a socket of this loop from now on
      ctx.reply(State{0, ctx.isolateIndex()});
    }
  }
};

TEST(Move, WhatCannotMoveIsANamedError) {
  auto system = ActorSystem::create("move", ActorSystemOptions::create().withIsolates(2));
  auto other = ActorSystem::create("other", ActorSystemOptions::create().withIsolates(1));
  const ActorRef counter = system->spawn<Counter>("counter", ActorOptions::create().withIsolate(0));
  // At the call.
  EXPECT_EQ(errorOf([&] { system->move(counter, 2); }), Error::ErrIsolateOutOfRange);
  EXPECT_EQ(errorOf([&] { system->move(ActorRef(), 1); }), Error::ErrDead);
  const ActorRef foreign = other->spawn<Counter>("x");
  EXPECT_EQ(errorOf([&] { system->move(foreign, 1); }), Error::ErrInvalidOption);
  // Pinned at spawn.
  const ActorRef pinned =
      system->spawn<Counter>("pinned", ActorOptions::create().withIsolate(0).withPinned());
  EXPECT_EQ(errorOf([&] { system->move(pinned, 1).get(); }), Error::ErrNotMovable);
  // A dispatcher of its own is bound to its isolate.
  const ActorRef own =
      system->spawn<Counter>("own", ActorOptions::create().withIsolate(0).withDispatcher(
                                        std::make_shared<MicrotaskDispatcher>()));
  EXPECT_EQ(errorOf([&] { system->move(own, 1).get(); }), Error::ErrNotMovable);
  // So is an actor that used its isolate directly.
  const ActorRef bound =
      system->spawn<UsesItsIsolate>("bound", ActorOptions::create().withIsolate(0));
  EXPECT_EQ(system->ask<State>(bound, Where{}, 30s).get().isolate, 0u);
  EXPECT_EQ(errorOf([&] { system->move(bound, 1).get(); }), Error::ErrNotMovable);
  // A stopped actor.
  const ActorRef gone = system->spawn<Counter>("gone", ActorOptions::create().withIsolate(0));
  system->stop(gone);  // the move comes behind the stop, from the same thread
  EXPECT_EQ(errorOf([&] { system->move(gone, 1).get(); }), Error::ErrDead);
  // What was refused stays where it was, and works.
  EXPECT_EQ(stateOf(*system, pinned).isolate, 0u);
  EXPECT_EQ(system->transportStats().moves, 0u);
  // A stopped system.
  system->shutdown();
  EXPECT_EQ(errorOf([&] { system->move(counter, 1); }), Error::ErrActorSystemNotStarted);
}

TEST(Move, WaitingForAMoveOnOneOfTheSystemsLoopsIsErrWouldDeadlock) {
  struct Waits : Actor {
    void receive(ReceiveContext& ctx) override {
      if (ctx.is<Where>()) {
        std::error_code error;
        try {
          ctx.system().move(ctx.self(), 1).get();
        } catch (const std::system_error& e) {
          error = e.code();
        }
        ctx.reply(error);
      }
    }
  };
  auto system = ActorSystem::create("move", ActorSystemOptions::create().withIsolates(2));
  const ActorRef waits = system->spawn<Waits>("waits", ActorOptions::create().withIsolate(0));
  EXPECT_EQ(system->ask<std::error_code>(waits, Where{}, 30s).get(), Error::ErrWouldDeadlock);
}

// ---- order and exactly-once while the target moves --------------------------------

#ifdef NDEBUG
constexpr int kMovesUnderTraffic = 300;
constexpr std::int64_t kMessagesPerSender = 200'000;
#else
// A debug or sanitizer build: the same shape, smaller.
constexpr int kMovesUnderTraffic = 60;
constexpr std::int64_t kMessagesPerSender = 20'000;
#endif

// A numbered message of one sender (its number in the test, `from`).
struct Seq {
  std::uint32_t from;
  std::int64_t n;
};
struct Tick {};
struct More {};

// What a SeqSink saw, read by the test thread.
struct SeqCounts {
  explicit SeqCounts(std::size_t senders) : received(senders) {}
  std::vector<std::atomic<std::int64_t>> received;  // per sender
  std::atomic<std::int64_t> total{0};
  std::atomic<std::int64_t> outOfOrder{0};
  std::atomic<std::int64_t> ticks{0};
};

// Checks that every sender's numbers come 0, 1, 2, ... (the expected next
// number is the actor's state: it moves with it), and counts.
struct SeqSink : Actor {
  explicit SeqSink(SeqCounts* counts) : counts(counts), next(counts->received.size(), 0) {}
  void receive(ReceiveContext& ctx) override {
    if (const Seq* s = ctx.get<Seq>()) {
      if (s->n != next[s->from]) counts->outOfOrder.fetch_add(1);
      next[s->from] = s->n + 1;
      counts->received[s->from].fetch_add(1);
      counts->total.fetch_add(1);
    } else if (ctx.is<Tick>()) {
      counts->ticks.fetch_add(1);
    } else if (ctx.is<Where>()) {
      ctx.reply(State{0, ctx.isolateIndex()});
    }
  }
  SeqCounts* counts;
  std::vector<std::int64_t> next;
};

// Sends `cap` numbered messages to `to`, a chunk a turn; then publishes
// how many it sent.
struct SeqSender : Actor {
  SeqSender(ActorRef to, std::uint32_t from, std::int64_t cap, std::atomic<std::int64_t>* sent)
      : to(to), from(from), cap(cap), sent(sent) {}
  void receive(ReceiveContext& ctx) override {
    if (!ctx.is<More>()) return;
    for (int i = 0; i < 32 && n < cap; ++i) ctx.tell(to, Seq{from, n++});
    if (n < cap) {
      ctx.tell(ctx.self(), More{});
    } else {
      sent->store(n);
    }
  }
  ActorRef to;
  std::uint32_t from;
  std::int64_t cap;
  std::atomic<std::int64_t>* sent;
  std::int64_t n = 0;
};

// SPEC X4: every sender's messages, sent before, during and after moves of
// the target, are handled once each and in the order sent.
TEST(Move, EverySendersMessagesArriveOnceAndInOrderWhileTheTargetMoves) {
  constexpr std::size_t kIsolates = 3;
  auto system = ActorSystem::create(
      "move", ActorSystemOptions::create().withIsolates(kIsolates).withLogLevel(LogLevel::Off));
  // Senders: 0-2 actors (one per isolate), 3 a plain thread, 4 a Feeder.
  constexpr std::uint32_t kThread = 3, kFeeder = 4, kSenders = 5;
  SeqCounts counts(kSenders);
  const ActorRef sink =
      system->spawn<SeqSink>("sink", ActorOptions::create().withIsolate(0), &counts);
  constexpr std::int64_t kCap = kMessagesPerSender;
  std::vector<std::atomic<std::int64_t>> sent(kSenders);
  for (auto& s : sent) s.store(-1);
  std::vector<ActorRef> actors;
  for (std::uint32_t i = 0; i < kIsolates; ++i) {
    actors.push_back(system->spawn<SeqSender>("sender-" + std::to_string(i),
                                              ActorOptions::create().withIsolate(i).withPinned(),
                                              sink, i, kCap, &sent[i]));
  }
  // A schedule ticks at it too: every tick sent is handled once.
  ScheduleResult ticking = system->schedule(Tick{}, sink, 200us);
  ASSERT_FALSE(ticking.wait()) << ticking.wait().message();
  for (const ActorRef& a : actors) a.tell(More{});
  std::thread thread([&] {
    std::int64_t n = 0;
    for (; n < kCap; ++n) {
      sink.tell(Seq{kThread, n});
      if (n % 64 == 63) std::this_thread::yield();
    }
    sent[kThread].store(n);
  });
  std::thread feeding([&] {
    Feeder feeder(*system, 64);
    std::int64_t n = 0;
    for (; n < kCap; ++n) {
      feeder.tell(sink, Seq{kFeeder, n});
      if (n % 64 == 63) std::this_thread::yield();
    }
    feeder.flush();
    sent[kFeeder].store(n);
  });
  // The mover: random isolates, each move waited for, until every sender
  // is done (and at least kMovesUnderTraffic times).
  auto sending = [&] {
    for (auto& s : sent) {
      if (s.load() < 0) return true;
    }
    return false;
  };
  std::uint64_t moved = 0;
  std::size_t at = 0;
  std::mt19937 rng(4242);
  for (int i = 0; i < kMovesUnderTraffic || sending(); ++i) {
    const std::size_t to = rng() % kIsolates;
    const std::error_code error = errorOf([&] { system->move(sink, to).get(); });
    if (error) {
      ADD_FAILURE() << "move " << i << ": " << error.message();
      break;
    }
    if (to != at) ++moved;
    at = to;
  }
  thread.join();
  feeding.join();
  std::int64_t total = 0;
  for (auto& s : sent) total += s.load();
  ASSERT_TRUE(eventually([&] { return counts.total.load() == total; }))
      << counts.total.load() << " of " << total;
  EXPECT_EQ(counts.outOfOrder.load(), 0);
  for (std::uint32_t i = 0; i < kSenders; ++i) {
    EXPECT_EQ(counts.received[i].load(), sent[i].load()) << "sender " << i;
    EXPECT_GT(sent[i].load(), 0) << "sender " << i;
  }
  // The schedule's ticks: once its cancel is done no more are sent, and
  // every one sent reaches the sink once.
  ASSERT_FALSE(system->cancelSchedule(ticking.handle()).wait());
  ASSERT_TRUE(eventually([&] {
    return counts.ticks.load() == static_cast<std::int64_t>(system->tickCount());
  })) << counts.ticks.load()
      << " ticks of " << system->tickCount();
  EXPECT_EQ(system->deadLetterCount(), 0u);
  EXPECT_EQ(system->transportStats().moves, moved);
  EXPECT_EQ(stateOf(*system, sink).isolate, at);
  std::printf("[ move     ] %llu moves under %lld messages and %lld ticks\n",
              static_cast<unsigned long long>(moved), static_cast<long long>(total),
              static_cast<long long>(counts.ticks.load()));
  system->shutdown();
}

// ---- asks across a move ---------------------------------------------------------------

struct Question {
  int n;
};
struct Release {};

// Holds every Question until Release, then answers each with n + 1 and
// where it is then.
struct Holder : Actor {
  void receive(ReceiveContext& ctx) override {
    if (const Question* q = ctx.get<Question>()) {
      waiting.emplace_back(ctx.sender(), q->n);
    } else if (ctx.is<Release>()) {
      for (auto& [asker, n] : waiting) asker.tell(State{n + 1, ctx.isolateIndex()}, ctx.self());
      waiting.clear();
    } else if (ctx.is<Where>()) {
      ctx.reply(State{static_cast<int>(waiting.size()), ctx.isolateIndex()});
    }
  }
  std::vector<std::pair<ActorRef, int>> waiting;
};

// SPEC X4
TEST(Move, AnAskToAnActorThatMovesWhileItIsInFlightGetsItsReply) {
  auto system = ActorSystem::create("move", ActorSystemOptions::create().withIsolates(3));
  const ActorRef holder = system->spawn<Holder>("holder", ActorOptions::create().withIsolate(0));
  auto reply = system->ask<State>(holder, Question{41}, 60s);
  ASSERT_TRUE(eventually([&] { return stateOf(*system, holder).total == 1; }));
  system->move(holder, 1).get();
  system->move(holder, 2).get();
  holder.tell(Release{});
  const State s = reply.get();
  EXPECT_EQ(s.total, 42);
  EXPECT_EQ(s.isolate, 2u);

  // And many asks, answered at once, while a thread moves the target.
  const ActorRef echo = system->spawn<Counter>("echo", ActorOptions::create().withIsolate(0));
  std::atomic<bool> done{false};
  std::thread mover([&] {
    std::mt19937 rng(7);
    while (!done.load()) system->move(echo, rng() % 3).get();
  });
  for (int i = 0; i < kMovesUnderTraffic * 3; ++i) {
    echo.tell(Add{1});
    ASSERT_EQ(system->ask<State>(echo, Where{}, 60s).get().total, i + 1) << "ask " << i;
  }
  done.store(true);
  mover.join();
  system->shutdown();
}

// What an Asker's ask callback saw.
struct AskSeen {
  bool called = false;
  std::error_code error;
  int value = 0;
  std::size_t isolate = 99;
  std::vector<Moved> moves;
};
struct AskThenMove {
  ActorRef target;
  std::size_t to;
};

// Asks `target` with a callback, then moves itself in the same turn.
struct Asker : Actor {
  explicit Asker(AskSeen* seen) : seen(seen) {}
  void receive(ReceiveContext& ctx) override {
    if (const AskThenMove* go = ctx.get<AskThenMove>()) {
      ctx.ask<State>(go->target, Question{1}, 10s,
                     [s = seen](ReceiveContext& c, AskResult<State>& r) {
                       s->called = true;
                       s->error = r.error();
                       if (r) s->value = r.value().total;
                       s->isolate = c.isolateIndex();
                     });
      ctx.move(ctx.self(), go->to);
    } else if (const Moved* m = ctx.get<Moved>()) {
      seen->moves.push_back(*m);
    }
  }
  AskSeen* seen;
};

// SPEC X4
TEST(Move, AnActorThatAsksAndMovesBeforeTheReplyGetsItInItsTurnOnTheNewIsolate) {
  ManualClock clock;
  auto system = manualSystem(clock, 3);
  AskSeen seen;
  const ActorRef holder = system->spawn<Holder>("holder", ActorOptions::create().withIsolate(1));
  const ActorRef asker =
      system->spawn<Asker>("asker", ActorOptions::create().withIsolate(0), &seen);
  asker.tell(AskThenMove{holder, 2});
  system->runUntilIdle();
  ASSERT_EQ(seen.moves.size(), 1u);
  EXPECT_EQ(seen.moves[0].actor, asker);
  EXPECT_EQ(seen.moves[0].isolate, 2u);
  EXPECT_FALSE(seen.moves[0].error);
  EXPECT_FALSE(seen.called) << "the reply is still held";
  holder.tell(Release{});
  system->runUntilIdle();
  ASSERT_TRUE(seen.called);
  EXPECT_FALSE(seen.error) << seen.error.message();
  EXPECT_EQ(seen.value, 2);
  EXPECT_EQ(seen.isolate, 2u) << "the callback ran in a turn on the isolate it moved to";
}

// SPEC X4, A3: an ask that meets a moved actor stopped (queued when it
// stops, or sent after) fails with ErrDead at once, as for an actor that
// never moved: from outside and from an actor, whatever isolate it asks from.
TEST(Move, AnAskToAMovedActorThatStopsFailsWithErrDead) {
  ManualClock clock;
  auto system = manualSystem(clock, 3);
  std::vector<std::error_code> outcomes;  // this thread drives the loops
  auto record = [&](Message* reply, std::error_code error) {
    outcomes.push_back(reply != nullptr && !error ? std::error_code() : error);
  };
  const ActorRef asker = system->spawn(
      "asker",
      [&](ReceiveContext& ctx) {
        if (const WatchIt* w = ctx.get<WatchIt>()) {
          ctx.ask<State>(w->actor, Where{}, 10s, [&](ReceiveContext&, AskResult<State>& r) {
            outcomes.push_back(r.error());
          });
        }
      },
      ActorOptions::create().withIsolate(2));
  // Queued when it stops.
  const ActorRef one = system->spawn<Counter>("one", ActorOptions::create().withIsolate(0));
  system->move(one, 1).get();
  system->ask(one, Message(Where{}), 10s, record);
  asker.tell(WatchIt{one});
  system->stop(one);
  system->runUntilIdle();
  // Sent after it stopped.
  const ActorRef two = system->spawn<Counter>("two", ActorOptions::create().withIsolate(0));
  system->move(two, 1).get();
  system->move(two, 2).get();
  system->stop(two);
  system->runUntilIdle();
  system->ask(two, Message(Where{}), 10s, record);
  asker.tell(WatchIt{two});
  system->runUntilIdle();
  ASSERT_EQ(outcomes.size(), 4u) << "an ask is still waiting for its timeout";
  for (const std::error_code& e : outcomes) EXPECT_EQ(e, Error::ErrDead) << e.message();
}

// The same on threads, the stop racing the asks (from outside and from
// actors on every isolate) and moves: each ends with its reply or ErrDead,
// none with a timeout.
TEST(Move, OnThreadsAnAskToAMovingActorThatStopsEndsWithItsReplyOrErrDead) {
  auto system = ActorSystem::create(
      "move", ActorSystemOptions::create().withIsolates(3).withLogLevel(LogLevel::Off));
  std::atomic<int> replies{0}, dead{0}, other{0};
  std::atomic<int> timeoutsFromOutside{0}, timeoutsFromActors{0};
  // The requests that became dead letters, by reason: for the failure's message.
  std::mutex reasonsMutex;
  std::map<std::string, int> reasons;
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.message == nullptr || !d.message->is<Where>()) return;
    std::lock_guard<std::mutex> lock(reasonsMutex);
    ++reasons[d.reason];
  });
  auto count = [&](bool replied, std::error_code error, bool fromActor) {
    (replied && !error ? replies : error == Error::ErrDead ? dead : other).fetch_add(1);
    if (error == Error::ErrAskTimeout) (fromActor ? timeoutsFromActors : timeoutsFromOutside)++;
  };
  constexpr int kRounds = 50, kAsks = 20;
  std::vector<ActorRef> askers;
  for (std::size_t i = 0; i < 3; ++i) {
    askers.push_back(system->spawn(
        "asker-" + std::to_string(i),
        [&](ReceiveContext& ctx) {
          if (const WatchIt* w = ctx.get<WatchIt>()) {
            ctx.ask<State>(w->actor, Where{}, 20s, [&](ReceiveContext&, AskResult<State>& r) {
              count(r.ok(), r.error(), true);
            });
          }
        },
        ActorOptions::create().withIsolate(i)));
  }
  std::mt19937 rng(3);
  for (int i = 0; i < kRounds; ++i) {
    const ActorRef actor = system->spawn<Counter>("a" + std::to_string(i),
                                                  ActorOptions::create().withIsolate(rng() % 3));
    std::atomic<bool> stopped{false};
    std::thread mover([&, seed = rng()] {
      std::mt19937 r(seed);
      while (!stopped.load()) {
        if (moveLater(*system, actor, r() % 3).get() == Error::ErrDead) break;
      }
    });
    for (int k = 0; k < kAsks; ++k) {
      system->ask(actor, Message(Where{}), 20s, [&](Message* reply, std::error_code error) {
        count(reply != nullptr, error, false);
      });
      askers[k % 3].tell(WatchIt{actor});
      if (k == kAsks / 2) system->stop(actor);
    }
    stopped.store(true);
    mover.join();
  }
  ASSERT_TRUE(test::eventually([&] { return replies + dead + other == 2 * kRounds * kAsks; }, 60s))
      << replies.load() << " replies, " << dead.load() << " ErrDead, " << other.load()
      << " other errors of " << 2 * kRounds * kAsks;
  std::string deadRequests;
  {
    std::lock_guard<std::mutex> lock(reasonsMutex);
    for (const auto& [reason, n] : reasons)
      deadRequests += " " + std::to_string(n) + " " + reason + ";";
  }
  EXPECT_EQ(other.load(), 0) << timeoutsFromOutside.load() << " asks from outside and "
                             << timeoutsFromActors.load() << " from actors timed out; "
                             << dead.load() << " ErrDead; requests dead-lettered:" << deadRequests;
  EXPECT_GT(dead.load(), 0);
  system->shutdown();
}

// ---- watching across a move -------------------------------------------------------------

// What a Watcher heard: each Terminated, with the isolate it heard it on.
struct Heard {
  std::mutex mutex;
  std::vector<std::pair<ActorRef, std::size_t>> terminated;
  std::size_t count(const ActorRef& a) {
    std::lock_guard<std::mutex> lock(mutex);
    std::size_t n = 0;
    for (const auto& [actor, isolate] : terminated) n += actor == a ? 1 : 0;
    return n;
  }
};
struct Watcher : Actor {
  explicit Watcher(Heard* heard) : heard(heard) {}
  void receive(ReceiveContext& ctx) override {
    if (const WatchIt* w = ctx.get<WatchIt>()) {
      ctx.watch(w->actor);
      ctx.reply(State{0, ctx.isolateIndex()});
    } else if (const Terminated* t = ctx.get<Terminated>()) {
      std::lock_guard<std::mutex> lock(heard->mutex);
      heard->terminated.emplace_back(t->actor, ctx.isolateIndex());
    } else if (ctx.is<Where>()) {
      ctx.reply(State{0, ctx.isolateIndex()});
    }
  }
  Heard* heard;
};

// SPEC X4
TEST(Move, AWatcherHearsTerminatedOnceWhenTheActorItWatchesStopsAfterMoving) {
  ManualClock clock;
  auto system = manualSystem(clock, 3);
  Heard heard;
  const ActorRef watcher =
      system->spawn<Watcher>("watcher", ActorOptions::create().withIsolate(0), &heard);
  const ActorRef early = system->spawn<Counter>("early", ActorOptions::create().withIsolate(1));
  const ActorRef late = system->spawn<Counter>("late", ActorOptions::create().withIsolate(1));
  watcher.tell(WatchIt{early});  // watched before it moves
  system->runUntilIdle();
  system->move(early, 2).get();
  system->move(late, 2).get();
  system->move(early, 0).get();
  watcher.tell(WatchIt{late});  // watched after it moved
  system->runUntilIdle();
  system->stop(early);
  system->stop(late);
  system->runUntilIdle();
  EXPECT_EQ(heard.count(early), 1u);
  EXPECT_EQ(heard.count(late), 1u);
  EXPECT_EQ(heard.terminated.size(), 2u);
}

// SPEC X4
TEST(Move, AMovedWatcherHearsTerminatedOnItsNewIsolate) {
  ManualClock clock;
  auto system = manualSystem(clock, 3);
  Heard heard;
  const ActorRef watcher =
      system->spawn<Watcher>("watcher", ActorOptions::create().withIsolate(0), &heard);
  const ActorRef watched = system->spawn<Counter>("watched", ActorOptions::create().withIsolate(1));
  watcher.tell(WatchIt{watched});
  system->runUntilIdle();
  system->move(watcher, 2).get();
  system->move(watched, 0).get();  // both moved: the watched onto the watcher's old isolate
  system->stop(watched);
  system->runUntilIdle();
  ASSERT_EQ(heard.terminated.size(), 1u);
  EXPECT_EQ(heard.terminated[0].first, watched);
  EXPECT_EQ(heard.terminated[0].second, 2u);
}

// The same with threads: watcher and watched each move many times, then the
// watched stops.
TEST(Move, WatchersHearTerminatedOnceWhileBothSidesMoveOnThreads) {
  auto system = ActorSystem::create("move", ActorSystemOptions::create().withIsolates(3));
  Heard heard;
  const ActorRef watcher =
      system->spawn<Watcher>("watcher", ActorOptions::create().withIsolate(0), &heard);
  std::vector<ActorRef> watched;
  for (int i = 0; i < 8; ++i) {
    watched.push_back(system->spawn<Counter>(
        "w" + std::to_string(i),
        ActorOptions::create().withIsolate(static_cast<std::size_t>(i % 3))));
    system->ask<State>(watcher, WatchIt{watched.back()}, 30s).get();
  }
  std::mt19937 rng(99);
  for (int round = 0; round < 20; ++round) {
    system->move(watcher, rng() % 3).get();
    for (const ActorRef& w : watched) system->move(w, rng() % 3).get();
  }
  for (const ActorRef& w : watched) system->stop(w);
  ASSERT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> lock(heard.mutex);
    return heard.terminated.size() >= watched.size();
  }));
  // One more round trip to the watcher: a second Terminated would be in front.
  stateOf(*system, watcher);
  for (const ActorRef& w : watched) EXPECT_EQ(heard.count(w), 1u);
  system->shutdown();
}

// ---- a stop or a second move racing a move --------------------------------------------

struct Stops {
  std::atomic<int> postStops{0};
};
struct Mortal : Counter {
  explicit Mortal(Stops* stops) : stops(stops) {}
  void postStop(ReceiveContext&) override { stops->postStops.fetch_add(1); }
  Stops* stops;
};

// SPEC X4
TEST(Move, AStopRightBehindAMoveEndsTheActorOnceWhicheverComesFirst) {
  constexpr int kRounds = 100;
  auto system = ActorSystem::create("move", ActorSystemOptions::create().withIsolates(3));
  Heard heard;
  const ActorRef watcher =
      system->spawn<Watcher>("watcher", ActorOptions::create().withIsolate(0), &heard);
  std::vector<Stops> stops(kRounds);
  std::vector<ActorRef> mortals;
  int moved = 0, dead = 0;
  std::mt19937 rng(5);
  for (int i = 0; i < kRounds; ++i) {
    const std::size_t from = rng() % 3;
    const ActorRef mortal = system->spawn<Mortal>(
        "mortal-" + std::to_string(i), ActorOptions::create().withIsolate(from), &stops[i]);
    mortals.push_back(mortal);
    system->ask<State>(watcher, WatchIt{mortal}, 30s).get();
    if (i % 2 == 1) mortal.tell(Add{1});  // half of them busy with a message as well
    const std::size_t to = (from + 1 + rng() % 2) % 3;
    std::future<std::error_code> move;
    switch (i % 3) {
      case 0:  // the stop right behind the move, from the same thread
        move = moveLater(*system, mortal, to);
        system->stop(mortal);
        break;
      case 1: {  // the stop from another thread, at the same moment
        std::atomic<int> ready{0};
        std::thread stopper([&] {
          ready.fetch_add(1);
          while (ready.load() < 2) {
          }
          system->stop(mortal);
        });
        ready.fetch_add(1);
        while (ready.load() < 2) {
        }
        move = moveLater(*system, mortal, to);
        stopper.join();
        break;
      }
      default:  // the move right behind the stop: it finds the actor stopped
        system->stop(mortal);
        move = moveLater(*system, mortal, to);
        break;
    }
    const std::error_code error = move.get();
    EXPECT_TRUE(!error || error == Error::ErrDead) << "round " << i << ": " << error.message();
    if (i % 3 == 2) {
      EXPECT_EQ(error, Error::ErrDead) << "round " << i;
    }
    (error ? dead : moved) += 1;
  }
  ASSERT_TRUE(eventually([&] {
    std::lock_guard<std::mutex> lock(heard.mutex);
    return heard.terminated.size() >= mortals.size();
  }));
  stateOf(*system, watcher);
  for (int i = 0; i < kRounds; ++i) {
    EXPECT_TRUE(eventually([&] { return stops[i].postStops.load() >= 1; })) << "round " << i;
    EXPECT_EQ(stops[i].postStops.load(), 1) << "round " << i;
    EXPECT_EQ(heard.count(mortals[i]), 1u) << "round " << i;
  }
  EXPECT_EQ(system->transportStats().moves, static_cast<std::uint64_t>(moved));
  std::printf("[ move     ] %d moved before their stop, %d stopped first\n", moved, dead);
  system->shutdown();
}

// SPEC X4
TEST(Move, TwoMovesRacingFromTwoThreadsBothCompleteAndTheActorAnswers) {
  constexpr int kRounds = 100;
  auto system = ActorSystem::create("move", ActorSystemOptions::create().withIsolates(3));
  const ActorRef counter = system->spawn<Counter>("counter", ActorOptions::create().withIsolate(0));
  std::mt19937 rng(11);
  for (int i = 0; i < kRounds; ++i) {
    const std::size_t a = rng() % 3;
    const std::size_t b = (a + 1 + rng() % 2) % 3;
    std::atomic<int> ready{0};
    std::error_code errors[2];
    auto race = [&](int k, std::size_t to) {
      ready.fetch_add(1);
      while (ready.load() < 2) {
      }
      errors[k] = errorOf([&] { system->move(counter, to).get(); });
    };
    std::thread one(race, 0, a);
    std::thread two(race, 1, b);
    one.join();
    two.join();
    EXPECT_FALSE(errors[0]) << "round " << i << ": " << errors[0].message();
    EXPECT_FALSE(errors[1]) << "round " << i << ": " << errors[1].message();
    counter.tell(Add{1});
    const State s = stateOf(*system, counter);
    EXPECT_TRUE(s.isolate == a || s.isolate == b) << "round " << i << ": on " << s.isolate;
    EXPECT_EQ(s.total, i + 1) << "round " << i;
  }
  system->shutdown();
}

// ---- a suspended coroutine handler defers the move ---------------------------------------

// Logs each start and end of its handler with the isolate it ran on.
struct Napper : AsyncActor {
  explicit Napper(std::vector<std::string>* log) : log(log) {}
  Async receiveAsync(ReceiveContext& ctx) override {
    if (const int* n = ctx.get<int>()) {
      const int k = *n;
      log->push_back("start " + std::to_string(k) + " on " + std::to_string(ctx.isolateIndex()));
      co_await ctx.delay(10ms);
      log->push_back("end " + std::to_string(k) + " on " + std::to_string(ctx.isolateIndex()));
    } else if (const ActorRef* target = ctx.get<ActorRef>()) {
      log->push_back("ask on " + std::to_string(ctx.isolateIndex()));
      AskResult<State> r = co_await ctx.ask<State>(*target, Question{1}, 10s);
      log->push_back("reply " + std::to_string(r ? r.value().total : -1) + " on " +
                     std::to_string(ctx.isolateIndex()));
    } else if (ctx.is<Where>()) {
      ctx.reply(State{0, ctx.isolateIndex()});
    }
  }
  std::vector<std::string>* log;
};

using Lines = std::vector<std::string>;

// SPEC X4
TEST(Move, AHandlerSuspendedInADelayDefersTheMoveUntilItHasFinished) {
  ManualClock clock;
  auto system = manualSystem(clock, 2);
  Lines log;
  const ActorRef napper =
      system->spawn<Napper>("napper", ActorOptions::create().withIsolate(0), &log);
  napper.tell(1);
  system->runUntilIdle();
  EXPECT_EQ(log, (Lines{"start 1 on 0"}));
  auto move = system->move(napper, 1);
  napper.tell(2);
  system->runUntilIdle();
  EXPECT_EQ(move.wait_for(0s), std::future_status::timeout) << "suspended: it has not moved";
  EXPECT_EQ(system->transportStats().moves, 0u);
  EXPECT_EQ(log, (Lines{"start 1 on 0"}));
  clock.advance(10ms);
  system->runUntilIdle();
  ASSERT_EQ(move.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(errorOf([&] { move.get(); }), std::error_code());
  EXPECT_EQ(system->transportStats().moves, 1u);
  // The handler finished where it began; the next message ran on the new isolate.
  EXPECT_EQ(log, (Lines{"start 1 on 0", "end 1 on 0", "start 2 on 1"}));
  clock.advance(10ms);
  system->runUntilIdle();
  EXPECT_EQ(log.back(), "end 2 on 1");
}

// SPEC X4
TEST(Move, AHandlerSuspendedInAnAskDefersTheMoveUntilItHasFinished) {
  ManualClock clock;
  auto system = manualSystem(clock, 3);
  Lines log;
  const ActorRef holder = system->spawn<Holder>("holder", ActorOptions::create().withIsolate(2));
  const ActorRef napper =
      system->spawn<Napper>("napper", ActorOptions::create().withIsolate(0), &log);
  napper.tell(holder);
  system->runUntilIdle();
  EXPECT_EQ(log, (Lines{"ask on 0"}));
  auto move = system->move(napper, 1);
  system->runUntilIdle();
  EXPECT_EQ(move.wait_for(0s), std::future_status::timeout) << "suspended: it has not moved";
  // The holder moves meanwhile too: the reply comes from where it is.
  system->move(holder, 1).get();
  EXPECT_EQ(move.wait_for(0s), std::future_status::timeout);
  holder.tell(Release{});
  system->runUntilIdle();
  ASSERT_EQ(move.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(errorOf([&] { move.get(); }), std::error_code());
  EXPECT_EQ(log, (Lines{"ask on 0", "reply 2 on 0"}));
  std::optional<State> where;
  system->ask(napper, Message(Where{}), 1s, [&](Message* reply, std::error_code) {
    if (reply != nullptr) where = *reply->get<State>();
  });
  system->runUntilIdle();
  ASSERT_TRUE(where.has_value());
  EXPECT_EQ(where->isolate, 1u);
  EXPECT_EQ(system->transportStats().moves, 2u);
}

// ---- supervision and moves -------------------------------------------------------------------

struct Crash {};
struct Hold {};
struct ChildRef {};

struct Supervision {
  std::atomic<int> crashes{0};
  std::atomic<int> restarts{0};
  std::atomic<bool> holding{false};
  std::atomic<bool> release{false};
};

// A Counter that throws on Crash and counts its restarts.
struct Fragile : Counter {
  explicit Fragile(Supervision* s) : s(s) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Crash>()) {
      s->crashes.fetch_add(1);
      throw std::runtime_error("crash on purpose");
    }
    Counter::receive(ctx);
  }
  void postRestart(ReceiveContext&, const std::exception_ptr&) override {
    s->restarts.fetch_add(1);
  }
  Supervision* s;
};

// Spawns a Fragile child on `childIsolate` and gives its reference; on Hold
// it blocks its turn until released (its supervision decisions wait).
struct Parent : Actor {
  Parent(Supervision* s, std::size_t childIsolate) : s(s), childIsolate(childIsolate) {}
  void preStart(ReceiveContext& ctx) override {
    child = ctx.spawn<Fragile>("child", ActorOptions::create().withIsolate(childIsolate), s);
  }
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<ChildRef>()) {
      ctx.reply(child);
    } else if (ctx.is<Hold>()) {
      s->holding.store(true);
      while (!s->release.load()) std::this_thread::yield();
    }
  }
  Supervision* s;
  std::size_t childIsolate;
  ActorRef child;
};

// SPEC X4, A6
TEST(Move, ARestartedChildMovesAndItsParentStillSupervisesIt) {
  auto system = ActorSystem::create(
      "move", ActorSystemOptions::create().withIsolates(3).withLogLevel(LogLevel::Off));
  Supervision s;
  const ActorRef parent =
      system->spawn<Parent>("parent", ActorOptions::create().withIsolate(0), &s, std::size_t{1});
  const ActorRef child = system->ask<ActorRef>(parent, ChildRef{}, 30s).get();
  child.tell(Add{5});
  child.tell(Crash{});
  ASSERT_TRUE(eventually([&] { return s.restarts.load() == 1; }));
  EXPECT_EQ(stateOf(*system, child).total, 0) << "a new instance";
  system->move(child, 2).get();
  child.tell(Add{3});
  State st = stateOf(*system, child);
  EXPECT_EQ(st.isolate, 2u);
  EXPECT_EQ(st.total, 3);
  // It fails again on its new isolate: the parent restarts it there.
  child.tell(Crash{});
  child.tell(Add{4});
  ASSERT_TRUE(eventually([&] { return s.restarts.load() == 2; }));
  st = stateOf(*system, child);
  EXPECT_EQ(st.isolate, 2u);
  EXPECT_EQ(st.total, 4);
  system->shutdown();
}

// SPEC X4, A6
TEST(Move, AMoveOfAnActorWhoseSupervisorHasYetToDecideCompletesAfterTheDecision) {
  auto system = ActorSystem::create(
      "move", ActorSystemOptions::create().withIsolates(3).withLogLevel(LogLevel::Off));
  Supervision s;
  const ActorRef parent =
      system->spawn<Parent>("parent", ActorOptions::create().withIsolate(0), &s, std::size_t{1});
  const ActorRef child = system->ask<ActorRef>(parent, ChildRef{}, 30s).get();
  EXPECT_EQ(stateOf(*system, child).isolate, 1u);
  parent.tell(Hold{});
  ASSERT_TRUE(eventually([&] { return s.holding.load(); }));
  child.tell(Add{5});
  child.tell(Crash{});
  ASSERT_TRUE(eventually([&] { return s.crashes.load() == 1; }));
  auto move = system->move(child, 2);
  // The parent is held in its turn: no decision, so no move.
  EXPECT_EQ(move.wait_for(200ms), std::future_status::timeout);
  EXPECT_EQ(s.restarts.load(), 0);
  EXPECT_EQ(system->transportStats().moves, 0u);
  s.release.store(true);
  EXPECT_EQ(errorOf([&] { move.get(); }), std::error_code());
  EXPECT_EQ(s.restarts.load(), 1) << "restarted before it moved";
  const State st = stateOf(*system, child);
  EXPECT_EQ(st.isolate, 2u);
  EXPECT_EQ(st.total, 0);
  EXPECT_EQ(system->transportStats().moves, 1u);
  system->shutdown();
}

// ---- the mailbox travels ------------------------------------------------------------------

struct Numbered {
  int n;
};

// Records every Numbered with the isolate it was handled on.
struct Recorder : Actor {
  explicit Recorder(std::vector<std::pair<int, std::size_t>>* seen) : seen(seen) {}
  void receive(ReceiveContext& ctx) override {
    if (const Numbered* m = ctx.get<Numbered>()) {
      seen->emplace_back(m->n, ctx.isolateIndex());
      handled.fetch_add(1);
    }
  }
  std::vector<std::pair<int, std::size_t>>* seen;
  inline static std::atomic<int> handled{0};
};

// SPEC X4
TEST(Move, MessagesQueuedInTheMailboxTravelWithTheActorAndKeepTheirOrder) {
  ManualClock clock;
  auto system = manualSystem(clock, 2);
  std::vector<std::pair<int, std::size_t>> seen;
  const ActorRef recorder =
      system->spawn<Recorder>("recorder", ActorOptions::create().withIsolate(0), &seen);
  for (int i = 0; i < 1000; ++i) recorder.tell(Numbered{i});
  auto move = system->move(recorder, 1);
  system->runUntilIdle();
  EXPECT_EQ(errorOf([&] { move.get(); }), std::error_code());
  ASSERT_EQ(seen.size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(seen[i], std::make_pair(i, std::size_t{1})) << "message " << i;
  }
}

// SPEC X4: the same on threads. An actor of its isolate fills its mailbox
// and moves it in the same turn: the move comes between two of its turns,
// before the first of those messages (a tell from another thread or
// isolate waits in that isolate's inbox, or ring, while a turn runs there,
// so only an actor of the same isolate fills a mailbox that way).
TEST(Move, MessagesQueuedByAnActorOfItsIsolateTravelWithItOnThreads) {
  auto system = ActorSystem::create("move", ActorSystemOptions::create().withIsolates(2));
  std::vector<std::pair<int, std::size_t>> seen;
  Recorder::handled.store(0);
  const ActorRef recorder =
      system->spawn<Recorder>("recorder", ActorOptions::create().withIsolate(0), &seen);
  std::error_code moved = make_error_code(Error::ErrDead);
  std::atomic<bool> heard{false};
  const ActorRef filler = system->spawn(
      "filler",
      [&](ReceiveContext& ctx) {
        if (const WatchIt* w = ctx.get<WatchIt>()) {
          for (int i = 0; i < 1000; ++i) ctx.tell(w->actor, Numbered{i});
          ctx.move(w->actor, 1);
        } else if (const Moved* m = ctx.get<Moved>()) {
          moved = m->error;
          heard.store(true);
        }
      },
      ActorOptions::create().withIsolate(0));
  filler.tell(WatchIt{recorder});
  ASSERT_TRUE(eventually([&] { return Recorder::handled.load() == 1000 && heard.load(); }));
  EXPECT_FALSE(moved) << moved.message();
  ASSERT_EQ(seen.size(), 1000u);
  for (int i = 0; i < 1000; ++i) {
    ASSERT_EQ(seen[i], std::make_pair(i, std::size_t{1})) << "message " << i;
  }
  system->shutdown();
}

// ---- dead letters and the counts -------------------------------------------------------------

// SPEC X4, A7
TEST(Move, AfterAMovedActorStopsItsMessagesAreDeadLettersAndTheCountsAddUp) {
  ManualClock clock;
  auto system = manualSystem(clock, 3);
  std::uint64_t deadAdds = 0;  // this thread drives the loops: the subscriber runs here
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.message != nullptr && d.message->is<Add>()) ++deadAdds;
  });
  const ActorRef counter = system->spawn<Counter>("counter", ActorOptions::create().withIsolate(0));
  const ActorRef still = system->spawn<Counter>("still", ActorOptions::create().withIsolate(1));
  const ActorRef sender = system->spawn(
      "sender",
      [](ReceiveContext& ctx) {
        if (const WatchIt* w = ctx.get<WatchIt>()) {
          for (int i = 0; i < 50; ++i) ctx.tell(w->actor, Add{1});
        }
      },
      ActorOptions::create().withIsolate(2));
  system->runUntilIdle();
  TransportStats before = system->transportStats();
  // A message to an actor that never moved is not forwarded.
  for (int i = 0; i < 10; ++i) still.tell(Add{1});
  system->runUntilIdle();
  EXPECT_EQ(system->transportStats().forwarded, before.forwarded);

  // Moved once: each message to its reference passes the entry it left.
  system->move(counter, 1).get();
  EXPECT_EQ(system->transportStats().moves, 1u);
  before = system->transportStats();
  for (int i = 0; i < 50; ++i) counter.tell(Add{1});
  sender.tell(WatchIt{counter});
  system->runUntilIdle();
  EXPECT_EQ(system->transportStats().forwarded - before.forwarded, 100u);
  // Moved on, a move to where it is, and back to where it began: moves
  // counts the three that changed its isolate.
  system->move(counter, 2).get();
  system->move(counter, 2).get();
  system->move(counter, 0).get();
  EXPECT_EQ(system->transportStats().moves, 3u);
  // Back on the isolate its reference names, it took its own entry back:
  // nothing is forwarded any more.
  before = system->transportStats();
  for (int i = 0; i < 50; ++i) counter.tell(Add{1});
  system->runUntilIdle();
  EXPECT_EQ(system->transportStats().forwarded - before.forwarded, 0u);
  EXPECT_EQ(stateOf(*system, counter).total, 150);
  EXPECT_EQ(system->deadLetterCount(), 0u);

  // Stopped: what is sent to it from now on is a dead letter, each once,
  // and nothing is forwarded any more.
  system->stop(counter);
  system->runUntilIdle();
  before = system->transportStats();
  const std::uint64_t dead = system->deadLetterCount();
  for (int i = 0; i < 50; ++i) counter.tell(Add{1});
  sender.tell(WatchIt{counter});
  system->runUntilIdle();
  EXPECT_EQ(system->deadLetterCount() - dead, 100u);
  EXPECT_EQ(deadAdds, 100u);
  EXPECT_EQ(system->transportStats().forwarded, before.forwarded);
  EXPECT_EQ(system->transportStats().moves, 3u);
  EXPECT_EQ(errorOf([&] { system->move(counter, 1).get(); }), Error::ErrDead);
}

// The same accounting on threads: stopped after moving, every message sent
// to its reference from any isolate or thread is one dead letter.
TEST(Move, OnThreadsEveryMessageToAStoppedMovedActorIsOneDeadLetter) {
  auto system = ActorSystem::create(
      "move", ActorSystemOptions::create().withIsolates(3).withLogLevel(LogLevel::Off));
  std::atomic<std::uint64_t> deadAdds{0};
  system->eventStream().subscribe<DeadLetter>([&](const DeadLetter& d) {
    if (d.message != nullptr && d.message->is<Add>()) deadAdds.fetch_add(1);
  });
  Heard heard;
  const ActorRef watcher =
      system->spawn<Watcher>("watcher", ActorOptions::create().withIsolate(1), &heard);
  std::vector<ActorRef> senders;
  for (std::size_t i = 0; i < 3; ++i) {
    senders.push_back(system->spawn(
        "sender-" + std::to_string(i),
        [](ReceiveContext& ctx) {
          if (const WatchIt* w = ctx.get<WatchIt>()) {
            for (int k = 0; k < 100; ++k) ctx.tell(w->actor, Add{1});
          }
        },
        ActorOptions::create().withIsolate(i)));
  }
  const ActorRef counter = system->spawn<Counter>("counter", ActorOptions::create().withIsolate(0));
  system->ask<State>(watcher, WatchIt{counter}, 30s).get();
  std::uint64_t moves = 0;
  std::size_t at = 0;
  for (std::size_t to : {1, 2, 0, 2, 1}) {
    system->move(counter, to).get();
    moves += to != at ? 1 : 0;
    at = to;
  }
  EXPECT_EQ(system->transportStats().moves, moves);
  system->stop(counter);
  ASSERT_TRUE(eventually([&] { return heard.count(counter) == 1; }));
  for (int k = 0; k < 100; ++k) counter.tell(Add{1});
  for (const ActorRef& s : senders) s.tell(WatchIt{counter});
  ASSERT_TRUE(eventually([&] { return deadAdds.load() >= 400; })) << deadAdds.load();
  // A round trip to the watcher: a dead letter more would most likely be there by now.
  stateOf(*system, watcher);
  EXPECT_EQ(deadAdds.load(), 400u);
  EXPECT_EQ(system->transportStats().moves, moves);
  system->shutdown();
}

}  // namespace
}  // namespace coreactor
