// SUBSTRING(x, start [, length]): the semantics shared by the host
// evaluators (CPU reference, scalar evaluation, the output path) and the
// binder's rewrites of comparisons into LIKE patterns and byte ranges.
//
// As in DuckDB and SQLite (their results agree on every start and length
// within the limits below): positions are 1-based; a start of 0 is the
// position before the first byte, so SUBSTRING('hello', 0, 2) is 'h'; a
// negative start counts from the end (-1 is the last byte); a negative
// length takes the bytes before the start (SUBSTRING('hello', 3, -2) is
// 'he'); what falls outside the string is dropped. Without a length the
// rest of the string is taken (as a length of kSubstringMax, DuckDB's: from
// a start below -kSubstringMax that stops before the end; SQLite's limit is
// another). Positions count bytes (SQLite and DuckDB
// count characters, which is the same for ASCII), as LIKE's '_' matches
// one byte.
#pragma once

#include <cstdint>
#include <optional>
#include <string_view>

#include "sql/bound.hpp"

namespace clq::sql {

// The range of start and length values SUBSTRING accepts (DuckDB's: it
// raises an out of range error beyond them); the binder refuses constants
// outside it, so the arithmetic below never overflows.
inline constexpr std::int64_t kSubstringMin = -4294967296;
inline constexpr std::int64_t kSubstringMax = 4294967295;

// The bytes [begin, begin + length) of a string, clipped to its end; no
// length: up to the end.
struct SubstringWindow {
  std::uint64_t begin = 0;
  std::optional<std::uint64_t> length;
};

// The window of SUBSTRING(x, start, length) where it does not depend on x's
// length: for every start >= 0 (a negative length included); none for a
// negative start, which counts from x's end. REQUIRES: start and length
// within [kSubstringMin, kSubstringMax].
std::optional<SubstringWindow> FixedSubstringWindow(std::int64_t start,
                                                    std::optional<std::int64_t> length);

// SUBSTRING(value, start, length), a view into `value`. REQUIRES: start and
// length within [kSubstringMin, kSubstringMax].
std::string_view Substring(std::string_view value, std::int64_t start,
                           std::optional<std::int64_t> length);

// A comparison (=, <>) of a SUBSTRING with a string constant, or a
// SUBSTRING [NOT] IN a list of them, as LIKE patterns and byte ranges of its
// operand (what devices can run); a comparison of it with NULL as NULL.
// Other expressions, and those a pattern cannot say (a negative start with a
// negative length; '%' or '_' in a constant compared past the first byte or
// from the end, LIKE having no escape; a pattern longer than
// kMaxCharWidth), are returned as they are. The binder applies it to what
// it binds, the executor to what a subquery's values complete.
Expr LowerSubstringComparison(Expr bound);

}  // namespace clq::sql
