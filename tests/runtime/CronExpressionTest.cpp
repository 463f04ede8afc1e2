// CronExpression (include/coreactor/Cron.hpp): what it refuses, and when it
// fires, against timestamps worked out by hand and against a search that
// tries every minute.
#include <gtest/gtest.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <string>
#include <string_view>
#include <system_error>
#include <utility>
#include <vector>

#include "coreactor/Cron.hpp"
#include "coreactor/Error.hpp"

namespace coreactor {
namespace {

using namespace std::chrono;  // NOLINT(google-build-using-namespace): calendar literals

sys_seconds at(year_month_day day, int hour = 0, int minute = 0, int second = 0) {
  return sys_days{day} + hours{hour} + minutes{minute} + seconds{second};
}

/// `t` as "2024-02-28 10:05:00", so that a failure shows readable times.
std::string utc(sys_seconds t) {
  const sys_days day = floor<days>(t);
  const year_month_day ymd{day};
  const hh_mm_ss<seconds> time{t - day};
  char text[32];
  std::snprintf(text, sizeof text, "%04d-%02u-%02u %02d:%02d:%02d", static_cast<int>(ymd.year()),
                static_cast<unsigned>(ymd.month()), static_cast<unsigned>(ymd.day()),
                static_cast<int>(time.hours().count()), static_cast<int>(time.minutes().count()),
                static_cast<int>(time.seconds().count()));
  return text;
}

/// The firings of `text` one after another from `from`, as many as `want`
/// holds, compared with it.
template <class Zone = minutes>
void expectFirings(std::string_view text, sys_seconds from, const std::vector<sys_seconds>& want,
                   Zone offset = minutes{0}) {
  const CronExpression cron = CronExpression::parse(text);
  std::vector<std::string> got;
  std::vector<std::string> expected;
  for (sys_seconds w : want) {
    from = cron.next(from, offset);
    got.push_back(utc(from));
    expected.push_back(utc(w));
  }
  EXPECT_EQ(got, expected) << text;
}

/// The what() of parsing `text`, which must fail with ErrInvalidCron.
std::string parseError(std::string_view text) {
  try {
    static_cast<void>(CronExpression::parse(text));
  } catch (const std::system_error& e) {
    EXPECT_EQ(e.code(), make_error_code(Error::ErrInvalidCron)) << text;
    return e.what();
  }
  ADD_FAILURE() << "parsed without error: " << text;
  return "";
}

::testing::AssertionResult says(const std::string& what, std::string_view part) {
  if (what.find(part) != std::string::npos) return ::testing::AssertionSuccess();
  return ::testing::AssertionFailure() << "\"" << what << "\" does not say \"" << part << "\"";
}

TEST(Cron, RefusesTheWrongNumberOfFields) {
  EXPECT_TRUE(says(parseError("* * * *"), "at position 8: expected 5 fields, found 4"));
  EXPECT_TRUE(says(parseError("* * * * * 5 6"), "at position 11: expected 5 fields, found 7"));
  EXPECT_TRUE(says(parseError(""), "at position 1: expected 5 fields, found 0"));
  EXPECT_TRUE(says(parseError("   "), "expected 5 fields, found 0"));
}

TEST(Cron, RefusesAnEmptyListElementOrValue) {
  EXPECT_TRUE(says(parseError("1,,2 * * * *"), "minute at position 3: an empty list element"));
  EXPECT_TRUE(says(parseError("0 1, * * *"), "hour at position 5: an empty list element"));
  EXPECT_TRUE(says(parseError("/5 * * * *"), "minute at position 1: an empty value"));
  EXPECT_TRUE(says(parseError("1-/5 * * * *"), "minute at position 3: an empty value"));
  EXPECT_TRUE(says(parseError("*/ * * * *"), "minute at position 3: an empty step"));
}

TEST(Cron, RefusesAValueOutOfItsFieldsRange) {
  EXPECT_TRUE(says(parseError("60 * * * *"), "minute at position 1: minute 60 is out of 0-59"));
  EXPECT_TRUE(says(parseError("0 24 * * *"), "hour at position 3: hour 24 is out of 0-23"));
  EXPECT_TRUE(says(parseError("0 0 0 * *"), "at position 5: day-of-month 0 is out of 1-31"));
  EXPECT_TRUE(says(parseError("0 0 * 13 *"), "month at position 7: month 13 is out of 1-12"));
  EXPECT_TRUE(says(parseError("0 0 * * 1-8"), "at position 11: day-of-week 8 is out of 0-7"));
}

TEST(Cron, RefusesARangeThatRunsBackwards) {
  EXPECT_TRUE(says(parseError("10-5 * * * *"), "minute at position 1: range 10-5 runs backwards"));
  EXPECT_TRUE(
      says(parseError("0 0 * * 1,FRI-MON"), "week at position 11: range FRI-MON runs backwards"));
}

TEST(Cron, RefusesAStepOfZeroOrAboveTheFieldsSpan) {
  const std::string what = parseError("*/0 * * * *");
  EXPECT_EQ(what.rfind("cron \"*/0 * * * *\": minute at position 3: a step of 0", 0), 0u) << what;
  EXPECT_TRUE(says(parseError("*/61 * * * *"), "minute at position 3: a step of 61 is above"));
  EXPECT_TRUE(says(parseError("0 0-12/25 * * *"), "hour at position 8: a step of 25 is above"));
  EXPECT_TRUE(says(parseError("0 0 * * */8"), "day-of-week at position 11: a step of 8"));
  expectFirings("*/60 * * * *", at(2024y / February / 28d, 10, 3),
                {at(2024y / February / 28d, 11)});
}

TEST(Cron, RefusesAnUnknownName) {
  EXPECT_TRUE(says(parseError("0 0 * JANX *"), "month at position 7: unknown name \"JANX\""));
  EXPECT_TRUE(says(parseError("0 0 * * MOO"), "day-of-week at position 9: unknown name \"MOO\""));
  EXPECT_TRUE(says(parseError("0 0 * MON *"), "month at position 7: unknown name \"MON\""));
  EXPECT_TRUE(says(parseError("MON * * * *"), "minute at position 1: unknown name \"MON\""));
}

TEST(Cron, RefusesTrailingJunkInAField) {
  EXPECT_TRUE(says(parseError("5x * * * *"), "minute at position 2: unexpected 'x' after \"5\""));
  EXPECT_TRUE(says(parseError("0 1-5/2z * * *"), "hour at position 8: unexpected 'z'"));
  EXPECT_TRUE(says(parseError("*-5 * * * *"), "minute at position 2: unexpected '-'"));
  EXPECT_TRUE(says(parseError("0 0 * * 1\n"), "at position 10: unexpected '\\x0A'"));
  EXPECT_TRUE(says(parseError("*/MON * * * *"), "minute at position 3: unexpected 'M'"));
}

TEST(Cron, RefusesANumberTooLargeToRead) {
  EXPECT_TRUE(says(parseError("99999999999999999999 * * * *"),
                   "minute at position 1: the number 99999999999999999999 is too large"));
  EXPECT_TRUE(says(parseError("*/4294967297 * * * *"), "minute at position 3: the number"));
}

TEST(Cron, RefusesAnUnknownMacroOrTextAfterOne) {
  EXPECT_TRUE(says(parseError("@fortnightly"), "at position 1: unknown macro @fortnightly"));
  EXPECT_TRUE(says(parseError("  @reboot"), "at position 3: unknown macro @reboot"));
  EXPECT_TRUE(says(parseError("@daily 5"), "at position 8: unexpected text after @daily"));
}

TEST(Cron, RefusesADayOfTheMonthThatNoneOfItsMonthsHas) {
  EXPECT_TRUE(says(parseError("0 0 30 2 *"), "day-of-month at position 5: never fires"));
  EXPECT_TRUE(says(parseError("0 0 31 4,6,9,11 *"), "day-of-month at position 5: never fires"));
  EXPECT_TRUE(says(parseError("0 0 30-31 FEB */2"), "never fires"));  // `*/2` makes it both-match
  // Possible after all: Feb 29 in leap years, March 31, or any Monday (either-or).
  static_cast<void>(CronExpression::parse("0 0 29 2 *"));
  static_cast<void>(CronExpression::parse("0 0 31 2,3 *"));
  expectFirings("0 0 30 2 1", at(2024y / February / 28d), {at(2025y / February / 3d)});
}

TEST(Cron, StepsFromStarFireOnEveryNthMinute) {
  expectFirings("*/5 * * * *", at(2024y / February / 28d, 10, 3),
                {at(2024y / February / 28d, 10, 5), at(2024y / February / 28d, 10, 10)});
}

TEST(Cron, NextIsStrictlyAfterTheGivenTimeAndOnAWholeMinute) {
  const sys_days day = sys_days{2024y / February / 28d};
  expectFirings("*/5 * * * *", day + 10h + 5min, {day + 10h + 10min});
  expectFirings("*/5 * * * *", day + 10h + 5min + 30s, {day + 10h + 10min});
  expectFirings("*/5 * * * *", day + 10h + 4min + 59s, {day + 10h + 5min});
}

TEST(Cron, RangesAndListsFireOnlyOnTheirValues) {
  expectFirings("15,45 9-10 * * *", at(2024y / February / 28d, 10, 50),
                {at(2024y / February / 29d, 9, 15), at(2024y / February / 29d, 9, 45),
                 at(2024y / February / 29d, 10, 15), at(2024y / February / 29d, 10, 45),
                 at(2024y / March / 1d, 9, 15)});
  expectFirings("0 0 1,15-16 * *", at(2024y / February / 28d),
                {at(2024y / March / 1d), at(2024y / March / 15d), at(2024y / March / 16d),
                 at(2024y / April / 1d)});
}

TEST(Cron, StepsInARangeFireOnEveryNthValueOfTheRange) {
  const sys_days day = sys_days{2024y / February / 28d};
  expectFirings("10-30/10 * * * *", at(2024y / February / 28d, 10),
                {day + 10h + 10min, day + 10h + 20min, day + 10h + 30min, day + 11h + 10min});
  // `a/n` runs from a to the field's end.
  expectFirings("50/5 * * * *", at(2024y / February / 28d, 10),
                {day + 10h + 50min, day + 10h + 55min, day + 11h + 50min});
  expectFirings("0 1-23/11 * * *", at(2024y / February / 28d),
                {day + 1h, day + 12h, day + 23h, day + days{1} + 1h});
}

TEST(Cron, MonthAndDayNamesReadInAnyCaseAndInRanges) {
  expectFirings("0 0 1 jan-Mar,Oct *", at(2024y / February / 28d),
                {at(2024y / March / 1d), at(2024y / October / 1d), at(2025y / January / 1d)});
  // 2024-03-02 is a Saturday.
  expectFirings("0 12 * * mon-FRI", at(2024y / March / 2d),
                {at(2024y / March / 4d, 12), at(2024y / March / 5d, 12)});
  expectFirings(
      "0 12 * * sat,SUN", at(2024y / February / 28d),
      {at(2024y / March / 2d, 12), at(2024y / March / 3d, 12), at(2024y / March / 9d, 12)});
}

TEST(Cron, DayOfWeekSevenIsSundayLikeZero) {
  // 2024-02-28 is a Wednesday; 2024-03-03 a Sunday.
  expectFirings("0 0 * * 7", at(2024y / February / 28d),
                {at(2024y / March / 3d), at(2024y / March / 10d)});
  expectFirings("0 0 * * 0", at(2024y / February / 28d),
                {at(2024y / March / 3d), at(2024y / March / 10d)});
  expectFirings("0 0 * * 5-7", at(2024y / February / 28d),
                {at(2024y / March / 1d), at(2024y / March / 2d), at(2024y / March / 3d),
                 at(2024y / March / 8d)});
}

TEST(Cron, MacrosFireAsTheirFiveFields) {
  const sys_seconds from = at(2024y / February / 28d, 10, 3);
  expectFirings("@yearly", from, {at(2025y / January / 1d), at(2026y / January / 1d)});
  expectFirings("@annually", from, {at(2025y / January / 1d)});
  expectFirings("@monthly", from, {at(2024y / March / 1d), at(2024y / April / 1d)});
  expectFirings("@weekly", from, {at(2024y / March / 3d), at(2024y / March / 10d)});
  expectFirings("@daily", from, {at(2024y / February / 29d), at(2024y / March / 1d)});
  expectFirings("\t@MIDNIGHT  ", from, {at(2024y / February / 29d)});
  expectFirings("@hourly", from, {at(2024y / February / 28d, 11), at(2024y / February / 28d, 12)});
}

TEST(Cron, FieldsAreSeparatedBySpacesOrTabsWithBlanksAroundAllowed) {
  expectFirings(" \t*/5\t\t* *  * * \t", at(2024y / February / 28d, 10, 3),
                {at(2024y / February / 28d, 10, 5)});
}

TEST(Cron, AMonthWithoutTheDaySkipsToTheNextThatHasIt) {
  expectFirings("0 0 31 * *", at(2024y / January / 31d),
                {at(2024y / March / 31d), at(2024y / May / 31d), at(2024y / July / 31d)});
}

TEST(Cron, FebruaryTwentyNinthFiresOnlyInLeapYears) {
  expectFirings("0 0 29 2 *", at(2024y / March / 1d), {at(2028y / February / 29d)});
  expectFirings("0 0 29 2 *", at(2023y / January / 1d), {at(2024y / February / 29d)});
  // 2100 is not a leap year: eight years between two firings.
  expectFirings("0 0 29 2 *", at(2096y / March / 1d), {at(2104y / February / 29d)});
  expectFirings("0 0 28-29 2 *", at(2025y / January / 1d),
                {at(2025y / February / 28d), at(2026y / February / 28d)});
}

TEST(Cron, TheYearRollsOverAtNewYearsMidnight) {
  expectFirings("0 0 1 1 *", at(2026y / December / 31d, 23, 59), {at(2027y / January / 1d)});
  expectFirings("59 23 31 12 *", at(2026y / December / 31d, 23, 58),
                {at(2026y / December / 31d, 23, 59), at(2027y / December / 31d, 23, 59)});
}

TEST(Cron, RestrictedDayOfMonthAndDayOfWeekFireOnEither) {
  // 2024-09-13 is a Friday; 2024-10-13 a Sunday.
  expectFirings("0 0 13 * 5", at(2024y / September / 1d),
                {at(2024y / September / 6d), at(2024y / September / 13d),
                 at(2024y / September / 20d), at(2024y / September / 27d), at(2024y / October / 4d),
                 at(2024y / October / 11d), at(2024y / October / 13d), at(2024y / October / 18d)});
}

TEST(Cron, ADayFieldStartingWithStarLeavesTheOtherToDecideAndBothMustMatch) {
  expectFirings("0 0 * * 1", at(2024y / February / 28d),
                {at(2024y / March / 4d), at(2024y / March / 11d), at(2024y / March / 18d)});
  // `*/2` is starred: odd days that are Mondays, not odd days or Mondays.
  expectFirings("0 0 */2 * MON", at(2024y / February / 28d),
                {at(2024y / March / 11d), at(2024y / March / 25d), at(2024y / April / 1d),
                 at(2024y / April / 15d)});
}

TEST(Cron, AFixedOffsetMovesTheLocalScheduleOntoUtc) {
  // 09:00 at +05:30 is 03:30 UTC; at -08:00 it is 17:00 UTC.
  expectFirings("0 9 * * *", at(2024y / February / 28d),
                {at(2024y / February / 28d, 3, 30), at(2024y / February / 29d, 3, 30)},
                minutes{330});
  expectFirings("0 9 * * *", at(2024y / February / 28d, 4), {at(2024y / February / 29d, 3, 30)},
                minutes{330});
  expectFirings("0 9 * * *", at(2024y / February / 28d),
                {at(2024y / February / 28d, 17), at(2024y / February / 29d, 17)}, -hours{8});
  // 01:00 UTC on the 29th is still 17:00 on the 28th at -08:00: the next
  // 09:00 there is 17:00 UTC on the 29th.
  expectFirings("0 9 * * *", at(2024y / February / 29d, 1), {at(2024y / February / 29d, 17)},
                -hours{8});
}

TEST(Cron, AnOffsetCanMoveAFiringIntoTheUtcDayMonthOrYearBefore) {
  expectFirings("0 0 1 * *", at(2024y / February / 15d),
                {at(2024y / February / 29d, 22), at(2024y / March / 31d, 22)}, hours{2});
  expectFirings("0 0 1 1 *", at(2026y / June / 1d), {at(2026y / December / 31d, 10)}, hours{14});
  // And into the day after: Monday 23:00 at -12:00 is Tuesday 11:00 UTC.
  expectFirings("0 23 * * MON", at(2024y / February / 28d), {at(2024y / March / 5d, 11)},
                -hours{12});
}

TEST(Cron, AnOffsetOutsideMinusTwelveToPlusFourteenHoursIsAnInvalidOption) {
  const CronExpression cron = CronExpression::parse("0 0 * * *");
  const sys_seconds from = at(2024y / February / 28d);
  for (minutes offset : {hours{14} + minutes{1}, -hours{12} - minutes{1}, minutes{-24 * 60}}) {
    try {
      static_cast<void>(cron.next(from, offset));
      ADD_FAILURE() << "accepted an offset of " << offset.count() << " minutes";
    } catch (const std::system_error& e) {
      EXPECT_EQ(e.code(), make_error_code(Error::ErrInvalidOption));
      EXPECT_TRUE(says(e.what(), "UTC offset"));
    }
  }
  EXPECT_EQ(utc(cron.next(from, hours{14})), utc(at(2024y / February / 28d, 10)));
  EXPECT_EQ(utc(cron.next(from, -hours{12})), utc(at(2024y / February / 28d, 12)));
}

TEST(Cron, TextIsWhatItWasParsedFrom) {
  EXPECT_EQ(CronExpression::parse("*/5 1-3 * JAN mon").text(), "*/5 1-3 * JAN mon");
  EXPECT_EQ(CronExpression::parse("  @daily\t").text(), "  @daily\t");
}

TEST(Cron, AgreesWithASearchThatTriesEveryMinute) {
  struct Case {
    std::string_view text;
    std::function<bool(year_month_day, weekday, int hour, int minute)> fires;
  };
  const std::vector<Case> cases = {
      {"*/7 1-5 */10 * MON,FRI",
       [](year_month_day d, weekday w, int h, int m) {
         const unsigned dom = static_cast<unsigned>(d.day());
         return m % 7 == 0 && h >= 1 && h <= 5 && (dom - 1) % 10 == 0 &&
                (w == Monday || w == Friday);
       }},
      {"15 */6 1,15 JAN-MAR,oct 0",
       [](year_month_day d, weekday w, int h, int m) {
         const unsigned dom = static_cast<unsigned>(d.day());
         const unsigned month = static_cast<unsigned>(d.month());
         return m == 15 && h % 6 == 0 && (month <= 3 || month == 10) &&
                (dom == 1 || dom == 15 || w == Sunday);
       }},
      {"0-59/20 22 * * *",
       [](year_month_day, weekday, int h, int m) { return h == 22 && m % 20 == 0; }},
  };
  const sys_seconds start = at(2023y / December / 20d, 7, 31, 12);
  const sys_seconds end = start + days{110};
  for (const Case& c : cases) {
    const CronExpression cron = CronExpression::parse(c.text);
    for (minutes offset : {minutes{0}, minutes{330}, minutes{-480}, minutes{840}, minutes{-720}}) {
      std::vector<std::string> want;
      for (sys_seconds t = ceil<minutes>(start); t < end; t += minutes{1}) {
        const sys_seconds local = t + offset;
        const sys_days day = floor<days>(local);
        const hh_mm_ss<seconds> time{local - day};
        if (c.fires(year_month_day{day}, weekday{day}, static_cast<int>(time.hours().count()),
                    static_cast<int>(time.minutes().count()))) {
          want.push_back(utc(t));
        }
      }
      std::vector<std::string> got;
      for (sys_seconds t = cron.next(start, offset); t < end; t = cron.next(t, offset)) {
        got.push_back(utc(t));
      }
      EXPECT_FALSE(want.empty()) << c.text;
      EXPECT_EQ(got, want) << c.text << " at offset " << offset.count() << " minutes";
    }
  }
}

// ---- named time zones ---------------------------------------------------------------

/// The error code and what() of `call`, which must throw std::system_error.
template <class F>
std::pair<std::error_code, std::string> thrownBy(F call) {
  try {
    call();
  } catch (const std::system_error& e) {
    return {e.code(), e.what()};
  }
  ADD_FAILURE() << "no error";
  return {};
}

TEST(CronZone, ANamedZoneFollowsItsDaylightSaving) {
  // New York moves to UTC-04:00 at 07:00 UTC on Sunday 2026-03-08.
  expectFirings("0 9 * * *", at(2026y / March / 6d),
                {at(2026y / March / 6d, 14), at(2026y / March / 7d, 14), at(2026y / March / 8d, 13),
                 at(2026y / March / 9d, 13)},
                TimeZone::named("America/New_York"));
  // And back to UTC-05:00 at 06:00 UTC on Sunday 2026-11-01.
  expectFirings("0 9 * * *", at(2026y / October / 31d),
                {at(2026y / October / 31d, 13), at(2026y / November / 1d, 14)},
                TimeZone::named("America/New_York"));
}

TEST(CronZone, AFixedTimeTheClocksSkipFiresAtTheChange) {
  // Paris springs from 02:00 to 03:00 local (01:00 UTC) on 2026-03-29:
  // 02:30 never comes that night, so it fires at the change.
  expectFirings("30 2 * * *", at(2026y / March / 28d, 12),
                {at(2026y / March / 29d, 1), at(2026y / March / 30d, 0, 30)},
                TimeZone::named("Europe/Paris"));
}

TEST(CronZone, AnExpressionFollowingTheClockSkipsTheMissingHour) {
  // `30 * * * *`: 01:30 CET, then 03:30 CEST; 02:30 does not exist.
  expectFirings("30 * * * *", at(2026y / March / 29d),
                {at(2026y / March / 29d, 0, 30), at(2026y / March / 29d, 1, 30),
                 at(2026y / March / 29d, 2, 30)},
                TimeZone::named("Europe/Paris"));
}

TEST(CronZone, AFixedTimeTheClocksRepeatFiresOnceAtTheFirstPass) {
  // Paris falls back from 03:00 to 02:00 local (01:00 UTC) on 2026-10-25:
  // 02:30 comes at 00:30 UTC and again at 01:30 UTC; it fires at the first.
  expectFirings("30 2 * * *", at(2026y / October / 24d, 12),
                {at(2026y / October / 25d, 0, 30), at(2026y / October / 26d, 1, 30)},
                TimeZone::named("Europe/Paris"));
}

TEST(CronZone, AnExpressionFollowingTheClockFiresAtBothPassesOfARepeatedHour) {
  expectFirings("30 * * * *", at(2026y / October / 24d, 23, 45),
                {at(2026y / October / 25d, 0, 30), at(2026y / October / 25d, 1, 30),
                 at(2026y / October / 25d, 2, 30)},
                TimeZone::named("Europe/Paris"));
  // A star in the minute field is enough: every half hour of 02:xx, twice.
  expectFirings(
      "*/30 2 * * *", at(2026y / October / 24d, 12),
      {at(2026y / October / 25d, 0), at(2026y / October / 25d, 0, 30), at(2026y / October / 25d, 1),
       at(2026y / October / 25d, 1, 30), at(2026y / October / 26d, 1)},
      TimeZone::named("Europe/Paris"));
}

TEST(CronZone, AZoneWithoutDaylightSavingIsItsFixedOffset) {
  const CronExpression cron = CronExpression::parse("15 */5 * * *");
  const TimeZone kolkata = TimeZone::named("Asia/Kolkata");
  for (sys_seconds t = at(2026y / January / 1d), u = t; t < at(2026y / March / 1d);) {
    t = cron.next(t, kolkata);
    u = cron.next(u, minutes{330});
    ASSERT_EQ(utc(t), utc(u));
  }
}

TEST(CronZone, AgreesWithASearchThatTriesEveryMinuteAcrossTheChanges) {
  // The oracle reads each whole minute's local time with offsetAt(): an
  // expression following the clock fires at each minute whose local time
  // matches; a fixed time fires at the first minute showing it, or at the
  // change when the clocks skip over it.
  struct Case {
    std::string_view text;
    std::function<bool(int hour, int minute)> fires;
  };
  const std::vector<Case> cases = {
      {"*/20 * * * *", [](int, int m) { return m % 20 == 0; }},
      {"10 1-3 * * *", [](int h, int m) { return m == 10 && h >= 1 && h <= 3; }},
      {"45 2 * * *", [](int h, int m) { return h == 2 && m == 45; }},
      {"0,30 */2 * * *", [](int h, int m) { return (m == 0 || m == 30) && h % 2 == 0; }},
  };
  struct Window {
    std::string_view zone;
    sys_seconds from;
  };
  // Both changes of a year in each; Lord Howe moves by 30 minutes only.
  const std::vector<Window> windows = {
      {"Europe/Paris", at(2026y / March / 27d)},
      {"Europe/Paris", at(2026y / October / 23d)},
      {"America/New_York", at(2026y / March / 6d)},
      {"America/New_York", at(2026y / October / 30d)},
      {"Australia/Lord_Howe", at(2026y / April / 3d)},
      {"Australia/Lord_Howe", at(2026y / October / 2d)},
  };
  for (const Window& w : windows) {
    const TimeZone zone = TimeZone::named(w.zone);
    const sys_seconds end = w.from + days{4};
    for (const Case& c : cases) {
      const CronExpression cron = CronExpression::parse(c.text);
      const bool followsTheClock = c.text[0] == '*' || c.text.find(" *") == c.text.find(' ');
      const auto matches = [&](sys_seconds local) {
        const hh_mm_ss<seconds> time{local - floor<days>(local)};
        return c.fires(static_cast<int>(time.hours().count()),
                       static_cast<int>(time.minutes().count()));
      };
      std::vector<std::string> want;
      sys_seconds latestLocal = w.from + zone.offsetAt(w.from);
      for (sys_seconds t = w.from + minutes{1}; t < end; t += minutes{1}) {
        const sys_seconds local = t + zone.offsetAt(t);
        bool fire = matches(local);
        if (!followsTheClock) {
          fire = fire && local > latestLocal;  // a repeated local time fires once
          for (sys_seconds skipped = latestLocal + minutes{1}; skipped < local && !fire;
               skipped += minutes{1}) {
            fire = matches(skipped);  // a skipped one fires at the change
          }
        }
        if (fire) want.push_back(utc(t));
        latestLocal = std::max(latestLocal, local);
      }
      std::vector<std::string> got;
      for (sys_seconds t = cron.next(w.from, zone); t < end; t = cron.next(t, zone)) {
        got.push_back(utc(t));
      }
      EXPECT_FALSE(want.empty()) << c.text;
      EXPECT_EQ(got, want) << c.text << " in " << w.zone << " from " << utc(w.from);
    }
  }
}

TEST(CronZone, AnUnknownZoneIsErrUnknownTimeZoneNamingIt) {
  const auto [code, what] = thrownBy([] { static_cast<void>(TimeZone::named("Mars/Olympus")); });
  EXPECT_EQ(code, make_error_code(Error::ErrUnknownTimeZone));
  EXPECT_TRUE(says(what, "Mars/Olympus"));
  EXPECT_EQ(thrownBy([] { static_cast<void>(TimeZone::named("")); }).first,
            make_error_code(Error::ErrUnknownTimeZone));
}

TEST(CronZone, AFixedZoneOutsideMinusTwelveToPlusFourteenHoursIsAnInvalidOption) {
  const auto [code, what] = thrownBy([] { static_cast<void>(TimeZone::fixed(hours{15})); });
  EXPECT_EQ(code, make_error_code(Error::ErrInvalidOption));
  EXPECT_TRUE(says(what, "UTC offset"));
  EXPECT_EQ(thrownBy([] { static_cast<void>(TimeZone::fixed(-hours{12} - minutes{1})); }).first,
            make_error_code(Error::ErrInvalidOption));
}

TEST(CronZone, NamesAndOffsetsReadBack) {
  EXPECT_EQ(TimeZone().name(), "UTC");
  EXPECT_EQ(TimeZone::fixed(minutes{330}).name(), "UTC+05:30");
  EXPECT_EQ(TimeZone::fixed(-hours{8}).name(), "UTC-08:00");
  EXPECT_EQ(TimeZone::named("Europe/Paris").name(), "Europe/Paris");
  EXPECT_TRUE(TimeZone::named("Europe/Paris").isNamed());
  EXPECT_FALSE(TimeZone::fixed(hours{1}).isNamed());
  EXPECT_EQ(TimeZone::named("Europe/Paris").offsetAt(at(2026y / January / 15d)), hours{1});
  EXPECT_EQ(TimeZone::named("Europe/Paris").offsetAt(at(2026y / July / 15d)), hours{2});
  EXPECT_EQ(TimeZone::named("Europe/Paris"), TimeZone::named("Europe/Paris"));
  EXPECT_NE(TimeZone::named("Europe/Paris"), TimeZone::named("Europe/Berlin"));
}

}  // namespace
}  // namespace coreactor
