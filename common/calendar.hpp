// Dates as days since 1970-01-01 in the proleptic Gregorian calendar (the
// storage of DATE), and their text form YYYY-MM-DD.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace clq {

struct CivilDate {
  std::int64_t year = 1970;
  int month = 1;  // 1..12
  int day = 1;    // 1..31
};

// Days from 1970-01-01 to `date` (negative before it). The date need not be
// valid: day 0 is the last day of the previous month, and so on.
std::int64_t DaysFromCivil(const CivilDate& date);
// Any int64 `days` (the year then fits int64 with room to spare).
CivilDate CivilFromDays(std::int64_t days);

// "1998-12-01" (also with a one-digit month or day, and a sign or more than
// four digits of year) to days; none when it is not a valid date or the day
// does not fit 32 bits.
std::optional<std::int32_t> ParseDate(std::string_view text);
std::string FormatDate(std::int64_t days);  // "1998-12-01"

// `days` moved by `months` calendar months, the day clamped to the last of
// the target month (2000-01-31 + 1 month = 2000-02-29), as SQL's INTERVAL.
std::int64_t AddMonths(std::int64_t days, std::int64_t months);

// Whether `days` is a day DATE stores (32 bits).
bool DateFits(std::int64_t days);

}  // namespace clq
