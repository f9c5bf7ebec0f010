#include "sql/common_conjuncts.hpp"

#include <vector>

#include "sql/expr_equality.hpp"

namespace clq::sql {
namespace {

bool CannotRaise(const Expr& e) {
  if (e.kind == Expr::Kind::kCast) return false;
  if (e.kind == Expr::Kind::kBinary && e.binary_op != BinaryOp::kAnd &&
      e.binary_op != BinaryOp::kOr && e.binary_op != BinaryOp::kEqual &&
      e.binary_op != BinaryOp::kNotEqual && e.binary_op != BinaryOp::kLess &&
      e.binary_op != BinaryOp::kLessEqual && e.binary_op != BinaryOp::kGreater &&
      e.binary_op != BinaryOp::kGreaterEqual)
    return false;
  if (e.kind == Expr::Kind::kUnary && e.unary_op == UnaryOp::kNegate) return false;
  for (const Expr& child : e.children)
    if (!CannotRaise(child)) return false;
  return true;
}

// Equal, or an equality with its sides swapped (a = b and b = a).
bool SameConjunct(const Expr& a, const Expr& b) {
  if (StructurallyEqual(a, b)) return true;
  return a.kind == Expr::Kind::kBinary && b.kind == Expr::Kind::kBinary &&
         a.binary_op == BinaryOp::kEqual && b.binary_op == BinaryOp::kEqual &&
         StructurallyEqual(a.children[0], b.children[1]) &&
         StructurallyEqual(a.children[1], b.children[0]);
}

// One OR, factored: the conjuncts every branch has go to `common`; returns
// what is left of the OR, or none when a branch had nothing else (then the
// OR is implied by the common conjuncts).
std::optional<Expr> Factor(Expr disjunction, std::vector<Expr>& common) {
  std::vector<Expr> branches;
  SplitChain(std::move(disjunction), BinaryOp::kOr, branches);
  std::vector<std::vector<Expr>> conjuncts(branches.size());
  for (std::size_t b = 0; b < branches.size(); ++b)
    SplitChain(std::move(branches[b]), BinaryOp::kAnd, conjuncts[b]);
  std::vector<Expr> shared;
  for (const Expr& candidate : conjuncts[0]) {
    if (!CannotRaise(candidate)) continue;
    bool everywhere = true;
    for (std::size_t b = 1; b < conjuncts.size() && everywhere; ++b) {
      bool found = false;
      for (const Expr& c : conjuncts[b])
        found = found || SameConjunct(c, candidate);
      everywhere = found;
    }
    bool seen = false;
    for (const Expr& s : shared)
      seen = seen || SameConjunct(s, candidate);
    if (everywhere && !seen) shared.push_back(candidate);
  }
  bool implied = false;
  std::vector<Expr> rest;
  for (std::vector<Expr>& branch : conjuncts) {
    std::vector<Expr> kept;
    for (Expr& c : branch) {
      bool is_shared = false;
      for (const Expr& s : shared)
        is_shared = is_shared || SameConjunct(s, c);
      if (!is_shared) kept.push_back(std::move(c));
    }
    if (kept.empty()) implied = true;
    if (!kept.empty()) rest.push_back(JoinChain(std::move(kept), BinaryOp::kAnd));
  }
  for (Expr& s : shared)
    common.push_back(std::move(s));
  if (implied || rest.empty()) return std::nullopt;
  return JoinChain(std::move(rest), BinaryOp::kOr);
}

}  // namespace

Expr FactorCommonConjuncts(Expr condition) {
  const Expr original = condition;  // returned as it is when no OR shares a conjunct
  std::vector<Expr> conjuncts;
  SplitChain(std::move(condition), BinaryOp::kAnd, conjuncts);
  std::vector<Expr> out;
  bool changed = false;
  for (Expr& c : conjuncts) {
    if (c.kind != Expr::Kind::kBinary || c.binary_op != BinaryOp::kOr) {
      out.push_back(std::move(c));
      continue;
    }
    std::vector<Expr> common;
    std::optional<Expr> rest = Factor(c, common);
    if (common.empty()) {
      out.push_back(std::move(c));
      continue;
    }
    changed = true;
    for (Expr& e : common)
      out.push_back(std::move(e));
    if (rest) out.push_back(std::move(*rest));
  }
  if (!changed) return original;
  return JoinChain(std::move(out), BinaryOp::kAnd);
}

}  // namespace clq::sql
