#include "operators/cpu_reference/expression_eval.hpp"

#include <string>

#include "common/errors.hpp"
#include "operators/cpu_reference/expression_arith.hpp"
#include "operators/cpu_reference/expression_case.hpp"
#include "operators/cpu_reference/expression_logic.hpp"

namespace clq::cpu_reference {
namespace {

using sql::BinaryOp;
using sql::Expr;
using sql::ValueType;

ValueVector LoadColumn(const Expr& expr, const EvalContext& context) {
  CLQ_CHECK(context.from != nullptr && expr.source < context.table_rows.size() &&
                context.table_rows[expr.source].has_value(),
            "column reference to a source outside the batch");
  const Table& table = *(*context.from)[expr.source].table;
  CLQ_CHECK(expr.index < table.column_slots(), "column index out of range");
  const Column& column = table.column(expr.index);
  const std::span<const RowIndex> rows = *context.table_rows[expr.source];
  CLQ_CHECK(rows.size() == context.rows, "batch rows and table rows differ");
  const std::size_t n = rows.size();
  ValueVector r = ValueVector::Make(ColumnValueType(column.type()), n);
  switch (column.type().type) {
    case DataType::kInt32: {
      const std::span<const std::int32_t> values = column.int32s();
      for (std::size_t i = 0; i < n; ++i)
        r.integers[i] = rows[i] == kNoRow ? 0 : values[rows[i]];
      break;
    }
    case DataType::kInt64: {
      const std::span<const std::int64_t> values = column.int64s();
      for (std::size_t i = 0; i < n; ++i)
        r.integers[i] = rows[i] == kNoRow ? 0 : values[rows[i]];
      break;
    }
    case DataType::kDouble: {
      const std::span<const double> values = column.doubles();
      for (std::size_t i = 0; i < n; ++i)
        r.reals[i] = rows[i] == kNoRow ? 0.0 : values[rows[i]];
      break;
    }
    case DataType::kChar:
      for (std::size_t i = 0; i < n; ++i)
        if (rows[i] != kNoRow) r.texts[i] = column.StringAt(rows[i]);
      break;
  }
  // A NULL row's value is 0 or empty already, as a ValueVector's NULLs are.
  if (const std::uint8_t* nulls = column.null_map()) {
    for (std::size_t i = 0; i < n; ++i)
      r.nulls[i] = rows[i] == kNoRow ? 1 : nulls[rows[i]];
  } else if ((*context.from)[expr.source].outer) {
    for (std::size_t i = 0; i < n; ++i)
      r.nulls[i] = rows[i] == kNoRow ? 1 : 0;
  }
  return r;
}

ValueVector Broadcast(const sql::Value& value, std::size_t rows) {
  ValueVector r = ValueVector::Make(value.type, rows);
  switch (value.type) {
    case ValueType::kInteger:
      r.integers.assign(rows, value.integer);
      break;
    case ValueType::kReal:
      r.reals.assign(rows, value.real);
      break;
    case ValueType::kText:
      r.texts.assign(rows, std::string_view(value.text));
      break;
    case ValueType::kNull:
      break;
  }
  return r;
}

ValueVector Reference(const std::vector<ValueVector>* values, std::size_t index,
                      const EvalContext& context, const char* what) {
  CLQ_CHECK(values != nullptr && index < values->size(),
            std::string(what) + " reference outside the batch");
  CLQ_CHECK((*values)[index].size() == context.rows, std::string(what) + " of another length");
  return (*values)[index];
}

// Gives a computed vector the expression's declared type. A NULL result
// takes any declared type; INTEGER widens to a declared REAL; anything else
// means the binder and the evaluator disagree.
ValueVector ToDeclaredType(ValueVector v, const Expr& expr) {
  if (v.type == expr.type) return v;
  if (expr.type == ValueType::kNull || v.type == ValueType::kNull) {
    bool all_null = true;
    for (std::uint8_t is_null : v.nulls)
      all_null = all_null && is_null != 0;
    CLQ_CHECK(all_null, "an expression typed NULL has a value");
    return ValueVector::AllNull(expr.type, v.size());
  }
  if (v.type == ValueType::kInteger && expr.type == ValueType::kReal) return ToReal(v);
  throw InternalError(std::string("an expression typed ") + TypeName(expr.type) + " computes " +
                      TypeName(v.type));
}

ValueVector EvaluateBinary(const Expr& expr, const EvalContext& context) {
  CLQ_CHECK(expr.children.size() == 2, "binary operator without two operands");
  const ValueVector left = Evaluate(expr.children[0], context);
  const ValueVector right = Evaluate(expr.children[1], context);
  switch (expr.binary_op) {
    case BinaryOp::kAdd:
    case BinaryOp::kSubtract:
    case BinaryOp::kMultiply:
    case BinaryOp::kDivide:
    case BinaryOp::kModulo:
      return Arithmetic(expr.binary_op, left, right);
    case BinaryOp::kEqual:
    case BinaryOp::kNotEqual:
    case BinaryOp::kLess:
    case BinaryOp::kLessEqual:
    case BinaryOp::kGreater:
    case BinaryOp::kGreaterEqual:
      return Compare(expr.binary_op, left, right);
    case BinaryOp::kAnd:
    case BinaryOp::kOr:
      return Logic(expr.binary_op, left, right);
  }
  throw InternalError("unknown binary operator");
}

ValueVector EvaluateUnary(const Expr& expr, const EvalContext& context) {
  CLQ_CHECK(expr.children.size() == 1, "unary operator without one operand");
  const ValueVector value = Evaluate(expr.children[0], context);
  switch (expr.unary_op) {
    case sql::UnaryOp::kNegate:
      return Negate(value);
    case sql::UnaryOp::kNot:
      return Not(value);
    case sql::UnaryOp::kIsNull:
      return NullTest(value, true);
    case sql::UnaryOp::kIsNotNull:
      return NullTest(value, false);
    case sql::UnaryOp::kExtractYear:
    case sql::UnaryOp::kExtractMonth:
    case sql::UnaryOp::kExtractDay:
      return Extract(expr.unary_op, value);
  }
  throw InternalError("unknown unary operator");
}

ValueVector EvaluateUntyped(const Expr& expr, const EvalContext& context) {
  switch (expr.kind) {
    case Expr::Kind::kColumnRef:
      return LoadColumn(expr, context);
    case Expr::Kind::kConstant:
      return Broadcast(expr.constant, context.rows);
    case Expr::Kind::kUnary:
      return EvaluateUnary(expr, context);
    case Expr::Kind::kBinary:
      return EvaluateBinary(expr, context);
    case Expr::Kind::kBetween:
      CLQ_CHECK(expr.children.size() == 3, "BETWEEN without three operands");
      return Between(Evaluate(expr.children[0], context), Evaluate(expr.children[1], context),
                     Evaluate(expr.children[2], context), expr.negated);
    case Expr::Kind::kInList: {
      CLQ_CHECK(!expr.children.empty(), "IN without a value");
      const ValueVector value = Evaluate(expr.children[0], context);
      std::vector<ValueVector> items;
      items.reserve(expr.children.size() - 1);
      for (std::size_t i = 1; i < expr.children.size(); ++i)
        items.push_back(Evaluate(expr.children[i], context));
      return InList(value, items, expr.negated);
    }
    case Expr::Kind::kCast:
      CLQ_CHECK(expr.children.size() == 1, "CAST without one operand");
      return Cast(Evaluate(expr.children[0], context), expr.type);
    case Expr::Kind::kCase:
      return EvaluateCase(expr, context);
    case Expr::Kind::kLike:
      return EvaluateLike(expr, context);
    case Expr::Kind::kSubstring:
      return EvaluateSubstring(expr, context);
    case Expr::Kind::kGroupRef:
      return Reference(context.group_keys, expr.index, context, "group key");
    case Expr::Kind::kAggregateRef:
      return Reference(context.aggregates, expr.index, context, "aggregate");
    case Expr::Kind::kOutputRef:
      break;
    case Expr::Kind::kSubqueryValue:
      throw InternalError("a scalar subquery not replaced by its value");
    case Expr::Kind::kTextOfCode:
      // Made by the device planner only; the reference compares strings.
      throw InternalError("an order code's text in the CPU executor");
  }
  throw InternalError("output reference outside ORDER BY");
}

}  // namespace

ValueVector Evaluate(const Expr& expr, const EvalContext& context) {
  // An expression the binder typed NULL (an operand is the NULL literal) is
  // NULL without evaluating its operands, as on the devices: an operand that
  // would overflow raises nothing, as in SQLite.
  if (expr.type == ValueType::kNull) return Broadcast(sql::Value::Null(), context.rows);
  return ToDeclaredType(EvaluateUntyped(expr, context), expr);
}

sql::ValueType ColumnValueType(ColumnType type) {
  switch (type.type) {
    case DataType::kInt32:
    case DataType::kInt64:
      return ValueType::kInteger;
    case DataType::kDouble:
      return ValueType::kReal;
    case DataType::kChar:
      return ValueType::kText;
  }
  throw InternalError("unknown column type");
}

}  // namespace clq::cpu_reference
