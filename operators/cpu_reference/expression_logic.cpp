#include "operators/cpu_reference/expression_logic.hpp"

#include <cmath>
#include <functional>
#include <string>

#include "common/errors.hpp"
#include "operators/int_real_compare.hpp"

namespace clq::cpu_reference {
namespace {

using sql::BinaryOp;
using sql::ValueType;

// Three-valued truth of one row.
constexpr std::uint8_t kFalse = 0;
constexpr std::uint8_t kTrue = 1;
constexpr std::uint8_t kUnknown = 2;

// The loops below read and write through local pointers: a store through a
// uint8_t* may alias anything, so indexing the vectors directly would make
// the compiler reload their data pointers on every row and not vectorize.

// out[i] = holds(x[i], y[i]) for every row. NULL rows hold zeros or empty
// strings, so comparing them anyway is harmless and keeps the loop free of
// branches; the caller masks them with the NULL map.
template <typename T, typename Holds>
void CompareValues(const T* x, const T* y, std::size_t n, Holds holds, std::int64_t* out) {
  for (std::size_t i = 0; i < n; ++i)
    out[i] = holds(x[i], y[i]) ? 1 : 0;
}

template <typename T>
ValueVector CompareTyped(BinaryOp op, const std::vector<T>& x, const std::vector<T>& y,
                         const ValueVector& a, const ValueVector& b) {
  const std::size_t n = a.size();
  ValueVector r = ValueVector::Make(ValueType::kInteger, n);
  std::int64_t* out = r.integers.data();
  switch (op) {
    case BinaryOp::kEqual:
      CompareValues(x.data(), y.data(), n, std::equal_to<>(), out);
      break;
    case BinaryOp::kNotEqual:
      CompareValues(x.data(), y.data(), n, std::not_equal_to<>(), out);
      break;
    case BinaryOp::kLess:
      CompareValues(x.data(), y.data(), n, std::less<>(), out);
      break;
    case BinaryOp::kLessEqual:
      CompareValues(x.data(), y.data(), n, std::less_equal<>(), out);
      break;
    case BinaryOp::kGreater:
      CompareValues(x.data(), y.data(), n, std::greater<>(), out);
      break;
    case BinaryOp::kGreaterEqual:
      CompareValues(x.data(), y.data(), n, std::greater_equal<>(), out);
      break;
    default:
      throw InternalError("not a comparison operator");
  }
  const std::uint8_t* a_null = a.nulls.data();
  const std::uint8_t* b_null = b.nulls.data();
  std::uint8_t* r_null = r.nulls.data();
  for (std::size_t i = 0; i < n; ++i) {
    r_null[i] = static_cast<std::uint8_t>(a_null[i] | b_null[i]);
    if (r_null[i] != 0) out[i] = 0;
  }
  return r;
}

std::vector<std::uint8_t> TruthOf(const ValueVector& v) {
  const std::size_t n = v.size();
  std::vector<std::uint8_t> truth(n, kUnknown);
  std::uint8_t* t = truth.data();
  const std::uint8_t* is_null = v.nulls.data();
  switch (v.type) {
    case ValueType::kInteger: {
      const std::int64_t* x = v.integers.data();
      for (std::size_t i = 0; i < n; ++i)
        t[i] = is_null[i] != 0 ? kUnknown : static_cast<std::uint8_t>(x[i] != 0);
      break;
    }
    case ValueType::kReal: {
      const double* x = v.reals.data();
      for (std::size_t i = 0; i < n; ++i)
        t[i] = is_null[i] != 0 ? kUnknown : static_cast<std::uint8_t>(x[i] != 0.0);
      break;
    }
    case ValueType::kText:
      throw InvalidInputError("TEXT used as a truth value");
    case ValueType::kNull:
      break;
  }
  return truth;
}

ValueVector FromTruth(const std::vector<std::uint8_t>& truth) {
  const std::size_t n = truth.size();
  ValueVector r = ValueVector::Make(ValueType::kInteger, n);
  const std::uint8_t* t = truth.data();
  std::uint8_t* r_null = r.nulls.data();
  std::int64_t* out = r.integers.data();
  for (std::size_t i = 0; i < n; ++i) {
    r_null[i] = t[i] == kUnknown ? 1 : 0;
    out[i] = t[i] == kTrue ? 1 : 0;
  }
  return r;
}

}  // namespace

ValueVector Compare(BinaryOp op, const ValueVector& left, const ValueVector& right) {
  CLQ_CHECK(left.size() == right.size(), "operands of different lengths");
  const std::size_t n = left.size();
  if (left.type == ValueType::kNull || right.type == ValueType::kNull)
    return ValueVector::AllNull(ValueType::kInteger, n);
  if (left.type == ValueType::kText || right.type == ValueType::kText) {
    if (left.type != right.type)
      throw InvalidInputError(std::string("cannot compare ") + TypeName(left.type) + " with " +
                              TypeName(right.type));
    // string_view compares like memcmp over unsigned bytes, then shorter first.
    return CompareTyped(op, left.texts, right.texts, left, right);
  }
  if (left.type == ValueType::kInteger && right.type == ValueType::kInteger)
    return CompareTyped(op, left.integers, right.integers, left, right);
  if (left.type == ValueType::kInteger || right.type == ValueType::kInteger) {
    // INTEGER with REAL: exactly, as SQLite (rounding the integer to double
    // changes answers past 2^53); NaN, which has no order, as doubles.
    const bool integer_left = left.type == ValueType::kInteger;
    const ValueVector& integers = integer_left ? left : right;
    const ValueVector& reals = integer_left ? right : left;
    std::vector<std::int64_t> order(n), zero(n, 0);
    bool nan = false;
    for (std::size_t i = 0; i < n && !nan; ++i) {
      nan = std::isnan(reals.reals[i]);
      const int c = nan ? 0 : CompareIntegerWithReal(integers.integers[i], reals.reals[i]);
      order[i] = integer_left ? c : -c;
    }
    if (!nan) return CompareTyped(op, order, zero, left, right);
  }
  const ValueVector a = ToReal(left);
  const ValueVector b = ToReal(right);
  return CompareTyped(op, a.reals, b.reals, a, b);
}

ValueVector Logic(BinaryOp op, const ValueVector& left, const ValueVector& right) {
  CLQ_CHECK(left.size() == right.size(), "operands of different lengths");
  std::vector<std::uint8_t> a = TruthOf(left);
  const std::vector<std::uint8_t> b = TruthOf(right);
  CLQ_CHECK(op == BinaryOp::kAnd || op == BinaryOp::kOr, "not a logical operator");
  // Truth tables indexed [left * 3 + right] over kFalse, kTrue, kUnknown.
  static constexpr std::uint8_t kAndTable[9] = {kFalse,   kFalse, kFalse,   kFalse,  kTrue,
                                                kUnknown, kFalse, kUnknown, kUnknown};
  static constexpr std::uint8_t kOrTable[9] = {kFalse, kTrue,    kUnknown, kTrue,   kTrue,
                                               kTrue,  kUnknown, kTrue,    kUnknown};
  const std::uint8_t* table = op == BinaryOp::kAnd ? kAndTable : kOrTable;
  std::uint8_t* x = a.data();
  const std::uint8_t* y = b.data();
  for (std::size_t i = 0; i < a.size(); ++i)
    x[i] = table[x[i] * 3 + y[i]];
  return FromTruth(a);
}

ValueVector Not(const ValueVector& value) {
  std::vector<std::uint8_t> truth = TruthOf(value);
  for (std::uint8_t& t : truth)
    if (t != kUnknown) t = t == kTrue ? kFalse : kTrue;
  return FromTruth(truth);
}

ValueVector NullTest(const ValueVector& value, bool is_null) {
  ValueVector r = ValueVector::Make(ValueType::kInteger, value.size());
  for (std::size_t i = 0; i < value.size(); ++i)
    r.integers[i] = (value.nulls[i] != 0) == is_null ? 1 : 0;
  return r;
}

ValueVector Between(const ValueVector& value, const ValueVector& low, const ValueVector& high,
                    bool negated) {
  ValueVector r = Logic(BinaryOp::kAnd, Compare(BinaryOp::kGreaterEqual, value, low),
                        Compare(BinaryOp::kLessEqual, value, high));
  return negated ? Not(r) : r;
}

ValueVector InList(const ValueVector& value, std::span<const ValueVector> items, bool negated) {
  std::vector<std::uint8_t> truth(value.size(), kFalse);
  for (const ValueVector& item : items) {
    const ValueVector equal = Compare(BinaryOp::kEqual, value, item);
    for (std::size_t i = 0; i < truth.size(); ++i) {
      if (truth[i] == kTrue) continue;
      if (equal.nulls[i] != 0) {
        truth[i] = kUnknown;
      } else if (equal.integers[i] != 0) {
        truth[i] = kTrue;
      }
    }
  }
  // A NULL value compares NULL with every item, so it ends unknown; an empty
  // list leaves it false, as SQLite's x IN () is 0 even for NULL x.
  ValueVector r = FromTruth(truth);
  return negated ? Not(r) : r;
}

}  // namespace clq::cpu_reference
