// Builders for the CPU reference tests: host tables from value lists, bound
// expressions typed like the binder types them, one-shot evaluation of a
// constant expression, and a compact text form of a QueryResult.
#pragma once

#include <cstdint>
#include <cstdio>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "operators/cpu_reference/cpu_executor.hpp"
#include "operators/query_result.hpp"
#include "sql/bound.hpp"
#include "storage/table.hpp"

namespace clq::cpu_reference_test {

using sql::AggregateFunction;
using sql::BinaryOp;
using sql::Expr;
using sql::UnaryOp;
using sql::ValueType;

// --- Tables ------------------------------------------------------------------

struct TestColumn {
  std::string name;
  ColumnType type;
  std::vector<std::int64_t> integers;  // INT32, INT64
  std::vector<double> reals;           // DOUBLE
  std::vector<std::string> texts;      // CHAR(n)
  std::vector<bool> nulls;             // empty: none NULL; else one per row
  std::size_t size() const {
    return type.is_integer() ? integers.size()
                             : (type.type == DataType::kDouble ? reals.size() : texts.size());
  }
};

inline TestColumn Int32Column(std::string name, std::vector<std::int64_t> values) {
  return {std::move(name), ColumnType::Int32(), std::move(values), {}, {}, {}};
}
inline TestColumn Int64Column(std::string name, std::vector<std::int64_t> values) {
  return {std::move(name), ColumnType::Int64(), std::move(values), {}, {}, {}};
}
inline TestColumn DoubleColumn(std::string name, std::vector<double> values) {
  return {std::move(name), ColumnType::Double(), {}, std::move(values), {}, {}};
}
inline TestColumn CharColumn(std::string name, std::uint32_t width,
                             std::vector<std::string> values) {
  return {std::move(name), ColumnType::Char(width), {}, {}, std::move(values), {}};
}

inline TablePtr MakeTable(std::string name, const std::vector<TestColumn>& columns) {
  Schema schema;
  for (const TestColumn& c : columns)
    schema.push_back({c.name, c.type, !c.nulls.empty()});
  const RowCount rows = columns.empty() ? 0 : columns[0].size();
  TableBuilder builder(std::move(name), schema, rows);
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const TestColumn& column = columns[c];
    for (RowCount r = 0; r < rows; ++r) {
      if (!column.nulls.empty() && column.nulls[r]) {
        builder.SetNull(c, r);
        continue;
      }
      switch (column.type.type) {
        case DataType::kInt32:
          builder.column_values<std::int32_t>(c)[r] = static_cast<std::int32_t>(column.integers[r]);
          break;
        case DataType::kInt64:
          builder.column_values<std::int64_t>(c)[r] = column.integers[r];
          break;
        case DataType::kDouble:
          builder.column_values<double>(c)[r] = column.reals[r];
          break;
        case DataType::kChar:
          builder.SetString(c, r, column.texts[r]);
          break;
      }
    }
  }
  return builder.Finish();
}

// --- Expressions ---------------------------------------------------------------

inline Expr ColumnRef(std::size_t source, std::size_t index, ValueType type) {
  Expr e;
  e.kind = Expr::Kind::kColumnRef;
  e.source = source;
  e.index = index;
  e.type = type;
  return e;
}

inline Expr Constant(sql::Value value) {
  Expr e;
  e.kind = Expr::Kind::kConstant;
  e.type = value.type;
  e.constant = std::move(value);
  return e;
}
inline Expr Int(std::int64_t v) {
  return Constant(sql::Value::Integer(v));
}
inline Expr Real(double v) {
  return Constant(sql::Value::Real(v));
}
inline Expr Text(std::string v) {
  return Constant(sql::Value::Text(std::move(v)));
}
inline Expr Null() {
  return Constant(sql::Value::Null());
}

inline bool IsArithmetic(BinaryOp op) {
  return op == BinaryOp::kAdd || op == BinaryOp::kSubtract || op == BinaryOp::kMultiply ||
         op == BinaryOp::kDivide || op == BinaryOp::kModulo;
}

// Arithmetic: NULL if an operand is NULL-typed, INTEGER if both are, else
// REAL; comparisons and logic: INTEGER.
inline ValueType BinaryType(BinaryOp op, ValueType a, ValueType b) {
  if (!IsArithmetic(op)) return ValueType::kInteger;
  if (a == ValueType::kNull || b == ValueType::kNull) return ValueType::kNull;
  if (a == ValueType::kInteger && b == ValueType::kInteger) return ValueType::kInteger;
  return ValueType::kReal;
}

inline Expr Binary(BinaryOp op, Expr a, Expr b) {
  Expr e;
  e.kind = Expr::Kind::kBinary;
  e.binary_op = op;
  e.type = BinaryType(op, a.type, b.type);
  e.children = {std::move(a), std::move(b)};
  return e;
}

inline Expr Unary(UnaryOp op, Expr a) {
  Expr e;
  e.kind = Expr::Kind::kUnary;
  e.unary_op = op;
  e.type = op == UnaryOp::kNegate ? a.type : ValueType::kInteger;
  e.children = {std::move(a)};
  return e;
}

inline Expr Between(Expr v, Expr low, Expr high, bool negated = false) {
  Expr e;
  e.kind = Expr::Kind::kBetween;
  e.type = ValueType::kInteger;
  e.negated = negated;
  e.children = {std::move(v), std::move(low), std::move(high)};
  return e;
}

inline Expr InList(Expr v, std::vector<Expr> items, bool negated = false) {
  Expr e;
  e.kind = Expr::Kind::kInList;
  e.type = ValueType::kInteger;
  e.negated = negated;
  e.children.push_back(std::move(v));
  for (Expr& item : items)
    e.children.push_back(std::move(item));
  return e;
}

inline Expr Cast(Expr v, ValueType type) {
  Expr e;
  e.kind = Expr::Kind::kCast;
  e.type = type;
  e.children = {std::move(v)};
  return e;
}

inline Expr Ref(Expr::Kind kind, std::size_t index, ValueType type) {
  Expr e;
  e.kind = kind;
  e.index = index;
  e.type = type;
  return e;
}
inline Expr GroupRef(std::size_t index, ValueType type) {
  return Ref(Expr::Kind::kGroupRef, index, type);
}
inline Expr AggregateRef(std::size_t index, ValueType type) {
  return Ref(Expr::Kind::kAggregateRef, index, type);
}
inline Expr OutputRef(std::size_t index, ValueType type) {
  return Ref(Expr::Kind::kOutputRef, index, type);
}

// Result type as bound.hpp states it.
inline sql::Aggregate MakeAggregate(AggregateFunction function, std::optional<Expr> argument = {},
                                    double quantile = 0.5) {
  sql::Aggregate a;
  a.function = function;
  a.quantile = quantile;
  switch (function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      a.type = ValueType::kInteger;
      break;
    case AggregateFunction::kAvg:
      a.type = ValueType::kReal;
      break;
    default:
      a.type = argument ? argument->type : ValueType::kNull;
      break;
  }
  a.argument = std::move(argument);
  return a;
}

// --- Selects and results -------------------------------------------------------

inline void AddOutput(sql::BoundSelect& select, Expr expr, std::string name = {}) {
  if (name.empty()) {
    // snprintf, not "c" + to_string(): GCC 12 warns falsely (-Wrestrict) on string building here.
    char text[32];
    std::snprintf(text, sizeof(text), "c%zu", select.outputs.size());
    name = text;
  }
  select.outputs.push_back({std::move(name), std::move(expr)});
  select.visible_outputs = select.outputs.size();
}

inline std::string Describe(const sql::Value& v) {
  switch (v.type) {
    case ValueType::kNull:
      return "NULL";
    case ValueType::kInteger:
      return std::to_string(v.integer);
    case ValueType::kReal: {
      char text[40];
      std::snprintf(text, sizeof(text), "%.17g", v.real);
      return text;
    }
    case ValueType::kText:
      return "'" + v.text + "'";
  }
  return "?";
}

// "1,'a';2,NULL": rows separated by ';', values by ','.
inline std::string Render(const QueryResult& result) {
  std::string text;
  for (RowCount r = 0; r < result.rows; ++r) {
    if (r > 0) text += ';';
    for (std::size_t c = 0; c < result.columns.size(); ++c) {
      if (c > 0) text += ',';
      text += Describe(result.columns[c].ValueAt(r));
    }
  }
  return text;
}

// The value of a constant expression, through SELECT <expr> without FROM.
inline sql::Value EvaluateConstant(const Expr& expr) {
  sql::BoundSelect select;
  AddOutput(select, expr);
  const QueryResult result = ExecuteOnCpu(select);
  return result.columns.at(0).ValueAt(0);
}

}  // namespace clq::cpu_reference_test
