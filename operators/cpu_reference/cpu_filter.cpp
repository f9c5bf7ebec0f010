#include "operators/cpu_reference/cpu_filter.hpp"

#include <algorithm>

#include "common/errors.hpp"

namespace clq::cpu_reference {
namespace {

void CollectSources(const sql::Expr& expr, std::vector<std::size_t>& sources) {
  if (expr.kind == sql::Expr::Kind::kColumnRef) sources.push_back(expr.source);
  for (const sql::Expr& child : expr.children)
    CollectSources(child, sources);
}

}  // namespace

void SplitConjuncts(const sql::Expr& expr, std::vector<const sql::Expr*>& conjuncts) {
  if (expr.kind == sql::Expr::Kind::kBinary && expr.binary_op == sql::BinaryOp::kAnd &&
      expr.children.size() == 2) {
    SplitConjuncts(expr.children[0], conjuncts);
    SplitConjuncts(expr.children[1], conjuncts);
    return;
  }
  conjuncts.push_back(&expr);
}

std::vector<std::size_t> ReferencedSources(const sql::Expr& expr) {
  std::vector<std::size_t> sources;
  CollectSources(expr, sources);
  std::sort(sources.begin(), sources.end());
  sources.erase(std::unique(sources.begin(), sources.end()), sources.end());
  return sources;
}

std::vector<Position> TruePositions(const ValueVector& predicate) {
  std::vector<Position> kept;
  AppendTruePositions(predicate, 0, kept);
  return kept;
}

void AppendTruePositions(const ValueVector& predicate, Position offset,
                         std::vector<Position>& kept) {
  const std::size_t n = predicate.size();
  switch (predicate.type) {
    case sql::ValueType::kInteger:
      for (std::size_t i = 0; i < n; ++i)
        if (predicate.nulls[i] == 0 && predicate.integers[i] != 0) kept.push_back(offset + i);
      break;
    case sql::ValueType::kReal:
      for (std::size_t i = 0; i < n; ++i)
        if (predicate.nulls[i] == 0 && predicate.reals[i] != 0.0) kept.push_back(offset + i);
      break;
    case sql::ValueType::kText:
      throw InvalidInputError("TEXT used as a truth value");
    case sql::ValueType::kNull:
      break;
  }
}

}  // namespace clq::cpu_reference
