/// @file
/// `coreactor/Cron.hpp` — a cron expression: five fields parsed once, asked for its next firing.
//
// scheduleCron takes one: parse the text where the schedule is made, so that a
// bad expression fails at that call and not at its first firing; the
// scheduler then asks next() for the firing after the one it just delivered.
//
//   auto workdays = CronExpression::parse("30 9 * * MON-FRI");
//   auto when = workdays.next(lastFiring, std::chrono::minutes{330});  // 09:30 at UTC+05:30
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
// Errors: parse() throws std::system_error with Error::ErrInvalidCron for text
// that does not parse or can never fire (`0 0 30 2 *`); its what() names the
// field, the position in the text (from 1) and the reason. next() throws
// ErrInvalidOption for a UTC offset outside -12:00..+14:00.
//
// Thread-safety: a value. Its const calls may be made from any thread at
// once. Cost: parse() allocates the copy of its text; next() allocates
// nothing, takes no lock, reads no clock, and looks at each month and day it
// passes, never at each minute: a few hundred looks at most, for `0 0 29 2 *`
// across 2100 (8 years).
#pragma once

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace coreactor {

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

  /// The text it was parsed from, as given (whitespace and macro included).
  const std::string& text() const noexcept { return text_; }

 private:
  CronExpression() = default;

  // Reads the five fields of `fields` (the text itself, or a macro's
  // expansion); positions in errors count in `text`.
  static CronExpression parseFields(std::string_view text, std::string_view fields);
  // Whether the day fields let `day` fire (the either-or rule above).
  bool firesOn(std::chrono::year_month_day day) const noexcept;

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
};

}  // namespace coreactor
