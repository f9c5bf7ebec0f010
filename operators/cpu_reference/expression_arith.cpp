#include "operators/cpu_reference/expression_arith.hpp"

#include <cmath>
#include <limits>
#include <string>

#include "common/errors.hpp"

namespace clq::cpu_reference {
namespace {

using sql::BinaryOp;
using sql::ValueType;

constexpr std::int64_t kMinInteger = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMaxInteger = std::numeric_limits<std::int64_t>::max();

[[noreturn]] void ThrowOverflow() {
  throw InvalidInputError("integer overflow");
}

void RequireNumeric(const ValueVector& v, const char* what) {
  if (v.type == ValueType::kText)
    throw InvalidInputError(std::string("cannot apply ") + what + " to TEXT");
}

// op(x, y, is_null) on every row where neither side is NULL.
// (Local pointers: a store through uint8_t* may alias the vectors' own data
// pointers, which would otherwise be reloaded on every row.)
template <typename Op>
ValueVector IntegerLoop(const ValueVector& a, const ValueVector& b, Op op) {
  const std::size_t n = a.size();
  ValueVector r = ValueVector::Make(ValueType::kInteger, n);
  const std::int64_t* x = a.integers.data();
  const std::int64_t* y = b.integers.data();
  const std::uint8_t* x_null = a.nulls.data();
  const std::uint8_t* y_null = b.nulls.data();
  std::int64_t* out = r.integers.data();
  std::uint8_t* out_null = r.nulls.data();
  for (std::size_t i = 0; i < n; ++i) {
    if ((x_null[i] | y_null[i]) != 0) {
      out_null[i] = 1;
      continue;
    }
    bool is_null = false;
    out[i] = op(x[i], y[i], is_null);
    out_null[i] = is_null ? 1 : 0;
  }
  return r;
}

// op(x, y) on every row where neither side is NULL; NaN results are NULL.
template <typename Op>
ValueVector RealLoop(const ValueVector& a, const ValueVector& b, Op op) {
  const std::size_t n = a.size();
  ValueVector r = ValueVector::Make(ValueType::kReal, n);
  const double* x = a.reals.data();
  const double* y = b.reals.data();
  const std::uint8_t* x_null = a.nulls.data();
  const std::uint8_t* y_null = b.nulls.data();
  double* out = r.reals.data();
  std::uint8_t* out_null = r.nulls.data();
  for (std::size_t i = 0; i < n; ++i) {
    const double value = op(x[i], y[i]);
    const bool is_null = (x_null[i] | y_null[i]) != 0 || std::isnan(value);
    out[i] = is_null ? 0.0 : value;
    out_null[i] = is_null ? 1 : 0;
  }
  return r;
}

ValueVector IntegerArithmetic(BinaryOp op, const ValueVector& a, const ValueVector& b) {
  switch (op) {
    case BinaryOp::kAdd:
      return IntegerLoop(a, b, [](std::int64_t x, std::int64_t y, bool&) {
        std::int64_t r;
        if (__builtin_add_overflow(x, y, &r)) ThrowOverflow();
        return r;
      });
    case BinaryOp::kSubtract:
      return IntegerLoop(a, b, [](std::int64_t x, std::int64_t y, bool&) {
        std::int64_t r;
        if (__builtin_sub_overflow(x, y, &r)) ThrowOverflow();
        return r;
      });
    case BinaryOp::kMultiply:
      return IntegerLoop(a, b, [](std::int64_t x, std::int64_t y, bool&) {
        std::int64_t r;
        if (__builtin_mul_overflow(x, y, &r)) ThrowOverflow();
        return r;
      });
    case BinaryOp::kDivide:
      return IntegerLoop(a, b, [](std::int64_t x, std::int64_t y, bool& is_null) -> std::int64_t {
        if (y == 0) {
          is_null = true;
          return 0;
        }
        if (x == kMinInteger && y == -1) ThrowOverflow();
        return x / y;
      });
    case BinaryOp::kModulo:
      return IntegerLoop(a, b, [](std::int64_t x, std::int64_t y, bool& is_null) -> std::int64_t {
        if (y == 0) {
          is_null = true;
          return 0;
        }
        // INT64_MIN % -1 overflows in C; its mathematical value is 0.
        return y == -1 ? 0 : x % y;
      });
    default:
      break;
  }
  throw InternalError("not an arithmetic operator");
}

// The INTEGER that % uses for an operand: INTEGER as is, REAL cast.
std::int64_t ModuloOperand(const ValueVector& v, std::size_t row) {
  return v.type == ValueType::kInteger ? v.integers[row] : RealToInteger(v.reals[row]);
}

// % with at least one REAL operand: integer remainder of the cast operands, as REAL.
ValueVector RealModulo(const ValueVector& a, const ValueVector& b) {
  const std::size_t n = a.size();
  ValueVector r = ValueVector::Make(ValueType::kReal, n);
  for (std::size_t i = 0; i < n; ++i) {
    if ((a.nulls[i] | b.nulls[i]) != 0) {
      r.nulls[i] = 1;
      continue;
    }
    const std::int64_t x = ModuloOperand(a, i);
    const std::int64_t y = ModuloOperand(b, i);
    if (y == 0) {
      r.nulls[i] = 1;
      continue;
    }
    r.reals[i] = static_cast<double>(y == -1 ? 0 : x % y);
  }
  return r;
}

ValueVector RealArithmetic(BinaryOp op, const ValueVector& a, const ValueVector& b) {
  switch (op) {
    case BinaryOp::kAdd:
      return RealLoop(a, b, [](double x, double y) { return x + y; });
    case BinaryOp::kSubtract:
      return RealLoop(a, b, [](double x, double y) { return x - y; });
    case BinaryOp::kMultiply:
      return RealLoop(a, b, [](double x, double y) { return x * y; });
    case BinaryOp::kDivide:
      // Division by zero is NULL; NaN marks it for RealLoop.
      return RealLoop(a, b, [](double x, double y) {
        return y == 0.0 ? std::numeric_limits<double>::quiet_NaN() : x / y;
      });
    default:
      break;
  }
  throw InternalError("not a REAL arithmetic operator");
}

}  // namespace

std::int64_t RealToInteger(double value) {
  if (std::isnan(value)) return 0;
  // -2^63 and 2^63 are exact doubles; anything at or beyond them saturates.
  if (value <= -9223372036854775808.0) return kMinInteger;
  if (value >= 9223372036854775808.0) return kMaxInteger;
  return static_cast<std::int64_t>(value);
}

ValueVector Arithmetic(BinaryOp op, const ValueVector& left, const ValueVector& right) {
  CLQ_CHECK(left.size() == right.size(), "operands of different lengths");
  RequireNumeric(left, "arithmetic");
  RequireNumeric(right, "arithmetic");
  if (left.type == ValueType::kNull || right.type == ValueType::kNull)
    return ValueVector::AllNull(ValueType::kNull, left.size());
  if (left.type == ValueType::kInteger && right.type == ValueType::kInteger)
    return IntegerArithmetic(op, left, right);
  if (op == BinaryOp::kModulo) return RealModulo(left, right);
  return RealArithmetic(op, ToReal(left), ToReal(right));
}

ValueVector Negate(const ValueVector& value) {
  RequireNumeric(value, "unary minus");
  ValueVector r = value;
  if (r.type == ValueType::kInteger) {
    for (std::size_t i = 0; i < r.size(); ++i) {
      if (r.nulls[i] != 0) continue;
      if (r.integers[i] == kMinInteger) ThrowOverflow();
      r.integers[i] = -r.integers[i];
    }
  } else if (r.type == ValueType::kReal) {
    for (double& x : r.reals)
      x = -x;
  }
  return r;
}

ValueVector Extract(sql::UnaryOp op, const ValueVector& days) {
  if (days.type == ValueType::kNull) return ValueVector::AllNull(ValueType::kInteger, days.size());
  if (days.type != ValueType::kInteger) throw InternalError("EXTRACT of a value that is no date");
  ValueVector r = days;
  for (std::size_t i = 0; i < r.size(); ++i)
    if (r.nulls[i] == 0) r.integers[i] = sql::ExtractFromDays(op, r.integers[i]);
  return r;
}

ValueVector Cast(const ValueVector& value, ValueType target) {
  if (value.type == ValueType::kText) throw InvalidInputError("CAST of TEXT is not supported");
  if (target != ValueType::kInteger && target != ValueType::kReal)
    throw InternalError(std::string("CAST to ") + TypeName(target));
  if (value.type == ValueType::kNull) return ValueVector::AllNull(target, value.size());
  if (target == ValueType::kReal) return ToReal(value);
  if (value.type == ValueType::kInteger) return value;
  ValueVector r = ValueVector::Make(ValueType::kInteger, value.size());
  r.nulls = value.nulls;
  for (std::size_t i = 0; i < value.size(); ++i)
    r.integers[i] = value.nulls[i] != 0 ? 0 : RealToInteger(value.reals[i]);
  return r;
}

}  // namespace clq::cpu_reference
