// Moving actors between isolates (docs/isolates.md, "Moving an actor"): the
// actor keeps its state, its reference, its watchers and its asks; every
// sender's messages keep their order and none is lost or doubled; what
// cannot move says why. Threaded systems with generous deadlines, and
// manual ones where a step-by-step order is asserted.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <map>
#include <mutex>
#include <random>
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
  auto system = ActorSystem::create(
      "move", ActorSystemOptions::create().withIsolates(2).withManualRun().withClock(&clock));
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

}  // namespace
}  // namespace coreactor
