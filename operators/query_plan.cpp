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
  for (const Expr& child : e.children)
    CollectSources(child, out);
}

bool IsJoinKeyType(const Expr& e) {
  return e.type == sql::ValueType::kInteger;
}

// Rough size after filters, to choose join order and build sides.
double EstimatedRows(const sql::BoundSelect& select, const SourcePlan& source) {
  double rows = static_cast<double>(select.from[source.source].table->rows());
  for (std::size_t i = 0; i < source.filters.size(); ++i)
    rows *= 0.3;
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

std::optional<Expr> AndAll(const std::vector<Expr>& conjuncts) {
  if (conjuncts.empty()) return std::nullopt;
  Expr result = conjuncts[0];
  for (std::size_t i = 1; i < conjuncts.size(); ++i) {
    Expr both;
    both.kind = Expr::Kind::kBinary;
    both.type = sql::ValueType::kInteger;
    both.binary_op = sql::BinaryOp::kAnd;
    both.children = {std::move(result), conjuncts[i]};
    result = std::move(both);
  }
  return result;
}

QueryPlan PlanQuery(const sql::BoundSelect& select) {
  QueryPlan plan;
  plan.select = &select;
  if (select.from.empty()) throw InvalidInputError("SELECT without FROM is not supported");
  for (std::size_t s = 0; s < select.from.size(); ++s)
    plan.sources.push_back({s, {}});

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
      if (EstimatedRows(select, plan.sources[s]) < EstimatedRows(select, plan.sources[start]))
        start = s;
    joined[start] = true;
    std::vector<bool> used(candidate_edges.size(), false);
    for (std::size_t step = 1; step < select.from.size(); ++step) {
      std::optional<std::size_t> best;
      double best_rows = 0;
      for (std::size_t e = 0; e < candidate_edges.size(); ++e) {
        if (used[e]) continue;
        const JoinEdge& edge = candidate_edges[e];
        if (joined[edge.left_source] == joined[edge.right_source]) continue;
        const std::size_t incoming =
            joined[edge.left_source] ? edge.right_source : edge.left_source;
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

namespace clq {
namespace {

std::string Join(const std::vector<std::string>& parts, const std::string& separator) {
  std::string text;
  for (std::size_t i = 0; i < parts.size(); ++i)
    text += (i ? separator : "") + parts[i];
  return text;
}

std::string ExprText(const sql::BoundSelect& select, const sql::Expr& e) {
  return e.ToString([&](const sql::Expr& leaf) {
    const sql::TableRef& ref = select.from.at(leaf.source);
    return ref.alias + "." + ref.table->column(leaf.index).name();
  });
}

std::string Groups(const Engine& engine, RowCount rows) {
  return std::to_string(engine.TilesFor(rows)) + " work-groups";
}

}  // namespace

std::string ExplainPlan(const QueryPlan& plan, const Engine& engine) {
  const sql::BoundSelect& select = *plan.select;
  const DeviceTuning& tuning = engine.tuning();
  std::vector<std::string> lines;
  lines.push_back("device: " + engine.info().name + " (" + engine.info().platform_name + "), " +
                  tuning.Describe() + ", tile " + std::to_string(tuning.tile_size()) + " rows");
  std::size_t step = 1;
  auto add = [&](const std::string& text) {
    lines.push_back(std::to_string(step++) + ". " + text);
  };

  for (const SourcePlan& source : plan.sources) {
    const sql::TableRef& ref = select.from[source.source];
    const RowCount rows = ref.table->rows();
    const std::size_t tablets = engine.TabletCountFor(*ref.table);
    std::string scan = "scan " + ref.table->name() +
                       (ref.alias != ref.table->name() ? " AS " + ref.alias : "") + ": " +
                       std::to_string(rows) + " rows in " + std::to_string(tablets) +
                       (tablets == 1 ? " tablet" : " tablets") + ", columns uploaded on first use";
    add(scan);
    if (source.filters.empty()) continue;
    std::vector<std::string> filters;
    for (const sql::Expr& f : source.filters)
      filters.push_back(ExprText(select, f));
    if (plan.fused_aggregate) {
      add("filter fused into vm_aggregate: " + Join(filters, " AND "));
      continue;
    }
    add("vm_filter (" + Groups(engine, rows) + "): " + Join(filters, " AND ") +
        " -> bitmap + count per tile");
    add("scan_tiles / scan_add_offsets: exclusive scan of " +
        std::to_string(engine.TilesFor(rows)) + " tile counts");
    add("selection_scatter (" + Groups(engine, rows) + ") -> row ids");
  }
  for (const JoinEdge& edge : plan.join_edges) {
    add("hash join " + select.from[edge.left_source].alias + " with " +
        select.from[edge.right_source].alias + " on " + ExprText(select, edge.left_key) + " = " +
        ExprText(select, edge.right_key) +
        ": keys by vm_project/gather, build on the smaller side (direct, cuckoo or chained "
        "table, chosen from the build keys at run time), probe count -> scan -> write row-id "
        "pairs");
  }
  if (!plan.residual.empty()) {
    std::vector<std::string> residual;
    for (const sql::Expr& f : plan.residual)
      residual.push_back(ExprText(select, f));
    add("gather columns, vm_filter + scan + selection_scatter on joined rows: " +
        Join(residual, " AND "));
  }
  std::vector<std::string> aggregates;
  for (const sql::Aggregate& a : select.aggregates)
    aggregates.push_back(std::string(sql::AggregateName(a.function)) + "(" +
                         (a.argument ? ExprText(select, *a.argument) : "*") + ")");
  switch (plan.aggregation) {
    case AggregationMode::kNone:
      break;
    case AggregationMode::kUngrouped:
      add(std::string(plan.fused_aggregate ? "" : "gather arguments, ") +
          "vm_aggregate (local-memory reduction per work-group) + vm_aggregate_merge: " +
          Join(aggregates, ", "));
      if (plan.needs_radix_select) add("radix select for MEDIAN / QUANTILE");
      break;
    case AggregationMode::kGrouped: {
      std::vector<std::string> keys;
      for (const sql::Expr& k : select.group_keys)
        keys.push_back(ExprText(select, k));
      add("group by " + Join(keys, ", ") + " (hash aggregation): " +
          (aggregates.empty() ? std::string("no aggregates") : Join(aggregates, ", ")));
      if (select.having) add("HAVING filter on groups");
      break;
    }
  }
  if (plan.aggregation != AggregationMode::kUngrouped) {
    std::size_t computed = 0, gathered = 0;
    for (std::size_t o = 0; o < select.outputs.size(); ++o) {
      if (select.outputs[o].expr.kind == sql::Expr::Kind::kColumnRef) {
        ++gathered;
      } else {
        ++computed;
      }
    }
    add("outputs: " + std::to_string(gathered) + " columns gathered by row id, " +
        std::to_string(computed) + " computed by vm_project");
  }
  if (select.distinct) add("DISTINCT: group by every output");
  if (!select.order_by.empty())
    add(std::string("ORDER BY: LSD radix sort") + (select.limit ? " (top-k for LIMIT)" : "") +
        " -> permutation -> gather");
  if (select.limit || select.offset) add("LIMIT/OFFSET");
  add("download the result");
  return Join(lines, "\n") + "\n";
}

}  // namespace clq
