// Interval analysis of INTEGER expressions: bounds on every non-NULL value an
// expression can take, from the bounds of the columns it reads (column
// statistics, or the range of INT32) and its constants. The expression
// compiler uses them to skip overflow tests that cannot fire and to run
// arithmetic in 32 bits where operands and result provably fit
// (VM_OPND_NOCHECK, VM_OPND_NARROW in kernels_cl/vm_shared.h).
//
// Sound, not tight: nullopt means "unknown", and a result that could leave
// int64 is unknown (the machine then checks for overflow at run time).
#pragma once

#include <functional>
#include <optional>

#include "common/types.hpp"
#include "sql/bound.hpp"

namespace clq {

// Bounds of a column reference; nullopt when unknown.
using ColumnRangeFn = std::function<std::optional<IntRange>(const sql::Expr& column_ref)>;

// Bounds of an INTEGER-typed expression; nullopt for other types or unknown.
std::optional<IntRange> IntegerRangeOf(const sql::Expr& expr, const ColumnRangeFn& column_range);

// Bounds [lo, hi] of a numeric (INTEGER or REAL) expression built from
// constants, INTEGER sub-expressions with known ranges, + and -, negation and
// casts to REAL; nullopt otherwise. Rounding of REAL sums is monotone, so a
// bound of the exact values bounds the computed ones too.
struct RealBounds {
  double lo = 0;
  double hi = 0;
};
std::optional<RealBounds> RealBoundsOf(const sql::Expr& expr, const ColumnRangeFn& column_range);

// A bound on the magnitude of a numeric expression's non-NULL values, +inf
// when they may be infinite: DOUBLE columns (not analysed),
// infinite constants, REAL arithmetic that may pass DBL_MAX, a division by a
// REAL divisor that may come near zero. An INTEGER is within 2^63 whatever
// its bounds. Rounding is monotone, so bounds of the exact values bound the
// computed ones.
double RealMagnitudeOf(const sql::Expr& expr, const ColumnRangeFn& column_range);

// Whether the REAL +, -, * or / `expr` can produce NaN from operands that
// are not NaN (Inf - Inf, 0 * Inf, Inf / Inf; tables hold no NaN, and NaN
// results are NULL). SQLite makes such a result NULL; so do clq's CPU
// reference and, where this holds, the expression machine (VM_NAN_NULL).
// False for other expressions.
bool MayBeNaN(const sql::Expr& expr, const ColumnRangeFn& column_range);

// Whether evaluating `expr` can raise an integer overflow: it holds an
// INTEGER +, -, * or / or a negation whose result the bounds do not keep
// within int64, the same test by which the expression machine keeps a
// run-time check (VM_OPND_NOCHECK is set exactly where the range is known).
bool MayOverflow(const sql::Expr& expr, const ColumnRangeFn& column_range);

// Bounds of the columns of `select`'s tables as the expression machine sees
// them (ExpressionProgram::ColumnRanges): each column's statistics, an INT32
// column's clamped to (or, unknown, taken as) the range of INT32.
ColumnRangeFn TableColumnRanges(const sql::BoundSelect& select);

// Whether `divisor` provably never evaluates to zero for `op` (kDivide or
// kModulo; a REAL remainder truncates its divisor to an integer first, as
// SQLite does), so that the division cannot yield NULL: a non-zero literal,
// or bounds that exclude zero.
bool DivisorExcludesZero(const sql::Expr& divisor, sql::BinaryOp op,
                         const ColumnRangeFn& column_range);

}  // namespace clq
