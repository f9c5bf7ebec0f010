#include "operators/cpu_reference/cpu_simple_filter.hpp"

#include <algorithm>
#include <optional>
#include <span>
#include <string_view>

#include "operators/cpu_reference/expression_eval.hpp"
#include "operators/int_real_compare.hpp"

namespace clq::cpu_reference {
namespace {

using sql::BinaryOp;
using sql::Expr;
using sql::ValueType;

// low <= x <= high with optional and open ends, possibly negated. Without
// NULLs (columns hold none, NULL constants are declined) three-valued logic
// reduces to this, and NOT simply negates.
template <typename T>
struct Interval {
  std::optional<T> low, high;
  bool low_inclusive = true;
  bool high_inclusive = true;
  bool negated = false;

  bool Contains(const T& x) const {
    const bool above = !low || (low_inclusive ? x >= *low : x > *low);
    const bool below = !high || (high_inclusive ? x <= *high : x < *high);
    return (above && below) != negated;
  }
};

// The interval of `column op c`.
template <typename T>
std::optional<Interval<T>> FromComparison(BinaryOp op, T c) {
  Interval<T> in;
  switch (op) {
    case BinaryOp::kEqual:
      in.low = in.high = c;
      break;
    case BinaryOp::kNotEqual:
      in.low = in.high = c;
      in.negated = true;
      break;
    case BinaryOp::kLess:
      in.high = c;
      in.high_inclusive = false;
      break;
    case BinaryOp::kLessEqual:
      in.high = c;
      break;
    case BinaryOp::kGreater:
      in.low = c;
      in.low_inclusive = false;
      break;
    case BinaryOp::kGreaterEqual:
      in.low = c;
      break;
    default:
      return std::nullopt;
  }
  return in;
}

// `c op column` as `column op' c`.
BinaryOp Mirror(BinaryOp op) {
  switch (op) {
    case BinaryOp::kLess:
      return BinaryOp::kGreater;
    case BinaryOp::kLessEqual:
      return BinaryOp::kGreaterEqual;
    case BinaryOp::kGreater:
      return BinaryOp::kLess;
    case BinaryOp::kGreaterEqual:
      return BinaryOp::kLessEqual;
    default:
      return op;
  }
}

// The predicate as (column, interval over constants), in terms of Values.
struct SimpleForm {
  const Expr* column = nullptr;
  // Which constants bound the interval; for a comparison only `first`.
  BinaryOp op = BinaryOp::kEqual;
  bool between = false;
  bool negated = false;
  const sql::Value* first = nullptr;
  const sql::Value* second = nullptr;
};

bool IsConstant(const Expr& e) {
  return e.kind == Expr::Kind::kConstant && !e.constant.is_null() && e.type == e.constant.type;
}

std::optional<SimpleForm> Recognize(const Expr& e) {
  SimpleForm form;
  if (e.kind == Expr::Kind::kBinary && e.children.size() == 2) {
    const Expr& l = e.children[0];
    const Expr& r = e.children[1];
    if (l.kind == Expr::Kind::kColumnRef && IsConstant(r)) {
      form = {&l, e.binary_op, false, false, &r.constant, nullptr};
    } else if (r.kind == Expr::Kind::kColumnRef && IsConstant(l)) {
      form = {&r, Mirror(e.binary_op), false, false, &l.constant, nullptr};
    } else {
      return std::nullopt;
    }
    if (!FromComparison<std::int64_t>(form.op, 0)) return std::nullopt;  // not a comparison
    return form;
  }
  if (e.kind == Expr::Kind::kBetween && e.children.size() == 3 &&
      e.children[0].kind == Expr::Kind::kColumnRef && IsConstant(e.children[1]) &&
      IsConstant(e.children[2])) {
    return SimpleForm{&e.children[0], BinaryOp::kEqual,        true,
                      e.negated,      &e.children[1].constant, &e.children[2].constant};
  }
  return std::nullopt;
}

template <typename T>
Interval<T> MakeInterval(const SimpleForm& form, T first, T second) {
  if (!form.between) return *FromComparison(form.op, first);
  Interval<T> in;
  in.low = first;
  in.high = second;
  in.negated = form.negated;
  return in;
}

template <typename T, typename Get>
void Scan(std::span<const RowIndex> rows, Get get, const Interval<T>& in,
          std::vector<Position>& kept) {
  for (std::size_t i = 0; i < rows.size(); ++i)
    if (in.Contains(get(rows[i]))) kept.push_back(i);
}

double AsReal(const sql::Value& v) {
  return v.type == ValueType::kReal ? v.real : static_cast<double>(v.integer);
}

}  // namespace

bool TrySimpleFilter(const std::vector<sql::TableRef>& from, const JoinedRows& rows,
                     const Expr& predicate, std::vector<Position>& kept) {
  const std::optional<SimpleForm> form = Recognize(predicate);
  if (!form) return false;
  const auto k = std::find(rows.sources.begin(), rows.sources.end(), form->column->source);
  if (k == rows.sources.end() || form->column->source >= from.size()) return false;
  const Table& table = *from[form->column->source].table;
  if (form->column->index >= table.columns().size()) return false;
  const Column& column = table.column(form->column->index);
  if (ColumnValueType(column.type()) != form->column->type) return false;
  // NULL compares to nothing: the general evaluator's three-valued logic.
  if (column.nullable() || from[form->column->source].outer) return false;
  const std::span<const RowIndex> table_rows(
      rows.table_rows[static_cast<std::size_t>(k - rows.sources.begin())]);

  const ValueType column_type = form->column->type;
  const bool has_second = form->second != nullptr;
  const ValueType first_type = form->first->type;
  const ValueType second_type = has_second ? form->second->type : first_type;
  if (column_type == ValueType::kText) {
    if (first_type != ValueType::kText || second_type != ValueType::kText) return false;
    const Interval<std::string_view> in = MakeInterval<std::string_view>(
        *form, form->first->text, has_second ? std::string_view(form->second->text) : "");
    Scan(
        table_rows, [&](RowIndex r) { return column.StringAt(r); }, in, kept);
    return true;
  }
  if (first_type == ValueType::kText || second_type == ValueType::kText) return false;
  if (column_type == ValueType::kInteger && first_type == ValueType::kInteger &&
      second_type == ValueType::kInteger) {
    const Interval<std::int64_t> in = MakeInterval<std::int64_t>(
        *form, form->first->integer, has_second ? form->second->integer : 0);
    if (column.type().type == DataType::kInt32) {
      const std::span<const std::int32_t> values = column.int32s();
      Scan(
          table_rows, [&](RowIndex r) { return static_cast<std::int64_t>(values[r]); }, in, kept);
    } else {
      const std::span<const std::int64_t> values = column.int64s();
      Scan(
          table_rows, [&](RowIndex r) { return values[r]; }, in, kept);
    }
    return true;
  }
  // Anything with REAL compares as doubles, exact while the integers are
  // within 2^53 (INT32 columns, small constants); otherwise the general
  // evaluator compares INTEGER with REAL exactly.
  const auto exact_as_real = [](const sql::Value* v) {
    return v == nullptr || v->type != ValueType::kInteger ||
           ConvertsToRealExactly(IntRange{v->integer, v->integer});
  };
  if (column.type().type == DataType::kInt64 || !exact_as_real(form->first) ||
      !exact_as_real(form->second))
    return false;
  const Interval<double> in =
      MakeInterval<double>(*form, AsReal(*form->first), has_second ? AsReal(*form->second) : 0.0);
  switch (column.type().type) {
    case DataType::kInt32: {
      const std::span<const std::int32_t> values = column.int32s();
      Scan(
          table_rows, [&](RowIndex r) { return static_cast<double>(values[r]); }, in, kept);
      break;
    }
    case DataType::kInt64: {
      const std::span<const std::int64_t> values = column.int64s();
      Scan(
          table_rows, [&](RowIndex r) { return static_cast<double>(values[r]); }, in, kept);
      break;
    }
    case DataType::kDouble: {
      const std::span<const double> values = column.doubles();
      Scan(
          table_rows, [&](RowIndex r) { return values[r]; }, in, kept);
      break;
    }
    case DataType::kChar:
      return false;  // excluded above: TEXT columns
  }
  return true;
}

}  // namespace clq::cpu_reference
