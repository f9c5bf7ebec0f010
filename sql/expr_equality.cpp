#include "sql/expr_equality.hpp"

#include <cstring>

namespace clq::sql {
namespace {

bool SameValue(const Value& a, const Value& b) {
  if (a.type != b.type) return false;
  switch (a.type) {
    case ValueType::kNull:
      return true;
    case ValueType::kInteger:
      return a.integer == b.integer;
    case ValueType::kReal:
      // Bitwise, so that 0.0 and -0.0 stay apart.
      return std::memcmp(&a.real, &b.real, sizeof a.real) == 0;
    case ValueType::kText:
      return a.text == b.text;
  }
  return false;
}

}  // namespace

bool StructurallyEqual(const Expr& a, const Expr& b) {
  if (a.kind != b.kind || a.type != b.type || a.children.size() != b.children.size()) return false;
  switch (a.kind) {
    case Expr::Kind::kColumnRef:
      if (a.source != b.source || a.index != b.index) return false;
      break;
    case Expr::Kind::kConstant:
      if (!SameValue(a.constant, b.constant)) return false;
      break;
    case Expr::Kind::kUnary:
      if (a.unary_op != b.unary_op) return false;
      break;
    case Expr::Kind::kBinary:
      if (a.binary_op != b.binary_op) return false;
      break;
    case Expr::Kind::kBetween:
    case Expr::Kind::kInList:
      if (a.negated != b.negated) return false;
      break;
    case Expr::Kind::kCast:
    case Expr::Kind::kCase:
    case Expr::Kind::kSubstring:
      break;
    case Expr::Kind::kTextOfCode:
      if (a.dictionary != b.dictionary) return false;
      break;
    case Expr::Kind::kLike:
      if (a.negated != b.negated || !SameValue(a.constant, b.constant)) return false;
      break;
    case Expr::Kind::kGroupRef:
    case Expr::Kind::kAggregateRef:
    case Expr::Kind::kOutputRef:
    case Expr::Kind::kSubqueryValue:
      if (a.index != b.index) return false;
      break;
  }
  for (std::size_t i = 0; i < a.children.size(); ++i)
    if (!StructurallyEqual(a.children[i], b.children[i])) return false;
  return true;
}

bool StructurallyEqual(const Aggregate& a, const Aggregate& b) {
  if (a.function != b.function || a.type != b.type || a.quantile != b.quantile) return false;
  if (a.argument.has_value() != b.argument.has_value()) return false;
  return !a.argument || StructurallyEqual(*a.argument, *b.argument);
}

bool ContainsKind(const Expr& expr, Expr::Kind kind) {
  if (expr.kind == kind) return true;
  for (const Expr& child : expr.children)
    if (ContainsKind(child, kind)) return true;
  return false;
}

}  // namespace clq::sql
