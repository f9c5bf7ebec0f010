// Terse construction of bound expressions (sql/bound.hpp) for tests that
// exercise operators without the SQL front end.
#pragma once

#include <initializer_list>
#include <string>

#include "sql/bound.hpp"

namespace clq::testing {

inline sql::Expr Col(std::size_t index, sql::ValueType type, std::size_t source = 0) {
  sql::Expr e;
  e.kind = sql::Expr::Kind::kColumnRef;
  e.type = type;
  e.source = source;
  e.index = index;
  return e;
}

inline sql::Expr IntCol(std::size_t index) {
  return Col(index, sql::ValueType::kInteger);
}
inline sql::Expr RealCol(std::size_t index) {
  return Col(index, sql::ValueType::kReal);
}
inline sql::Expr TextCol(std::size_t index) {
  return Col(index, sql::ValueType::kText);
}

inline sql::Expr Const(sql::Value value) {
  sql::Expr e;
  e.kind = sql::Expr::Kind::kConstant;
  e.type = value.type;
  e.constant = std::move(value);
  return e;
}
inline sql::Expr Int(std::int64_t v) {
  return Const(sql::Value::Integer(v));
}
inline sql::Expr Real(double v) {
  return Const(sql::Value::Real(v));
}
inline sql::Expr Text(std::string v) {
  return Const(sql::Value::Text(std::move(v)));
}
inline sql::Expr Null() {
  return Const(sql::Value::Null());
}

inline bool IsComparisonOrLogic(sql::BinaryOp op) {
  return op != sql::BinaryOp::kAdd && op != sql::BinaryOp::kSubtract &&
         op != sql::BinaryOp::kMultiply && op != sql::BinaryOp::kDivide &&
         op != sql::BinaryOp::kModulo;
}

// Result type per the binder's rules: comparisons and logic are INTEGER;
// arithmetic is REAL when either side is REAL, NULL when either side is NULL.
inline sql::Expr Bin(sql::BinaryOp op, sql::Expr left, sql::Expr right) {
  sql::Expr e;
  e.kind = sql::Expr::Kind::kBinary;
  e.binary_op = op;
  if (IsComparisonOrLogic(op)) {
    e.type = sql::ValueType::kInteger;
  } else if (left.type == sql::ValueType::kNull || right.type == sql::ValueType::kNull) {
    e.type = sql::ValueType::kNull;
  } else if (left.type == sql::ValueType::kReal || right.type == sql::ValueType::kReal) {
    e.type = sql::ValueType::kReal;
  } else {
    e.type = sql::ValueType::kInteger;
  }
  e.children = {std::move(left), std::move(right)};
  return e;
}

inline sql::Expr Un(sql::UnaryOp op, sql::Expr child) {
  sql::Expr e;
  e.kind = sql::Expr::Kind::kUnary;
  e.unary_op = op;
  e.type = op == sql::UnaryOp::kNegate ? child.type : sql::ValueType::kInteger;
  e.children = {std::move(child)};
  return e;
}

inline sql::Expr Cast(sql::Expr child, sql::ValueType type) {
  sql::Expr e;
  e.kind = sql::Expr::Kind::kCast;
  e.type = type;
  e.children = {std::move(child)};
  return e;
}

inline sql::Expr Between(sql::Expr v, sql::Expr lo, sql::Expr hi, bool negated = false) {
  sql::Expr e;
  e.kind = sql::Expr::Kind::kBetween;
  e.type = sql::ValueType::kInteger;
  e.negated = negated;
  e.children = {std::move(v), std::move(lo), std::move(hi)};
  return e;
}

inline sql::Expr In(sql::Expr v, std::initializer_list<sql::Expr> items, bool negated = false) {
  sql::Expr e;
  e.kind = sql::Expr::Kind::kInList;
  e.type = sql::ValueType::kInteger;
  e.negated = negated;
  e.children.push_back(std::move(v));
  for (const sql::Expr& item : items)
    e.children.push_back(item);
  return e;
}

using Op = sql::BinaryOp;

// Whether `e` or an expression inside it is REAL (what devices without
// fp64 refuse).
inline bool HasReal(const sql::Expr& e) {
  if (e.type == sql::ValueType::kReal) return true;
  for (const sql::Expr& child : e.children)
    if (HasReal(child)) return true;
  return false;
}

}  // namespace clq::testing
