// The backoff supervisor: a child that fails (or stops) is started anew
// after growing delays with jitter, reset after a stable period, up to a
// limit; messages wait for it while it is down. Time is the TestKit's
// ManualClock: every assertion is about whether the child runs after a given
// move of the clock, never about how long anything took. SPEC A6.
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <limits>
#include <memory>
#include <set>
#include <stdexcept>
#include <string>
#include <system_error>
#include <vector>

#include "coreactor/Backoff.hpp"
#include "coreactor/testkit/TestKit.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using testkit::TestKit;
using testkit::TestProbe;

struct Fail {};
struct Quit {};
struct Watch {};

// What the children of one supervisor did, across their instances.
struct Record {
  int started = 0;  // instances whose preStart ran
  int running = 0;  // started and not yet stopped
  std::vector<int> got;
};

// Throws on Fail, stops itself on Quit, keeps the ints it gets and answers
// each to its sender.
struct Flaky : Actor {
  explicit Flaky(Record* r) : record(r) {}
  void preStart(ReceiveContext&) override {
    ++record->started;
    ++record->running;
  }
  void postStop(ReceiveContext&) override { --record->running; }
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Fail>()) throw std::runtime_error("flaky");
    if (ctx.is<Quit>()) ctx.stop();
    if (const int* n = ctx.get<int>()) {
      record->got.push_back(*n);
      if (ctx.sender()) ctx.reply(*n);
    }
  }
  Record* record;
};

ActorFactory flaky(Record* record) {
  return [record] { return std::unique_ptr<Actor>(std::make_unique<Flaky>(record)); };
}

// A TestKit running one backoff supervisor "backoff" over a Flaky "flaky".
struct Backed {
  TestKit kit;
  Record record;
  ActorRef supervisor;
  explicit Backed(const BackoffOptions& options) {
    supervisor = kit.system().spawn<BackoffSupervisor>("backoff", ActorOptions::create(),
                                                       flaky(&record), "flaky", options);
    kit.run();
  }
  void fail() {
    supervisor.tell(Fail{});
    kit.run();
  }
};

// Fails the child; it must be down until `delay` has passed and run again at `delay`.
void failAndExpectBackAfter(Backed& b, std::chrono::milliseconds delay) {
  SCOPED_TRACE(std::to_string(delay.count()) + " ms");
  const int started = b.record.started;
  b.fail();
  EXPECT_EQ(b.record.running, 0) << "the failed child is stopped, not restarted in place";
  b.kit.advance(delay - 1ms);
  EXPECT_EQ(b.record.started, started) << "still down 1 ms before the delay";
  b.kit.advance(1ms);
  EXPECT_EQ(b.record.started, started + 1) << "started anew once the delay has passed";
  EXPECT_EQ(b.record.running, 1);
}

// An actor that watches `target` and tells `probe` every Terminated it gets.
ActorRef watcherOf(TestKit& kit, ActorRef target, ActorRef probe) {
  ActorRef watcher = kit.system().spawn("watcher", [target, probe](ReceiveContext& ctx) {
    if (ctx.is<Watch>()) ctx.watch(target);
    if (const Terminated* t = ctx.get<Terminated>()) probe.tell(*t);
  });
  watcher.tell(Watch{});
  kit.run();
  return watcher;
}

std::uint32_t restartCount(Backed& b, TestProbe& probe) {
  b.supervisor.tell(BackoffSupervisor::GetRestartCount{}, probe.ref());
  return probe.expectMsg<BackoffSupervisor::RestartCount>().count;
}

ActorRef currentChild(Backed& b, TestProbe& probe) {
  b.supervisor.tell(BackoffSupervisor::GetCurrentChild{}, probe.ref());
  return probe.expectMsg<BackoffSupervisor::CurrentChild>().child;
}

// ---- the delays ------------------------------------------------------------------

TEST(Backoff, AChildThatFailsIsStartedAgainAfterTheLeastDelayThenAfterDoublingDelays) {
  // SPEC A6
  Backed b(BackoffOptions::create(100ms, 10s, 0.0));
  ASSERT_EQ(b.record.started, 1) << "the supervisor starts its child at once";
  for (auto delay : {100ms, 200ms, 400ms, 800ms, 1600ms}) failAndExpectBackAfter(b, delay);
  EXPECT_EQ(b.record.started, 6);
}

TEST(Backoff, TheDelayStopsGrowingAtTheMost) {
  // SPEC A6
  Backed b(BackoffOptions::create(100ms, 300ms, 0.0));
  for (auto delay : {100ms, 200ms, 300ms, 300ms, 300ms}) failAndExpectBackAfter(b, delay);
}

TEST(Backoff, JitterStaysWithinTheFactor) {
  // SPEC A6: the least and the most equal, so each delay is 100 ms
  // lengthened by up to half of it.
  Backed b(BackoffOptions::create(100ms, 100ms, 0.5).withResetAfter(1h));
  std::set<int> seen;
  for (int i = 0; i < 30; ++i) {
    const int started = b.record.started;
    b.fail();
    b.kit.advance(99ms);
    ASSERT_EQ(b.record.started, started) << "no delay is shorter than 100 ms";
    int waited = 99;
    while (b.record.started == started && waited < 200) {
      b.kit.advance(1ms);
      ++waited;
    }
    // Stepping by 1 ms finds a delay of 100.3 ms at 101 ms: at most 150 ms
    // rounds up to 150.
    EXPECT_GE(waited, 100);
    EXPECT_LE(waited, 150) << "restart " << i;
    seen.insert(waited);
  }
  EXPECT_GE(seen.size(), 2u) << "the delays vary: the jitter is applied";
}

TEST(Backoff, TheDelayFormulaDoublesCapsAndSaturates) {
  // SPEC A6
  const BackoffOptions options = BackoffOptions::create(100ms, 1s, 0.5);
  EXPECT_EQ(options.delay(0, 0.0), 100ms);
  EXPECT_EQ(options.delay(3, 0.0), 800ms);
  EXPECT_EQ(options.delay(4, 0.0), 1s) << "capped at the most";
  EXPECT_EQ(options.delay(1000, 0.0), 1s) << "no overflow for a large count";
  EXPECT_EQ(options.delay(0, 1.0), 150ms) << "the whole factor at a jitter of 1";
  const BackoffOptions huge = BackoffOptions::create(1ns, std::chrono::nanoseconds::max(), 1.0);
  EXPECT_EQ(huge.delay(200, 1.0), std::chrono::nanoseconds::max());
}

TEST(Backoff, AChildStableForTheResetPeriodStartsAgainFromTheLeastDelay) {
  // SPEC A6
  Backed b(BackoffOptions::create(100ms, 10s, 0.0).withResetAfter(500ms));
  TestProbe probe = b.kit.probe();
  failAndExpectBackAfter(b, 100ms);
  failAndExpectBackAfter(b, 200ms);
  b.kit.advance(499ms);
  EXPECT_EQ(restartCount(b, probe), 2u) << "499 ms of running is not yet stable";
  failAndExpectBackAfter(b, 400ms);
  b.kit.advance(500ms);
  EXPECT_EQ(restartCount(b, probe), 0u) << "500 ms of running is stable";
  failAndExpectBackAfter(b, 100ms);
  failAndExpectBackAfter(b, 200ms);
}

// ---- messages ------------------------------------------------------------------

TEST(Backoff, MessagesWhileTheChildIsDownReachTheNewChildInOrder) {
  // SPEC A6
  Backed b(BackoffOptions::create(100ms, 1s, 0.0));
  TestProbe probe = b.kit.probe();
  b.supervisor.tell(0, probe.ref());
  b.kit.run();
  EXPECT_EQ(probe.expectMsg<int>(), 0) << "forwarded with its sender";
  b.fail();
  const std::uint64_t deadBefore = b.kit.system().deadLetterCount();
  for (int i = 1; i <= 3; ++i) b.supervisor.tell(i, probe.ref());
  b.kit.run();
  EXPECT_EQ(b.record.got, (std::vector<int>{0}));
  b.kit.advance(100ms);
  b.supervisor.tell(4, probe.ref());
  b.kit.run();
  EXPECT_EQ(b.record.got, (std::vector<int>{0, 1, 2, 3, 4})) << "the waiting ones first, in order";
  const std::vector<int> replies = probe.expectMsgs<int>(4);
  EXPECT_EQ(replies, (std::vector<int>{1, 2, 3, 4})) << "each kept its sender";
  EXPECT_EQ(b.kit.system().deadLetterCount(), deadBefore);
}

TEST(Backoff, PastTheBufferMessagesAreDeadLetters) {
  // SPEC A6, A7
  for (std::size_t room : {std::size_t{3}, std::size_t{0}}) {
    SCOPED_TRACE("a buffer of " + std::to_string(room));
    Backed b(BackoffOptions::create(100ms, 1s, 0.0).withBufferSize(room));
    std::vector<int> dead;
    b.kit.system().eventStream().subscribe<DeadLetter>([&dead](const DeadLetter& d) {
      if (const int* n = d.message != nullptr ? d.message->get<int>() : nullptr) {
        dead.push_back(*n);
      }
    });
    b.fail();
    const std::uint64_t deadBefore = b.kit.system().deadLetterCount();
    for (int i = 1; i <= 5; ++i) b.supervisor.tell(i);
    b.kit.run();
    EXPECT_EQ(b.kit.system().deadLetterCount() - deadBefore, 5 - room);
    std::vector<int> expectedDead;
    std::vector<int> expectedGot;
    for (int i = 1; i <= 5; ++i) {
      (static_cast<std::size_t>(i) <= room ? expectedGot : expectedDead).push_back(i);
    }
    EXPECT_EQ(dead, expectedDead) << "the newest past the bound are the dead letters";
    b.kit.advance(100ms);
    EXPECT_EQ(b.record.got, expectedGot) << "the ones within the bound reach the new child";
  }
}

TEST(Backoff, TellsItsCurrentChildNoneWhileDownAndItsRestartCount) {
  // SPEC A6
  Backed b(BackoffOptions::create(100ms, 1s, 0.0));
  TestProbe probe = b.kit.probe();
  const ActorRef first = currentChild(b, probe);
  EXPECT_FALSE(first.isNone());
  EXPECT_EQ(restartCount(b, probe), 0u);
  b.supervisor.tell(7, probe.ref());
  EXPECT_EQ(probe.expectMsg<int>(), 7);
  EXPECT_EQ(probe.lastSender(), first) << "the child it names is the one that answers";
  b.fail();
  EXPECT_TRUE(currentChild(b, probe).isNone()) << "none while the child is down";
  b.kit.advance(100ms);
  const ActorRef second = currentChild(b, probe);
  EXPECT_FALSE(second.isNone());
  EXPECT_NE(second, first) << "a new child, not the old one restarted in place";
  EXPECT_EQ(restartCount(b, probe), 1u);
}

// ---- when it restarts, and when it gives up --------------------------------------

TEST(Backoff, OnStopRestartsAChildThatStoppedItself) {
  // SPEC A6
  Backed b(BackoffOptions::create(100ms, 1s, 0.0).onStop());
  b.supervisor.tell(Quit{});
  b.kit.run();
  EXPECT_EQ(b.record.running, 0);
  b.kit.advance(99ms);
  EXPECT_EQ(b.record.started, 1);
  b.kit.advance(1ms);
  EXPECT_EQ(b.record.started, 2);
  EXPECT_EQ(b.record.running, 1);
  failAndExpectBackAfter(b, 200ms);  // a failure restarts it too
}

TEST(Backoff, OnFailureLetsAChildThatStoppedItselfStayStopped) {
  // SPEC A6: and the supervisor stops with it.
  Backed b(BackoffOptions::create(100ms, 1s, 0.0));
  TestProbe probe = b.kit.probe();
  watcherOf(b.kit, b.supervisor, probe.ref());
  b.supervisor.tell(Quit{});
  b.kit.run();
  b.kit.advance(10s);
  EXPECT_EQ(b.record.started, 1) << "never started again";
  EXPECT_EQ(b.record.running, 0);
  EXPECT_EQ(probe.expectMsg<Terminated>().actor, b.supervisor);
}

TEST(Backoff, AfterMaxRestartsTheSupervisorStops) {
  // SPEC A6: spawned from an actor, which watches it.
  TestKit kit;
  TestProbe probe = kit.probe();
  Record record;
  const BackoffOptions options = BackoffOptions::create(100ms, 1s, 0.0).withMaxRestarts(2);
  ActorRef parent =
      kit.system().spawn("parent", [&record, options, probe = probe.ref()](ReceiveContext& ctx) {
        if (ctx.is<Watch>()) {
          ActorRef backoff = ctx.spawn<BackoffSupervisor>("backoff", ActorOptions::create(),
                                                          flaky(&record), "flaky", options);
          ctx.watch(backoff);
          probe.tell(backoff);
        }
        if (const Terminated* t = ctx.get<Terminated>()) probe.tell(*t);
      });
  parent.tell(Watch{});
  kit.run();
  const ActorRef backoff = probe.expectMsg<ActorRef>();
  EXPECT_EQ(record.started, 1);
  for (auto delay : {100ms, 200ms}) {
    backoff.tell(Fail{});
    kit.run();
    kit.advance(delay);
    EXPECT_EQ(record.running, 1) << "restart within the limit, after " << delay.count() << " ms";
  }
  probe.expectNoMsg();
  backoff.tell(Fail{});
  kit.run();
  EXPECT_EQ(probe.expectMsg<Terminated>().actor, backoff) << "the third failure ends it";
  kit.advance(10s);
  EXPECT_EQ(record.started, 3) << "the child stays stopped";
  EXPECT_EQ(record.running, 0);
}

// ---- options ---------------------------------------------------------------------

TEST(Backoff, BadOptionsAreErrInvalidBackoff) {
  // SPEC A6: each refused at its call, naming what was wrong.
  const BackoffOptions good = BackoffOptions::create(100ms, 1s, 0.2);
  const double nan = std::numeric_limits<double>::quiet_NaN();
  struct Case {
    const char* input;
    const char* named;
    std::function<void()> call;
  };
  const std::vector<Case> cases = {
      {"minBackoff 0", "minBackoff", [] { BackoffOptions::create(0ms, 1s, 0.2); }},
      {"minBackoff < 0", "minBackoff", [] { BackoffOptions::create(-1ms, 1s, 0.2); }},
      {"maxBackoff 0", "maxBackoff", [] { BackoffOptions::create(1ms, 0ms, 0.2); }},
      {"min > max", "larger than maxBackoff", [] { BackoffOptions::create(2s, 1s, 0.2); }},
      {"randomFactor < 0", "randomFactor", [] { BackoffOptions::create(1ms, 1s, -0.1); }},
      {"randomFactor > 1", "randomFactor", [] { BackoffOptions::create(1ms, 1s, 1.5); }},
      {"randomFactor NaN", "randomFactor", [nan] { BackoffOptions::create(1ms, 1s, nan); }},
      {"resetAfter 0", "withResetAfter", [&good] { good.withResetAfter(0ms); }},
      {"resetAfter < 0", "withResetAfter", [&good] { good.withResetAfter(-1s); }},
      {"maxRestarts < 0", "withMaxRestarts", [&good] { good.withMaxRestarts(-1); }},
  };
  for (const Case& c : cases) {
    try {
      c.call();
      ADD_FAILURE() << c.input << " was accepted";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), Error::ErrInvalidBackoff) << c.input;
      EXPECT_NE(std::string(e.what()).find(c.named), std::string::npos)
          << c.input << ": " << e.what();
    }
  }
  // The edges that are allowed.
  EXPECT_NO_THROW(BackoffOptions::create(1ns, 1ns, 0.0));
  EXPECT_NO_THROW(BackoffOptions::create(1ms, 1s, 1.0));
  EXPECT_NO_THROW(good.withMaxRestarts(0).withBufferSize(0).withResetAfter(1ns));
}

}  // namespace
}  // namespace coreactor
