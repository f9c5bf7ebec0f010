#include "operators/int_real_compare.hpp"

#include <cmath>
#include <limits>

namespace clq {
namespace {

using sql::BinaryOp;
using sql::Expr;
using sql::ValueType;

constexpr double kTwoTo63 = 9223372036854775808.0;
constexpr std::int64_t kTwoTo53 = std::int64_t{1} << 53;

Expr Cast(const Expr& child, ValueType type, std::size_t position) {
  Expr e;
  e.kind = Expr::Kind::kCast;
  e.type = type;
  e.children = {child};
  e.position = position;
  return e;
}

Expr Not(Expr child, std::size_t position) {
  Expr e;
  e.kind = Expr::Kind::kUnary;
  e.type = ValueType::kInteger;
  e.unary_op = sql::UnaryOp::kNot;
  e.children = {std::move(child)};
  e.position = position;
  return e;
}

}  // namespace

int CompareIntegerWithReal(std::int64_t i, double r) {
  if (r >= kTwoTo63) return -1;
  if (r < -kTwoTo63) return 1;
  const auto whole = static_cast<std::int64_t>(r);  // toward zero, in range
  if (i != whole) return i < whole ? -1 : 1;
  // Past 2^53 every double is whole, so this difference is exact.
  const double fraction = r - static_cast<double>(whole);
  return fraction > 0 ? -1 : fraction < 0 ? 1 : 0;
}

bool ConvertsToRealExactly(const std::optional<IntRange>& range) {
  return range && range->min >= -kTwoTo53 && range->max <= kTwoTo53;
}

std::optional<Expr> IntegerComparisonWithRealConstant(BinaryOp op, const Expr& integer,
                                                      double constant, std::size_t position) {
  if (std::isnan(constant)) return std::nullopt;
  const auto integer_test = [&](BinaryOp test, std::int64_t value) {
    return sql::MakeBoolean(test, integer, sql::MakeConstant(sql::Value::Integer(value), position),
                            position);
  };
  const Expr always =
      integer_test(BinaryOp::kGreaterEqual, std::numeric_limits<std::int64_t>::min());
  const Expr never = integer_test(BinaryOp::kLess, std::numeric_limits<std::int64_t>::min());
  const bool below_all = constant < -kTwoTo63;  // below every int64
  const bool above_all = constant >= kTwoTo63;  // above every int64
  if (below_all || above_all) {
    switch (op) {
      case BinaryOp::kEqual:
        return never;
      case BinaryOp::kNotEqual:
        return always;
      case BinaryOp::kLess:
      case BinaryOp::kLessEqual:
        return above_all ? always : never;
      default:  // > and >=
        return above_all ? never : always;
    }
  }
  // In [-2^63, 2^63): floor and ceil are int64 (doubles past 2^52 are whole).
  const auto floor = static_cast<std::int64_t>(std::floor(constant));
  const auto ceil = static_cast<std::int64_t>(std::ceil(constant));
  const bool whole = floor == ceil;
  switch (op) {
    case BinaryOp::kEqual:
      return whole ? integer_test(BinaryOp::kEqual, floor) : never;
    case BinaryOp::kNotEqual:
      return whole ? integer_test(BinaryOp::kNotEqual, floor) : always;
    case BinaryOp::kLess:
      return integer_test(BinaryOp::kLess, ceil);
    case BinaryOp::kLessEqual:
      return integer_test(BinaryOp::kLessEqual, floor);
    case BinaryOp::kGreater:
      return integer_test(BinaryOp::kGreater, floor);
    default:  // >=
      return integer_test(BinaryOp::kGreaterEqual, ceil);
  }
}

Expr RealComparisonWithIntegerConstant(BinaryOp op, const Expr& real, std::int64_t constant,
                                       std::size_t position) {
  const auto real_test = [&](BinaryOp test, double value) {
    return sql::MakeBoolean(test, real, sql::MakeConstant(sql::Value::Real(value), position),
                            position);
  };
  // The doubles just below and just above the constant (the same double
  // when it holds the constant).
  double below = static_cast<double>(constant);
  if (CompareIntegerWithReal(constant, below) < 0) below = std::nextafter(below, -INFINITY);
  const bool exact = CompareIntegerWithReal(constant, below) == 0;
  const double above = exact ? below : std::nextafter(below, INFINITY);
  const double infinity = std::numeric_limits<double>::infinity();
  switch (op) {
    case BinaryOp::kEqual:
      return exact ? real_test(BinaryOp::kEqual, below) : real_test(BinaryOp::kLess, -infinity);
    case BinaryOp::kNotEqual:
      return exact ? real_test(BinaryOp::kNotEqual, below)
                   : real_test(BinaryOp::kGreaterEqual, -infinity);
    case BinaryOp::kLess:
      return exact ? real_test(BinaryOp::kLess, below) : real_test(BinaryOp::kLessEqual, below);
    case BinaryOp::kLessEqual:
      return real_test(BinaryOp::kLessEqual, below);
    case BinaryOp::kGreater:
      return exact ? real_test(BinaryOp::kGreater, above)
                   : real_test(BinaryOp::kGreaterEqual, above);
    default:  // >=
      return real_test(BinaryOp::kGreaterEqual, above);
  }
}

namespace {

Expr Decided(BinaryOp op, const Expr& integer, const Expr& real, std::size_t position) {
  const Expr rounded = Cast(integer, ValueType::kReal, position);
  const Expr whole = Cast(real, ValueType::kInteger, position);
  const Expr limit = sql::MakeConstant(sql::Value::Real(kTwoTo63), position);
  const auto tie = [&](Expr then) {
    return sql::MakeBoolean(BinaryOp::kAnd,
                            sql::MakeBoolean(BinaryOp::kEqual, rounded, real, position),
                            std::move(then), position);
  };
  const auto less = [&] {
    return sql::MakeBoolean(
        BinaryOp::kOr, sql::MakeBoolean(BinaryOp::kLess, rounded, real, position),
        tie(sql::MakeBoolean(
            BinaryOp::kOr, sql::MakeBoolean(BinaryOp::kGreaterEqual, real, limit, position),
            sql::MakeBoolean(BinaryOp::kLess, integer, whole, position), position)),
        position);
  };
  const auto greater = [&] {
    return sql::MakeBoolean(
        BinaryOp::kOr, sql::MakeBoolean(BinaryOp::kGreater, rounded, real, position),
        tie(sql::MakeBoolean(
            BinaryOp::kAnd, sql::MakeBoolean(BinaryOp::kLess, real, limit, position),
            sql::MakeBoolean(BinaryOp::kGreater, integer, whole, position), position)),
        position);
  };
  const auto equal = [&] {
    return tie(
        sql::MakeBoolean(BinaryOp::kAnd, sql::MakeBoolean(BinaryOp::kLess, real, limit, position),
                         sql::MakeBoolean(BinaryOp::kEqual, integer, whole, position), position));
  };
  switch (op) {
    case BinaryOp::kLess:
      return less();
    case BinaryOp::kGreaterEqual:
      return Not(less(), position);
    case BinaryOp::kGreater:
      return greater();
    case BinaryOp::kLessEqual:
      return Not(greater(), position);
    case BinaryOp::kEqual:
      return equal();
    default:  // <>
      return Not(equal(), position);
  }
}

}  // namespace

Expr ExactIntegerRealComparison(BinaryOp op, const Expr& integer, const Expr& real,
                                std::size_t position, bool nullable) {
  Expr decided = Decided(op, integer, real, position);
  if (!nullable) return decided;
  Expr both = sql::MakeBoolean(BinaryOp::kAnd,
                               sql::MakeBoolean(BinaryOp::kEqual, integer, integer, position),
                               sql::MakeBoolean(BinaryOp::kEqual, real, real, position), position);
  Expr product;
  product.kind = Expr::Kind::kBinary;
  product.binary_op = BinaryOp::kMultiply;
  product.type = ValueType::kInteger;
  product.position = position;
  product.children.push_back(std::move(decided));
  product.children.push_back(std::move(both));
  return product;
}

}  // namespace clq
