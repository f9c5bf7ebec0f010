#include "operators/value_range.hpp"

#include <cmath>
#include <cstdint>

#include <algorithm>
#include <array>
#include <limits>

#include "storage/table.hpp"

namespace clq {
namespace {

using sql::BinaryOp;
using sql::Expr;
using sql::ValueType;

__extension__ typedef __int128 Wide;

constexpr IntRange kBoolean{0, 1};

std::optional<IntRange> FromWide(Wide lo, Wide hi) {
  if (lo < std::numeric_limits<std::int64_t>::min() ||
      hi > std::numeric_limits<std::int64_t>::max())
    return std::nullopt;
  return IntRange{static_cast<std::int64_t>(lo), static_cast<std::int64_t>(hi)};
}

// Bounds of a OP b over the corners of both intervals (exact for + - *,
// which are monotone in each argument on an interval).
template <typename Op>
std::optional<IntRange> Corners(const IntRange& a, const IntRange& b, Op op) {
  const std::array<Wide, 4> v = {op(Wide{a.min}, Wide{b.min}), op(Wide{a.min}, Wide{b.max}),
                                 op(Wide{a.max}, Wide{b.min}), op(Wide{a.max}, Wide{b.max})};
  return FromWide(*std::min_element(v.begin(), v.end()), *std::max_element(v.begin(), v.end()));
}

Wide Magnitude(const IntRange& r) {
  return std::max(-Wide{r.min}, Wide{r.max});
}

std::optional<IntRange> Divide(const IntRange& a, const IntRange& b) {
  if (b.min == b.max && b.min != 0) {
    // Truncating division by a constant is monotone in the dividend.
    if (b.min == -1 && a.min == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
    const Wide x = Wide{a.min} / b.min, y = Wide{a.max} / b.min;
    return FromWide(std::min(x, y), std::max(x, y));
  }
  // |a / b| <= |a| for b != 0 (b == 0 gives NULL); only MIN / -1 overflows.
  if (a.min == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
  const Wide m = Magnitude(a);
  return FromWide(-m, m);
}

std::optional<IntRange> Remainder(const IntRange& a, const IntRange& b) {
  // The remainder takes the dividend's sign and |r| < |b|, |r| <= |a|.
  const Wide limit = std::max<Wide>(0, std::min(Magnitude(b) - 1, Magnitude(a)));
  const Wide lo = a.min < 0 ? -limit : 0;
  const Wide hi = a.max > 0 ? limit : 0;
  return FromWide(lo, hi);
}

// EXTRACT of days within `days` (any int64 day when unknown): months and
// days of months always fit small bounds; the year grows with the day, so
// it lies between the years of the ends.
IntRange ExtractRange(sql::UnaryOp op, std::optional<IntRange> days) {
  if (op == sql::UnaryOp::kExtractMonth) return {1, 12};
  if (op == sql::UnaryOp::kExtractDay) return {1, 31};
  const IntRange d = days ? *days
                          : IntRange{std::numeric_limits<std::int64_t>::min(),
                                     std::numeric_limits<std::int64_t>::max()};
  return {sql::ExtractFromDays(op, d.min), sql::ExtractFromDays(op, d.max)};
}

}  // namespace

std::optional<IntRange> IntegerRangeOf(const Expr& e, const ColumnRangeFn& column_range) {
  if (e.type != ValueType::kInteger) return std::nullopt;
  const auto child = [&](std::size_t i) { return IntegerRangeOf(e.children[i], column_range); };
  switch (e.kind) {
    case Expr::Kind::kConstant:
      if (e.constant.type != ValueType::kInteger) return std::nullopt;
      return IntRange{e.constant.integer, e.constant.integer};
    case Expr::Kind::kColumnRef:
      return column_range(e);
    case Expr::Kind::kUnary:
      if (e.unary_op == sql::UnaryOp::kNegate) {
        const auto a = child(0);
        if (!a) return std::nullopt;
        return FromWide(-Wide{a->max}, -Wide{a->min});
      }
      if (sql::IsExtract(e.unary_op)) return ExtractRange(e.unary_op, child(0));
      return kBoolean;  // NOT, IS NULL, IS NOT NULL
    case Expr::Kind::kBinary: {
      switch (e.binary_op) {
        case BinaryOp::kAdd:
        case BinaryOp::kSubtract:
        case BinaryOp::kMultiply:
        case BinaryOp::kDivide:
        case BinaryOp::kModulo:
          break;
        default:
          return kBoolean;  // comparisons and logic
      }
      const auto a = child(0), b = child(1);
      if (!a || !b) return std::nullopt;
      switch (e.binary_op) {
        case BinaryOp::kAdd:
          return Corners(*a, *b, [](Wide x, Wide y) { return x + y; });
        case BinaryOp::kSubtract:
          return Corners(*a, *b, [](Wide x, Wide y) { return x - y; });
        case BinaryOp::kMultiply:
          return Corners(*a, *b, [](Wide x, Wide y) { return x * y; });
        case BinaryOp::kDivide:
          return Divide(*a, *b);
        default:
          return Remainder(*a, *b);
      }
    }
    case Expr::Kind::kBetween:
    case Expr::Kind::kInList:
      return kBoolean;
    case Expr::Kind::kCast:
      return child(0);  // INTEGER of INTEGER keeps its bounds; REAL children give nullopt
    case Expr::Kind::kLike:
      return kBoolean;
    case Expr::Kind::kCase: {
      // The union of the branches' bounds (THEN values and the ELSE; NULL
      // branches add no value).
      std::optional<IntRange> all;
      const std::size_t n = e.children.size();
      for (std::size_t i = 1; i <= n; i += 2) {
        const std::size_t branch = i < n ? i : n - 1;
        if (e.children[branch].type == ValueType::kNull) continue;
        const auto r = child(branch);
        if (!r) return std::nullopt;
        all = all ? IntRange{std::min(all->min, r->min), std::max(all->max, r->max)} : *r;
      }
      return all ? all : kBoolean;
    }
    default:
      return std::nullopt;
  }
}

std::optional<RealBounds> RealBoundsOf(const Expr& e, const ColumnRangeFn& column_range) {
  if (e.type == ValueType::kInteger) {
    const auto range = IntegerRangeOf(e, column_range);
    if (!range) return std::nullopt;
    return RealBounds{static_cast<double>(range->min), static_cast<double>(range->max)};
  }
  if (e.type != ValueType::kReal) return std::nullopt;
  const auto child = [&](std::size_t i) { return RealBoundsOf(e.children[i], column_range); };
  switch (e.kind) {
    case Expr::Kind::kConstant:
      if (e.constant.type != ValueType::kReal || !std::isfinite(e.constant.real))
        return std::nullopt;
      return RealBounds{e.constant.real, e.constant.real};
    case Expr::Kind::kCast:
      return child(0);
    case Expr::Kind::kUnary: {
      if (e.unary_op != sql::UnaryOp::kNegate) return std::nullopt;
      const auto a = child(0);
      if (!a) return std::nullopt;
      return RealBounds{-a->hi, -a->lo};
    }
    case Expr::Kind::kBinary: {
      if (e.binary_op != BinaryOp::kAdd && e.binary_op != BinaryOp::kSubtract) return std::nullopt;
      const auto a = child(0), b = child(1);
      if (!a || !b) return std::nullopt;
      const RealBounds r = e.binary_op == BinaryOp::kAdd ? RealBounds{a->lo + b->lo, a->hi + b->hi}
                                                         : RealBounds{a->lo - b->hi, a->hi - b->lo};
      if (!std::isfinite(r.lo) || !std::isfinite(r.hi)) return std::nullopt;
      return r;
    }
    default:
      return std::nullopt;
  }
}

namespace {

constexpr double kInfinity = std::numeric_limits<double>::infinity();

bool IsRealArithmetic(const Expr& e) {
  return e.type == ValueType::kReal && e.kind == Expr::Kind::kBinary &&
         (e.binary_op == BinaryOp::kAdd || e.binary_op == BinaryOp::kSubtract ||
          e.binary_op == BinaryOp::kMultiply || e.binary_op == BinaryOp::kDivide);
}

// The smallest magnitude a non-zero divisor can have (a zero divisor gives
// NULL): 1 for an INTEGER, else from bounds that exclude zero; 0 unknown.
double SmallestDivisor(const Expr& divisor, const ColumnRangeFn& column_range) {
  if (divisor.type == ValueType::kInteger) return 1.0;
  if (divisor.kind == Expr::Kind::kConstant && divisor.constant.type == ValueType::kReal)
    return std::fabs(divisor.constant.real);
  const std::optional<RealBounds> bounds = RealBoundsOf(divisor, column_range);
  if (!bounds) return 0.0;
  if (bounds->lo > 0) return bounds->lo;
  if (bounds->hi < 0) return -bounds->hi;
  return 0.0;
}

}  // namespace

double RealMagnitudeOf(const Expr& e, const ColumnRangeFn& column_range) {
  if (e.type == ValueType::kInteger) {
    const std::optional<IntRange> range = IntegerRangeOf(e, column_range);
    if (!range) return 9223372036854775808.0;
    return static_cast<double>(Magnitude(*range));
  }
  if (e.type != ValueType::kReal) return kInfinity;
  const auto child = [&](std::size_t i) { return RealMagnitudeOf(e.children[i], column_range); };
  switch (e.kind) {
    case Expr::Kind::kConstant:
      if (e.constant.type != ValueType::kReal || std::isnan(e.constant.real)) return kInfinity;
      return std::fabs(e.constant.real);
    case Expr::Kind::kCast:
      return child(0);
    case Expr::Kind::kUnary:
      return e.unary_op == sql::UnaryOp::kNegate ? child(0) : kInfinity;
    case Expr::Kind::kBinary: {
      const double a = child(0), b = child(1);
      switch (e.binary_op) {
        case BinaryOp::kAdd:
        case BinaryOp::kSubtract:
          return a + b;
        case BinaryOp::kMultiply:
          return a == kInfinity || b == kInfinity ? kInfinity : a * b;
        case BinaryOp::kDivide: {
          const double smallest = SmallestDivisor(e.children[1], column_range);
          return a == kInfinity || smallest == 0.0 ? kInfinity : a / smallest;
        }
        case BinaryOp::kModulo:
          // The remainder of two integers (each operand cast), as a REAL.
          return 9223372036854775808.0;
        default:
          return kInfinity;
      }
    }
    default:
      return kInfinity;  // DOUBLE columns, and anything not analysed
  }
}

bool MayBeNaN(const Expr& e, const ColumnRangeFn& column_range) {
  if (!IsRealArithmetic(e)) return false;
  const Expr& left = e.children[0];
  const Expr& right = e.children[1];
  const bool left_infinite = RealMagnitudeOf(left, column_range) == kInfinity;
  const bool right_infinite = RealMagnitudeOf(right, column_range) == kInfinity;
  if (e.binary_op == BinaryOp::kMultiply) {  // 0 * Inf
    const auto may_be_zero = [&](const Expr& x) {
      return !DivisorExcludesZero(x, BinaryOp::kDivide, column_range);
    };
    return (left_infinite && may_be_zero(right)) || (right_infinite && may_be_zero(left));
  }
  return left_infinite && right_infinite;  // Inf - Inf, Inf + -Inf, Inf / Inf
}

bool MayOverflow(const Expr& e, const ColumnRangeFn& column_range) {
  for (const Expr& child : e.children)
    if (MayOverflow(child, column_range)) return true;
  if (e.type != ValueType::kInteger) return false;
  const bool checked = (e.kind == Expr::Kind::kUnary && e.unary_op == sql::UnaryOp::kNegate) ||
                       (e.kind == Expr::Kind::kBinary &&
                        (e.binary_op == BinaryOp::kAdd || e.binary_op == BinaryOp::kSubtract ||
                         e.binary_op == BinaryOp::kMultiply || e.binary_op == BinaryOp::kDivide));
  return checked && !IntegerRangeOf(e, column_range);
}

ColumnRangeFn TableColumnRanges(const sql::BoundSelect& select) {
  return [&select](const Expr& column_ref) -> std::optional<IntRange> {
    const Column& column = select.from.at(column_ref.source).table->column(column_ref.index);
    std::optional<IntRange> known = column.shared_data()->IntegerRange();
    if (column.type().type != DataType::kInt32) return known;
    const IntRange type_bounds{INT32_MIN, INT32_MAX};
    if (!known) return type_bounds;
    return IntRange{std::max(known->min, type_bounds.min), std::min(known->max, type_bounds.max)};
  };
}

bool DivisorExcludesZero(const Expr& divisor, BinaryOp op, const ColumnRangeFn& column_range) {
  // A literal is decided by its value (the bounds below admit finite ones only).
  if (divisor.kind == Expr::Kind::kConstant) {
    const sql::Value& c = divisor.constant;
    if (c.type == ValueType::kInteger) return c.integer != 0;
    if (c.type != ValueType::kReal) return false;
    return op == BinaryOp::kModulo ? static_cast<std::int64_t>(c.real) != 0 : c.real != 0.0;
  }
  if (divisor.type == ValueType::kInteger) {
    const auto range = IntegerRangeOf(divisor, column_range);
    return range && (range->min > 0 || range->max < 0);
  }
  const auto bounds = RealBoundsOf(divisor, column_range);
  if (!bounds) return false;
  // A REAL remainder truncates the divisor toward zero first.
  const double limit = op == BinaryOp::kModulo ? 1.0 : 0.0;
  return op == BinaryOp::kModulo ? (bounds->lo >= limit || bounds->hi <= -limit)
                                 : (bounds->lo > limit || bounds->hi < -limit);
}

}  // namespace clq
