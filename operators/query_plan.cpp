#include "operators/query_plan.hpp"

#include <algorithm>
#include <functional>

#include "runtime/errors.hpp"

namespace clq {
namespace {

using sql::AggregateFunction;
using sql::Expr;

void CollectSources(const Expr& e, std::vector<std::size_t>& out) {
  if (e.kind == Expr::Kind::kColumnRef) {
    if (std::find(out.begin(), out.end(), e.source) == out.end()) out.push_back(e.source);
    return;
  }
  for (const Expr& child : e.children) CollectSources(child, out);
}

bool IsJoinKeyType(const Expr& e) { return e.type == sql::ValueType::kInteger; }

// Rough size after filters, to choose join order and build sides.
double EstimatedRows(const sql::BoundSelect& select, const SourcePlan& source) {
  double rows = static_cast<double>(select.from[source.source].table->rows());
  for (std::size_t i = 0; i < source.filters.size(); ++i) rows *= 0.3;
  return rows;
}

}  // namespace

std::vector<std::size_t> SourcesOf(const Expr& expr) {
  std::vector<std::size_t> sources;
  CollectSources(expr, sources);
  std::sort(sources.begin(), sources.end());
  return sources;
}

void SplitConjuncts(const Expr& expr, std::vector<Expr>& out) {
  if (expr.kind == Expr::Kind::kBinary && expr.binary_op == sql::BinaryOp::kAnd) {
    SplitConjuncts(expr.children[0], out);
    SplitConjuncts(expr.children[1], out);
  } else {
    out.push_back(expr);
  }
}

QueryPlan PlanQuery(const sql::BoundSelect& select) {
  QueryPlan plan;
  plan.select = &select;
  if (select.from.empty()) throw InvalidInputError("SELECT without FROM is not supported");
  for (std::size_t s = 0; s < select.from.size(); ++s) plan.sources.push_back({s, {}});

  std::vector<Expr> conjuncts;
  if (select.where) SplitConjuncts(*select.where, conjuncts);
  std::vector<JoinEdge> candidate_edges;
  for (Expr& c : conjuncts) {
    const std::vector<std::size_t> sources = SourcesOf(c);
    if (sources.size() <= 1) {
      // Constant conjuncts (no table) filter the first source: same rows either way.
      plan.sources[sources.empty() ? 0 : sources[0]].filters.push_back(std::move(c));
      continue;
    }
    if (sources.size() == 2 && c.kind == Expr::Kind::kBinary &&
        c.binary_op == sql::BinaryOp::kEqual) {
      const std::vector<std::size_t> left = SourcesOf(c.children[0]);
      const std::vector<std::size_t> right = SourcesOf(c.children[1]);
      if (left.size() == 1 && right.size() == 1 && left[0] != right[0] &&
          IsJoinKeyType(c.children[0]) && IsJoinKeyType(c.children[1])) {
        candidate_edges.push_back({left[0], right[0], c.children[0], c.children[1]});
        continue;
      }
    }
    plan.residual.push_back(std::move(c));
  }

  // Greedy join order: start from the smallest filtered input, then repeatedly
  // join the smallest table connected to what is joined so far.
  if (select.from.size() > 1) {
    std::vector<bool> joined(select.from.size(), false);
    std::size_t start = 0;
    for (std::size_t s = 1; s < select.from.size(); ++s)
      if (EstimatedRows(select, plan.sources[s]) < EstimatedRows(select, plan.sources[start])) start = s;
    joined[start] = true;
    std::vector<bool> used(candidate_edges.size(), false);
    for (std::size_t step = 1; step < select.from.size(); ++step) {
      std::optional<std::size_t> best;
      double best_rows = 0;
      for (std::size_t e = 0; e < candidate_edges.size(); ++e) {
        if (used[e]) continue;
        const JoinEdge& edge = candidate_edges[e];
        if (joined[edge.left_source] == joined[edge.right_source]) continue;
        const std::size_t incoming = joined[edge.left_source] ? edge.right_source : edge.left_source;
        const double rows = EstimatedRows(select, plan.sources[incoming]);
        if (!best || rows < best_rows) {
          best = e;
          best_rows = rows;
        }
      }
      if (!best) {
        throw InvalidInputError(
            "the tables in FROM are not all connected by equality conditions on integer "
            "expressions; cross joins are not supported");
      }
      used[*best] = true;
      JoinEdge edge = candidate_edges[*best];
      // Orient the edge: the left side is already joined.
      if (!joined[edge.left_source]) {
        std::swap(edge.left_source, edge.right_source);
        std::swap(edge.left_key, edge.right_key);
      }
      joined[edge.right_source] = true;
      plan.join_edges.push_back(std::move(edge));
    }
    // Edges not used to connect tables (cycles) are checked after the joins.
    for (std::size_t e = 0; e < candidate_edges.size(); ++e) {
      if (used[e]) continue;
      Expr equal;
      equal.kind = Expr::Kind::kBinary;
      equal.type = sql::ValueType::kInteger;
      equal.binary_op = sql::BinaryOp::kEqual;
      equal.children = {candidate_edges[e].left_key, candidate_edges[e].right_key};
      plan.residual.push_back(std::move(equal));
    }
  }

  if (!select.aggregated) {
    plan.aggregation = AggregationMode::kNone;
  } else if (select.group_keys.empty()) {
    plan.aggregation = AggregationMode::kUngrouped;
    plan.fused_aggregate = select.from.size() == 1;
    for (const sql::Aggregate& a : select.aggregates) {
      if (a.function == AggregateFunction::kMedian || a.function == AggregateFunction::kQuantile)
        plan.needs_radix_select = true;
    }
  } else {
    plan.aggregation = AggregationMode::kGrouped;
  }
  return plan;
}

}  // namespace clq
