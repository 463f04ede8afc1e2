// Reading cron expressions and finding their next firing. See
// include/coreactor/Cron.hpp.
#include "coreactor/Cron.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>
#include <cstdio>
#include <span>

#include <date/tz.h>

#include "coreactor/Error.hpp"

namespace coreactor {
namespace {

using std::chrono::days;
using std::chrono::hours;
using std::chrono::minutes;
using std::chrono::seconds;
using std::chrono::sys_days;
using std::chrono::sys_seconds;
using std::chrono::year_month_day;

/// What one of the five fields accepts.
struct FieldSpec {
  const char* name;
  int min;
  int max;      ///< The highest value written (7 for day-of-week: Sunday again).
  int starMax;  ///< Where `*` ends (6 for day-of-week).
  std::span<const std::string_view> names;  ///< names[i] is value min + i; empty: numbers only.
};

constexpr std::array<std::string_view, 12> kMonthNames = {"JAN", "FEB", "MAR", "APR", "MAY", "JUN",
                                                          "JUL", "AUG", "SEP", "OCT", "NOV", "DEC"};
constexpr std::array<std::string_view, 7> kDayNames = {"SUN", "MON", "TUE", "WED",
                                                       "THU", "FRI", "SAT"};

const std::array<FieldSpec, 5> kFields = {{
    {"minute", 0, 59, 59, {}},
    {"hour", 0, 23, 23, {}},
    {"day-of-month", 1, 31, 31, {}},
    {"month", 1, 12, 12, kMonthNames},
    {"day-of-week", 0, 7, 6, kDayNames},
}};

/// The most days each month can have; February has 29 in leap years, and a
/// schedule that fires only then is still a schedule.
constexpr std::array<int, 13> kLongestMonth = {0, 31, 29, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};

/// Past this, next() gives up. The longest real wait is 8 years (Feb 29 across
/// a century that is not leap); every firing a parsed expression has recurs
/// within 28 years, the cycle of weekdays over leap years.
constexpr int kSearchYears = 28;

struct Macro {
  std::string_view name;
  std::string_view fields;
};
constexpr std::array<Macro, 7> kMacros = {{{"@yearly", "0 0 1 1 *"},
                                           {"@annually", "0 0 1 1 *"},
                                           {"@monthly", "0 0 1 * *"},
                                           {"@weekly", "0 0 * * 0"},
                                           {"@daily", "0 0 * * *"},
                                           {"@midnight", "0 0 * * *"},
                                           {"@hourly", "0 * * * *"}}};

constexpr auto isBlank = [](char c) { return c == ' ' || c == '\t'; };
constexpr auto isDigit = [](char c) { return c >= '0' && c <= '9'; };
constexpr auto isLetter = [](char c) { return (c >= 'A' && c <= 'Z') || (c >= 'a' && c <= 'z'); };
constexpr auto upper = [](char c) {
  return c >= 'a' && c <= 'z' ? static_cast<char>(c - 'a' + 'A') : c;
};

bool sameName(std::string_view a, std::string_view b) {
  const auto same = [](char x, char y) { return upper(x) == upper(y); };
  return a.size() == b.size() && std::equal(a.begin(), a.end(), b.begin(), same);
}

/// `c` quoted for a message; a byte that does not print as \xNN.
std::string quoted(char c) {
  if (c > ' ' && c < 127) return std::string{'\'', c, '\''};
  char hex[8];
  std::snprintf(hex, sizeof hex, "'\\x%02X'", static_cast<unsigned char>(c));
  return hex;
}

/// The offsets a fixed zone may have: those of the world's zones.
constexpr minutes kLowestOffset = -hours{12};
constexpr minutes kHighestOffset = hours{14};

/// Throws ErrInvalidOption for an offset out of -12:00..+14:00; `cronText`:
/// the expression's, named in the message (none: a time zone's offset).
void checkOffset(minutes offset, const std::string* cronText = nullptr) {
  if (offset >= kLowestOffset && offset <= kHighestOffset) return;
  const std::string owner = cronText != nullptr ? "cron \"" + *cronText + "\": " : "time zone: ";
  throwError(Error::ErrInvalidOption, owner + "a UTC offset of " + std::to_string(offset.count()) +
                                          " minutes is out of -12:00..+14:00");
}

const date::time_zone& databaseZone(const void* zone) {
  return *static_cast<const date::time_zone*>(zone);
}

constexpr auto has = [](std::uint64_t set, int value) { return ((set >> value) & 1u) != 0; };

/// The lowest value in `set` at or above `from`, or -1 for none.
int nextIn(std::uint64_t set, int from) {
  const std::uint64_t rest = from >= 64 ? 0 : set & (~std::uint64_t{0} << from);
  return rest == 0 ? -1 : std::countr_zero(rest);
}

/// Throws ErrInvalidCron: `cron "<text>": <field> at position <at + 1>: <reason>`.
[[noreturn]] void fail(std::string_view text, const char* field, std::size_t at,
                       const std::string& reason) {
  std::string what = "cron \"" + std::string(text) + "\": ";
  if (field != nullptr) what += std::string(field) + " ";
  what += "at position " + std::to_string(at + 1) + ": " + reason;
  throwError(Error::ErrInvalidCron, what);
}

/// Reads one field, text_[pos_, end_), into a set of bits.
class FieldReader {
 public:
  FieldReader(std::string_view text, const FieldSpec& spec, std::size_t begin, std::size_t end)
      : text_(text), spec_(spec), pos_(begin), end_(end) {}

  std::uint64_t read() {
    std::uint64_t set = element();
    while (pos_ < end_) {  // element() stops only at the end or at a ','
      ++pos_;
      set |= element();
    }
    return set;
  }

 private:
  [[noreturn]] void fail(std::size_t at, const std::string& reason) const {
    coreactor::fail(text_, spec_.name, at, reason);
  }
  bool at(char c) const { return pos_ < end_ && text_[pos_] == c; }

  // `*`, `a` or `a-b`, then maybe `/n`.
  std::uint64_t element() {
    const std::size_t start = pos_;
    if (pos_ == end_ || at(',')) fail(start, "an empty list element");
    int low = spec_.min;
    int high = spec_.starMax;
    bool single = false;
    if (at('*')) {
      ++pos_;
    } else {
      low = high = value();
      if (at('-')) {
        ++pos_;
        high = value();
        if (low > high) {
          fail(start,
               "range " + std::string(text_.substr(start, pos_ - start)) + " runs backwards");
        }
      } else {
        single = true;
      }
    }
    int step = 1;
    if (at('/')) {
      ++pos_;
      const std::size_t stepAt = pos_;
      if (pos_ == end_ || at(',')) fail(stepAt, "an empty step");
      if (!isDigit(text_[pos_])) fail(stepAt, "unexpected " + quoted(text_[pos_]) + " for a step");
      step = number();
      const int span = spec_.starMax - spec_.min + 1;
      if (step == 0) fail(stepAt, "a step of 0");
      if (step > span) {
        fail(stepAt, "a step of " + std::to_string(step) + " is above the " + std::to_string(span) +
                         " values of a " + spec_.name);
      }
      if (single) high = std::max(low, spec_.starMax);  // `a/n` is `a-max/n`
    }
    if (pos_ < end_ && !at(',')) {
      fail(pos_, "unexpected " + quoted(text_[pos_]) + " after \"" +
                     std::string(text_.substr(start, pos_ - start)) + "\"");
    }
    std::uint64_t set = 0;
    for (int v = low; v <= high; v += step) set |= std::uint64_t{1} << v;
    return set;
  }

  // A number or a name, within the field's range.
  int value() {
    const std::size_t start = pos_;
    if (pos_ == end_ || at(',') || at('-') || at('/')) fail(start, "an empty value");
    if (isDigit(text_[pos_])) {
      const int v = number();
      if (v < spec_.min || v > spec_.max) {
        fail(start, std::string(spec_.name) + " " + std::to_string(v) + " is out of " +
                        std::to_string(spec_.min) + "-" + std::to_string(spec_.max));
      }
      return v;
    }
    if (!isLetter(text_[pos_])) fail(start, "unexpected " + quoted(text_[pos_]));
    while (pos_ < end_ && isLetter(text_[pos_])) ++pos_;
    const std::string_view name = text_.substr(start, pos_ - start);
    for (std::size_t i = 0; i < spec_.names.size(); ++i) {
      if (sameName(name, spec_.names[i])) return spec_.min + static_cast<int>(i);
    }
    fail(start, "unknown name \"" + std::string(name) + "\"");
  }

  // Digits, as an int.
  int number() {
    const std::size_t start = pos_;
    long long v = 0;
    while (pos_ < end_ && isDigit(text_[pos_])) {
      if (v <= INT_MAX) v = v * 10 + (text_[pos_] - '0');  // past INT_MAX, only count on
      ++pos_;
    }
    if (v > INT_MAX) {
      fail(start, "the number " + std::string(text_.substr(start, pos_ - start)) +
                      " is too large to read");
    }
    return static_cast<int>(v);
  }

  std::string_view text_;
  const FieldSpec& spec_;
  std::size_t pos_;
  std::size_t end_;
};

}  // namespace

TimeZone TimeZone::fixed(minutes offset) {
  checkOffset(offset);
  TimeZone zone;
  zone.offset_ = offset;
  return zone;
}

TimeZone TimeZone::named(std::string_view name) {
  TimeZone zone;
  try {
    zone.zone_ = date::locate_zone(std::string(name));
  } catch (const std::exception& e) {  // the date library's runtime_error: not found, no database
    throwError(Error::ErrUnknownTimeZone, "time zone \"" + std::string(name) +
                                              "\" is not in the tz database (" + e.what() + ")");
  }
  return zone;
}

std::string TimeZone::name() const {
  if (zone_ != nullptr) return databaseZone(zone_).name();
  if (offset_ == minutes{0}) return "UTC";
  const int total = static_cast<int>(offset_.count() < 0 ? -offset_.count() : offset_.count());
  char text[32];  // within -12:00..+14:00: "UTC+14:00"
  std::snprintf(text, sizeof text, "UTC%c%02d:%02d", offset_.count() < 0 ? '-' : '+', total / 60,
                total % 60);
  return text;
}

seconds TimeZone::offsetAt(sys_seconds when) const {
  if (zone_ == nullptr) return offset_;
  return databaseZone(zone_).get_info(when).offset;
}

CronExpression CronExpression::parse(std::string_view text) {
  std::size_t begin = 0;
  while (begin < text.size() && isBlank(text[begin])) ++begin;
  if (begin == text.size() || text[begin] != '@') return parseFields(text, text);

  std::size_t end = begin;
  while (end < text.size() && !isBlank(text[end])) ++end;
  const std::string_view name = text.substr(begin, end - begin);
  std::size_t rest = end;
  while (rest < text.size() && isBlank(text[rest])) ++rest;
  for (const Macro& macro : kMacros) {
    if (!sameName(name, macro.name)) continue;
    if (rest < text.size()) fail(text, nullptr, rest, "unexpected text after " + std::string(name));
    CronExpression expression = parseFields(macro.fields, macro.fields);
    expression.text_ = std::string(text);
    return expression;
  }
  fail(text, nullptr, begin, "unknown macro " + std::string(name));
}

CronExpression CronExpression::parseFields(std::string_view text, std::string_view fields) {
  // Where each field starts; a sixth is where the first field too many starts.
  std::array<std::size_t, 6> begins{};
  std::size_t count = 0;
  for (std::size_t i = 0; i < fields.size(); ++i) {
    if (isBlank(fields[i]) || (i > 0 && !isBlank(fields[i - 1]))) continue;
    if (count < begins.size()) begins[count] = i;
    ++count;
  }
  if (count != 5) {
    fail(text, nullptr, count < 5 ? fields.size() : begins[5],
         "expected 5 fields, found " + std::to_string(count));
  }

  CronExpression e;
  e.text_ = std::string(text);
  std::array<std::uint64_t, 5> sets{};
  for (std::size_t f = 0; f < 5; ++f) {
    const std::size_t end = std::min(fields.find_first_of(" \t", begins[f]), fields.size());
    sets[f] = FieldReader(fields, kFields[f], begins[f], end).read();
  }
  e.minutes_ = sets[0];
  e.hours_ = sets[1];
  e.daysOfMonth_ = sets[2];
  e.months_ = sets[3];
  e.daysOfWeek_ = (sets[4] | (sets[4] >> 7)) & 0x7F;  // 7 is Sunday, as 0 is
  e.daysOfMonthStarred_ = fields[begins[2]] == '*';
  e.daysOfWeekStarred_ = fields[begins[4]] == '*';
  e.followsTheClock_ = fields[begins[0]] == '*' || fields[begins[1]] == '*';

  // When the day of the month must match (no either-or), one of the months
  // must have one of its days, or the expression never fires. When it is
  // starred it holds the 1st, which every month has.
  if (e.daysOfMonthStarred_ || e.daysOfWeekStarred_) {
    bool possible = false;
    for (int month = 1; month <= 12 && !possible; ++month) {
      const std::uint64_t daysInMonth = (std::uint64_t{2} << kLongestMonth[month]) - 2;
      possible = has(e.months_, month) && (e.daysOfMonth_ & daysInMonth) != 0;
    }
    if (!possible) {
      fail(text, kFields[2].name, begins[2],
           "never fires: none of the months allowed has any of these days");
    }
  }
  return e;
}

bool CronExpression::firesOn(year_month_day day) const noexcept {
  const bool dayOfMonth = has(daysOfMonth_, static_cast<int>(static_cast<unsigned>(day.day())));
  const bool dayOfWeek =
      has(daysOfWeek_, static_cast<int>(std::chrono::weekday(sys_days{day}).c_encoding()));
  if (daysOfMonthStarred_ || daysOfWeekStarred_) return dayOfMonth && dayOfWeek;
  return dayOfMonth || dayOfWeek;
}

sys_seconds CronExpression::next(sys_seconds after, minutes utcOffset) const {
  checkOffset(utcOffset, &text_);
  return nextAtOffset(after, utcOffset);
}

sys_seconds CronExpression::next(sys_seconds after, const TimeZone& zone) const {
  if (zone.zone_ == nullptr) return nextAtOffset(after, zone.offset_);  // checked by fixed()
  const date::time_zone& tz = databaseZone(zone.zone_);
  // Walk the zone's periods of one offset each, from the one holding
  // `after`: in each, the search at its offset gives the candidate.
  sys_seconds from = after;
  while (true) {
    const date::sys_info period = tz.get_info(from);
    const sys_seconds candidate = nextAtOffset(after, period.offset);
    if (candidate < period.end) {
      // A fixed time of day repeated after the clocks went back fired at
      // its first pass, in the period before.
      if (!followsTheClock_ && period.begin > sys_seconds::min()) {
        const date::sys_info before = tz.get_info(period.begin - seconds{1});
        if (before.offset > period.offset &&
            candidate + period.offset < period.begin + before.offset) {
          after = from = candidate;
          continue;
        }
      }
      return candidate;
    }
    // A fixed time of day the clocks skip going forward fires at the change.
    const date::sys_info following = tz.get_info(period.end);
    if (!followsTheClock_ && following.offset > period.offset &&
        candidate < period.end + (following.offset - period.offset)) {
      return period.end;
    }
    after = period.end - seconds{1};  // the next candidate may be the change itself
    from = period.end;
  }
}

sys_seconds CronExpression::nextAtOffset(sys_seconds after, seconds offset) const {
  // Search in local time, as if it were UTC; the whole minute after `after`
  // is the first candidate. Each step below moves to the next month, day or
  // hour that is allowed, never to the next minute only.
  std::chrono::sys_time<minutes> t = std::chrono::floor<minutes>(after + offset) + minutes{1};
  const std::chrono::year lastYear =
      year_month_day{std::chrono::floor<days>(t)}.year() + std::chrono::years{kSearchYears};
  while (true) {
    const sys_days date = std::chrono::floor<days>(t);
    const year_month_day ymd{date};
    if (ymd.year() > lastYear) {
      throwError(Error::ErrInvalidCron, "cron \"" + text_ + "\": no firing within " +
                                            std::to_string(kSearchYears) + " years");
    }
    const int month = static_cast<int>(static_cast<unsigned>(ymd.month()));
    const int nextMonth = nextIn(months_, month);
    if (nextMonth != month) {
      t = nextMonth < 0 ? sys_days{(ymd.year() + std::chrono::years{1}) / std::chrono::January / 1}
                        : sys_days{ymd.year() / std::chrono::month(nextMonth) / 1};
      continue;
    }
    const std::chrono::year_month_day_last monthEnd = ymd.year() / ymd.month() / std::chrono::last;
    unsigned day = static_cast<unsigned>(ymd.day());
    const unsigned lastDay = static_cast<unsigned>(monthEnd.day());
    while (day <= lastDay && !firesOn(ymd.year() / ymd.month() / std::chrono::day{day})) ++day;
    if (day > lastDay) {
      t = sys_days{monthEnd} + days{1};
      continue;
    }
    if (day != static_cast<unsigned>(ymd.day())) {
      t = sys_days{ymd.year() / ymd.month() / std::chrono::day{day}};
      continue;
    }
    const auto sinceMidnight = t - date;
    const int hour = static_cast<int>(std::chrono::floor<hours>(sinceMidnight).count());
    const int nextHour = nextIn(hours_, hour);
    if (nextHour < 0) {
      t = date + days{1};
      continue;
    }
    const int minute =
        nextHour == hour ? static_cast<int>((sinceMidnight - hours{hour}).count()) : 0;
    const int nextMinute = nextIn(minutes_, minute);
    if (nextMinute < 0) {
      t = date + hours{nextHour + 1};
      continue;
    }
    return date + hours{nextHour} + minutes{nextMinute} - offset;
  }
}

}  // namespace coreactor
