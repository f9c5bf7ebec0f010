// DATE and DECIMAL in expressions: each operation on them becomes integer
// (or REAL) arithmetic here, so that the planner, the expression machine and
// the CPU reference see only SQLite's INTEGER and REAL (docs/DECISIONS.md).
//
// DECIMAL(p, s) values are integers scaled by 10^s. Sums, differences and
// comparisons rescale their operands to the larger scale (a multiplication
// by a power of ten, overflow-checked like any INTEGER product); a product's
// scale is the sum of its operands'; a quotient, and any operation with a
// REAL, is REAL. A REAL literal written as digits with a point ("0.06") is
// exact where it meets a DECIMAL, so `l_discount BETWEEN 0.06 - 0.01 AND
// 0.06 + 0.01` compares integers as DuckDB does; elsewhere it stays SQLite's
// REAL. DATE values are days: DATE ± INTEGER is a DATE, DATE - DATE an
// INTEGER, and an INTERVAL folds into a constant date (or a number of days).
// EXTRACT is the one operation on DATEs that stays its own (UnaryOp::
// kExtract*), one instruction of the expression machine.
#include <cmath>
#include <limits>

#include "common/calendar.hpp"
#include "common/decimal.hpp"
#include "common/errors.hpp"
#include "sql/binder_internal.hpp"

namespace clq::sql::detail {
namespace {

bool IsConstant(const Expr& e) {
  return e.kind == Expr::Kind::kConstant;
}

int ScaleOf(const Expr& e) {
  const NumericKind kind = NumericKindOf(e);
  return kind == NumericKind::kDecimal || kind == NumericKind::kDecimalLiteral ? e.logical.scale
                                                                               : 0;
}

int PrecisionOf(const Expr& e) {
  const NumericKind kind = NumericKindOf(e);
  return kind == NumericKind::kDecimal || kind == NumericKind::kDecimalLiteral
             ? e.logical.precision
             : kMaxDecimalPrecision;
}

std::uint8_t Clamp(int precision) {
  return static_cast<std::uint8_t>(std::min<int>(precision, kMaxDecimalPrecision));
}

Expr IntegerConstant(std::int64_t value, LogicalType logical, std::size_t position) {
  Expr e = MakeConstant(Value::Integer(value), position);
  e.logical = logical;
  return e;
}

Expr Arithmetic(BinaryOp op, Expr left, Expr right, ValueType type, std::size_t position) {
  Expr e;
  e.kind = Expr::Kind::kBinary;
  e.binary_op = op;
  e.type = type;
  e.position = position;
  e.children = {std::move(left), std::move(right)};
  return e;
}

// `e` (INTEGER or DECIMAL) divided by 10^digits, rounded half away from
// zero: (e + h * (2 * (e >= 0) - 1)) / 10^digits with h = 10^digits / 2, in
// SQLite's truncating integer division.
Expr RoundedDivision(Expr e, int digits, std::size_t position) {
  if (digits == 0) return e;
  const std::int64_t divisor = PowerOfTen(digits);
  Expr sign = Arithmetic(BinaryOp::kSubtract,
                         Arithmetic(BinaryOp::kMultiply, IntegerConstant(2, {}, position),
                                    MakeBoolean(BinaryOp::kGreaterEqual, e,
                                                IntegerConstant(0, {}, position), position),
                                    ValueType::kInteger, position),
                         IntegerConstant(1, {}, position), ValueType::kInteger, position);
  Expr half = Arithmetic(BinaryOp::kMultiply, IntegerConstant(divisor / 2, {}, position),
                         std::move(sign), ValueType::kInteger, position);
  Expr sum =
      Arithmetic(BinaryOp::kAdd, std::move(e), std::move(half), ValueType::kInteger, position);
  return Arithmetic(BinaryOp::kDivide, std::move(sum), IntegerConstant(divisor, {}, position),
                    ValueType::kInteger, position);
}

// A DATE operand: a DATE, NULL, or a TEXT constant read as a date.
Expr AsDate(Expr e, const char* what, std::size_t position) {
  const NumericKind kind = NumericKindOf(e);
  if (kind == NumericKind::kDate || kind == NumericKind::kNull) return e;
  if (kind == NumericKind::kText && IsConstant(e)) {
    const std::optional<std::int32_t> days = ParseDate(e.constant.text);
    if (!days)
      throw SqlError("'" + e.constant.text + "' is not a date (expected YYYY-MM-DD)", e.position);
    return IntegerConstant(*days, LogicalType::Date(), e.position);
  }
  throw SqlError(std::string("cannot ") + what + " DATE and " + NumericKindName(e), position);
}

}  // namespace

std::optional<std::int64_t> FoldInteger(const Expr& e) {
  if (e.type != ValueType::kInteger || e.logical.kind != Logical::kNone) return std::nullopt;
  std::int64_t out = 0;
  switch (e.kind) {
    case Expr::Kind::kConstant:
      return e.constant.integer;
    case Expr::Kind::kUnary: {
      if (e.unary_op != UnaryOp::kNegate) return std::nullopt;
      const auto v = FoldInteger(e.children[0]);
      if (!v || *v == std::numeric_limits<std::int64_t>::min()) return std::nullopt;
      return -*v;
    }
    case Expr::Kind::kBinary: {
      const auto a = FoldInteger(e.children[0]);
      const auto b = FoldInteger(e.children[1]);
      if (!a || !b) return std::nullopt;
      bool overflow = true;
      if (e.binary_op == BinaryOp::kAdd) overflow = __builtin_add_overflow(*a, *b, &out);
      if (e.binary_op == BinaryOp::kSubtract) overflow = __builtin_sub_overflow(*a, *b, &out);
      if (e.binary_op == BinaryOp::kMultiply) overflow = __builtin_mul_overflow(*a, *b, &out);
      if (overflow) return std::nullopt;
      return out;
    }
    default:
      return std::nullopt;
  }
}

NumericKind NumericKindOf(const Expr& e) {
  switch (e.type) {
    case ValueType::kNull:
      return NumericKind::kNull;
    case ValueType::kText:
      return NumericKind::kText;
    case ValueType::kInteger:
      if (e.logical.is_date()) return NumericKind::kDate;
      if (e.logical.is_decimal()) return NumericKind::kDecimal;
      return NumericKind::kInteger;
    case ValueType::kReal:
      return IsConstant(e) && e.logical.is_decimal() ? NumericKind::kDecimalLiteral
                                                     : NumericKind::kReal;
  }
  return NumericKind::kNull;
}

std::string NumericKindName(const Expr& e) {
  if (e.logical.is_date() || e.logical.is_decimal()) {
    if (e.type == ValueType::kReal) return "REAL";
    return e.logical.is_date() ? "DATE" : "DECIMAL";
  }
  return ValueTypeName(e.type);
}

Expr ToScaled(Expr e, int scale, std::size_t position) {
  const NumericKind kind = NumericKindOf(e);
  if (kind == NumericKind::kNull) return e;
  const int from = ScaleOf(e);
  const LogicalType logical =
      LogicalType::Decimal(Clamp(PrecisionOf(e) - from + scale), static_cast<std::uint8_t>(scale));
  if (kind == NumericKind::kDecimalLiteral || (kind != NumericKind::kReal && IsConstant(e))) {
    const std::optional<std::int64_t> scaled = Rescale(e.constant.integer, from, scale);
    if (!scaled || scale < from)
      throw SqlError("the constant does not fit a DECIMAL of scale " + std::to_string(scale),
                     e.position);
    return IntegerConstant(*scaled, logical, e.position);
  }
  CLQ_CHECK(kind == NumericKind::kInteger || kind == NumericKind::kDecimal,
            "rescaling a value that is not an integer");
  CLQ_CHECK(scale >= from, "rescaling a DECIMAL down");
  if (scale > from)
    e = Arithmetic(BinaryOp::kMultiply, std::move(e),
                   IntegerConstant(PowerOfTen(scale - from), {}, position), ValueType::kInteger,
                   position);
  e.logical = logical;
  return e;
}

Expr ToReal(Expr e, std::size_t position) {
  const NumericKind kind = NumericKindOf(e);
  if (kind == NumericKind::kDecimalLiteral) {
    e.logical = {};
    return e;
  }
  if (kind != NumericKind::kDecimal) return e;
  const double divisor = static_cast<double>(PowerOfTen(e.logical.scale));
  if (IsConstant(e))
    return MakeConstant(Value::Real(static_cast<double>(e.constant.integer) / divisor), e.position);
  Expr cast;
  cast.kind = Expr::Kind::kCast;
  cast.type = ValueType::kReal;
  cast.position = e.position;
  cast.children.push_back(std::move(e));
  return Arithmetic(BinaryOp::kDivide, std::move(cast),
                    MakeConstant(Value::Real(divisor), position), ValueType::kReal, position);
}

Expr TypeArithmetic(Expr bound, std::size_t op_position) {
  Expr& left = bound.children[0];
  Expr& right = bound.children[1];
  const NumericKind l = NumericKindOf(left), r = NumericKindOf(right);
  const BinaryOp op = bound.binary_op;
  auto refuse = [&] {
    throw SqlError(std::string("cannot apply '") + BinaryOpName(op) + "' to " +
                       NumericKindName(left) + " and " + NumericKindName(right),
                   op_position);
  };
  if (l == NumericKind::kDate || r == NumericKind::kDate) {
    const bool left_date = l == NumericKind::kDate;
    const NumericKind other = left_date ? r : l;
    const bool days = other == NumericKind::kInteger || other == NumericKind::kNull;
    if (op == BinaryOp::kAdd && days) {
      bound.logical = LogicalType::Date();
    } else if (op == BinaryOp::kSubtract && left_date && days) {
      bound.logical = LogicalType::Date();
    } else if (op == BinaryOp::kSubtract && l == NumericKind::kDate && r == NumericKind::kDate) {
      bound.logical = {};
    } else {
      refuse();
    }
    if (bound.type != ValueType::kNull) bound.type = ValueType::kInteger;
    return bound;
  }
  // Two INTEGER constants: folded where the result fits (an overflow stays
  // the error of the row that computes it), so that a DECIMAL bound such as
  // `l_quantity <= 1 + 10` rescales a constant, not an expression per row.
  if (l == NumericKind::kInteger && r == NumericKind::kInteger && IsConstant(left) &&
      IsConstant(right)) {
    if (const std::optional<std::int64_t> value = FoldInteger(bound))
      return IntegerConstant(*value, {}, bound.position);
  }
  const bool decimal = l == NumericKind::kDecimal || r == NumericKind::kDecimal;
  const bool exact_constants =
      (l == NumericKind::kDecimalLiteral || r == NumericKind::kDecimalLiteral) &&
      (l == NumericKind::kDecimalLiteral || (l == NumericKind::kInteger && IsConstant(left))) &&
      (r == NumericKind::kDecimalLiteral || (r == NumericKind::kInteger && IsConstant(right)));
  if (exact_constants) {
    // Two exact constants: folded to the REAL SQLite computes, keeping the
    // exact decimal beside it while it has one.
    if (op != BinaryOp::kAdd && op != BinaryOp::kSubtract && op != BinaryOp::kMultiply) {
      left.logical = right.logical = {};
      return bound;
    }
    auto real_of = [](const Expr& e) {
      return e.type == ValueType::kReal ? e.constant.real : static_cast<double>(e.constant.integer);
    };
    const double a = real_of(left), b = real_of(right);
    const double real = op == BinaryOp::kAdd ? a + b : op == BinaryOp::kSubtract ? a - b : a * b;
    Expr folded = MakeConstant(Value::Real(real), bound.position);
    const int sl = ScaleOf(left), sr = ScaleOf(right);
    const int scale = op == BinaryOp::kMultiply ? sl + sr : std::max(sl, sr);
    const auto x = op == BinaryOp::kMultiply ? std::optional(left.constant.integer)
                                             : Rescale(left.constant.integer, sl, scale);
    const auto y = op == BinaryOp::kMultiply ? std::optional(right.constant.integer)
                                             : Rescale(right.constant.integer, sr, scale);
    std::int64_t exact = 0;
    const bool overflow = !x || !y || scale > kMaxDecimalPrecision ||
                          (op == BinaryOp::kAdd        ? __builtin_add_overflow(*x, *y, &exact)
                           : op == BinaryOp::kSubtract ? __builtin_sub_overflow(*x, *y, &exact)
                                                       : __builtin_mul_overflow(*x, *y, &exact));
    if (!overflow && exact > -PowerOfTen(18) && exact < PowerOfTen(18)) {
      folded.constant.integer = exact;
      folded.logical = LogicalType::Decimal(kMaxDecimalPrecision, static_cast<std::uint8_t>(scale));
    }
    return folded;
  }
  if (!decimal) return bound;
  if (l == NumericKind::kReal || r == NumericKind::kReal || op == BinaryOp::kDivide) {
    left = ToReal(std::move(left), op_position);
    right = ToReal(std::move(right), op_position);
    bound.type = ValueType::kReal;
    bound.logical = {};
    return bound;
  }
  if (l == NumericKind::kNull || r == NumericKind::kNull) return bound;
  const int sl = ScaleOf(left), sr = ScaleOf(right);
  const int pl = PrecisionOf(left), pr = PrecisionOf(right);
  bound.type = ValueType::kInteger;
  if (op == BinaryOp::kMultiply) {
    // A literal's trailing zeros add scale but no value (0.0001000000 is
    // 0.0001): dropped, so that a product keeps to 18 digits where it can.
    auto normalise = [](Expr& e, int& scale) {
      if (NumericKindOf(e) != NumericKind::kDecimalLiteral) return;
      while (scale > 0 && e.constant.integer % 10 == 0) {
        e.constant.integer /= 10;
        --scale;
      }
      e.logical.scale = static_cast<std::uint8_t>(scale);
    };
    int left_scale = sl, right_scale = sr;
    normalise(left, left_scale);
    normalise(right, right_scale);
    if (left_scale != sl || right_scale != sr) return TypeArithmetic(std::move(bound), op_position);
    if (sl + sr > kMaxDecimalPrecision)
      throw SqlError("the DECIMAL product has " + std::to_string(sl + sr) +
                         " digits after the point; clq's DECIMAL holds at most 18",
                     op_position);
    left = ToScaled(std::move(left), sl, op_position);
    right = ToScaled(std::move(right), sr, op_position);
    bound.logical = LogicalType::Decimal(Clamp(pl + pr), static_cast<std::uint8_t>(sl + sr));
    return bound;
  }
  const int scale = std::max(sl, sr);
  left = ToScaled(std::move(left), scale, op_position);
  right = ToScaled(std::move(right), scale, op_position);
  bound.logical = LogicalType::Decimal(Clamp(std::max(pl - sl, pr - sr) + scale + 1),
                                       static_cast<std::uint8_t>(scale));
  return bound;
}

void TypeComparison(std::vector<Expr>& operands, std::size_t op_position) {
  bool date = false, decimal = false, real = false;
  for (const Expr& e : operands) {
    const NumericKind kind = NumericKindOf(e);
    date |= kind == NumericKind::kDate;
    decimal |= kind == NumericKind::kDecimal;
    real |= kind == NumericKind::kReal;
  }
  if (date) {
    for (Expr& e : operands)
      e = AsDate(std::move(e), "compare", op_position);
    return;
  }
  if (!decimal) return;
  if (real) {
    for (Expr& e : operands)
      e = ToReal(std::move(e), op_position);
    return;
  }
  int scale = 0;
  for (const Expr& e : operands)
    if (NumericKindOf(e) != NumericKind::kText) scale = std::max(scale, ScaleOf(e));
  for (Expr& e : operands) {
    const NumericKind kind = NumericKindOf(e);
    if (kind == NumericKind::kText || kind == NumericKind::kNull) continue;
    e = ToScaled(std::move(e), scale, op_position);
  }
}

Expr ApplyInterval(Expr date, const ast::Expr& interval, bool subtract, std::size_t op_position) {
  date = AsDate(std::move(date), "add an INTERVAL to", op_position);
  const std::int64_t amount = subtract ? -interval.literal.integer : interval.literal.integer;
  if (NumericKindOf(date) == NumericKind::kNull) return date;
  if (IsConstant(date)) {
    const std::int64_t days = date.constant.integer;
    const std::int64_t moved = interval.interval_unit == ast::IntervalUnit::kDay ? days + amount
                               : interval.interval_unit == ast::IntervalUnit::kMonth
                                   ? AddMonths(days, amount)
                                   : AddMonths(days, 12 * amount);
    if (!DateFits(moved)) throw SqlError("the date is out of range", op_position);
    return IntegerConstant(moved, LogicalType::Date(), date.position);
  }
  if (interval.interval_unit != ast::IntervalUnit::kDay)
    throw SqlError(
        "an INTERVAL of months or years moves only constant dates (a DATE column takes DAY)",
        interval.position);
  Expr sum =
      Arithmetic(BinaryOp::kAdd, std::move(date), IntegerConstant(amount, {}, interval.position),
                 ValueType::kInteger, op_position);
  sum.logical = LogicalType::Date();
  return sum;
}

Expr ExtractFromDate(Expr date, std::string_view field, std::size_t position) {
  date = AsDate(std::move(date), "EXTRACT from", position);
  if (NumericKindOf(date) == NumericKind::kNull) return MakeConstant(Value::Null(), position);
  const UnaryOp op = field == "YEAR"    ? UnaryOp::kExtractYear
                     : field == "MONTH" ? UnaryOp::kExtractMonth
                                        : UnaryOp::kExtractDay;
  if (IsConstant(date))
    return IntegerConstant(ExtractFromDays(op, date.constant.integer), {}, position);
  // One operation of the expression machine over the days (VM_EXTRACT).
  Expr bound;
  bound.kind = Expr::Kind::kUnary;
  bound.unary_op = op;
  bound.type = ValueType::kInteger;
  bound.position = position;
  bound.children.push_back(std::move(date));
  return bound;
}

Expr CastLogical(Expr operand, ValueType type, LogicalType target, std::size_t position) {
  const NumericKind kind = NumericKindOf(operand);
  auto refuse = [&] {
    throw SqlError("CAST of " + NumericKindName(operand) + " to " +
                       (target.kind != Logical::kNone ? target.ToString() : ValueTypeName(type)) +
                       " is not supported",
                   position);
  };
  if (kind == NumericKind::kNull) return MakeConstant(Value::Null(), position);
  if (target.is_date()) {
    if (kind != NumericKind::kDate && !(kind == NumericKind::kText && IsConstant(operand)))
      refuse();
    return AsDate(std::move(operand), "CAST", position);
  }
  if (target.is_decimal()) {
    const int scale = target.scale;
    std::optional<std::int64_t> constant;
    if (kind == NumericKind::kText && IsConstant(operand)) {
      constant = ParseDecimal(operand.constant.text, target.precision, scale);
      if (!constant)
        throw SqlError("'" + operand.constant.text + "' is not a " + target.ToString(), position);
    } else if (kind == NumericKind::kReal && IsConstant(operand)) {
      const double scaled =
          std::round(operand.constant.real * static_cast<double>(PowerOfTen(scale)));
      if (std::isfinite(scaled) && std::fabs(scaled) < 9.0e18)
        constant = static_cast<std::int64_t>(scaled);
    } else if (kind == NumericKind::kReal || kind == NumericKind::kText) {
      refuse();
    } else if (IsConstant(operand)) {
      constant = Rescale(operand.constant.integer, ScaleOf(operand), scale);
    }
    if (IsConstant(operand)) {
      if (!constant || *constant >= PowerOfTen(target.precision) ||
          *constant <= -PowerOfTen(target.precision))
        throw SqlError("the value does not fit " + target.ToString(), position);
      return IntegerConstant(*constant, target, position);
    }
    if (kind == NumericKind::kDate) refuse();
    const int from = ScaleOf(operand);
    Expr out = from <= scale ? ToScaled(std::move(operand), scale, position)
                             : RoundedDivision(std::move(operand), from - scale, position);
    out.logical = target;
    return out;
  }
  // To INTEGER or REAL.
  if (kind == NumericKind::kDate) refuse();
  CLQ_CHECK(kind == NumericKind::kDecimal, "CastLogical of a plain value");
  if (type == ValueType::kReal) return ToReal(std::move(operand), position);
  Expr out = RoundedDivision(std::move(operand), ScaleOf(operand), position);
  out.logical = {};
  return out;
}

void TypeAggregate(Aggregate& aggregate, std::size_t position) {
  if (!aggregate.argument) return;
  Expr& argument = *aggregate.argument;
  const NumericKind kind = NumericKindOf(argument);
  if (kind == NumericKind::kDecimalLiteral) argument.logical = {};
  if (kind != NumericKind::kDate && kind != NumericKind::kDecimal) return;
  switch (aggregate.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return;
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
      if (kind == NumericKind::kDate)
        throw SqlError(
            std::string("cannot compute ") + AggregateName(aggregate.function) + " of DATE",
            position);
      if (aggregate.function == AggregateFunction::kSum)
        aggregate.logical = LogicalType::Decimal(kMaxDecimalPrecision, argument.logical.scale);
      return;  // AVG: REAL, divided by 10^scale by AverageOfDecimal
    case AggregateFunction::kMin:
    case AggregateFunction::kMax:
    case AggregateFunction::kMedian:
    case AggregateFunction::kQuantile:
      aggregate.logical = argument.logical;
      return;
  }
}

Expr AverageOfDecimal(Expr reference, const Aggregate& aggregate, std::size_t position) {
  if (aggregate.function != AggregateFunction::kAvg || !aggregate.argument ||
      NumericKindOf(*aggregate.argument) != NumericKind::kDecimal)
    return reference;
  const double divisor = static_cast<double>(PowerOfTen(aggregate.argument->logical.scale));
  return Arithmetic(BinaryOp::kDivide, std::move(reference),
                    MakeConstant(Value::Real(divisor), position), ValueType::kReal, position);
}

}  // namespace clq::sql::detail
