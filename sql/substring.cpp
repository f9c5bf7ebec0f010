#include "sql/substring.hpp"

#include <algorithm>

namespace clq::sql {

std::optional<SubstringWindow> FixedSubstringWindow(std::int64_t start,
                                                    std::optional<std::int64_t> length) {
  if (start < 0) return std::nullopt;
  // 1-based; start 0 stands before the first byte, so a length counted from
  // it reaches one byte less far.
  std::int64_t begin = start > 0 ? start - 1 : 0;
  if (!length) return SubstringWindow{static_cast<std::uint64_t>(begin), std::nullopt};
  std::int64_t count = *length;
  if (count < 0) {
    // The -count positions before the start (start 0 included in them).
    const std::int64_t end = start > 0 ? begin : 0;
    begin = std::max<std::int64_t>(0, start - 1 + count);
    if (start == 0) begin = 0;
    count = std::max<std::int64_t>(0, end - begin);
  } else if (start == 0) {
    count = std::max<std::int64_t>(0, count - 1);
  }
  return SubstringWindow{static_cast<std::uint64_t>(begin), static_cast<std::uint64_t>(count)};
}

std::string_view Substring(std::string_view value, std::int64_t start,
                           std::optional<std::int64_t> length) {
  const auto size = static_cast<std::int64_t>(value.size());
  // SQLite's substr(), step by step: p1 the 0-based first byte, p2 the count.
  std::int64_t p1 = start;
  std::int64_t p2 = length ? *length : kSubstringMax;
  const bool backwards = p2 < 0;
  if (backwards) p2 = -p2;
  if (p1 < 0) {
    p1 += size;
    if (p1 < 0) {
      p2 = std::max<std::int64_t>(0, p2 + p1);
      p1 = 0;
    }
  } else if (p1 > 0) {
    --p1;
  } else if (p2 > 0) {
    --p2;
  }
  if (backwards) {
    p1 -= p2;
    if (p1 < 0) {
      p2 += p1;
      p1 = 0;
    }
  }
  if (p1 >= size || p2 <= 0) return value.substr(0, 0);
  return value.substr(static_cast<std::size_t>(p1),
                      static_cast<std::size_t>(std::min(p2, size - p1)));
}

}  // namespace clq::sql
