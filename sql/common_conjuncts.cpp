#include "sql/common_conjuncts.hpp"

#include <algorithm>
#include <iterator>
#include <optional>
#include <vector>

#include "sql/expr_equality.hpp"

namespace clq::sql {
namespace {

// The value of integer constants under +, - and *, where none overflows
// (the binder writes a DECIMAL bound such as 1 + 10 as (1 + 10) * 100).
std::optional<std::int64_t> ConstantInteger(const Expr& e) {
  if (e.kind == Expr::Kind::kConstant)
    return e.constant.type == ValueType::kInteger ? std::optional(e.constant.integer)
                                                  : std::nullopt;
  if (e.kind != Expr::Kind::kBinary || e.type != ValueType::kInteger) return std::nullopt;
  const std::optional<std::int64_t> a = ConstantInteger(e.children[0]);
  const std::optional<std::int64_t> b = ConstantInteger(e.children[1]);
  if (!a || !b) return std::nullopt;
  std::int64_t out = 0;
  switch (e.binary_op) {
    case BinaryOp::kAdd:
      if (__builtin_add_overflow(*a, *b, &out)) return std::nullopt;
      return out;
    case BinaryOp::kSubtract:
      if (__builtin_sub_overflow(*a, *b, &out)) return std::nullopt;
      return out;
    case BinaryOp::kMultiply:
      if (__builtin_mul_overflow(*a, *b, &out)) return std::nullopt;
      return out;
    default:
      return std::nullopt;
  }
}

bool CannotRaise(const Expr& e) {
  if (ConstantInteger(e)) return true;
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

// The one source whose columns `e` reads; none where it reads none, several,
// or a value of a subquery.
std::optional<std::size_t> OnlySource(const Expr& e) {
  std::optional<std::size_t> found;
  bool other = false;
  const auto visit = [&](const Expr& x, auto&& self) -> void {
    if (x.kind == Expr::Kind::kColumnRef) {
      if (found && *found != x.source) other = true;
      found = x.source;
    } else if (x.kind != Expr::Kind::kConstant && x.kind != Expr::Kind::kUnary &&
               x.kind != Expr::Kind::kBinary && x.kind != Expr::Kind::kBetween &&
               x.kind != Expr::Kind::kInList && x.kind != Expr::Kind::kLike &&
               x.kind != Expr::Kind::kSubstring && x.kind != Expr::Kind::kCase) {
      other = true;
    }
    for (const Expr& child : x.children)
      self(child, self);
  };
  visit(e, visit);
  if (other) return std::nullopt;
  return found;
}

// The conjuncts `disjunction` implies of single sources (see
// AddImpliedSourceConjuncts), appended to `out`.
void ImpliedOf(const Expr& disjunction, const std::vector<std::size_t>& filtered,
               std::vector<Expr>& out) {
  // An OR of one source is a filter of that source as it stands.
  if (OnlySource(disjunction)) return;
  std::vector<Expr> branches;
  SplitChain(disjunction, BinaryOp::kOr, branches);
  if (branches.size() < 2) return;
  // Per branch, its conjuncts by the one source each reads.
  std::vector<std::vector<std::pair<std::size_t, Expr>>> by_source(branches.size());
  std::vector<std::size_t> sources;
  for (std::size_t b = 0; b < branches.size(); ++b) {
    std::vector<Expr> conjuncts;
    SplitChain(std::move(branches[b]), BinaryOp::kAnd, conjuncts);
    for (Expr& c : conjuncts) {
      const std::optional<std::size_t> source = OnlySource(c);
      if (!source || !CannotRaise(c)) continue;
      if (b == 0 && std::find(sources.begin(), sources.end(), *source) == sources.end())
        sources.push_back(*source);
      by_source[b].emplace_back(*source, std::move(c));
    }
  }
  for (const std::size_t source : sources) {
    if (std::find(filtered.begin(), filtered.end(), source) != filtered.end()) continue;
    std::vector<Expr> implied;
    for (const auto& branch : by_source) {
      std::vector<Expr> of_source;
      for (const auto& [s, c] : branch)
        if (s == source) of_source.push_back(c);
      if (of_source.empty()) break;
      implied.push_back(JoinChain(std::move(of_source), BinaryOp::kAnd));
    }
    if (implied.size() == by_source.size()) {
      out.push_back(JoinChain(std::move(implied), BinaryOp::kOr));
      out.back().implied = true;
    }
  }
}

}  // namespace

Expr AddImpliedSourceConjuncts(Expr condition) {
  std::vector<Expr> conjuncts;
  SplitChain(condition, BinaryOp::kAnd, conjuncts);
  // Sources the WHERE filters already: an implied conjunct there would only
  // refine a filter, at a second test per row of that source, for rows the
  // OR drops after the joins anyway (TPC-H Q19's lineitem, filtered by its
  // ship mode and instruction: on a GPU its WHERE became a 64-bit program
  // and cost more than the rows it saved the join).
  std::vector<std::size_t> filtered;
  for (const Expr& c : conjuncts)
    if (const std::optional<std::size_t> source = OnlySource(c)) filtered.push_back(*source);
  std::vector<Expr> implied;
  for (const Expr& c : conjuncts)
    if (c.kind == Expr::Kind::kBinary && c.binary_op == BinaryOp::kOr)
      ImpliedOf(c, filtered, implied);
  if (implied.empty()) return condition;
  conjuncts.insert(conjuncts.end(), std::make_move_iterator(implied.begin()),
                   std::make_move_iterator(implied.end()));
  return JoinChain(std::move(conjuncts), BinaryOp::kAnd);
}

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
