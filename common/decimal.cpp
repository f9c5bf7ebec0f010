#include "common/decimal.hpp"

#include <algorithm>

namespace clq {

std::int64_t PowerOfTen(int exponent) {
  std::int64_t value = 1;
  for (int i = 0; i < exponent; ++i)
    value *= 10;
  return value;
}

std::optional<std::int64_t> ParseDecimal(std::string_view text, int precision, int scale) {
  std::size_t at = 0;
  bool negative = false;
  if (at < text.size() && (text[at] == '-' || text[at] == '+')) negative = text[at++] == '-';
  auto is_digit = [&](std::size_t i) {
    return i < text.size() && text[i] >= '0' && text[i] <= '9';
  };
  std::int64_t value = 0;  // magnitude at the scale, at most 18 digits
  int integer_digits = 0;
  bool any_digit = false;
  for (; is_digit(at); ++at) {
    any_digit = true;
    if (integer_digits == 0 && text[at] == '0') continue;  // leading zeros
    if (++integer_digits + scale > precision) return std::nullopt;
    value = value * 10 + (text[at] - '0');
  }
  int fraction_digits = 0;
  bool round_up = false;
  if (at < text.size() && text[at] == '.') {
    for (++at; is_digit(at); ++at) {
      any_digit = true;
      if (fraction_digits < scale) {
        value = value * 10 + (text[at] - '0');
      } else if (fraction_digits == scale) {
        round_up = text[at] >= '5';  // the first digit past the scale rounds
      }
      ++fraction_digits;
    }
  }
  if (!any_digit || at != text.size()) return std::nullopt;
  if (fraction_digits < scale) value *= PowerOfTen(scale - fraction_digits);
  if (round_up) ++value;
  if (value >= PowerOfTen(precision)) return std::nullopt;
  return negative ? -value : value;
}

std::string FormatDecimal(std::int64_t scaled, int scale) {
  const bool negative = scaled < 0;
  // The magnitude as unsigned, so that INT64_MIN formats too.
  std::uint64_t magnitude =
      negative ? 0 - static_cast<std::uint64_t>(scaled) : static_cast<std::uint64_t>(scaled);
  std::string digits = std::to_string(magnitude);
  if (scale > 0) {
    if (digits.size() <= static_cast<std::size_t>(scale))
      digits.insert(0, static_cast<std::size_t>(scale) + 1 - digits.size(), '0');
    digits.insert(digits.size() - static_cast<std::size_t>(scale), 1, '.');
  }
  return negative ? "-" + digits : digits;
}

std::optional<std::int64_t> Rescale(std::int64_t scaled, int from, int to) {
  if (to >= from) {
    std::int64_t out = 0;
    if (__builtin_mul_overflow(scaled, PowerOfTen(to - from), &out)) return std::nullopt;
    return out;
  }
  const std::int64_t divisor = PowerOfTen(from - to);
  std::int64_t quotient = scaled / divisor;
  const std::int64_t remainder = scaled % divisor;
  if (2 * (remainder < 0 ? -remainder : remainder) >= divisor) quotient += scaled < 0 ? -1 : 1;
  return quotient;
}

std::optional<DecimalLiteral> ReadDecimalLiteral(std::string_view text) {
  const std::size_t point = text.find('.');
  if (point == std::string_view::npos) return std::nullopt;
  int digits = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    if (i == point) continue;
    if (text[i] < '0' || text[i] > '9') return std::nullopt;
    ++digits;
  }
  if (digits == 0 || digits > 18) return std::nullopt;
  DecimalLiteral literal;
  literal.scale = static_cast<std::uint8_t>(text.size() - point - 1);
  for (char c : text)
    if (c != '.') literal.scaled = literal.scaled * 10 + (c - '0');
  // Leading zeros do not count toward the precision; at least the scale does.
  int significant = 0;
  for (std::int64_t v = literal.scaled; v != 0; v /= 10)
    ++significant;
  literal.precision = static_cast<std::uint8_t>(std::max<int>({significant, literal.scale, 1}));
  return literal;
}

}  // namespace clq
