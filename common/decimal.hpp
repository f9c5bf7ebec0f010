// DECIMAL(p, s) values as integers scaled by 10^s (the storage of DECIMAL):
// parsing and formatting their text, and exact rescaling.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace clq {

// 10^exponent for exponent 0..18.
std::int64_t PowerOfTen(int exponent);

// "-12.5" at scale 2 -> -1250. Digits past the scale are rounded half away
// from zero (as DuckDB casts); none when the text is not a decimal number
// (digits with at most one point, an optional sign, no exponent) or the
// value needs more than `precision` digits.
std::optional<std::int64_t> ParseDecimal(std::string_view text, int precision, int scale);

// -1250 at scale 2 -> "-12.50".
std::string FormatDecimal(std::int64_t scaled, int scale);

// `scaled` from scale `from` to scale `to`: exact when `to` >= `from` (none
// on overflow), else rounded half away from zero.
std::optional<std::int64_t> Rescale(std::int64_t scaled, int from, int to);

// The digits a decimal literal is written with: "0.06" is DECIMAL(3, 2) with
// value 6 (DuckDB's typing). None when `text` is not digits with one point,
// or needs more than 18 digits.
struct DecimalLiteral {
  std::int64_t scaled = 0;
  std::uint8_t precision = 1;
  std::uint8_t scale = 0;
};
std::optional<DecimalLiteral> ReadDecimalLiteral(std::string_view text);

}  // namespace clq
