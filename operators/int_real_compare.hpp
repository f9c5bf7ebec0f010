// INTEGER against REAL, compared exactly as SQLite compares them
// (sqlite3IntFloatCompare): not by rounding the integer to double, which
// changes answers once integers pass 2^53 (9007199254740993 > 9007199254740992.0
// is true). Doubles hold every integer of magnitude up to 2^53 exactly, so
// only wider integers need more than a double comparison.
#pragma once

#include <cstdint>
#include <optional>

#include "operators/value_range.hpp"
#include "sql/bound.hpp"

namespace clq {

// -1, 0 or 1 as i is below, equal to or above r. REQUIRES: r is not NaN.
int CompareIntegerWithReal(std::int64_t i, double r);

// Whether every integer in `range` converts to double exactly (|v| <= 2^53);
// false when the range is unknown.
bool ConvertsToRealExactly(const std::optional<IntRange>& range);

// `integer <op> constant` with a REAL constant (op a comparison, the
// integer on the left) as an INTEGER comparison with the constant's floor or
// ceiling, NULL where `integer` is NULL; where the constant is past int64 or
// `=`/`<>` a fraction, one that holds for every value or for none
// (`integer >= INT64_MIN`, `integer < INT64_MIN`). std::nullopt for NaN.
std::optional<sql::Expr> IntegerComparisonWithRealConstant(sql::BinaryOp op,
                                                           const sql::Expr& integer,
                                                           double constant, std::size_t position);

// `real <op> constant` with an INTEGER constant that no double holds: a REAL
// comparison with the double just below or above it (for = and <>, one that
// holds for no value or every non-NULL, non-NaN one).
sql::Expr RealComparisonWithIntegerConstant(sql::BinaryOp op, const sql::Expr& real,
                                            std::int64_t constant, std::size_t position);

// `integer <op> real` for any two expressions, exactly, from operations the
// expression machine has: the double comparison decides unless the integer
// rounds to the real (d = CAST(integer AS REAL) = real), and then the real
// is whole, so the integers compare (2^63 and past it above every int64):
//   i < r  is  d < r OR (d = r AND (r >= 2^63 OR i < CAST(r AS INTEGER)))
//   i > r  is  d > r OR (d = r AND r < 2^63 AND i > CAST(r AS INTEGER))
//   i = r  is  d = r AND r < 2^63 AND i = CAST(r AS INTEGER)
// and <=, >=, <> their negations. A NULL operand leaves a part that reads
// only the other one decided (r >= 2^63 with i NULL), so where an operand
// may be NULL (`nullable`) the result is multiplied by
// ((i = i) AND (r = r)): 1 where both are values, NULL where either is NULL.
sql::Expr ExactIntegerRealComparison(sql::BinaryOp op, const sql::Expr& integer,
                                     const sql::Expr& real, std::size_t position, bool nullable);

}  // namespace clq
