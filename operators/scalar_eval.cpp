#include "operators/scalar_eval.hpp"

#include <cmath>
#include <cstring>
#include <limits>

#include "common/errors.hpp"
#include "operators/int_real_compare.hpp"
#include "sql/like_pattern.hpp"
#include "sql/substring.hpp"

namespace clq {
namespace {

using sql::BinaryOp;
using sql::Expr;
using sql::Value;
using sql::ValueType;

[[noreturn]] void Overflow() {
  throw InvalidInputError("integer overflow");
}

double AsReal(const Value& v) {
  return v.type == ValueType::kReal ? v.real : static_cast<double>(v.integer);
}

// SQLite: NaN casts to 0, out-of-range values saturate.
std::int64_t RealToInteger(double v) {
  if (std::isnan(v)) return 0;
  if (v >= 9223372036854775807.0) return std::numeric_limits<std::int64_t>::max();
  if (v <= -9223372036854775808.0) return std::numeric_limits<std::int64_t>::min();
  return static_cast<std::int64_t>(v);
}

// A REAL result; NaN (Inf - Inf, 0 * Inf, Inf / Inf) is NULL, as in SQLite.
Value RealResult(double v) {
  return std::isnan(v) ? Value::Null() : Value::Real(v);
}

Value Boolean(bool b) {
  return Value::Integer(b ? 1 : 0);
}

// -1, 0, 1; both sides non-NULL and of comparable types.
int Compare(const Value& a, const Value& b) {
  if (a.type == ValueType::kText || b.type == ValueType::kText) {
    const int c = a.text.compare(b.text);
    return c < 0 ? -1 : c > 0 ? 1 : 0;
  }
  if (a.type == ValueType::kInteger && b.type == ValueType::kInteger)
    return a.integer < b.integer ? -1 : a.integer > b.integer ? 1 : 0;
  // INTEGER with REAL exactly, as SQLite (past 2^53 a double rounds).
  if (a.type == ValueType::kInteger && !std::isnan(b.real))
    return CompareIntegerWithReal(a.integer, b.real);
  if (b.type == ValueType::kInteger && !std::isnan(a.real))
    return -CompareIntegerWithReal(b.integer, a.real);
  const double x = AsReal(a), y = AsReal(b);
  return x < y ? -1 : x > y ? 1 : 0;
}

Value Arithmetic(BinaryOp op, const Value& a, const Value& b, ValueType result) {
  if (a.is_null() || b.is_null()) return Value::Null();
  if (result == ValueType::kInteger) {
    const std::int64_t x = a.integer, y = b.integer;
    std::int64_t r = 0;
    switch (op) {
      case BinaryOp::kAdd:
        if (__builtin_add_overflow(x, y, &r)) Overflow();
        return Value::Integer(r);
      case BinaryOp::kSubtract:
        if (__builtin_sub_overflow(x, y, &r)) Overflow();
        return Value::Integer(r);
      case BinaryOp::kMultiply:
        if (__builtin_mul_overflow(x, y, &r)) Overflow();
        return Value::Integer(r);
      case BinaryOp::kDivide:
        if (y == 0) return Value::Null();
        if (x == std::numeric_limits<std::int64_t>::min() && y == -1) Overflow();
        return Value::Integer(x / y);
      case BinaryOp::kModulo:
        if (y == 0) return Value::Null();
        if (y == -1) return Value::Integer(0);
        return Value::Integer(x % y);
      default:
        break;
    }
    throw InternalError("not an arithmetic operator");
  }
  if (op == BinaryOp::kModulo) {
    // Each operand cast to INTEGER from its own type (an INTEGER past 2^53
    // would lose digits through a double), as SQLite does.
    const auto integer = [](const Value& v) {
      return v.type == ValueType::kReal ? RealToInteger(v.real) : v.integer;
    };
    const std::int64_t xi = integer(a), yi = integer(b);
    if (yi == 0) return Value::Null();
    if (yi == -1) return Value::Real(0.0);
    return Value::Real(static_cast<double>(xi % yi));
  }
  const double x = AsReal(a), y = AsReal(b);
  switch (op) {
    case BinaryOp::kAdd:
      return RealResult(x + y);
    case BinaryOp::kSubtract:
      return RealResult(x - y);
    case BinaryOp::kMultiply:
      return RealResult(x * y);
    case BinaryOp::kDivide:
      if (y == 0.0) return Value::Null();
      return RealResult(x / y);
    default:
      break;
  }
  throw InternalError("not an arithmetic operator");
}

// Three-valued truth: 1 true, 0 false, -1 NULL.
int Truth(const Value& v) {
  if (v.is_null()) return -1;
  if (v.type == ValueType::kReal) return v.real != 0.0 ? 1 : 0;
  return v.integer != 0 ? 1 : 0;
}

Value FromTruth(int t) {
  return t < 0 ? Value::Null() : Boolean(t == 1);
}

}  // namespace

bool IsTrue(const Value& value) {
  return Truth(value) == 1;
}

Value EvaluateScalar(const Expr& e, const LeafResolver& resolve) {
  // NULL-typed: NULL without evaluating the operands (ExpressionProgram
  // compiles it to a NULL load; cpu_reference::Evaluate does the same).
  if (e.type == ValueType::kNull) return Value::Null();
  switch (e.kind) {
    case Expr::Kind::kConstant:
      return e.constant;
    case Expr::Kind::kColumnRef:
    case Expr::Kind::kGroupRef:
    case Expr::Kind::kAggregateRef:
    case Expr::Kind::kOutputRef:
    case Expr::Kind::kSubqueryValue:
      return resolve(e);
    case Expr::Kind::kUnary: {
      const Value v = EvaluateScalar(e.children[0], resolve);
      switch (e.unary_op) {
        case sql::UnaryOp::kNegate:
          if (v.is_null()) return v;
          if (v.type == ValueType::kReal) return Value::Real(-v.real);
          if (v.integer == std::numeric_limits<std::int64_t>::min()) Overflow();
          return Value::Integer(-v.integer);
        case sql::UnaryOp::kNot: {
          const int t = Truth(v);
          return t < 0 ? Value::Null() : Boolean(t == 0);
        }
        case sql::UnaryOp::kIsNull:
          return Boolean(v.is_null());
        case sql::UnaryOp::kIsNotNull:
          return Boolean(!v.is_null());
        case sql::UnaryOp::kExtractYear:
        case sql::UnaryOp::kExtractMonth:
        case sql::UnaryOp::kExtractDay:
          if (v.is_null()) return v;
          return Value::Integer(sql::ExtractFromDays(e.unary_op, v.integer));
      }
      break;
    }
    case Expr::Kind::kBinary: {
      if (e.binary_op == BinaryOp::kAnd || e.binary_op == BinaryOp::kOr) {
        const int a = Truth(EvaluateScalar(e.children[0], resolve));
        const int b = Truth(EvaluateScalar(e.children[1], resolve));
        if (e.binary_op == BinaryOp::kAnd) {
          if (a == 0 || b == 0) return Boolean(false);
          return (a < 0 || b < 0) ? Value::Null() : Boolean(true);
        }
        if (a == 1 || b == 1) return Boolean(true);
        return (a < 0 || b < 0) ? Value::Null() : Boolean(false);
      }
      const Value a = EvaluateScalar(e.children[0], resolve);
      const Value b = EvaluateScalar(e.children[1], resolve);
      switch (e.binary_op) {
        case BinaryOp::kEqual:
        case BinaryOp::kNotEqual:
        case BinaryOp::kLess:
        case BinaryOp::kLessEqual:
        case BinaryOp::kGreater:
        case BinaryOp::kGreaterEqual: {
          if (a.is_null() || b.is_null()) return Value::Null();
          const int c = Compare(a, b);
          switch (e.binary_op) {
            case BinaryOp::kEqual:
              return Boolean(c == 0);
            case BinaryOp::kNotEqual:
              return Boolean(c != 0);
            case BinaryOp::kLess:
              return Boolean(c < 0);
            case BinaryOp::kLessEqual:
              return Boolean(c <= 0);
            case BinaryOp::kGreater:
              return Boolean(c > 0);
            default:
              return Boolean(c >= 0);
          }
        }
        default:
          return Arithmetic(e.binary_op, a, b,
                            e.type == ValueType::kReal ? ValueType::kReal : ValueType::kInteger);
      }
    }
    case Expr::Kind::kBetween: {
      const Value v = EvaluateScalar(e.children[0], resolve);
      const Value lo = EvaluateScalar(e.children[1], resolve);
      const Value hi = EvaluateScalar(e.children[2], resolve);
      const int ge = (v.is_null() || lo.is_null()) ? -1 : (Compare(v, lo) >= 0 ? 1 : 0);
      const int le = (v.is_null() || hi.is_null()) ? -1 : (Compare(v, hi) <= 0 ? 1 : 0);
      int both = (ge == 0 || le == 0) ? 0 : (ge < 0 || le < 0) ? -1 : 1;
      if (e.negated && both >= 0) both = 1 - both;
      return FromTruth(both);
    }
    case Expr::Kind::kInList: {
      const Value v = EvaluateScalar(e.children[0], resolve);
      bool saw_null = v.is_null();
      bool found = false;
      for (std::size_t i = 1; i < e.children.size() && !v.is_null(); ++i) {
        const Value item = EvaluateScalar(e.children[i], resolve);
        if (item.is_null()) {
          saw_null = true;
        } else if (Compare(v, item) == 0) {
          found = true;
        }
      }
      int t = found ? 1 : (saw_null ? -1 : 0);
      if (e.negated && t >= 0) t = 1 - t;
      return FromTruth(t);
    }
    case Expr::Kind::kCase: {
      // Lazy: only the chosen branch is evaluated.
      std::size_t chosen = e.children.size() - 1;
      for (std::size_t i = 0; i + 1 < e.children.size(); i += 2) {
        if (Truth(EvaluateScalar(e.children[i], resolve)) == 1) {
          chosen = i + 1;
          break;
        }
      }
      const Value v = EvaluateScalar(e.children[chosen], resolve);
      if (e.type == ValueType::kReal && v.type == ValueType::kInteger)
        return Value::Real(AsReal(v));
      return v;
    }
    case Expr::Kind::kLike: {
      const Value v = EvaluateScalar(e.children[0], resolve);
      if (v.is_null()) return v;
      return Boolean(sql::LikeMatches(v.text, e.constant.text) != e.negated);
    }
    case Expr::Kind::kSubstring: {
      const Value v = EvaluateScalar(e.children[0], resolve);
      if (v.is_null()) return v;
      std::optional<std::int64_t> length;
      if (e.children.size() > 2) length = e.children[2].constant.integer;
      return Value::Text(
          std::string(sql::Substring(v.text, e.children[1].constant.integer, length)));
    }
    case Expr::Kind::kTextOfCode: {
      const Value v = EvaluateScalar(e.children[0], resolve);
      if (v.is_null()) return v;
      CLQ_CHECK(e.dictionary != nullptr && v.type == ValueType::kInteger && v.integer >= 0 &&
                    static_cast<std::uint64_t>(v.integer) < e.dictionary->values.size(),
                "an order code outside its dictionary");
      return Value::Text(e.dictionary->values[static_cast<std::size_t>(v.integer)]);
    }
    case Expr::Kind::kCast: {
      const Value v = EvaluateScalar(e.children[0], resolve);
      if (v.is_null()) return v;
      if (e.type == ValueType::kReal) return Value::Real(AsReal(v));
      if (v.type == ValueType::kReal) return Value::Integer(RealToInteger(v.real));
      return v;
    }
  }
  throw InternalError("unhandled expression kind in host evaluation");
}

}  // namespace clq
