#include "common/calendar.hpp"

#include <charconv>
#include <cstdio>
#include <limits>

namespace clq {
namespace {

// Floor division for the era arithmetic below, correct for negative days.
std::int64_t FloorDiv(std::int64_t a, std::int64_t b) {
  return a / b - ((a % b != 0) && ((a < 0) != (b < 0)) ? 1 : 0);
}

bool IsLeap(std::int64_t year) {
  return (year % 4 == 0 && year % 100 != 0) || year % 400 == 0;
}

int DaysInMonth(std::int64_t year, int month) {
  static constexpr int kDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  return month == 2 && IsLeap(year) ? 29 : kDays[month - 1];
}

}  // namespace

// The civil-calendar algorithms count in eras of 400 years (146097 days),
// each starting on a March 1st, so that the leap day ends a year.
std::int64_t DaysFromCivil(const CivilDate& date) {
  const std::int64_t y = date.year - (date.month <= 2 ? 1 : 0);
  const std::int64_t era = FloorDiv(y, 400);
  const std::int64_t yoe = y - era * 400;
  const std::int64_t mp = (date.month + 9) % 12;  // March = 0
  const std::int64_t doy = (153 * mp + 2) / 5 + date.day - 1;
  const std::int64_t doe = yoe * 365 + yoe / 4 - yoe / 100 + doy;
  return era * 146097 + doe - 719468;
}

CivilDate CivilFromDays(std::int64_t days) {
  // The days from 0000-03-01 are days + 719468, 4 eras and 135080 days;
  // dividing `days` first and adding those after keeps every int64 day
  // from overflowing (kernels_cl/vm.cl vm_civil_* compute the same).
  const std::int64_t shifted = days % 146097 + 135080;  // in (-11017, 281177)
  const std::int64_t carry = shifted < 0 ? -1 : shifted >= 146097 ? 1 : 0;
  const std::int64_t era = days / 146097 + 4 + carry;
  const std::int64_t doe = shifted - carry * 146097;
  const std::int64_t yoe = (doe - doe / 1460 + doe / 36524 - doe / 146096) / 365;
  const std::int64_t doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
  const std::int64_t mp = (5 * doy + 2) / 153;
  CivilDate date;
  date.day = static_cast<int>(doy - (153 * mp + 2) / 5 + 1);
  date.month = static_cast<int>(mp < 10 ? mp + 3 : mp - 9);
  date.year = yoe + era * 400 + (date.month <= 2 ? 1 : 0);
  return date;
}

bool DateFits(std::int64_t days) {
  return days >= std::numeric_limits<std::int32_t>::min() &&
         days <= std::numeric_limits<std::int32_t>::max();
}

std::optional<std::int32_t> ParseDate(std::string_view text) {
  auto number = [&](std::size_t& at, std::size_t max_digits, std::int64_t& out) {
    const std::size_t begin = at;
    out = 0;
    while (at < text.size() && at - begin < max_digits && text[at] >= '0' && text[at] <= '9')
      out = out * 10 + (text[at++] - '0');
    return at > begin;
  };
  std::size_t at = 0;
  bool negative = false;
  if (at < text.size() && (text[at] == '-' || text[at] == '+')) negative = text[at++] == '-';
  CivilDate date;
  std::int64_t month = 0, day = 0;
  if (!number(at, 9, date.year) || at >= text.size() || text[at++] != '-') return std::nullopt;
  if (!number(at, 2, month) || at >= text.size() || text[at++] != '-') return std::nullopt;
  if (!number(at, 2, day) || at != text.size()) return std::nullopt;
  if (negative) date.year = -date.year;
  if (month < 1 || month > 12) return std::nullopt;
  date.month = static_cast<int>(month);
  if (day < 1 || day > DaysInMonth(date.year, date.month)) return std::nullopt;
  date.day = static_cast<int>(day);
  const std::int64_t days = DaysFromCivil(date);
  if (!DateFits(days)) return std::nullopt;
  return static_cast<std::int32_t>(days);
}

std::string FormatDate(std::int64_t days) {
  const CivilDate date = CivilFromDays(days);
  char text[48];
  const std::int64_t year = date.year < 0 ? -date.year : date.year;
  std::snprintf(text, sizeof text, "%s%04lld-%02d-%02d", date.year < 0 ? "-" : "",
                static_cast<long long>(year), date.month, date.day);
  return text;
}

std::int64_t AddMonths(std::int64_t days, std::int64_t months) {
  CivilDate date = CivilFromDays(days);
  const std::int64_t index = date.year * 12 + (date.month - 1) + months;
  date.year = FloorDiv(index, 12);
  date.month = static_cast<int>(index - date.year * 12) + 1;
  if (date.day > DaysInMonth(date.year, date.month)) date.day = DaysInMonth(date.year, date.month);
  return DaysFromCivil(date);
}

}  // namespace clq
