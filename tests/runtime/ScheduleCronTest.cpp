// Cron schedules (scheduleCron): when they fire on the wall clock, in UTC,
// at a fixed offset and in a named zone, across month ends and leap days, after a pause and
// after the wall clock moves, and what a bad call gets. The expression's
// own arithmetic is CronExpressionTest.cpp. Time is the TestKit's
// ManualClock, whose wall time is set by hand, so every assertion is about
// which tick arrived after which move of the clock.
#include <gtest/gtest.h>

#include <chrono>
#include <system_error>

#include "coreactor/ActorSystem.hpp"
#include "coreactor/testkit/TestKit.hpp"

namespace coreactor {
namespace {

using namespace std::chrono_literals;
using std::chrono::days;
using std::chrono::sys_days;
using testkit::TestKit;
using testkit::TestProbe;

struct Tick {
  int n = 0;
};

// The wall time `hh:mm` on `day`, UTC.
std::chrono::system_clock::time_point at(sys_days day, std::chrono::hours hh,
                                         std::chrono::minutes mm = 0min) {
  return std::chrono::system_clock::time_point(day + hh + mm);
}

constexpr auto kMarch1st2026 = sys_days{std::chrono::year{2026} / std::chrono::March / 1};

TEST(ScheduleCron, FiresAtEachTimeTheExpressionNamesOnTheWallClock) {
  TestKit kit;
  TestProbe probe = kit.probe();
  kit.clock().setWallTime(at(kMarch1st2026, 10h, 3min));
  ScheduleResult r = kit.system().scheduleCron(Tick{5}, probe.ref(), "*/5 * * * *");
  ASSERT_FALSE(r.wait());
  EXPECT_TRUE(r.handle().valid());
  EXPECT_EQ(kit.system().scheduleCount(), 1u);
  kit.advance(1min + 59s);  // 10:04:59
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1s);  // 10:05
  EXPECT_EQ(probe.expectMsg<Tick>().n, 5);
  EXPECT_TRUE(probe.lastSender().isNone());
  kit.advance(4min + 59s);
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1s);  // 10:10
  EXPECT_EQ(probe.expectMsg<Tick>().n, 5);
  EXPECT_EQ(kit.system().skippedTickCount(), 0u);
}

TEST(ScheduleCron, AMonthWithoutTheDayIsSkippedAndALeapDayFiresOnlyInALeapYear) {
  TestKit kit;
  TestProbe probe = kit.probe();
  // The 31st at noon, from January 31st after noon: February has none.
  kit.clock().setWallTime(at(sys_days{std::chrono::year{2026} / 1 / 31}, 13h));
  ASSERT_FALSE(kit.system().scheduleCron(Tick{31}, probe.ref(), "0 12 31 * *").wait());
  kit.advance(days(58) + 22h + 59min);  // March 31st, 11:59
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1min);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 31);

  // February 29th: from the last day of 2027, the next is in 2028.
  TestKit leap;
  TestProbe leapProbe = leap.probe();
  leap.clock().setWallTime(at(sys_days{std::chrono::year{2027} / 12 / 31}, 0h));
  ASSERT_FALSE(leap.system().scheduleCron(Tick{29}, leapProbe.ref(), "0 0 29 2 *").wait());
  leap.advance(days(59) + 23h + 59min);  // 2028-02-28 23:59
  EXPECT_EQ(leapProbe.pending(), 0u);
  leap.advance(1min);  // 2028-02-29 00:00
  EXPECT_EQ(leapProbe.expectMsg<Tick>().n, 29);
  leap.advance(days(365 * 3));  // 2031-02-28: no leap day in between
  EXPECT_EQ(leapProbe.pending(), 0u);
  EXPECT_EQ(leap.system().skippedTickCount(), 0u);
}

TEST(ScheduleCron, AFixedUtcOffsetFiresAtTheLocalTime) {
  TestKit kit;
  TestProbe probe = kit.probe();
  kit.clock().setWallTime(at(kMarch1st2026, 0h));
  // 09:00 at UTC+05:30 is 03:30 UTC.
  const auto india = ScheduleOptions::create().withUtcOffset(5h + 30min);
  ASSERT_FALSE(kit.system().scheduleCron(Tick{9}, probe.ref(), "0 9 * * *", india).wait());
  kit.advance(3h + 29min);
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1min);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 9);
  kit.advance(23h + 59min);
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1min);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 9);
}

TEST(ScheduleCron, ANamedZoneFiresAtItsLocalTimeThroughADaylightSavingChange) {
  TestKit kit;
  TestProbe probe = kit.probe();
  // Saturday 2026-03-07, 15:00 UTC; New York's clocks spring forward on
  // Sunday at 07:00 UTC, so 09:00 there is 14:00 UTC on Saturday and 13:00
  // UTC from Sunday on.
  kit.clock().setWallTime(at(sys_days{std::chrono::year{2026} / 3 / 7}, 15h));
  const auto newYork = ScheduleOptions::create().withTimeZone("America/New_York");
  EXPECT_EQ(newYork.timeZone().name(), "America/New_York");
  ASSERT_FALSE(kit.system().scheduleCron(Tick{9}, probe.ref(), "0 9 * * *", newYork).wait());
  kit.advance(21h + 59min);  // Sunday 12:59 UTC, 08:59 EDT
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1min);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 9);
  kit.advance(23h + 59min);  // Monday 12:59 UTC
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1min);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 9);
  EXPECT_EQ(kit.system().skippedTickCount(), 0u);
}

TEST(ScheduleCron, AZoneOrAnOffsetWhicheverWasSetLastIsTheOneUsed) {
  TestKit kit;
  TestProbe probe = kit.probe();
  kit.clock().setWallTime(at(kMarch1st2026, 0h));
  // The zone replaced by an offset: 09:00 at UTC+05:30 is 03:30 UTC.
  const auto india =
      ScheduleOptions::create().withTimeZone("Europe/Paris").withUtcOffset(5h + 30min);
  ASSERT_FALSE(kit.system().scheduleCron(Tick{1}, probe.ref(), "0 9 * * *", india).wait());
  // The offset replaced by a zone: 09:00 in Paris (CET) is 08:00 UTC.
  const auto paris = ScheduleOptions::create()
                         .withUtcOffset(5h + 30min)
                         .withTimeZone(TimeZone::named("Europe/Paris"));
  ASSERT_FALSE(kit.system().scheduleCron(Tick{2}, probe.ref(), "0 9 * * *", paris).wait());
  kit.advance(3h + 30min);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 1);
  kit.advance(4h + 29min);
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1min);
  EXPECT_EQ(probe.expectMsg<Tick>().n, 2);
}

TEST(ScheduleCron, APausedCronResumedAfterMissedFiringsSendsOneTickNotABurst) {
  TestKit kit;
  TestProbe probe = kit.probe();
  kit.clock().setWallTime(at(kMarch1st2026, 10h));
  const auto named = ScheduleOptions::create().withReference("minutely");
  ASSERT_FALSE(kit.system().scheduleCron(Tick{1}, probe.ref(), "* * * * *", named).wait());
  kit.advance(1min);  // 10:01
  probe.expectMsg<Tick>();
  ASSERT_FALSE(kit.system().pauseSchedule("minutely").wait());
  kit.advance(10min);  // 10:11: the firings of 10:02 .. 10:11 are missed
  EXPECT_EQ(probe.pending(), 0u);
  ASSERT_FALSE(kit.system().resumeSchedule("minutely").wait());
  kit.run();
  EXPECT_EQ(probe.pending(), 1u) << "one tick for all the firings missed while paused";
  probe.expectMsg<Tick>();
  EXPECT_EQ(kit.system().skippedTickCount(), 9u) << "10:03 .. 10:11, beside the one sent";
  kit.advance(59s);
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1s);  // 10:12: the calendar goes on
  probe.expectMsg<Tick>();
  EXPECT_EQ(probe.pending(), 0u);
}

TEST(ScheduleCron, AResumeBeforeTheNextFiringSendsNothingEarly) {
  TestKit kit;
  TestProbe probe = kit.probe();
  kit.clock().setWallTime(at(kMarch1st2026, 10h));
  ScheduleResult made = kit.system().scheduleCron(Tick{1}, probe.ref(), "*/10 * * * *");
  ASSERT_FALSE(made.wait());
  ASSERT_FALSE(kit.system().pauseSchedule(made.handle()).wait());
  kit.advance(3min);
  ASSERT_FALSE(kit.system().resumeSchedule(made.handle()).wait());
  kit.advance(6min + 59s);  // 10:09:59
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1s);
  probe.expectMsg<Tick>();
  EXPECT_EQ(kit.system().skippedTickCount(), 0u);
}

TEST(ScheduleCron, AWallClockSetBackNeverMakesAFiringEarly) {
  TestKit kit;
  TestProbe probe = kit.probe();
  kit.clock().setWallTime(at(kMarch1st2026, 10h, 0min) + 30s);
  ASSERT_FALSE(kit.system().scheduleCron(Tick{1}, probe.ref(), "*/5 * * * *").wait());
  kit.advance(2min);  // 10:02:30; the deadline is 2.5 minutes on
  kit.clock().setWallTime(at(kMarch1st2026, 9h, 50min));
  kit.advance(2min + 30s);  // the deadline: the wall clock reads 09:52:30
  EXPECT_EQ(probe.pending(), 0u) << "due at 10:05 by the wall clock";
  kit.advance(12min + 29s);  // 10:04:59
  EXPECT_EQ(probe.pending(), 0u);
  kit.advance(1s);  // 10:05
  probe.expectMsg<Tick>();
  EXPECT_EQ(probe.pending(), 0u);
}

TEST(ScheduleCron, AWallClockSetForwardSendsOneTickAndCountsTheFiringsItJumped) {
  TestKit kit;
  TestProbe probe = kit.probe();
  kit.clock().setWallTime(at(kMarch1st2026, 10h));
  ASSERT_FALSE(kit.system().scheduleCron(Tick{1}, probe.ref(), "* * * * *").wait());
  kit.clock().setWallTime(at(kMarch1st2026, 10h, 30min));
  kit.advance(1min);  // the deadline: the wall clock reads 10:31, due was 10:01
  probe.expectMsg<Tick>();
  EXPECT_EQ(probe.pending(), 0u);
  EXPECT_EQ(kit.system().skippedTickCount(), 30u) << "10:02 .. 10:31";
  kit.advance(1min);
  probe.expectMsg<Tick>();
}

TEST(ScheduleCron, ABadExpressionIsErrInvalidCronAtTheCallAndSchedulesNothing) {
  TestKit kit;
  TestProbe probe = kit.probe();
  try {
    (void)kit.system().scheduleCron(Tick{}, probe.ref(), "*/0 * * * *");
    FAIL() << "no error";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), Error::ErrInvalidCron);
    EXPECT_NE(std::string(e.what()).find("position 3"), std::string::npos) << e.what();
  }
  EXPECT_THROW((void)kit.system().scheduleCron(Tick{}, probe.ref(), "0 0 30 2 *"),
               std::system_error)
      << "never fires";
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
}

TEST(ScheduleCron, AnOffsetOutOfRangeOrAMissingTargetFailsTheCall) {
  TestKit kit;
  TestProbe probe = kit.probe();
  const auto far = ScheduleOptions::create().withUtcOffset(15h);
  EXPECT_EQ(kit.system().scheduleCron(Tick{}, probe.ref(), "* * * * *", far).wait(),
            Error::ErrInvalidOption);
  EXPECT_EQ(kit.system().scheduleCron(Tick{}, ActorRef(), "* * * * *").wait(), Error::ErrDead);
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
  // An unknown zone fails where it is named, before any schedule is made.
  try {
    static_cast<void>(ScheduleOptions::create().withTimeZone("Europe/Atlantis"));
    ADD_FAILURE() << "an unknown zone was accepted";
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), Error::ErrUnknownTimeZone);
    EXPECT_NE(std::string(e.what()).find("Europe/Atlantis"), std::string::npos) << e.what();
  }
}

// Schedules a cron tick to itself through its context, then counts them.
struct CronSelf : Actor {
  explicit CronSelf(int* ticks) : ticks(ticks) {}
  void preStart(ReceiveContext& ctx) override {
    EXPECT_FALSE(ctx.scheduleCron(Tick{1}, ctx.self(), "* * * * *").wait());
  }
  void receive(ReceiveContext& ctx) override {
    if (ctx.is<Tick>()) {
      ++*ticks;
      EXPECT_EQ(ctx.sender(), ctx.self()) << "a context's ticks come from its actor";
    }
  }
  int* ticks;
};

TEST(ScheduleCron, AnActorsCronEndsWhenItStopsAndACancelEndsOneByReference) {
  TestKit kit;
  kit.clock().setWallTime(at(kMarch1st2026, 10h));
  int ticks = 0;
  ActorRef actor = kit.system().spawn<CronSelf>("cron", ActorOptions::create(), &ticks);
  kit.run();
  EXPECT_EQ(kit.system().scheduleCount(), 1u);
  kit.advance(2min);
  EXPECT_EQ(ticks, 1) << "one tick: 10:01; the deadline of 10:02 came in the same move";
  kit.advance(1min);
  EXPECT_EQ(ticks, 2);
  kit.system().stop(actor);
  kit.run();
  EXPECT_EQ(kit.system().scheduleCount(), 0u) << "owned by the actor (S6)";

  TestProbe probe = kit.probe();
  const auto named = ScheduleOptions::create().withReference("report");
  ASSERT_FALSE(kit.system().scheduleCron(Tick{2}, probe.ref(), "@hourly", named).wait());
  EXPECT_EQ(kit.system().scheduleCron(Tick{2}, probe.ref(), "@daily", named).wait(),
            Error::ErrScheduleAlreadyExists);
  ASSERT_FALSE(kit.system().cancelSchedule("report").wait());
  kit.advance(2h);
  EXPECT_EQ(probe.pending(), 0u);
  EXPECT_EQ(kit.system().scheduleCount(), 0u);
}

}  // namespace
}  // namespace coreactor
