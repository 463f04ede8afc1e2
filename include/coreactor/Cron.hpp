/// @file
/// `coreactor/Cron.hpp` — a cron expression: five fields parsed once, asked for its next firing.
//
// scheduleCron takes one: parse the text where the schedule is made, so that a
// bad expression fails at that call and not at its first firing; the
// scheduler then asks next() for the firing after the one it just delivered.
//
//   auto workdays = CronExpression::parse("30 9 * * MON-FRI");
//   auto when = workdays.next(lastFiring, std::chrono::minutes{330});  // 09:30 at UTC+05:30
//   auto paris = workdays.next(lastFiring, TimeZone::named("Europe/Paris"));
//
// The syntax is the standard five fields, minute hour day-of-month month
// day-of-week, as Vixie cron reads them: `*`, numbers, ranges `1-5`, lists
// `1,3,10-12`, steps `*/15`, `10-40/10` and `5/20` (= 5-59/20), the names
// JAN..DEC and SUN..SAT in any case (also in ranges), 0 or 7 for Sunday, and
// the macros @yearly (@annually), @monthly, @weekly, @daily (@midnight) and
// @hourly. When both day fields are restricted (neither starts with `*`), a
// day fires when either matches: `0 0 13 * FRI` fires on every 13th and on
// every Friday. Otherwise both must match, so `0 0 * * MON` fires on Mondays.
//
// Daylight saving, in a named zone (TimeZone::named), as Vixie cron and
// cronie treat it. An expression whose minute or hour field starts with `*`
// runs on the local clock as it goes: a local time the clocks skip does not
// fire, and one they repeat fires at each pass. Any other (a fixed time of
// day) fires once per local day: at the change itself for a time the clocks
// skip (`30 2 * * *` fires at 03:00 on the spring-forward night in Paris),
// and at the first pass only for a time they repeat.
//
// Errors: parse() throws std::system_error with Error::ErrInvalidCron for text
// that does not parse or can never fire (`0 0 30 2 *`); its what() names the
// field, the position in the text (from 1) and the reason. TimeZone::fixed
// and next() with an offset throw ErrInvalidOption for an offset outside
// -12:00..+14:00; TimeZone::named throws ErrUnknownTimeZone for a name the
// tz database does not have.
//
// Thread-safety: a value. Its const calls may be made from any thread at
// once. Cost: parse() allocates the copy of its text; next() allocates
// nothing, takes no lock, reads no clock, and looks at each month and day it
// passes, never at each minute: a few hundred looks at most, for `0 0 29 2 *`
// across 2100 (8 years); in a named zone, that once per daylight-saving
// period it crosses. TimeZone::named reads the system's tz database
// (/usr/share/zoneinfo, Debian's tzdata) at its first call, through the
// date library's tz (libhowardhinnant-date-dev); a zone's rules are read once
// and kept until the program exits.
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace coreactor {

/// Where a cron expression reads its clock: UTC (the default), a fixed
/// offset from it, or a named zone of the tz database with its daylight
/// saving. A small value: copy it freely.
class TimeZone {
 public:
  /// UTC.
  TimeZone() noexcept = default;

  /// UTC + `offset` all year: +05:30 is `minutes{330}`. Throws
  /// std::system_error with Error::ErrInvalidOption outside -12:00..+14:00.
  [[nodiscard]] static TimeZone fixed(std::chrono::minutes offset);

  /// The zone `name` of the tz database ("Europe/Paris", "America/New_York",
  /// "Asia/Kolkata", "UTC"), with its rules past and future. Throws
  /// std::system_error with Error::ErrUnknownTimeZone, naming it, when the
  /// database has no such zone (or the system has no database).
  [[nodiscard]] static TimeZone named(std::string_view name);

  /// "Europe/Paris" for a named zone; "UTC", or "UTC+05:30" for an offset.
  [[nodiscard]] std::string name() const;

  /// The offset from UTC in force at `when`.
  [[nodiscard]] std::chrono::seconds offsetAt(std::chrono::sys_seconds when) const;

  /// True for a zone of the tz database.
  bool isNamed() const noexcept { return zone_ != nullptr; }

  /// The same zone of the database, or the same offset.
  friend bool operator==(const TimeZone&, const TimeZone&) noexcept = default;

 private:
  friend class CronExpression;
  // The database's zone (a date::time_zone, kept until the program exits),
  // or null for a fixed offset.
  const void* zone_ = nullptr;
  std::chrono::minutes offset_{0};
};

/// A parsed five-field cron expression: which minutes, hours, days and months
/// fire. Made by parse(); asked by next().
class CronExpression {
 public:
  /// Parses `text`: five fields separated by spaces or tabs (leading and
  /// trailing ones allowed), or one macro. Throws std::system_error with
  /// Error::ErrInvalidCron whose what() names the field, the position and the
  /// reason, e.g. `cron "*/0 * * * *": minute at position 3: a step of 0`.
  /// An expression that can never fire (a day of the month that none of its
  /// months has) is refused here; February counts 29 days.
  [[nodiscard]] static CronExpression parse(std::string_view text);

  /// The first firing strictly after `after`, as a UTC time with no seconds,
  /// for a schedule read in local time UTC + `utcOffset` (a fixed offset, no
  /// daylight saving: +05:30 is 330 minutes). Throws std::system_error with
  /// Error::ErrInvalidOption for an offset outside -12:00..+14:00.
  [[nodiscard]] std::chrono::sys_seconds next(std::chrono::sys_seconds after,
                                              std::chrono::minutes utcOffset = std::chrono::minutes{
                                                  0}) const;

  /// The first firing strictly after `after`, as a UTC time, for a schedule
  /// read in `zone`; in a named zone, with its daylight saving as said above.
  [[nodiscard]] std::chrono::sys_seconds next(std::chrono::sys_seconds after,
                                              const TimeZone& zone) const;

  /// The text it was parsed from, as given (whitespace and macro included).
  const std::string& text() const noexcept { return text_; }

 private:
  CronExpression() = default;

  // Reads the five fields of `fields` (the text itself, or a macro's
  // expansion); positions in errors count in `text`.
  static CronExpression parseFields(std::string_view text, std::string_view fields);
  // Whether the day fields let `day` fire (the either-or rule above).
  bool firesOn(std::chrono::year_month_day day) const noexcept;
  // next() at an offset held all the time, checked by the callers.
  std::chrono::sys_seconds nextAtOffset(std::chrono::sys_seconds after,
                                        std::chrono::seconds offset) const;

  std::string text_;
  // One bit per allowed value: bit 7 of minutes_ is minute 7. Days of the
  // week count from Sunday = 0 (a 7 in the text sets bit 0).
  std::uint64_t minutes_ = 0;
  std::uint64_t hours_ = 0;
  std::uint64_t daysOfMonth_ = 0;
  std::uint64_t months_ = 0;
  std::uint64_t daysOfWeek_ = 0;
  // Whether the day-of-month / day-of-week field starts with `*`: then the
  // two day fields must both match instead of either.
  bool daysOfMonthStarred_ = false;
  bool daysOfWeekStarred_ = false;
  // Whether the minute or the hour field starts with `*`: then the
  // expression follows the local clock through daylight-saving changes.
  bool followsTheClock_ = false;
};

}  // namespace coreactor
