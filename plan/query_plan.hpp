// The planner's decisions for a bound SELECT: which filters run on which
// table, how tables are joined, and which pipeline computes the outputs.
// plan/planner.hpp turns them into the physical plan that runs and explains
// itself.
//
// Decisions:
//  - WHERE is split into AND-conjuncts; a conjunct reading one table is pushed
//    below the joins and evaluated by that table's filter pass, unless the
//    query joins and the conjunct can raise an integer overflow: those run
//    last, on the joined rows, in the WHERE's order (value_range's
//    MayOverflow decides), so that rows the join drops never raise;
//  - a conjunct `expr(A) = expr(B)` between two tables with integer operands
//    is a join edge; tables are joined greedily, the smaller estimated input
//    building the hash table (estimates from column value ranges); other
//    multi-table conjuncts are residual filters evaluated on the joined rows;
//  - an incoming table's filters that keep most of its rows (>= 50%), joining
//    few rows (<= 25% of its own), move past the join into the residual;
//  - a single-table aggregate without GROUP BY fuses its filter into the
//    aggregation pass (one read of the columns);
//  - a LEFT JOIN's ON is one integer equality with a table before it (its
//    edge, which joins it only once that table is joined, never as the
//    joined side of another edge) and conditions on its own table (its
//    filters); the WHERE's conjuncts that read it run after its join.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "runtime/engine.hpp"
#include "sql/bound.hpp"

namespace clq {

struct SourcePlan {
  std::size_t source = 0;
  std::vector<sql::Expr> filters;  // conjuncts that read only this source
  // > 0 when this source's filters were moved past its join into the
  // residual (they keep this estimated fraction of its rows).
  double deferred_selectivity = 0;
};

struct JoinEdge {
  std::size_t left_source = 0;
  std::size_t right_source = 0;
  sql::Expr left_key;   // reads only left_source
  sql::Expr right_key;  // reads only right_source
  // LEFT JOIN of right_source: a joined row that no row of it matches is kept
  // once, with right_source's columns NULL.
  bool outer = false;
};

enum class AggregationMode { kNone, kUngrouped, kGrouped };

struct QueryPlan {
  const sql::BoundSelect* select = nullptr;
  std::vector<SourcePlan> sources;   // one per FROM entry, same order
  std::vector<JoinEdge> join_edges;  // in the order they are applied
  std::vector<sql::Expr> residual;   // multi-table conjuncts applied after the joins
  AggregationMode aggregation = AggregationMode::kNone;
  bool fused_aggregate = false;     // single source, ungrouped, filter fused, no MEDIAN
  bool needs_radix_select = false;  // MEDIAN / QUANTILE without GROUP BY
};

QueryPlan PlanQuery(const sql::BoundSelect& select);

// The distinct (source, column) pairs `e` reads, appended to `out` in the
// order first read.
void ColumnsOf(const sql::Expr& e, std::vector<std::pair<std::size_t, std::size_t>>& out);

// The distinct (source, column) pairs the statement reads anywhere.
std::vector<std::pair<std::size_t, std::size_t>> ColumnsRead(const sql::BoundSelect& select);

// Bytes per row of each source's columns the statement reads (a column's
// width, and a NULL byte where it is nullable).
std::vector<std::uint64_t> ReadBytesPerRow(const sql::BoundSelect& select);

// Sources (FROM indexes) an expression reads, ascending.
std::vector<std::size_t> SourcesOf(const sql::Expr& expr);

// Splits an expression into its AND-conjuncts.
void SplitConjuncts(const sql::Expr& expr, std::vector<sql::Expr>& out);

// The conjunction of `conjuncts` (left-deep ANDs); nullopt when empty.
std::optional<sql::Expr> AndAll(const std::vector<sql::Expr>& conjuncts);

}  // namespace clq
