#include "operators/cpu_reference/expression_logic.hpp"

#include <string>

#include "runtime/errors.hpp"

namespace clq::cpu_reference {
namespace {

using sql::BinaryOp;
using sql::ValueType;

// Three-valued truth of one row.
enum Truth : std::uint8_t { kFalse = 0, kTrue = 1, kUnknown = 2 };

// Runs `compare(i) -> int` (negative, zero, positive) on every row where
// neither side is NULL and maps the sign through `op`.
template <typename Compare3>
ValueVector CompareLoop(BinaryOp op, const ValueVector& a, const ValueVector& b, Compare3 compare) {
  const std::size_t n = a.size();
  ValueVector r = ValueVector::Make(ValueType::kInteger, n);
  // One loop per operator keeps the mapping out of the inner loop.
  auto run = [&](auto holds) {
    for (std::size_t i = 0; i < n; ++i) {
      if ((a.nulls[i] | b.nulls[i]) != 0) {
        r.nulls[i] = 1;
        continue;
      }
      r.integers[i] = holds(compare(i)) ? 1 : 0;
    }
  };
  switch (op) {
    case BinaryOp::kEqual:
      run([](int c) { return c == 0; });
      break;
    case BinaryOp::kNotEqual:
      run([](int c) { return c != 0; });
      break;
    case BinaryOp::kLess:
      run([](int c) { return c < 0; });
      break;
    case BinaryOp::kLessEqual:
      run([](int c) { return c <= 0; });
      break;
    case BinaryOp::kGreater:
      run([](int c) { return c > 0; });
      break;
    case BinaryOp::kGreaterEqual:
      run([](int c) { return c >= 0; });
      break;
    default:
      throw InternalError("not a comparison operator");
  }
  return r;
}

template <typename T>
int ThreeWay(T x, T y) {
  return x < y ? -1 : (y < x ? 1 : 0);
}

std::vector<std::uint8_t> TruthOf(const ValueVector& v) {
  std::vector<std::uint8_t> truth(v.size(), kUnknown);
  switch (v.type) {
    case ValueType::kInteger:
      for (std::size_t i = 0; i < v.size(); ++i)
        if (v.nulls[i] == 0) truth[i] = v.integers[i] != 0 ? kTrue : kFalse;
      break;
    case ValueType::kReal:
      for (std::size_t i = 0; i < v.size(); ++i)
        if (v.nulls[i] == 0) truth[i] = v.reals[i] != 0.0 ? kTrue : kFalse;
      break;
    case ValueType::kText:
      throw InvalidInputError("TEXT used as a truth value");
    case ValueType::kNull:
      break;
  }
  return truth;
}

ValueVector FromTruth(const std::vector<std::uint8_t>& truth) {
  ValueVector r = ValueVector::Make(ValueType::kInteger, truth.size());
  for (std::size_t i = 0; i < truth.size(); ++i) {
    if (truth[i] == kUnknown) {
      r.nulls[i] = 1;
    } else {
      r.integers[i] = truth[i];
    }
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
    // string_view::compare is memcmp over unsigned bytes, then shorter first.
    return CompareLoop(op, left, right,
                       [&](std::size_t i) { return left.texts[i].compare(right.texts[i]); });
  }
  if (left.type == ValueType::kInteger && right.type == ValueType::kInteger) {
    return CompareLoop(op, left, right, [&](std::size_t i) {
      return ThreeWay(left.integers[i], right.integers[i]);
    });
  }
  const ValueVector a = ToReal(left);
  const ValueVector b = ToReal(right);
  return CompareLoop(op, a, b, [&](std::size_t i) { return ThreeWay(a.reals[i], b.reals[i]); });
}

ValueVector Logic(BinaryOp op, const ValueVector& left, const ValueVector& right) {
  CLQ_CHECK(left.size() == right.size(), "operands of different lengths");
  std::vector<std::uint8_t> a = TruthOf(left);
  const std::vector<std::uint8_t> b = TruthOf(right);
  // The dominant value (false for AND, true for OR) wins over unknown.
  const std::uint8_t dominant = op == BinaryOp::kAnd ? kFalse : kTrue;
  CLQ_CHECK(op == BinaryOp::kAnd || op == BinaryOp::kOr, "not a logical operator");
  for (std::size_t i = 0; i < a.size(); ++i) {
    if (a[i] == dominant || b[i] == dominant) {
      a[i] = dominant;
    } else if (a[i] == kUnknown || b[i] == kUnknown) {
      a[i] = kUnknown;
    }
    // else both are the non-dominant value, which a[i] already holds.
  }
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
