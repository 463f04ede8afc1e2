// The scheduler: schedule, scheduleOnce, cancel, pause and resume by
// reference or handle, ownership, delivery, errors. SPEC S1-S12, A10.
// Time is a ManualClock moved by hand (TestKit), so every assertion is about
// which tick arrived after which move of the clock, never about how long.
// One file per suite: every scheduler test shares the manual-clock fixtures
// at its top, which is why it is longer than most.
#include <gtest/gtest.h>

#include <atomic>
#include <future>
#include <thread>

#include "IsolateHold.hpp"
#include "TestSupport.hpp"
#include "coreactor/ActorSystem.hpp"
#include "coreactor/Async.hpp"
#include "coreactor/testkit/TestKit.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using testkit::TestKit;
using testkit::TestProbe;

struct Tick {
  int n = 0;
};
struct Remind {};
struct Start {
  ActorRef to;
  std::chrono::nanoseconds every;
  bool repeat;
  std::string reference;
};

// Schedules through its own context whatever Start says, and reports each
// call's error to the probe.
struct Scheduling : Actor {
  explicit Scheduling(ActorRef report) : report(report) {}
  void receive(ReceiveContext& ctx) override {
    if (const Start* s = ctx.get<Start>()) {
      const auto options = ScheduleOptions::create().withReference(s->reference);
      ScheduleResult r = s->repeat ? ctx.schedule(Tick{1}, s->to, s->every, options)
                                   : ctx.scheduleOnce(Tick{1}, s->to, s->every, options);
      EXPECT_TRUE(r.ready()) << "a context call on its own isolate takes effect at once";
      report.tell(r.wait());
    } else if (const std::string* cancel = ctx.get<std::string>()) {
      report.tell(ctx.cancelSchedule(*cancel).wait());
    }
  }
  ActorRef report;
};

std::size_t received(TestProbe& probe) {
  return probe.pending();
}

void drain(TestProbe& probe) {
  while (probe.pending() != 0) probe.expectMsg<Tick>();
}

// ---- S1, S3: the calls, from the system and from an actor ------------------------

TEST(Schedule, ScheduleOnceFromTheSystemDeliversOnceAfterTheDelayWithNoSender) {
  // SPEC S1, S3: a system call's ticks have no sender.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  ScheduleResult r = kit.system().scheduleOnce(Tick{7}, probe.ref(), 50ms);
  EXPECT_TRUE(r.ready());
  EXPECT_FALSE(r.wait());
  EXPECT_TRUE(r.handle().valid());
  EXPECT_EQ(kit.system().scheduleCount(), 1u);
  kit.advance(49ms);
  EXPECT_EQ(received(probe), 0u);
  kit.advance(1ms);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 7);
  EXPECT_TRUE(probe.lastSender().isNone());
  kit.advance(1s);
  EXPECT_EQ(received(probe), 0u) << "a one-shot fires once";
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
}

TEST(Schedule, ScheduleRepeatsEveryIntervalFirstOneIntervalFromNow) {
  // SPEC S1.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  kit.system().schedule(Tick{1}, probe.ref(), 10ms).get();
  kit.advance(9ms);
  EXPECT_EQ(received(probe), 0u);
  for (int i = 0; i < 5; ++i) {
    kit.advance(1ms);
    EXPECT_EQ(received(probe), 1u) << "tick " << i;
    probe.expectMsg<Tick>();
    kit.advance(9ms);
    EXPECT_EQ(received(probe), 0u);
  }
  EXPECT_EQ(kit.system().scheduleCount(), 1u);
}

TEST(Schedule, AContextScheduleComesFromTheSchedulingActorUnlessTheOptionsSayOtherwise) {
  // SPEC S1, S3.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  TestProbe other = kit.probe("other");
  ActorRef actor = kit.system().spawn("a", [&](ReceiveContext& ctx) {
    if (ctx.is<Remind>()) {
      ctx.scheduleOnce(Tick{1}, probe.ref(), 10ms);
      ctx.scheduleOnce(Tick{2}, probe.ref(), 20ms,
                       ScheduleOptions::create().withSender(other.ref()));
    }
  });
  actor.tell(Remind{});
  kit.run();
  kit.advance(10ms);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 1);
  EXPECT_EQ(probe.lastSender(), actor);
  kit.advance(10ms);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 2);
  EXPECT_EQ(probe.lastSender(), other.ref());
}

TEST(Schedule, AnActorCancelsItsOwnReminderByReference) {
  // SPEC S1, S2: the seeds' Reminder, from the actor's side.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  TestProbe report = kit.probe("report");
  ActorRef actor = kit.system().spawn<Scheduling>("s", ActorOptions::create(), report.ref());
  actor.tell(Start{probe.ref(), 100ms, false, "remind"});
  EXPECT_FALSE(report.expectMsg<std::error_code>());
  kit.advance(50ms);
  actor.tell(std::string("remind"));
  EXPECT_FALSE(report.expectMsg<std::error_code>());
  kit.advance(100ms);
  EXPECT_EQ(received(probe), 0u);
  actor.tell(std::string("remind"));
  EXPECT_EQ(report.expectMsg<std::error_code>(), Error::ErrScheduleNotFound);
}

TEST(Schedule, EqualDeadlinesFireInTheOrderTheyWereArmed) {
  // SPEC S10 (and L2's rule for timers).
  TestKit kit;
  TestProbe probe = kit.probe("p");
  for (int i = 0; i < 200; ++i) kit.system().scheduleOnce(Tick{i}, probe.ref(), 5ms).get();
  kit.advance(5ms);
  for (int i = 0; i < 200; ++i) EXPECT_EQ(probe.expectMsg<Tick>().n, i);
}

TEST(Schedule, DeadlinesFireInDeadlineOrderWhateverTheArmOrder) {
  // SPEC S10: many deadlines, moved through in one jump and in small steps.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  std::vector<int> delays;
  for (int i = 0; i < 500; ++i)
    delays.push_back((i * 7919) % 1000 + 1);  // a permutation of 1..1000 ms
  for (int d : delays)
    kit.system().scheduleOnce(Tick{d}, probe.ref(), std::chrono::milliseconds(d)).get();
  kit.advance(300ms);
  int last = 0;
  std::size_t seen = 0;
  while (probe.pending() != 0) {
    const int d = probe.expectMsg<Tick>().n;
    EXPECT_LE(d, 300);
    EXPECT_GT(d, last);
    last = d;
    ++seen;
  }
  for (int step = 0; step < 700; ++step) {
    kit.advance(1ms);
    while (probe.pending() != 0) {
      const int d = probe.expectMsg<Tick>().n;
      EXPECT_EQ(d, 301 + step) << "fires exactly when due";
      ++seen;
    }
  }
  EXPECT_EQ(seen, delays.size());
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
}

// ---- S2: references and handles --------------------------------------------------

TEST(Schedule, AReferenceIsAddressableFromAnywhereAndAHandleWithoutOne) {
  // SPEC S2.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  TestProbe report = kit.probe("report");
  ActorRef actor = kit.system().spawn<Scheduling>("s", ActorOptions::create(), report.ref());
  actor.tell(Start{probe.ref(), 10ms, true, "beat"});
  EXPECT_FALSE(report.expectMsg<std::error_code>());
  kit.advance(10ms);
  probe.expectMsg<Tick>();
  // Made inside an actor; cancelled from the system.
  EXPECT_FALSE(kit.system().cancelSchedule("beat").wait());
  kit.advance(50ms);
  EXPECT_EQ(received(probe), 0u);
  // A handle addresses an unnamed schedule; a stale one finds nothing.
  ScheduleHandle h = kit.system().schedule(Tick{2}, probe.ref(), 10ms).handle();
  EXPECT_FALSE(kit.system().cancelSchedule(h).wait());
  EXPECT_EQ(kit.system().cancelSchedule(h).wait(), Error::ErrScheduleNotFound);
  EXPECT_EQ(kit.system().pauseSchedule(h).wait(), Error::ErrScheduleNotFound);
  EXPECT_EQ(kit.system().cancelSchedule(ScheduleHandle()).wait(), Error::ErrScheduleNotFound);
}

TEST(Schedule, AReferenceIsFreeAgainOnceItsScheduleHasEnded) {
  // SPEC S2, S12.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  const auto named = ScheduleOptions::create().withReference("once");
  kit.system().scheduleOnce(Tick{1}, probe.ref(), 10ms, named).get();
  EXPECT_EQ(kit.system().scheduleOnce(Tick{2}, probe.ref(), 10ms, named).wait(),
            Error::ErrScheduleAlreadyExists);
  kit.advance(10ms);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 1);
  EXPECT_FALSE(kit.system().scheduleOnce(Tick{3}, probe.ref(), 10ms, named).wait())
      << "a fired one-shot gives its reference back";
  EXPECT_FALSE(kit.system().cancelSchedule("once").wait());
  EXPECT_FALSE(kit.system().schedule(Tick{4}, probe.ref(), 10ms, named).wait())
      << "a cancelled schedule gives its reference back";
}

// ---- S4: pause and resume --------------------------------------------------------

TEST(Schedule, AResumedOneShotKeepsTheDelayItHadLeft) {
  // SPEC S4.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  kit.system()
      .scheduleOnce(Tick{1}, probe.ref(), 100ms, ScheduleOptions::create().withReference("r"))
      .get();
  kit.advance(30ms);
  EXPECT_FALSE(kit.system().pauseSchedule("r").wait());
  EXPECT_FALSE(kit.system().pauseSchedule("r").wait()) << "pausing a paused schedule: a no-op";
  kit.advance(1s);
  EXPECT_EQ(received(probe), 0u);
  EXPECT_FALSE(kit.system().resumeSchedule("r").wait());
  kit.advance(69ms);
  EXPECT_EQ(received(probe), 0u);
  kit.advance(1ms);
  EXPECT_EQ(received(probe), 1u) << "70 ms were left at the pause";
}

TEST(Schedule, AResumedRepeatingScheduleFiresOneFullIntervalAfterTheResume) {
  // SPEC S4.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  ScheduleHandle h = kit.system().schedule(Tick{1}, probe.ref(), 100ms).handle();
  kit.advance(90ms);
  EXPECT_FALSE(kit.system().pauseSchedule(h).wait());
  kit.advance(500ms);
  EXPECT_EQ(received(probe), 0u);
  EXPECT_FALSE(kit.system().resumeSchedule(h).wait());
  EXPECT_FALSE(kit.system().resumeSchedule(h).wait()) << "resuming a running schedule: a no-op";
  kit.advance(99ms);
  EXPECT_EQ(received(probe), 0u);
  kit.advance(1ms);
  EXPECT_EQ(received(probe), 1u);
  kit.advance(100ms);
  EXPECT_EQ(received(probe), 2u);
}

// ---- S5, S6: ownership -----------------------------------------------------------

TEST(Schedule, SystemStopCancelsEverySchedule) {
  // SPEC S5.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  for (int i = 0; i < 100; ++i) {
    kit.system().schedule(Tick{i}, probe.ref(), 10ms,
                          ScheduleOptions::create().withReference("r" + std::to_string(i)));
  }
  kit.system().scheduleOnce(Tick{0}, probe.ref(), 1h);
  EXPECT_EQ(kit.system().scheduleCount(), 101u);
  EXPECT_EQ(kit.system().isolate(0).pendingTimers(), 1u) << "one timer for all";
  kit.system().stop();
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
  EXPECT_EQ(kit.system().cancelSchedule("r1").wait(), Error::ErrActorSystemNotStarted);
}

TEST(Schedule, AnActorsFullStopCancelsItsSchedulesAndARestartKeepsThem) {
  // SPEC S6.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  ActorRef actor = kit.system().spawn("owner", [&](ReceiveContext& ctx) {
    if (ctx.is<Remind>()) {
      ctx.schedule(Tick{1}, probe.ref(), 10ms);
      ctx.schedule(Tick{2}, probe.ref(), 10ms, ScheduleOptions::create().withReference("named"));
    }
    if (ctx.is<int>()) throw std::runtime_error("restart me");
  });
  actor.tell(Remind{});
  kit.run();
  kit.advance(10ms);
  EXPECT_EQ(received(probe), 2u);
  drain(probe);
  actor.tell(1);  // fails: the guardian restarts it
  kit.run();
  kit.advance(10ms);
  EXPECT_EQ(received(probe), 2u) << "a restart is not a stop";
  drain(probe);
  kit.system().stop(actor);
  kit.run();
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
  kit.advance(50ms);
  EXPECT_EQ(received(probe), 0u);
  EXPECT_EQ(kit.system().cancelSchedule("named").wait(), Error::ErrScheduleNotFound);
}

TEST(Schedule, ASystemScheduleOutlivesTheActorsThatMadeNone) {
  // SPEC S6: only context calls are owned by an actor.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  ActorRef bystander = kit.system().spawn("b", [](ReceiveContext&) {});
  kit.system().schedule(Tick{1}, probe.ref(), 10ms).get();
  kit.system().stop(bystander);
  kit.run();
  kit.advance(10ms);
  EXPECT_EQ(received(probe), 1u);
}

// ---- S7, S8: delivery ------------------------------------------------------------

TEST(Schedule, ATickToAStoppedTargetIsADeadLetterAndARepeatingScheduleIsDroppedAfterIt) {
  // SPEC S7.
  TestKit kit;
  std::vector<std::string> dead;
  kit.system().eventStream().subscribe<DeadLetter>(
      [&](const DeadLetter& d) { dead.push_back(d.messageType); });
  ActorRef target = kit.system().spawn("t", [](ReceiveContext&) {});
  kit.system().schedule(Tick{1}, target, 10ms).get();
  kit.system().scheduleOnce(Remind{}, target, 30ms).get();
  kit.system().stop(target);
  kit.run();
  kit.advance(10ms);
  ASSERT_EQ(dead.size(), 1u);
  EXPECT_EQ(kit.system().scheduleCount(), 1u) << "the repeating one is gone after its tick";
  kit.advance(100ms);
  EXPECT_EQ(dead.size(), 2u) << "the one-shot dead-letters too, and nothing more comes";
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
}

struct Stuck {};
struct FailOnce : Actor {
  explicit FailOnce(std::vector<int>* got) : got(got) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Stuck>()) throw std::runtime_error("suspend me");
    if (const Tick* t = ctx.get<Tick>()) got->push_back(t->n);
  }
  SupervisorStrategy supervisorStrategy() override { return SupervisorStrategy::oneForOne(); }
  std::vector<int>* got;
};

TEST(Schedule, ASuspendedTargetKeepsItsSchedule) {
  // SPEC S7: a failed actor is suspended until its parent decides, and its
  // schedule stays. The parent (the user guardian) lives on isolate 0 and the
  // actor on isolate 1; running isolate 1 alone keeps the decision away while
  // ticks arrive.
  TestKit kit("suspended", ActorSystemOptions::create().withIsolates(2));
  std::vector<int> got;
  ActorRef target = kit.system().spawn<FailOnce>("t", ActorOptions::create().withIsolate(1), &got);
  kit.system().schedule(Tick{1}, target, 10ms).get();
  kit.advance(10ms);
  EXPECT_EQ(got.size(), 1u);
  target.tell(Stuck{});
  Isolate& home = kit.system().isolate(1);
  home.runUntilIdle();  // fails: suspended, the Failed report waits on isolate 0
  for (int i = 0; i < 3; ++i) {
    kit.clock().advance(10ms);
    home.runUntilIdle();
  }
  EXPECT_EQ(got.size(), 1u) << "suspended: it handles nothing";
  EXPECT_EQ(kit.system().scheduleCount(), 1u) << "and keeps its schedule";
  kit.run();  // the guardian restarts it; the queued ticks are handled
  EXPECT_EQ(got.size(), 4u);
  kit.advance(10ms);
  EXPECT_EQ(got.size(), 5u);
}

struct Blocked : AsyncActor {
  explicit Blocked(std::vector<int>* got) : got(got) {}
  Async receiveAsync(ReceiveContext& ctx) override {
    if (ctx.is<Remind>()) {
      co_await ctx.delay(1h);  // takes no other message meanwhile
    } else if (const Tick* t = ctx.get<Tick>()) {
      got->push_back(t->n);
    }
  }
  std::vector<int>* got;
};

TEST(Schedule, TicksAreIndependentNoneIsSuppressedBecauseThePreviousIsStillQueued) {
  // SPEC S8.
  TestKit kit;
  std::vector<int> got;
  ActorRef actor = kit.system().spawn<Blocked>("b", ActorOptions::create(), &got);
  actor.tell(Remind{});
  kit.run();
  ScheduleHandle h = kit.system().schedule(Tick{1}, actor, 10ms).handle();
  for (int i = 0; i < 5; ++i) kit.advance(10ms);
  EXPECT_TRUE(got.empty());
  kit.system().cancelSchedule(h).get();
  kit.advance(1h);
  EXPECT_EQ(got.size(), 5u) << "five ticks queued while the actor was busy, all delivered";
}

TEST(Schedule, AStrictCancelDropsTheTicksStillQueuedWhenItCompletes) {
  // The opt-in stronger guarantee: no tick is received after a cancel (or a
  // pause) completed, even one already in the mailbox. Without it the same
  // ticks arrive (the test above).
  TestKit kit;
  std::vector<int> got;
  ActorRef actor = kit.system().spawn<Blocked>("b", ActorOptions::create(), &got);
  actor.tell(Remind{});
  kit.run();
  const auto strict = ScheduleOptions::create().withStrictCancel();
  ScheduleHandle cancelled = kit.system().schedule(Tick{1}, actor, 10ms, strict).handle();
  ScheduleHandle paused = kit.system().schedule(Tick{2}, actor, 10ms, strict).handle();
  ScheduleHandle resumed = kit.system().schedule(Tick{3}, actor, 10ms, strict).handle();
  kit.system().scheduleOnce(Tick{4}, actor, 10ms, strict).get();  // never cancelled
  for (int i = 0; i < 3; ++i) kit.advance(10ms);
  EXPECT_FALSE(kit.system().cancelSchedule(cancelled).wait());
  EXPECT_FALSE(kit.system().pauseSchedule(paused).wait());
  EXPECT_FALSE(kit.system().pauseSchedule(resumed).wait());
  EXPECT_FALSE(kit.system().resumeSchedule(resumed).wait());
  kit.advance(10ms);  // Tick 3 again, sent after its resume
  kit.advance(1h);    // and once more (late); then the actor takes its mailbox
  EXPECT_EQ(got, (std::vector<int>{4, 3, 3}))
      << "only what was sent after the last pause or cancel";
  EXPECT_EQ(kit.system().staleTickCount(), 9u);
  kit.system().cancelSchedule(paused).get();
}

TEST(Schedule, ALateLoopSkipsTheTicksItMissedInsteadOfBursting) {
  // A documented choice (docs/scheduling.md): fixed rate, no catch-up burst.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  kit.system().schedule(Tick{1}, probe.ref(), 10ms).get();
  kit.advance(55ms);  // five deadlines passed while the loop was away
  EXPECT_EQ(received(probe), 1u);
  EXPECT_EQ(kit.system().skippedTickCount(), 4u) << "the ticks due at 20 .. 50 ms";
  drain(probe);
  kit.advance(9ms);
  EXPECT_EQ(received(probe), 0u);
  kit.advance(1ms);
  EXPECT_EQ(received(probe), 1u) << "the next tick is one interval after the late one";
}

// ---- S9: across isolates ---------------------------------------------------------

TEST(Schedule, ATickToAnActorOnAnotherIsolateRoutesThereAndTheScheduleStaysHome) {
  // SPEC S9.
  TestKit kit("xi", ActorSystemOptions::create().withIsolates(2));
  TestProbe probe = kit.probe("p");
  std::atomic<int> ticks{0};
  ActorRef far = kit.system().spawn(
      "far", [&](ReceiveContext& ctx) { ticks += ctx.is<Tick>() ? 1 : 0; },
      ActorOptions::create().withIsolate(1));
  ScheduleHandle made;
  ActorRef near = kit.system().spawn(
      "near",
      [&](ReceiveContext& ctx) {
        if (ctx.is<Remind>()) made = ctx.schedule(Tick{1}, far, 10ms).handle();
      },
      ActorOptions::create().withIsolate(0));
  near.tell(Remind{});
  kit.run();
  EXPECT_EQ(made.isolateIndex(), 0u) << "the schedule lives where it was made";
  kit.advance(10ms);
  kit.advance(10ms);
  EXPECT_EQ(ticks.load(), 2);
  EXPECT_EQ(kit.system().isolate(1).pendingTimers(), 0u);
  EXPECT_EQ(kit.system().isolate(0).pendingTimers(), 1u);
}

// ---- S10, S11: one timer, unreferenced, no clock on the message path ------------

class CountingClock final : public Clock {
 public:
  time_point now() const noexcept override {
    reads.fetch_add(1, std::memory_order_relaxed);
    return inner.now();
  }
  bool isManual() const noexcept override { return true; }
  ManualClock inner;
  mutable std::atomic<std::uint64_t> reads{0};
};

TEST(Schedule, TheMessagePathReadsNoClockEvenWithSchedulesPending) {
  // SPEC S10: count the clock reads of 1,000 and of 10,000 tells with a
  // thousand schedules pending: far fewer than one per message.
  CountingClock clock;
  auto system =
      ActorSystem::create("clock", ActorSystemOptions::create().withManualRun().withClock(&clock));
  std::size_t handled = 0;
  ActorRef sink = system->spawn("sink", [&](ReceiveContext&) { ++handled; });
  for (int i = 0; i < 1000; ++i) system->schedule(Tick{i}, sink, 1h).get();
  system->runUntilIdle();
  auto readsFor = [&](int n) {
    const std::uint64_t before = clock.reads.load();
    for (int i = 0; i < n; ++i) sink.tell(i);
    system->runUntilIdle();
    return clock.reads.load() - before;
  };
  const std::uint64_t small = readsFor(1000);
  const std::uint64_t large = readsFor(10000);
  EXPECT_EQ(handled, 11000u);
  // The loop reads the clock once per pass with a timer pending (the hybrid
  // yields a pass every 64 turns of 16 messages): never once per message.
  EXPECT_LT(small, 1000u / 100);
  EXPECT_LT(large, 10000u / 100);
}

TEST(Schedule, PendingSchedulesAloneDoNotKeepTheLoopAlive) {
  // SPEC S11: runUntilIdle returns with schedules pending, and a threaded
  // system shuts down with one pending far in the future.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  kit.system().schedule(Tick{1}, probe.ref(), 10ms).get();
  kit.run();  // returns: the scheduler's timer is unreferenced
  EXPECT_EQ(kit.system().scheduleCount(), 1u);

  auto threaded = ActorSystem::create("threaded");
  ActorRef a = threaded->spawn("a", [](ReceiveContext&) {});
  threaded->schedule(Tick{1}, a, 1h).get();
  threaded->shutdown();
  EXPECT_EQ(threaded->scheduleCount(), 0u);
}

struct Beat {};
// Beats every millisecond; its stop moves the manual clock on by a beat, so
// the scheduler's timer falls due again between the turns of a shutdown.
struct BeatingChild : Actor {
  BeatingChild(ManualClock* clock, int* beats) : clock(clock), beats(beats) {}
  void preStart(ReceiveContext& ctx) override { ctx.schedule(Beat{}, ctx.self(), 1ms); }
  void receive(ReceiveContext& ctx) override { *beats += ctx.is<Beat>() ? 1 : 0; }
  void postStop(ReceiveContext&) override { clock->advance(1ms); }
  ManualClock* clock;
  int* beats;
};
struct BeatingParent : Actor {
  BeatingParent(ManualClock* clock, int* beats) : clock(clock), beats(beats) {}
  void preStart(ReceiveContext& ctx) override {
    ctx.schedule(Beat{}, ctx.self(), 1ms);
    for (int i = 0; i < 200; ++i) {
      ctx.spawn<BeatingChild>("c" + std::to_string(i), ActorOptions::create(), clock, beats);
    }
  }
  void receive(ReceiveContext& ctx) override { *beats += ctx.is<Beat>() ? 1 : 0; }
  ManualClock* clock;
  int* beats;
};

TEST(Schedule, AGracefulShutdownWhileOwnersStopOverSeveralTurnsLeavesNothing) {
  // SPEC S5, S6: a shutdown whose actors stop over several turns, while
  // their schedules' timer keeps falling due (each child's stop moves the
  // clock on by a beat), releases every schedule once and sends no tick.
  TestKit kit("graceful", ActorSystemOptions::create().withLogLevel(LogLevel::Off));
  int beats = 0;
  kit.system().spawn<BeatingParent>("p", ActorOptions::create(), &kit.clock(), &beats);
  kit.run();
  ASSERT_EQ(kit.system().scheduleCount(), 201u);
  for (int i = 1; i <= 3; ++i) {
    kit.advance(1ms);
    ASSERT_EQ(beats, 201 * i) << "every schedule ticks once per beat";
  }
  kit.system().shutdown();
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
  EXPECT_EQ(beats, 603) << "a stopping system fires nothing more";
  kit.clock().advance(1s);
  EXPECT_EQ(beats, 603);
}

// ---- S10: a far deadline never delays a near one -------------------------------
//
// A delay or an interval past the end of the clock's timeline (a century,
// nanoseconds::max()) is a deadline that never comes: it saturates there
// (Clock::deadlineAfter) instead of wrapping, and the isolate's one timer
// keeps following the near deadlines.

struct Near {};
struct Far {};
struct Once {};

// What a tally actor received, by kind.
struct Tally {
  int near = 0;
  int far = 0;
  int once = 0;
};

ActorRef spawnTally(ActorSystem& system, Tally& tally) {
  return system.spawn("tally", [&tally](ReceiveContext& ctx) {
    tally.near += ctx.is<Near>() ? 1 : 0;
    tally.far += ctx.is<Far>() ? 1 : 0;
    tally.once += ctx.is<Once>() ? 1 : 0;
  });
}

// Far one-shots and repeating schedules made before and after a 10 ms beat,
// named and not: the beat ticks exactly once per 10 ms, a 20 ms one-shot
// made later fires exactly at 20 ms, and nothing far ever fires.
void expectFarSchedulesLeaveTheNearOnesOnTime(std::chrono::nanoseconds far) {
  TestKit kit;
  ActorSystem& s = kit.system();
  Tally tally;
  ActorRef t = spawnTally(s, tally);
  kit.run();
  // The first one arms the isolate's timer at its own (far) deadline.
  ASSERT_FALSE(s.scheduleOnce(Far{}, t, far).wait());
  ASSERT_FALSE(s.schedule(Far{}, t, far).wait());
  ASSERT_FALSE(s.schedule(Near{}, t, 10ms).wait());
  ASSERT_FALSE(
      s.scheduleOnce(Far{}, t, far, ScheduleOptions::create().withReference("far")).wait());
  ASSERT_FALSE(s.schedule(Far{}, t, far).wait());
  for (int i = 1; i <= 10; ++i) {
    kit.advance(10ms);
    ASSERT_EQ(tally.near, i) << "the beat, " << i * 10 << " ms in";
  }
  ASSERT_FALSE(s.scheduleOnce(Once{}, t, 20ms).wait());
  kit.advance(19ms);
  EXPECT_EQ(tally.once, 0);
  kit.advance(1ms);
  EXPECT_EQ(tally.once, 1) << "a one-shot made after the far ones fires on time";
  EXPECT_EQ(tally.near, 12);
  kit.advance(24h);  // one late tick of the beat, the rest skipped
  EXPECT_EQ(tally.near, 13);
  kit.advance(10ms);
  EXPECT_EQ(tally.near, 14);
  EXPECT_EQ(tally.far, 0);
  EXPECT_EQ(s.scheduleCount(), 5u) << "the four far ones and the beat";
}

TEST(Schedule, ADelayOrIntervalOfNanosecondsMaxNeverDelaysANearSchedule) {
  // SPEC S10.
  expectFarSchedulesLeaveTheNearOnesOnTime(std::chrono::nanoseconds::max());
}

TEST(Schedule, ADelayOrIntervalOfACenturyNeverDelaysANearSchedule) {
  // SPEC S10.
  expectFarSchedulesLeaveTheNearOnesOnTime(std::chrono::years(100));
}

TEST(Schedule, PausingAndResumingAFarScheduleNeverDelaysANearOne) {
  // SPEC S4, S10: a pause keeps the (saturated) delay left, a resume adds it
  // or the interval to the time again.
  TestKit kit;
  ActorSystem& s = kit.system();
  Tally tally;
  ActorRef t = spawnTally(s, tally);
  kit.run();
  const ScheduleHandle farOnce = s.scheduleOnce(Far{}, t, std::chrono::nanoseconds::max()).handle();
  const ScheduleHandle farBeat = s.schedule(Far{}, t, std::chrono::years(100)).handle();
  const ScheduleHandle maxBeat = s.schedule(Far{}, t, std::chrono::nanoseconds::max()).handle();
  const ScheduleHandle beat = s.schedule(Near{}, t, 10ms).handle();
  int expected = 0;
  for (int round = 0; round < 5; ++round) {
    for (ScheduleHandle h : {farOnce, farBeat, maxBeat}) ASSERT_FALSE(s.pauseSchedule(h).wait());
    kit.advance(10ms);
    ASSERT_EQ(tally.near, ++expected) << "round " << round << ", far ones paused";
    for (ScheduleHandle h : {farOnce, farBeat, maxBeat}) ASSERT_FALSE(s.resumeSchedule(h).wait());
    kit.advance(10ms);
    ASSERT_EQ(tally.near, ++expected) << "round " << round << ", far ones resumed";
  }
  // The near one paused and resumed among them: one full interval after.
  ASSERT_FALSE(s.pauseSchedule(beat).wait());
  kit.advance(50ms);
  EXPECT_EQ(tally.near, expected);
  ASSERT_FALSE(s.resumeSchedule(beat).wait());
  kit.advance(9ms);
  EXPECT_EQ(tally.near, expected);
  kit.advance(1ms);
  EXPECT_EQ(tally.near, expected + 1);
  ASSERT_FALSE(s.scheduleOnce(Once{}, t, 5ms).wait());
  kit.advance(5ms);
  EXPECT_EQ(tally.once, 1);
  EXPECT_EQ(tally.far, 0);
  EXPECT_EQ(s.scheduleCount(), 4u);
}

// ---- S12: errors -------------------------------------------------------------------

TEST(Schedule, EveryBadCallGetsItsNamedErrorAndLeavesNothingBehind) {
  // SPEC S12.
  TestKit kit;
  TestProbe probe = kit.probe("p");
  ActorSystem& s = kit.system();
  EXPECT_EQ(s.schedule(Tick{}, probe.ref(), 0ms).wait(), Error::ErrInvalidInterval);
  EXPECT_EQ(s.scheduleOnce(Tick{}, probe.ref(), -5ms).wait(), Error::ErrInvalidInterval);
  EXPECT_EQ(s.scheduleOnce(Tick{}, ActorRef(), 5ms).wait(), Error::ErrDead);
  ActorRef gone = s.spawn("gone", [](ReceiveContext&) {});
  s.stop(gone);
  kit.run();
  EXPECT_EQ(s.schedule(Tick{}, gone, 5ms).wait(), Error::ErrDead);
  const auto named = ScheduleOptions::create().withReference("x");
  EXPECT_FALSE(s.schedule(Tick{}, probe.ref(), 5ms, named).wait());
  EXPECT_EQ(s.schedule(Tick{}, probe.ref(), 5ms, named).wait(), Error::ErrScheduleAlreadyExists);
  EXPECT_EQ(s.scheduleOnce(Tick{}, probe.ref(), 5ms, named).wait(),
            Error::ErrScheduleAlreadyExists);
  EXPECT_EQ(s.cancelSchedule("y").wait(), Error::ErrScheduleNotFound);
  EXPECT_EQ(s.pauseSchedule("y").wait(), Error::ErrScheduleNotFound);
  EXPECT_EQ(s.resumeSchedule("y").wait(), Error::ErrScheduleNotFound);
  std::unique_ptr<int> moveOnly = std::make_unique<int>(1);
  EXPECT_EQ(s.schedule(Message(std::move(moveOnly)), probe.ref(), 5ms).wait(),
            Error::ErrInvalidOption)
      << "a repeating schedule needs a copyable message";
  TestKit elsewhere;
  EXPECT_EQ(s.schedule(Tick{}, probe.ref(), 5ms,
                       ScheduleOptions::create().withSender(elsewhere.probe("q").ref()))
                .wait(),
            Error::ErrInvalidOption)
      << "a tick's sender of another system could not be kept";
  EXPECT_EQ(s.scheduleCount(), 1u) << "only the one good schedule";
  EXPECT_THROW(s.schedule(Tick{}, probe.ref(), 0ms).get(), std::system_error);
  s.stop();
  EXPECT_EQ(s.scheduleOnce(Tick{}, probe.ref(), 5ms).wait(), Error::ErrActorSystemNotStarted);
  EXPECT_EQ(s.cancelSchedule("x").wait(), Error::ErrActorSystemNotStarted);
  EXPECT_EQ(s.scheduleCount(), 0u);
}

TEST(Schedule, ATargetOfAnotherSystemIsDead) {
  // SPEC S12: a reference from another system names nothing here.
  TestKit kit;
  TestKit other("other");
  ActorRef foreign = other.system().spawn("elsewhere", [](ReceiveContext&) {});
  other.run();
  EXPECT_EQ(kit.system().scheduleOnce(Tick{}, foreign, 5ms).wait(), Error::ErrDead);
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
}

struct AwaitsASystemCall : AsyncActor {
  explicit AwaitsASystemCall(ScheduleHandle* farSchedule) : farSchedule(farSchedule) {}
  Async receiveAsync(ReceiveContext& ctx) override {
    if (!ctx.is<Remind>()) co_return;
    ActorRef asker = ctx.sender();
    std::error_code e;
    try {
      // A system call: its result knows no context to resume in.
      co_await ctx.system().cancelSchedule(*farSchedule);
    } catch (const std::system_error& error) {
      e = error.code();
    }
    asker.tell(e);
  }
  ScheduleHandle* farSchedule;
};

TEST(Schedule, AwaitingAResultNoContextMadeIsErrNotOnIsolate) {
  // S1: only the results of ctx.schedule...() calls may be awaited; a pending
  // system call's result throws at the co_await instead of resuming elsewhere.
  auto system = ActorSystem::create(
      "await", ActorSystemOptions::create().withIsolates(2).withLogLevel(LogLevel::Off));
  std::atomic<int> ticks{0};
  ActorRef far = system->spawn(
      "far", [&](ReceiveContext& ctx) { ticks += ctx.is<Tick>() ? 1 : 0; },
      ActorOptions::create().withIsolate(1));
  ScheduleHandle farSchedule = system->schedule(Tick{}, far, 1h).handle();
  ASSERT_EQ(farSchedule.isolateIndex(), 1u);
  // Isolate 1 is held busy until the answer is in, so the cancel sent to it
  // is still pending when the coroutine awaits it (a result that is already
  // complete is simply returned).
  test::IsolateHold hold(*system, 1);
  ASSERT_TRUE(hold.held());
  ActorRef awaiting = system->spawn<AwaitsASystemCall>(
      "awaiting", ActorOptions::create().withIsolate(0), &farSchedule);
  EXPECT_EQ(system->ask<std::error_code>(awaiting, Remind{}, 30s).get(), Error::ErrNotOnIsolate);
  hold.release();
  system->shutdown();
}

TEST(Schedule, AMoveOnlyMessageCanBeScheduledOnce) {
  TestKit kit;
  TestProbe probe = kit.probe("p");
  kit.system().scheduleOnce(std::make_unique<int>(42), probe.ref(), 1ms).get();
  kit.advance(1ms);
  EXPECT_EQ(*probe.expectMsg<std::unique_ptr<int>>(), 42);
}

// ---- from a foreign thread, across isolates, and races -------------------------

struct Counter : Actor {
  explicit Counter(std::atomic<int>* n) : n(n) {}
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Tick>()) n->fetch_add(1);
    if (ctx.is<Remind>()) ctx.reply(Remind{});
  }
  std::atomic<int>* n;
};

// Waits (generously) until `done` holds.
template <class F>
bool eventually(F&& done) {
  return test::eventually(std::forward<F>(done), 30s);
}

TEST(Schedule, FromAForeignThreadEveryCallCompletesOnTheHoldingIsolate) {
  // SPEC S1, S2, S9 from a foreign thread, on a threaded system.
  auto system = ActorSystem::create("foreign", ActorSystemOptions::create().withIsolates(2));
  std::atomic<int> ticks{0};
  ActorRef counter = system->spawn<Counter>("c", ActorOptions::create().withIsolate(1), &ticks);
  ScheduleResult made =
      system->schedule(Tick{1}, counter, 1ms, ScheduleOptions::create().withReference("beat"));
  EXPECT_FALSE(made.wait());
  EXPECT_EQ(made.handle().isolateIndex(), 1u) << "from outside, the target's isolate holds it";
  ASSERT_TRUE(eventually([&] { return ticks.load() >= 3; }));
  EXPECT_FALSE(system->pauseSchedule("beat").wait());
  EXPECT_FALSE(system->resumeSchedule("beat").wait());
  EXPECT_FALSE(system->cancelSchedule("beat").wait());
  EXPECT_EQ(system->cancelSchedule("beat").wait(), Error::ErrScheduleNotFound);
  EXPECT_EQ(system->scheduleCount(), 0u);
  system->shutdown();
}

struct CancelIt {
  std::string reference;
};
struct PauseIt {
  std::string reference;
};

// Cancels or pauses a schedule by reference, awaits the result, and tells
// its error to the sender.
struct Controller : AsyncActor {
  Async receiveAsync(ReceiveContext& ctx) override {
    const ActorRef asker = ctx.sender();
    std::error_code e;
    if (const CancelIt* c = ctx.get<CancelIt>()) {
      e = co_await ctx.cancelSchedule(c->reference);
    } else if (const PauseIt* p = ctx.get<PauseIt>()) {
      e = co_await ctx.pauseSchedule(p->reference);
    }
    asker.tell(e);
  }
};

TEST(Schedule, ACancelThatCompletedLetsNoFurtherTickBeSentAcrossIsolates) {
  // Cancel and pause against fire, from an actor on another isolate and from
  // a foreign thread, on the manual clock. The guarantee (docs/scheduling.md):
  // once a cancel or a pause has completed, the schedule sends nothing more;
  // a tick sent before may still arrive. In each round the clock reaches the
  // next deadline while the call is on its way, so the call and the tick
  // meet on the holding isolate; once the call has completed, every tick
  // sent has arrived, and twenty more intervals send and deliver none.
  TestKit kit("race", ActorSystemOptions::create().withIsolates(2));
  ActorSystem& s = kit.system();
  std::atomic<int> ticks{0};
  ActorRef counter = s.spawn<Counter>("c", ActorOptions::create().withIsolate(1), &ticks);
  ActorRef controller = s.spawn<Controller>("ctl", ActorOptions::create().withIsolate(0));
  TestProbe report = kit.probe("report");
  for (int round = 0; round < 40; ++round) {
    const std::string ref = "r" + std::to_string(round);
    const bool pause = round % 2 == 0;
    const bool foreign = round % 4 >= 2;
    ScheduleResult made =
        s.schedule(Tick{1}, counter, 10ms, ScheduleOptions::create().withReference(ref));
    ASSERT_FALSE(made.wait());
    ASSERT_EQ(made.handle().isolateIndex(), 1u) << "the target's isolate holds it";
    const int before = ticks.load();
    for (int i = 0; i < 1 + round % 3; ++i) kit.advance(10ms);
    ASSERT_EQ(ticks.load(), before + 1 + round % 3) << "round " << round << ": it ticks";
    ScheduleResult fromThread;
    if (foreign) {
      std::thread([&] {
        fromThread = pause ? s.pauseSchedule(ref) : s.cancelSchedule(ref);
      }).join();
      EXPECT_FALSE(fromThread.ready()) << "from a foreign thread: completes on the holding isolate";
    } else {
      controller.tell(pause ? Message(PauseIt{ref}) : Message(CancelIt{ref}), report.ref());
    }
    kit.clock().advance(10ms);  // the next tick falls due as the call arrives
    kit.run();
    if (foreign) {
      ASSERT_TRUE(fromThread.ready()) << "round " << round;
      EXPECT_FALSE(fromThread.wait()) << "round " << round;
    } else {
      EXPECT_FALSE(report.expectMsg<std::error_code>()) << "round " << round;
    }
    const std::uint64_t sent = s.tickCount();
    EXPECT_EQ(static_cast<std::uint64_t>(ticks.load()), sent)
        << "round " << round << ": every tick sent before the call completed has arrived";
    for (int i = 0; i < 20; ++i) kit.advance(10ms);
    EXPECT_EQ(s.tickCount(), sent) << "round " << round << ": nothing sent after it";
    EXPECT_EQ(static_cast<std::uint64_t>(ticks.load()), sent) << "round " << round;
    EXPECT_EQ(s.cancelSchedule(ref).wait(),
              pause ? std::error_code() : make_error_code(Error::ErrScheduleNotFound));
  }
  EXPECT_EQ(s.scheduleCount(), 0u);
}

// ---- A10: passivation ------------------------------------------------------------

TEST(Passivation, AnIdleActorStopsItselfAfterItsTimeoutAndTicksKeepItAlive) {
  // SPEC A10, S8.
  TestKit kit;
  std::vector<std::string> stopped;
  kit.system().eventStream().subscribe<ActorStopped>(
      [&](const ActorStopped& e) { stopped.push_back(e.path); });
  ActorRef idle = kit.system().spawn(
      "idle", [](ReceiveContext&) {}, ActorOptions::create().withPassivation(100ms));
  ActorRef ticked = kit.system().spawn(
      "ticked", [](ReceiveContext&) {}, ActorOptions::create().withPassivation(100ms));
  kit.system().schedule(Tick{}, ticked, 60ms, ScheduleOptions::create().withReference("keep"));
  kit.run();
  kit.advance(50ms);
  idle.tell(1);
  kit.run();                                      // activity at 50 ms
  for (int i = 0; i < 9; ++i) kit.advance(10ms);  // 140 ms: idle for 90 ms
  EXPECT_TRUE(stopped.empty());
  for (int i = 0; i < 4; ++i) kit.advance(10ms);  // 180 ms: idle for 130 ms
  ASSERT_EQ(stopped.size(), 1u);
  EXPECT_EQ(stopped[0], "/user/idle");
  for (int i = 0; i < 100; ++i) kit.advance(10ms);
  EXPECT_EQ(stopped.size(), 1u) << "a repeating schedule keeps its target alive";
  kit.system().cancelSchedule("keep").get();
  for (int i = 0; i < 15; ++i) kit.advance(10ms);
  ASSERT_EQ(stopped.size(), 2u) << "without ticks it passivates too";
}

TEST(Passivation, ANonPositiveTimeoutIsRefused) {
  // SPEC A10, bad input.
  EXPECT_EQ(test::errorOf([] { ActorOptions::create().withPassivation(0ms); }),
            Error::ErrInvalidOption);
}

}  // namespace
}  // namespace coreactor
