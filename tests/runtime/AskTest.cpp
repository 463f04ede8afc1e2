// Request/response: from outside (a future) and from an actor (a callback in
// a turn). SPEC A3.
#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <future>
#include <optional>
#include <stdexcept>
#include <string>
#include <type_traits>
#include <vector>

#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "runtime/cluster/ForeignAsks.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using test::errorOf;

struct Echo {
  int n;
};

std::error_code futureError(AskFuture<int>& f) {
  try {
    f.get();
  } catch (const std::system_error& e) {
    return e.code();
  }
  return {};
}

struct Manual {
  ManualClock clock;
  std::unique_ptr<ActorSystem> system =
      ActorSystem::create("ask", ActorSystemOptions::create().withManualRun().withClock(&clock));
  ActorRef echo = system->spawn("echo", [](ReceiveContext& ctx) {
    if (auto* e = ctx.get<Echo>()) ctx.reply(e->n * 2);
    if (ctx.is<std::string>()) ctx.reply(std::string("wrong type"));
    // anything else: no reply at all
  });
};

TEST(Ask, FromOutsideCompletesAFutureWithTheReply) {
  // SPEC A3
  Manual m;
  auto f = m.system->ask<int>(m.echo, Echo{21}, 1s);
  m.system->runUntilIdle();
  ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(f.get(), 42);
}

TEST(Ask, FailsWithErrAskTimeoutWhenNoReplyComes) {
  // SPEC A3: the timeout is a named error (the manual clock makes it exact).
  Manual m;
  auto f = m.system->ask<int>(m.echo, 3.5, 100ms);
  m.system->runUntilIdle();
  EXPECT_EQ(f.wait_for(0s), std::future_status::timeout) << "not before its time";
  m.clock.advance(100ms);
  m.system->runUntilIdle();
  ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(futureError(f), Error::ErrAskTimeout);
}

TEST(Ask, ToAStoppedActorFailsFastWithErrDead) {
  // SPEC A3
  Manual m;
  m.system->stop(m.echo);
  m.system->runUntilIdle();
  auto f = m.system->ask<int>(m.echo, Echo{1}, 1h);
  m.system->runUntilIdle();
  ASSERT_EQ(f.wait_for(0s), std::future_status::ready) << "no waiting for the hour";
  EXPECT_EQ(futureError(f), Error::ErrDead);
}

TEST(Ask, AReplyOfAnotherTypeIsErrUnexpectedReply) {
  Manual m;
  auto f = m.system->ask<int>(m.echo, std::string("?"), 1s);
  m.system->runUntilIdle();
  EXPECT_EQ(futureError(f), Error::ErrUnexpectedReply);
}

TEST(Ask, RefusesANonPositiveTimeoutWithErrInvalidTimeout) {
  // Bad input: asking with a zero timeout.
  Manual m;
  EXPECT_EQ(errorOf([&] { m.system->ask<int>(m.echo, Echo{1}, 0s); }), Error::ErrInvalidTimeout);
  EXPECT_EQ(errorOf([&] { m.system->ask<int>(m.echo, Echo{1}, -1s); }), Error::ErrInvalidTimeout);
}

TEST(Ask, AfterStopFailsWithErrActorSystemNotStarted) {
  // Bad input: asks after stop.
  Manual m;
  m.system->stop();
  auto f = m.system->ask<int>(m.echo, Echo{1}, 1s);
  EXPECT_EQ(futureError(f), Error::ErrActorSystemNotStarted);
}

TEST(Ask, FromAnActorRunsTheCallbackInsideItsTurn) {
  // SPEC A3: from an actor, without blocking: the reply arrives in a turn of
  // the asker, which meanwhile went on with its other messages.
  Manual m;
  std::vector<std::string> log;
  ActorRef asker = m.system->spawn("asker", [&, echo = m.echo](ReceiveContext& ctx) {
    if (ctx.is<std::string>()) {
      log.push_back("ask");
      ctx.ask<int>(echo, Echo{5}, 1s, [&](ReceiveContext& c, AskResult<int>& r) {
        EXPECT_EQ(c.path(), "/user/asker");
        log.push_back(r.ok() ? "reply " + std::to_string(r.value()) : "error");
      });
    }
    if (auto* n = ctx.get<int>()) log.push_back("other " + std::to_string(*n));
  });
  asker.tell(std::string("go"));
  asker.tell(7);
  m.system->runUntilIdle();
  ASSERT_EQ(log.size(), 3u);
  EXPECT_EQ(log[0], "ask");
  EXPECT_EQ(log[2], "reply 10");
}

TEST(Ask, FromAnActorReportsATimeoutToTheCallback) {
  Manual m;
  std::error_code seen;
  ActorRef asker = m.system->spawn("asker", [&, echo = m.echo](ReceiveContext& ctx) {
    ctx.ask<int>(echo, 1.5, 50ms, [&](ReceiveContext&, AskResult<int>& r) { seen = r.error(); });
  });
  asker.tell(1);
  m.system->runUntilIdle();
  m.clock.advance(50ms);
  m.system->runUntilIdle();
  EXPECT_EQ(seen, Error::ErrAskTimeout);
}

TEST(Ask, TimeoutsFireInDeadlineOrderAndSpareTheAnswered) {
  // SPEC A3: an isolate's ask timeouts share one timer (runtime/AskTimeouts):
  // asks of one timeout expire in the order they were made, a shorter
  // timeout asked later expires first, and an answered ask never times out.
  Manual m;
  std::vector<std::string> log;
  ActorRef asker = m.system->spawn("asker", [&, echo = m.echo](ReceiveContext& ctx) {
    if (!ctx.is<std::string>()) return;
    auto record = [&log](std::string name) {
      return [&log, name](ReceiveContext&, AskResult<int>& r) {
        log.push_back(name + (r.ok()                              ? " " + std::to_string(r.value())
                              : r.error() == Error::ErrAskTimeout ? " timeout"
                                                                  : " other error"));
      };
    };
    ctx.ask<int>(echo, 0.5, 100ms, record("a"));  // no reply
    ctx.ask<int>(echo, Echo{1}, 100ms, record("b"));
    ctx.ask<int>(echo, 1.5, 100ms, record("c"));  // no reply
    ctx.ask<int>(echo, 2.5, 50ms, record("d"));   // no reply, due first
  });
  asker.tell(std::string("go"));
  m.system->runUntilIdle();
  ASSERT_EQ(log, std::vector<std::string>{"b 2"});
  m.clock.advance(49ms);
  m.system->runUntilIdle();
  ASSERT_EQ(log.size(), 1u) << "nothing is due before 50 ms";
  m.clock.advance(1ms);
  m.system->runUntilIdle();
  ASSERT_EQ(log, (std::vector<std::string>{"b 2", "d timeout"}));
  m.clock.advance(50ms);
  m.system->runUntilIdle();
  EXPECT_EQ(log, (std::vector<std::string>{"b 2", "d timeout", "a timeout", "c timeout"}));
}

TEST(Ask, MoreDifferentTimeoutsThanLanesAllExpireOnTime) {
  // SPEC A3: past AskTimeouts::kLanes different timeouts at once, an ask
  // gets a timer of its own; each one still fails exactly at its deadline.
  Manual m;
  constexpr int kAsks = 12;
  std::vector<AskFuture<int>> asks;
  for (int i = 1; i <= kAsks; ++i) {
    asks.push_back(m.system->ask<int>(m.echo, 0.5, std::chrono::milliseconds(i)));
  }
  m.system->runUntilIdle();
  for (int i = 1; i <= kAsks; ++i) {
    m.clock.advance(1ms);
    m.system->runUntilIdle();
    for (int k = 0; k < kAsks; ++k) {
      const bool due = k < i;
      ASSERT_EQ(asks[k].wait_for(0s) == std::future_status::ready, due)
          << "ask " << k + 1 << " ms at " << i << " ms";
    }
  }
  for (auto& f : asks) EXPECT_EQ(futureError(f), Error::ErrAskTimeout);
}

TEST(Ask, AnAnsweredAskLeavesNothingForARunUntilIdleToWaitFor) {
  // SPEC A3: the shared timeout timer stays armed for the hour, but with no
  // ask waiting it holds nothing: runUntilIdle returns (a hang fails the
  // test by its deadline). On the real clock.
  auto system = ActorSystem::create("ask", ActorSystemOptions::create().withManualRun());
  const ActorRef echo = system->spawn("echo", [](ReceiveContext& ctx) {
    if (auto* e = ctx.get<Echo>()) ctx.reply(e->n * 2);
  });
  auto f = system->ask<int>(echo, Echo{4}, 1h);
  system->runUntilIdle();
  ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(f.get(), 8);
}

TEST(Ask, ATimeoutPastTheClocksRangeNeverExpires) {
  // SPEC A3, bad input: the longest timeout there is does not overflow the
  // deadline into the past, which would fail the ask at once; the ask waits
  // for its reply. Both ways of arming: the shared lanes (from an actor)
  // and, past them, a timer of its own.
  Manual m;
  m.clock.advance(1h);  // a clock not at zero: now + max would overflow
  std::vector<std::string> log;
  const ActorRef asker = m.system->spawn("asker", [&, echo = m.echo](ReceiveContext& ctx) {
    if (!ctx.is<std::string>()) return;
    ctx.ask<int>(echo, 0.5, std::chrono::nanoseconds::max(),
                 [&](ReceiveContext&, AskResult<int>& r) { log.push_back(r.error().message()); });
  });
  std::vector<AskFuture<int>> outside;
  for (int i = 0; i < 10; ++i) {  // the last ones past the lanes
    outside.push_back(
        m.system->ask<int>(m.echo, 0.5, std::chrono::nanoseconds::max() - std::chrono::hours(i)));
  }
  asker.tell(std::string("go"));
  m.system->runUntilIdle();
  m.clock.advance(24h);
  m.system->runUntilIdle();
  EXPECT_TRUE(log.empty()) << "the callback ran: " << (log.empty() ? "" : log.front());
  for (auto& f : outside) EXPECT_EQ(f.wait_for(0s), std::future_status::timeout);
}

TEST(Ask, AWaitingAskHoldsARunUntilIdleUntilItsTimeout) {
  // SPEC A3: on the real clock, a run until idle waits for a waiting ask
  // and returns with it failed, not with it pending.
  auto system = ActorSystem::create("ask", ActorSystemOptions::create().withManualRun());
  const ActorRef silent = system->spawn("silent", [](ReceiveContext&) {});
  auto f = system->ask<int>(silent, Echo{4}, 20ms);
  system->runUntilIdle();
  ASSERT_EQ(f.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(futureError(f), Error::ErrAskTimeout);
}

struct AskThenStop {
  ActorRef asker;
};

TEST(Ask, AReplyThatCameBeforeAStopRunsBeforeIt) {
  // SPEC A3, A5: system messages keep their order. The responder replies,
  // then stops the asker: the reply's callback runs, then the stop.
  Manual m;
  std::vector<std::string> log;
  const ActorRef responder = m.system->spawn("responder", [](ReceiveContext& ctx) {
    if (auto* r = ctx.get<AskThenStop>()) {
      ctx.reply(1);
      ctx.system().stop(r->asker);
    }
  });
  ActorRef asker;
  asker = m.system->spawn("asker", [&](ReceiveContext& ctx) {
    if (!ctx.is<std::string>()) return;
    ctx.ask<int>(responder, AskThenStop{asker}, 1h, [&](ReceiveContext&, AskResult<int>& r) {
      log.push_back(r.ok() ? "reply" : "error");
    });
  });
  m.system->eventStream().subscribe<ActorStopped>([&](const ActorStopped& e) {
    if (e.path == "/user/asker") log.push_back("stopped");
  });
  asker.tell(std::string("go"));
  m.system->runUntilIdle();
  EXPECT_EQ(log, (std::vector<std::string>{"reply", "stopped"}));
  EXPECT_EQ(m.system->deadLetterCount(), 0u);
}

TEST(Ask, AReplyThatCameAfterAStopIsADeadLetter) {
  // SPEC A3, A5, A7: the responder stops the asker, then replies: the stop
  // comes first, and the reply, which can no longer run, is a dead letter.
  Manual m;
  std::vector<std::string> log;
  const ActorRef responder = m.system->spawn("responder", [](ReceiveContext& ctx) {
    if (auto* r = ctx.get<AskThenStop>()) {
      ctx.system().stop(r->asker);
      ctx.reply(1);
    }
  });
  ActorRef asker;
  asker = m.system->spawn("asker", [&](ReceiveContext& ctx) {
    if (!ctx.is<std::string>()) return;
    ctx.ask<int>(responder, AskThenStop{asker}, 1h, [&](ReceiveContext&, AskResult<int>& r) {
      log.push_back(r.ok() ? "reply" : "error");
    });
  });
  asker.tell(std::string("go"));
  m.system->runUntilIdle();
  EXPECT_TRUE(log.empty()) << "the callback of a stopped actor does not run";
  EXPECT_EQ(m.system->deadLetterCount(), 1u) << "the reply";
}

/// An echo whose mailbox holds one message: a second ask queued before it
/// runs meets a full mailbox.
ActorRef boundedEcho(Manual& m, OverflowPolicy policy) {
  return m.system->spawn(
      "bounded",
      [](ReceiveContext& ctx) {
        if (auto* e = ctx.get<Echo>()) ctx.reply(e->n * 2);
      },
      ActorOptions::create().withMailbox(MailboxOptions::bounded(1, policy)));
}

TEST(Ask, ARequestAFullMailboxRefusesFailsAtOnceWithErrMailboxFull) {
  // SPEC A3, A4: the request is a dead letter and no reply can come, so the
  // ask fails at once (no waiting for the hour), whatever the policy; with
  // Fail the ask's result says so, it does not also throw from ask().
  for (OverflowPolicy policy : {OverflowPolicy::DropNewest, OverflowPolicy::Fail}) {
    Manual m;
    const ActorRef bounded = boundedEcho(m, policy);
    m.system->runUntilIdle();
    auto first = m.system->ask<int>(bounded, Echo{1}, 1h);
    AskFuture<int> second;
    EXPECT_EQ(errorOf([&] { second = m.system->ask<int>(bounded, Echo{2}, 1h); }),
              std::error_code{});
    m.system->runUntilIdle();
    ASSERT_EQ(first.wait_for(0s), std::future_status::ready);
    EXPECT_EQ(first.get(), 2);
    ASSERT_TRUE(second.valid());
    ASSERT_EQ(second.wait_for(0s), std::future_status::ready) << "no waiting for the hour";
    EXPECT_EQ(futureError(second), Error::ErrMailboxFull);
    EXPECT_EQ(m.system->deadLetterCount(), 1u) << "the refused request";
  }
}

TEST(Ask, AnAskThatPushesAnOlderAskOutFailsThatOneAtOnce) {
  // SPEC A3, A4: DropOldest evicts the older request, whose ask can no
  // longer be answered.
  Manual m;
  const ActorRef bounded = boundedEcho(m, OverflowPolicy::DropOldest);
  m.system->runUntilIdle();
  auto first = m.system->ask<int>(bounded, Echo{1}, 1h);
  auto second = m.system->ask<int>(bounded, Echo{2}, 1h);
  m.system->runUntilIdle();
  ASSERT_EQ(first.wait_for(0s), std::future_status::ready) << "no waiting for the hour";
  EXPECT_EQ(futureError(first), Error::ErrMailboxFull);
  ASSERT_EQ(second.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(second.get(), 4);
}

TEST(Ask, FromAnActorARefusedRequestFailsTheCallbackNotTheHandler) {
  // SPEC A3, A4, A6: an actor's second ask meets a full Fail-policy mailbox.
  // Its callback gets ErrMailboxFull in a later turn; the handler that
  // asked does not throw (no supervision failure, no restart).
  Manual m;
  const ActorRef bounded = boundedEcho(m, OverflowPolicy::Fail);
  std::vector<std::string> log;
  ActorRef asker = m.system->spawn("asker", [&](ReceiveContext& ctx) {
    if (!ctx.is<std::string>()) return;
    for (int n : {1, 2}) {
      ctx.ask<int>(bounded, Echo{n}, 1h, [&log, n](ReceiveContext&, AskResult<int>& r) {
        log.push_back(std::to_string(n) + (r.ok()
                                               ? " -> " + std::to_string(r.value())
                                               : std::string(" failed: ") + r.error().message()));
      });
    }
    log.push_back("asked");
  });
  asker.tell(std::string("go"));
  m.system->runUntilIdle();
  ASSERT_EQ(log.size(), 3u) << "both callbacks ran, without waiting for the hour";
  EXPECT_EQ(log[0], "asked");
  EXPECT_EQ(std::count(log.begin(), log.end(), "1 -> 2"), 1);
  EXPECT_EQ(std::count(log.begin(), log.end(),
                       "2 failed: " + make_error_code(Error::ErrMailboxFull).message()),
            1);
}

TEST(Ask, FromAnotherThreadWhileTheSystemRunsOnItsOwnThread) {
  // SPEC A3: the future path across threads.
  auto system = ActorSystem::create("threads");
  ActorRef echo = system->spawn("echo", [](ReceiveContext& ctx) {
    if (auto* e = ctx.get<Echo>()) ctx.reply(e->n + 1);
  });
  for (int i = 0; i < 200; ++i) {
    auto f = system->ask<int>(echo, Echo{i}, 30s);
    ASSERT_EQ(f.wait_for(30s), std::future_status::ready);
    EXPECT_EQ(f.get(), i + 1);
  }
  system->shutdown();
}

TEST(Ask, WaitingOnTheFutureWhereTheReplyMustBeMadeIsErrWouldDeadlock) {
  // SPEC A3: a handler asks an actor of its own isolate and blocks on the
  // future: the reply (and the timeout) would need the blocked loop. It
  // fails at once with a named error instead of hanging.
  auto system = ActorSystem::create("deadlock", ActorSystemOptions::create().withIsolates(1));
  ActorRef echo = system->spawn("echo", [](ReceiveContext& ctx) {
    if (auto* e = ctx.get<Echo>()) ctx.reply(e->n + 1);
  });
  std::promise<std::error_code> seen;
  ActorRef waiter = system->spawn("waiter", [&](ReceiveContext& ctx) {
    seen.set_value(errorOf([&] { ctx.system().ask<int>(echo, Echo{1}, 1h).get(); }));
  });
  waiter.tell(1);
  auto outcome = seen.get_future();
  ASSERT_EQ(outcome.wait_for(60s), std::future_status::ready);
  EXPECT_EQ(outcome.get(), Error::ErrWouldDeadlock);
  // From outside, the same ask is answered.
  EXPECT_EQ(system->ask<int>(echo, Echo{1}, 60s).get(), 2);
  system->shutdown();
}

TEST(Ask, ATimedWaitWhereTheReplyMustBeMadeIsErrWouldDeadlockToo) {
  // SPEC A3: wait_for and wait_until block as get() does; on the isolate
  // that must run the reply (and the ask's timeout) they are refused at
  // once, not left to block the loop for their whole duration. A look
  // (a wait of zero, a deadline already passed) is no wait and is allowed.
  auto system = ActorSystem::create("deadlock", ActorSystemOptions::create().withIsolates(1));
  ActorRef echo = system->spawn("echo", [](ReceiveContext& ctx) {
    if (auto* e = ctx.get<Echo>()) ctx.reply(e->n + 1);
  });
  std::promise<std::vector<std::error_code>> seen;
  std::promise<std::future_status> looked;
  ActorRef waiter = system->spawn("waiter", [&](ReceiveContext& ctx) {
    std::vector<std::error_code> errors;
    auto f = ctx.system().ask<int>(echo, Echo{1}, 100ms);
    errors.push_back(errorOf([&] { f.wait_for(1h); }));
    errors.push_back(errorOf([&] { f.wait_until(std::chrono::steady_clock::now() + 1h); }));
    errors.push_back(
        errorOf([&] { f.wait_until(std::chrono::system_clock::now() + std::chrono::hours(1)); }));
    looked.set_value(f.wait_for(0s));
    seen.set_value(errors);
  });
  waiter.tell(1);
  auto outcome = seen.get_future();
  ASSERT_EQ(outcome.wait_for(60s), std::future_status::ready);
  EXPECT_EQ(outcome.get(),
            std::vector<std::error_code>(3, make_error_code(Error::ErrWouldDeadlock)));
  EXPECT_EQ(looked.get_future().get(), std::future_status::timeout);
  system->shutdown();
}

TEST(Ask, TheFutureOfAnAskGivesAStdFutureOnlyThroughAnExplicitCallThatDropsTheGuard) {
  // SPEC A3: no implicit conversion strips the guard; unguarded() is the
  // one way to a std::future, and it leaves the AskFuture empty.
  static_assert(!std::is_convertible_v<AskFuture<int>, std::future<int>>);
  static_assert(!std::is_constructible_v<std::future<int>, AskFuture<int>>);
  static_assert(!std::is_copy_constructible_v<AskFuture<int>>);
  auto system = ActorSystem::create("plain");
  ActorRef echo = system->spawn("echo", [](ReceiveContext& ctx) {
    if (auto* e = ctx.get<Echo>()) ctx.reply(e->n + 1);
  });
  AskFuture<int> guarded = system->ask<int>(echo, Echo{4}, 60s);
  std::future<int> plain = std::move(guarded).unguarded();
  EXPECT_FALSE(guarded.valid());  // NOLINT(bugprone-use-after-move): the documented state
  ASSERT_TRUE(plain.valid());
  EXPECT_EQ(plain.get(), 5);
  system->shutdown();
}

TEST(Ask, OnAManualSystemTheDrivingThreadsGetRunsTheLoopsAndAHandlersGetIsRefused) {
  // SPEC A3, A12: outside the loops, get() runs them until the reply comes;
  // inside them (a handler), a blocking get() could never return.
  Manual m;
  EXPECT_EQ(m.system->ask<int>(m.echo, Echo{20}, 1s).get(), 40);
  auto unanswered = m.system->ask<int>(m.echo, 7, 1s);  // no reply: waits on the manual clock
  EXPECT_EQ(errorOf([&] { unanswered.get(); }), Error::ErrWouldDeadlock);
  m.clock.advance(1s);
  m.system->runUntilIdle();
  EXPECT_EQ(errorOf([&] { unanswered.get(); }), Error::ErrAskTimeout);
  std::error_code inside;
  ActorRef waiter = m.system->spawn("waiter", [&](ReceiveContext& ctx) {
    inside = errorOf([&] { ctx.system().ask<int>(m.echo, Echo{1}, 1s).wait(); });
  });
  waiter.tell(1);
  m.system->runUntilIdle();
  EXPECT_EQ(inside, Error::ErrWouldDeadlock);
}

TEST(Ask, ASecondReplyToTheSameAskIsADeadLetterWithItsOwnReason) {
  // SPEC A7: the ask completed with the first reply; the second is a dead
  // letter that says so, not "the actor has stopped".
  Manual m;
  ActorRef twice = m.system->spawn("twice", [](ReceiveContext& ctx) {
    if (ctx.is<Echo>()) {
      ctx.reply(1);
      ctx.reply(2);
    }
  });
  std::vector<std::string> reasons;
  m.system->eventStream().subscribe<DeadLetter>(std::function<void(const DeadLetter&)>(
      [&](const DeadLetter& d) { reasons.push_back(d.reason); }));
  EXPECT_EQ(m.system->ask<int>(twice, Echo{0}, 1s).get(), 1);
  ASSERT_EQ(reasons.size(), 1u);
  EXPECT_NE(reasons[0].find("reply to an ask that has already completed"), std::string::npos)
      << reasons[0];
  ActorRef gone = m.system->spawn("gone", [](ReceiveContext&) {});
  m.system->stop(gone);
  m.system->runUntilIdle();
  gone.tell(1);
  m.system->runUntilIdle();
  ASSERT_EQ(reasons.size(), 2u);
  EXPECT_EQ(reasons[1], "the actor has stopped");
}

/// Asks `echo` (on another isolate) `total` times, one at a time: each
/// continuation records what came, checks it runs as the asker, and asks
/// the next; after the last, `done` is set. An Echo{-1} reply throws.
class ChainAsker final : public Actor {
 public:
  ChainAsker(ActorRef echo, int total, std::vector<int>* got, std::atomic<int>* notAsker,
             std::atomic<int>* restarts, std::promise<void>* done)
      : echo_(echo),
        total_(total),
        got_(got),
        notAsker_(notAsker),
        restarts_(restarts),
        done_(done) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<std::string>()) askNext(ctx, 0);
    if (const int* n = ctx.get<int>(); n != nullptr && *n == -1) {
      ctx.ask<int>(echo_, Echo{-1}, 60s, [](ReceiveContext&, AskResult<int>&) {
        throw std::runtime_error("thrown by a continuation");
      });
    }
  }
  void postRestart(ReceiveContext&, const std::exception_ptr&) override { ++*restarts_; }

 private:
  void askNext(ReceiveContext& ctx, int k) {
    ctx.ask<int>(echo_, Echo{k}, 60s, [this, k](ReceiveContext& c, AskResult<int>& r) {
      if (!(c.self() == self_)) ++*notAsker_;
      got_->push_back(r.ok() ? r.value() : -1000);
      if (k + 1 < total_) {
        askNext(c, k + 1);
      } else {
        done_->set_value();
      }
    });
    self_ = ctx.self();
  }

  ActorRef echo_;
  int total_;
  std::vector<int>* got_;
  std::atomic<int>* notAsker_;
  std::atomic<int>* restarts_;
  std::promise<void>* done_;
  ActorRef self_;
};

/// A ChainAsker on isolate 0 of a system of two, asking a doubler on
/// isolate 1 `total` times.
struct ChainAcross {
  explicit ChainAcross(int total)
      : system(ActorSystem::create(
            "ask-across",
            ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off))),
        echo(system->spawn(
            "echo",
            [](ReceiveContext& ctx) {
              if (auto* e = ctx.get<Echo>()) ctx.reply(e->n * 2);
            },
            ActorOptions::create().withIsolate(1))),
        asker(system->spawn<ChainAsker>("asker", ActorOptions::create().withIsolate(0), echo, total,
                                        &got, &notAsker, &restarts, &done)) {}
  ~ChainAcross() { system->shutdown(); }

  std::vector<int> got;
  std::atomic<int> notAsker{0};
  std::atomic<int> restarts{0};
  std::promise<void> done;
  std::unique_ptr<ActorSystem> system;
  ActorRef echo;
  ActorRef asker;
};

TEST(Ask, AReplyFromAnotherIsolateRunsAnIdleAskersContinuationWhereItIsTaken) {
  // SPEC A3: the continuation runs in a turn of the asker. When the reply
  // comes from another isolate and the asker has nothing else to do, that
  // turn runs where the ring is read, with no unit queued for it: the
  // asker's isolate runs no microtask for 200 replies.
  constexpr int kAsks = 200;
  ChainAcross chain(kAsks);
  const std::uint64_t before = chain.system->metrics().isolates[0].microtasks;
  chain.asker.tell(std::string("go"));
  ASSERT_EQ(chain.done.get_future().wait_for(60s), std::future_status::ready);
  const std::uint64_t after = chain.system->metrics().isolates[0].microtasks;
  ASSERT_EQ(chain.got.size(), static_cast<std::size_t>(kAsks));
  for (int k = 0; k < kAsks; ++k) ASSERT_EQ(chain.got[static_cast<std::size_t>(k)], 2 * k);
  EXPECT_EQ(chain.notAsker.load(), 0);
  EXPECT_LT(after - before, static_cast<std::uint64_t>(kAsks) / 4)
      << "each continuation ran where its reply was taken, not as a unit of its own";
}

TEST(Ask, AContinuationRunWhereItsReplyIsTakenThatThrowsGoesToSupervision) {
  // SPEC D11, A3: what the continuation throws restarts the asker, as in a
  // queued turn, and the asker then asks again.
  ChainAcross chain(3);
  chain.asker.tell(-1);
  ASSERT_TRUE(test::eventually([&] { return chain.restarts.load() == 1; }, 60s));
  chain.asker.tell(std::string("go"));
  ASSERT_EQ(chain.done.get_future().wait_for(60s), std::future_status::ready);
  EXPECT_EQ(chain.got, (std::vector<int>{0, 2, 4}));
  EXPECT_EQ(chain.restarts.load(), 1);
}

// ---- A3 beside S10: ask timeouts saturate as schedules do ------------------------

struct Silent {};

TEST(AskTimeouts, AnAskWithAHugeTimeoutNeverDelaysAShortOnesTimeout) {
  // SPEC A3, S10: asks share their isolate's timeout lanes and one timer;
  // one whose deadline is past the timeline's end waits for ever, and the
  // short ones beside it still time out exactly when due.
  ManualClock clock;
  auto system =
      ActorSystem::create("asks", ActorSystemOptions::create().withManualRun().withClock(&clock));
  ActorRef silent = system->spawn("silent", [](ReceiveContext&) {});  // never replies
  auto never = system->ask<int>(silent, Silent{}, std::chrono::nanoseconds::max());
  auto century = system->ask<int>(silent, Silent{}, std::chrono::years(100));
  auto first = system->ask<int>(silent, Silent{}, 10ms);
  system->runUntilIdle();
  clock.advance(9ms);
  system->runUntilIdle();
  EXPECT_EQ(first.wait_for(0s), std::future_status::timeout) << "not before its time";
  clock.advance(1ms);
  system->runUntilIdle();
  ASSERT_EQ(first.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(test::errorOf([&] { first.get(); }), Error::ErrAskTimeout);
  // Another short one, after the huge ones took their lanes' heads.
  auto second = system->ask<int>(silent, Silent{}, 20ms);
  system->runUntilIdle();
  clock.advance(19ms);
  system->runUntilIdle();
  EXPECT_EQ(second.wait_for(0s), std::future_status::timeout);
  clock.advance(1ms);
  system->runUntilIdle();
  ASSERT_EQ(second.wait_for(0s), std::future_status::ready);
  EXPECT_EQ(test::errorOf([&] { second.get(); }), Error::ErrAskTimeout);
  clock.advance(24h);
  system->runUntilIdle();
  EXPECT_EQ(never.wait_for(0s), std::future_status::timeout) << "still pending";
  EXPECT_EQ(century.wait_for(0s), std::future_status::timeout) << "still pending";
}

TEST(AskTimeouts, AHugeTimeoutOnATimerOfItsOwnNeverDelaysTheLanes) {
  // SPEC A3, S10: with every lane taken by another timeout, an ask gets a
  // timer of its own; a huge one there leaves the lanes' timer alone.
  ManualClock clock;
  auto system =
      ActorSystem::create("asks", ActorSystemOptions::create().withManualRun().withClock(&clock));
  ActorRef silent = system->spawn("silent", [](ReceiveContext&) {});
  std::vector<AskFuture<int>> lanes;
  for (int i = 1; i <= 8; ++i) {
    lanes.push_back(system->ask<int>(silent, Silent{}, std::chrono::hours(i)));
  }
  auto never = system->ask<int>(silent, Silent{}, std::chrono::nanoseconds::max());
  auto century = system->ask<int>(silent, Silent{}, std::chrono::years(100));
  system->runUntilIdle();
  for (int i = 1; i <= 8; ++i) {
    clock.advance(1h);
    system->runUntilIdle();
    for (int k = 0; k < 8; ++k) {
      ASSERT_EQ(lanes[k].wait_for(0s) == std::future_status::ready, k < i)
          << "ask of " << k + 1 << " h at " << i << " h";
    }
  }
  for (auto& f : lanes) EXPECT_EQ(test::errorOf([&] { f.get(); }), Error::ErrAskTimeout);
  EXPECT_EQ(never.wait_for(0s), std::future_status::timeout) << "still pending";
  EXPECT_EQ(century.wait_for(0s), std::future_status::timeout) << "still pending";
}

// ---- the reply slots of asks from plain threads to other ranks ---------------------------

/// What an ForeignAsks completion saw.
struct Outcome {
  std::atomic<int> calls{0};
  std::optional<int> reply;
  std::error_code error;
  AskCompletion& completion() {
    made = [this](Message* m, std::error_code e) {
      if (m != nullptr && m->get<int>() != nullptr) reply = *m->get<int>();
      error = e;
      calls.fetch_add(1);
    };
    return made;
  }
  AskCompletion made;
};

TEST(ForeignAsks, ASlotCompletesOnceWithItsReplyAndASecondReplyFindsItClosed) {
  // SPEC A3: the reply slot of an ask from a plain thread to another rank.
  detail::ForeignAsks asks;
  Outcome outcome;
  const std::uint32_t id = asks.open(outcome.completion(), 1h);
  EXPECT_NE(id, 0u);
  EXPECT_EQ(asks.size(), 1u);
  Message reply(41);
  EXPECT_TRUE(asks.complete(id, &reply, {}));
  EXPECT_FALSE(asks.complete(id, &reply, {})) << "answered already";
  EXPECT_EQ(outcome.calls.load(), 1);
  EXPECT_EQ(outcome.reply, 41);
  EXPECT_EQ(asks.size(), 0u);
}

TEST(ForeignAsks, ASlotNobodyAnswersTimesOutOnTheTablesOwnThread) {
  // SPEC A3: no loop holds the timeout; nothing about how long it took is asserted.
  detail::ForeignAsks asks;
  Outcome late;
  Outcome answered;
  asks.open(late.completion(), 1ms);
  const std::uint32_t kept = asks.open(answered.completion(), 1h);
  ASSERT_TRUE(test::eventually([&] { return late.calls.load() == 1; }, 60s));
  EXPECT_EQ(late.error, Error::ErrAskTimeout);
  EXPECT_EQ(answered.calls.load(), 0) << "a later deadline is left alone";
  Message reply(1);
  EXPECT_TRUE(asks.complete(kept, &reply, {}));
}

TEST(ForeignAsks, ADismissedSlotNeverCompletesAndClosingFailsTheRestAndRefusesMore) {
  detail::ForeignAsks asks;
  Outcome dismissed;
  Outcome open;
  const std::uint32_t gone = asks.open(dismissed.completion(), 1h);
  asks.open(open.completion(), 1h);
  asks.dismiss(gone);
  EXPECT_FALSE(asks.complete(gone, nullptr, make_error_code(Error::ErrDead)));
  asks.close(make_error_code(Error::ErrActorSystemNotStarted));
  EXPECT_EQ(dismissed.calls.load(), 0);
  EXPECT_EQ(open.calls.load(), 1);
  EXPECT_EQ(open.error, Error::ErrActorSystemNotStarted);
  Outcome after;
  EXPECT_EQ(asks.open(after.completion(), 1h), 0u) << "closed: nothing opened";
  EXPECT_TRUE(after.made) << "and the completion is left to the caller";
}

}  // namespace
}  // namespace coreactor
