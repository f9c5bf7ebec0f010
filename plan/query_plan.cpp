#include "plan/query_plan.hpp"

#include <algorithm>
#include <cmath>
#include <exception>
#include <functional>
#include <iterator>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/value_range.hpp"
#include "plan/compiled_expressions.hpp"

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

// Fraction of a table's rows a conjunct keeps. A comparison of an integer
// column with a constant is estimated from the column's value range, values
// taken as uniform over [min, max] (exact for Wisconsin's unique1/unique2,
// which are permutations); anything else is a guess of 0.3.
double EstimatedSelectivity(const sql::BoundSelect& select, const Expr& conjunct) {
  constexpr double kGuess = 0.3;
  if (conjunct.kind != Expr::Kind::kBinary || conjunct.children.size() != 2) return kGuess;
  const Expr* column = &conjunct.children[0];
  const Expr* constant = &conjunct.children[1];
  sql::BinaryOp op = conjunct.binary_op;
  if (column->kind == Expr::Kind::kConstant && constant->kind == Expr::Kind::kColumnRef) {
    std::swap(column, constant);
    op = sql::MirroredComparison(op);
  }
  if (column->kind != Expr::Kind::kColumnRef || constant->kind != Expr::Kind::kConstant)
    return kGuess;
  double k = 0;
  if (constant->constant.type == sql::ValueType::kInteger) {
    k = static_cast<double>(constant->constant.integer);
  } else if (constant->constant.type == sql::ValueType::kReal) {
    k = constant->constant.real;
  } else {
    return kGuess;
  }
  const std::optional<IntRange> range =
      select.from[column->source].table->column(column->index).shared_data()->IntegerRange();
  if (!range || std::isnan(k)) return kGuess;
  const double lo = static_cast<double>(range->min);
  const double hi = static_cast<double>(range->max);
  const double values = hi - lo + 1;
  const bool integral = std::floor(k) == k && k >= lo && k <= hi;
  double kept = 0;  // integers v in [lo, hi] with `v op k`
  switch (op) {
    case sql::BinaryOp::kLess:
      kept = std::ceil(k) - lo;
      break;
    case sql::BinaryOp::kLessEqual:
      kept = std::floor(k) - lo + 1;
      break;
    case sql::BinaryOp::kGreater:
      kept = hi - std::floor(k);
      break;
    case sql::BinaryOp::kGreaterEqual:
      kept = hi - std::ceil(k) + 1;
      break;
    case sql::BinaryOp::kEqual:
      kept = integral ? 1 : 0;
      break;
    case sql::BinaryOp::kNotEqual:
      kept = values - (integral ? 1 : 0);
      break;
    default:
      return kGuess;
  }
  return std::clamp(kept / values, 0.0, 1.0);
}

double EstimatedSelectivity(const sql::BoundSelect& select, const std::vector<Expr>& filters) {
  double kept = 1;
  for (const Expr& f : filters)
    kept *= EstimatedSelectivity(select, f);
  return kept;
}

// Size after filters, to choose join order and build sides.
double EstimatedRows(const sql::BoundSelect& select, const SourcePlan& source) {
  return static_cast<double>(select.from[source.source].table->rows()) *
         EstimatedSelectivity(select, source.filters);
}

// An incoming table whose filters keep most of its rows, joining rows so far
// that are few, is better joined whole and filtered after the join: the
// filter would only have turned the probe of its key column in place into a
// scatter of nearly every row id and a gather of the keys (the thesis's
// combined query: t2.unique2 > 1000 keeps 59,999,000 of 60M rows, and the
// join leaves under 6,000). Moving a conjunct of an inner join from below
// the join to above it keeps the result. `joined_rows` is the estimated size
// of what is joined so far; it becomes the estimated join output (each
// joined row matching at most one incoming row, the key / foreign-key case).
// A table whose join keys can raise keeps its filters (`keys_may_raise`):
// its keys are computed on the rows its filters pass, and joined whole, the
// join would compute them on rows the filters reject.
void DeferUnselectiveFilters(const sql::BoundSelect& select, SourcePlan& incoming,
                             bool keys_may_raise, double& joined_rows, QueryPlan& plan) {
  constexpr double kMostRows = 0.5;
  constexpr double kFewJoinedRows = 0.25;
  const double table_rows = static_cast<double>(select.from[incoming.source].table->rows());
  const double kept = EstimatedSelectivity(select, incoming.filters);
  const double incoming_rows = table_rows * kept;
  if (!incoming.filters.empty() && !keys_may_raise && !select.from[incoming.source].outer &&
      kept >= kMostRows && joined_rows <= kFewJoinedRows * table_rows) {
    incoming.deferred_selectivity = kept;
    for (Expr& f : incoming.filters)
      plan.residual.push_back(std::move(f));
    incoming.filters.clear();
  }
  joined_rows = std::min(joined_rows, incoming_rows);
}

// The distinct values a join key is estimated to take among `rows` rows: a
// column's distinct values where they are counted (ColumnData::
// DistinctValues), else its value range where it has one, capped by the
// rows of its table and by `rows`; an expression is taken for unique.
double EstimatedDistinct(const sql::BoundSelect& select, const ColumnRangeFn& ranges,
                         const Expr& key, double rows) {
  double distinct = rows;
  if (key.kind == Expr::Kind::kColumnRef) {
    const Table& table = *select.from[key.source].table;
    distinct = static_cast<double>(table.rows());
    if (const std::optional<IntRange> range = ranges(key))
      distinct =
          std::min(distinct, static_cast<double>(range->max) - static_cast<double>(range->min) + 1);
    if (const std::shared_ptr<const ColumnData> data = table.column(key.index).shared_data())
      if (const std::optional<RowCount> counted = data->DistinctValues())
        distinct = std::min(distinct, static_cast<double>(*counted));
  }
  return std::max(1.0, std::min(distinct, rows));
}

// The rows of joining `joined_rows` rows (key `joined_key`) with `incoming`
// (`incoming_rows` after its filters, key `incoming_key`): the textbook
// |R| |S| / max(V(R, a), V(S, b)), which is the larger side's rows for a key
// joined to a foreign key, and a product over few values for two foreign keys.
double EstimatedJoinRows(const sql::BoundSelect& select, const ColumnRangeFn& ranges,
                         const Expr& joined_key, double joined_rows, const Expr& incoming_key,
                         double incoming_rows) {
  const double distinct = std::max(EstimatedDistinct(select, ranges, joined_key, joined_rows),
                                   EstimatedDistinct(select, ranges, incoming_key, incoming_rows));
  return joined_rows * incoming_rows / distinct;
}

}  // namespace

void ColumnsOf(const sql::Expr& e, std::vector<std::pair<std::size_t, std::size_t>>& out) {
  if (e.kind == Expr::Kind::kColumnRef) {
    const std::pair<std::size_t, std::size_t> key{e.source, e.index};
    if (std::find(out.begin(), out.end(), key) == out.end()) out.push_back(key);
    return;
  }
  for (const sql::Expr& child : e.children)
    ColumnsOf(child, out);
}

std::vector<std::pair<std::size_t, std::size_t>> ColumnsRead(const sql::BoundSelect& select) {
  std::vector<std::pair<std::size_t, std::size_t>> columns;
  const auto add = [&](const sql::Expr& e) { ColumnsOf(e, columns); };
  if (select.where) add(*select.where);
  for (const sql::Expr& k : select.group_keys)
    add(k);
  for (const sql::Aggregate& a : select.aggregates)
    if (a.argument) add(*a.argument);
  if (select.having) add(*select.having);
  for (const sql::OutputColumn& o : select.outputs)
    add(o.expr);
  for (const sql::TableRef& ref : select.from)
    if (ref.on) add(*ref.on);
  return columns;
}

std::vector<std::uint64_t> ReadBytesPerRow(const sql::BoundSelect& select) {
  std::vector<std::uint64_t> bytes(select.from.size(), 0);
  for (const auto& [source, index] : ColumnsRead(select)) {
    const Column& column = select.from.at(source).table->column(index);
    bytes.at(source) += column.type().width + (column.nullable() ? 1 : 0);
  }
  return bytes;
}

std::vector<std::size_t> SourcesOf(const Expr& expr) {
  std::vector<std::size_t> sources;
  CollectSources(expr, sources);
  std::sort(sources.begin(), sources.end());
  return sources;
}

void SplitConjuncts(const Expr& expr, std::vector<Expr>& out) {
  sql::SplitChain(expr, sql::BinaryOp::kAnd, out);
}

std::optional<Expr> AndAll(const std::vector<Expr>& conjuncts) {
  if (conjuncts.empty()) return std::nullopt;
  return sql::JoinChain(conjuncts, sql::BinaryOp::kAnd);
}

namespace {

// A LEFT JOIN's ON as its edge (an integer equality with one table before
// it) and its own table's filters; anything else is refused by name.
// a OP b, INTEGER, at a's position.
Expr Arithmetic(sql::BinaryOp op, Expr a, Expr b) {
  Expr e;
  e.kind = Expr::Kind::kBinary;
  e.type = sql::ValueType::kInteger;
  e.binary_op = op;
  e.position = a.position;
  e.children.push_back(std::move(a));
  e.children.push_back(std::move(b));
  return e;
}

// The equalities `lefts[i] = rights[i]` as one equality of integer keys,
// each side's values combined in mixed radix (key * span + (value - low)
// per equality after the first, low and span bounding both sides'
// values), which is injective where every value lies within its bounds;
// nullopt where bounds are unknown or the combined key could overflow.
std::optional<std::pair<Expr, Expr>> CombinedKeys(const std::vector<Expr>& lefts,
                                                  const std::vector<Expr>& rights,
                                                  const ColumnRangeFn& column_ranges) {
  Expr left = lefts[0], right = rights[0];
  for (std::size_t i = 1; i < lefts.size(); ++i) {
    const std::optional<IntRange> a = IntegerRangeOf(lefts[i], column_ranges);
    const std::optional<IntRange> b = IntegerRangeOf(rights[i], column_ranges);
    if (!a || !b) return std::nullopt;
    const std::int64_t low = std::min(a->min, b->min);
    const std::int64_t high = std::max(a->max, b->max);
    // high >= low: their difference is exact in unsigned arithmetic.
    const std::uint64_t spread = static_cast<std::uint64_t>(high) - static_cast<std::uint64_t>(low);
    if (spread >= (std::uint64_t{1} << 62)) return std::nullopt;
    const auto span = static_cast<std::int64_t>(spread + 1);
    const auto combine = [&](Expr key, const Expr& value) {
      return Arithmetic(sql::BinaryOp::kAdd,
                        Arithmetic(sql::BinaryOp::kMultiply, std::move(key),
                                   sql::MakeConstant(sql::Value::Integer(span), value.position)),
                        Arithmetic(sql::BinaryOp::kSubtract, value,
                                   sql::MakeConstant(sql::Value::Integer(low), value.position)));
    };
    left = combine(std::move(left), lefts[i]);
    right = combine(std::move(right), rights[i]);
  }
  if (MayOverflow(left, column_ranges) || MayOverflow(right, column_ranges)) return std::nullopt;
  return std::pair{std::move(left), std::move(right)};
}

JoinEdge PlanOuterJoin(const sql::BoundSelect& select, std::size_t source, QueryPlan& plan,
                       const ColumnRangeFn& column_ranges) {
  std::vector<Expr> conjuncts;
  SplitConjuncts(*select.from[source].on, conjuncts);
  // The equalities with a table before it: that table's side, this one's.
  std::optional<std::size_t> other;
  std::vector<Expr> lefts, rights;
  for (Expr& c : conjuncts) {
    const std::vector<std::size_t> sources = SourcesOf(c);
    if (sources.empty() || (sources.size() == 1 && sources[0] == source)) {
      plan.sources[source].filters.push_back(std::move(c));
      continue;
    }
    if (sources.size() == 2 && c.kind == Expr::Kind::kBinary &&
        c.binary_op == sql::BinaryOp::kEqual) {
      const std::vector<std::size_t> left = SourcesOf(c.children[0]);
      const std::vector<std::size_t> right = SourcesOf(c.children[1]);
      if (left.size() == 1 && right.size() == 1 && left[0] != right[0] &&
          (left[0] == source || right[0] == source) && IsJoinKeyType(c.children[0]) &&
          IsJoinKeyType(c.children[1])) {
        const bool right_is_joined = right[0] == source;
        const std::size_t before = right_is_joined ? left[0] : right[0];
        if (!other || *other == before) {
          other = before;
          lefts.push_back(right_is_joined ? c.children[0] : c.children[1]);
          rights.push_back(right_is_joined ? c.children[1] : c.children[0]);
          continue;
        }
      }
    }
    throw InvalidInputError(
        "LEFT JOIN " + select.from[source].alias +
        ": its ON may hold equalities of integer expressions with one table before it and "
        "conditions on " +
        select.from[source].alias +
        " alone; this condition is neither: " + ExpressionText(select, c));
  }
  if (!other)
    throw InvalidInputError("LEFT JOIN " + select.from[source].alias +
                            ": its ON needs an equality of integer expressions with a table "
                            "before it");
  if (lefts.size() == 1) return JoinEdge{*other, source, lefts[0], rights[0], true};
  std::optional<std::pair<Expr, Expr>> keys = CombinedKeys(lefts, rights, column_ranges);
  if (!keys)
    throw InvalidInputError(
        "LEFT JOIN " + select.from[source].alias + ": its " + std::to_string(lefts.size()) +
        " equalities join as one key combined from their values, which needs every key but the "
        "first bounded (a column, or arithmetic on columns) and the combination within 64 bits");
  return JoinEdge{*other, source, std::move(keys->first), std::move(keys->second), true};
}

}  // namespace

QueryPlan PlanQuery(const sql::BoundSelect& select) {
  QueryPlan plan;
  plan.select = &select;
  if (select.from.empty()) throw InvalidInputError("SELECT without FROM is not supported");
  for (std::size_t s = 0; s < select.from.size(); ++s)
    plan.sources.push_back({s, {}});

  std::vector<Expr> conjuncts;
  if (select.where) SplitConjuncts(*select.where, conjuncts);
  std::vector<JoinEdge> candidate_edges;
  std::vector<std::size_t> edge_positions;  // each candidate edge's place in the WHERE
  // Conjuncts that can raise an overflow, with their places in the WHERE:
  // with joins, they run on the joined rows after every other conjunct,
  // these in the WHERE's order. A row that an earlier conjunct (the join's
  // equalities included) rejects must never raise (the README's promise);
  // below a join such a conjunct would see rows of its table that the join
  // drops. Conjuncts that cannot fail may run anywhere, earlier or later,
  // so they keep their pushdown; running them first only spares the
  // conjuncts that can fail some rows. A join's keys are the exception: they
  // are computed for every row of their table that its own filters pass, as
  // a nested loop computes its outer table's lookup key (below).
  std::vector<std::pair<std::size_t, Expr>> may_raise;
  const ColumnRangeFn column_ranges = TableColumnRanges(select);
  for (std::size_t position = 0; position < conjuncts.size(); ++position) {
    Expr& c = conjuncts[position];
    const std::vector<std::size_t> sources = SourcesOf(c);
    const bool reads_outer = std::any_of(sources.begin(), sources.end(),
                                         [&](std::size_t s) { return select.from[s].outer; });
    if (sources.size() == 2 && c.kind == Expr::Kind::kBinary &&
        c.binary_op == sql::BinaryOp::kEqual) {
      const std::vector<std::size_t> left = SourcesOf(c.children[0]);
      const std::vector<std::size_t> right = SourcesOf(c.children[1]);
      if (left.size() == 1 && right.size() == 1 && left[0] != right[0] &&
          IsJoinKeyType(c.children[0]) && IsJoinKeyType(c.children[1])) {
        candidate_edges.push_back({left[0], right[0], c.children[0], c.children[1]});
        edge_positions.push_back(position);
        continue;
      }
    }
    if (select.from.size() > 1 && MayOverflow(c, column_ranges)) {
      may_raise.emplace_back(position, std::move(c));
    } else if (sources.size() <= 1 && !reads_outer) {
      // Constant conjuncts (no table) filter the first source: same rows either way.
      plan.sources[sources.empty() ? 0 : sources[0]].filters.push_back(std::move(c));
    } else {
      plan.residual.push_back(std::move(c));
    }
  }

  // LEFT JOINs: each one's edge and filters from its ON.
  std::vector<std::optional<JoinEdge>> outer_edges(select.from.size());
  for (std::size_t s = 0; s < select.from.size(); ++s) {
    if (!select.from[s].outer) continue;
    CLQ_CHECK(s > 0 && select.from[s].on, "a LEFT JOIN without a left side or ON");
    outer_edges[s] = PlanOuterJoin(select, s, plan, column_ranges);
  }

  // A join key that can overflow is computed, and raises, on every row of its
  // table that the table's own filters pass, whatever the join order: a
  // check `key = key` after the table's filters (true for every key that
  // can join; a NULL key joins nothing). Computed only on the rows reaching
  // its join, it would raise or not depending on which joins ran first.
  std::vector<std::vector<Expr>> key_checks(select.from.size());
  std::vector<const JoinEdge*> all_edges;
  for (const JoinEdge& edge : candidate_edges)
    all_edges.push_back(&edge);
  for (const std::optional<JoinEdge>& edge : outer_edges)
    if (edge) all_edges.push_back(&*edge);
  for (const JoinEdge* edge_pointer : all_edges) {
    const JoinEdge& edge = *edge_pointer;
    for (const auto& [source, key] : {std::pair{edge.left_source, &edge.left_key},
                                      std::pair{edge.right_source, &edge.right_key}}) {
      if (!MayOverflow(*key, column_ranges)) continue;
      Expr check;
      check.kind = Expr::Kind::kBinary;
      check.type = sql::ValueType::kInteger;
      check.binary_op = sql::BinaryOp::kEqual;
      check.children = {*key, *key};
      if (edge.outer && source == edge.left_source) {
        // A LEFT JOIN keeps its left rows whose key is NULL: computed on
        // every row all the same, the check drops none.
        Expr is_null;
        is_null.kind = Expr::Kind::kUnary;
        is_null.type = sql::ValueType::kInteger;
        is_null.unary_op = sql::UnaryOp::kIsNull;
        is_null.children = {*key};
        Expr either;
        either.kind = Expr::Kind::kBinary;
        either.type = sql::ValueType::kInteger;
        either.binary_op = sql::BinaryOp::kOr;
        either.children = {std::move(check), std::move(is_null)};
        check = std::move(either);
      }
      key_checks[source].push_back(std::move(check));
    }
  }

  // Join order, greedy from a start: from that input, repeatedly take the
  // join whose output is estimated smallest (EstimatedJoinRows), the
  // smaller incoming table on a tie. A join of two foreign keys (customers
  // and suppliers of one nation) is left for last, as a filter, where a
  // join through keys connects the same tables. Every input but a LEFT
  // JOIN's table is tried as the start, and the order whose joined rows
  // summed over its steps are estimated fewest is taken (the smallest input
  // first on a tie): starting from the smallest input alone, TPC-H Q9 joined
  // its 25 nations, their suppliers, then every lineitem row, where starting
  // from the parts its LIKE keeps joins a twentieth of them. Returns that
  // sum; `trial`, a copy of the plan, and `raise` get the order's edges,
  // its deferred filters and its conjuncts left after the joins.
  const auto order_from = [&](std::size_t start, QueryPlan& trial,
                              std::vector<std::pair<std::size_t, Expr>>& raise) {
    std::vector<bool> joined(select.from.size(), false);
    joined[start] = true;
    double joined_rows = EstimatedRows(select, trial.sources[start]);
    double cost = joined_rows;
    std::vector<bool> used(candidate_edges.size(), false);
    for (std::size_t step = 1; step < select.from.size(); ++step) {
      std::optional<std::size_t> best;
      double best_rows = 0;
      double best_output = 0;
      for (std::size_t e = 0; e < candidate_edges.size(); ++e) {
        if (used[e]) continue;
        const JoinEdge& edge = candidate_edges[e];
        if (joined[edge.left_source] == joined[edge.right_source]) continue;
        const bool left_joined = joined[edge.left_source];
        const std::size_t incoming = left_joined ? edge.right_source : edge.left_source;
        if (select.from[incoming].outer) continue;  // joins only through its ON
        const double rows = EstimatedRows(select, trial.sources[incoming]);
        const double output =
            EstimatedJoinRows(select, column_ranges, left_joined ? edge.left_key : edge.right_key,
                              joined_rows, left_joined ? edge.right_key : edge.left_key, rows);
        if (!best || output < best_output || (output == best_output && rows < best_rows)) {
          best = e;
          best_rows = rows;
          best_output = output;
        }
      }
      // A LEFT JOIN whose table before it is joined, when no inner join
      // is estimated smaller (its output keeps at least every joined row).
      std::optional<std::size_t> best_outer;
      double best_outer_output = 0;
      for (std::size_t s = 0; s < select.from.size(); ++s) {
        if (!outer_edges[s] || joined[s] || !joined[outer_edges[s]->left_source]) continue;
        const double output =
            std::max(joined_rows, EstimatedJoinRows(select, column_ranges, outer_edges[s]->left_key,
                                                    joined_rows, outer_edges[s]->right_key,
                                                    EstimatedRows(select, trial.sources[s])));
        if (!best_outer || output < best_outer_output) {
          best_outer = s;
          best_outer_output = output;
        }
      }
      if (best_outer && (!best || best_outer_output < best_output)) {
        const std::size_t s = *best_outer;
        joined[s] = true;
        joined_rows = std::max(joined_rows, best_outer_output);
        cost += joined_rows;
        trial.join_edges.push_back(*outer_edges[s]);
        continue;
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
      DeferUnselectiveFilters(select, trial.sources[edge.right_source],
                              !key_checks[edge.right_source].empty(), joined_rows, trial);
      joined_rows = std::max(joined_rows, best_output);
      cost += joined_rows;
      trial.join_edges.push_back(std::move(edge));
    }
    // Edges not used to connect tables (cycles) are checked after the joins.
    for (std::size_t e = 0; e < candidate_edges.size(); ++e) {
      if (used[e]) continue;
      Expr equal;
      equal.kind = Expr::Kind::kBinary;
      equal.type = sql::ValueType::kInteger;
      equal.binary_op = sql::BinaryOp::kEqual;
      equal.children = {candidate_edges[e].left_key, candidate_edges[e].right_key};
      if (MayOverflow(equal, column_ranges)) {
        raise.emplace_back(edge_positions[e], std::move(equal));
      } else {
        trial.residual.push_back(std::move(equal));
      }
    }
    return cost;
  };
  if (select.from.size() > 1) {
    std::optional<std::size_t> best_start;
    double best_cost = 0;
    QueryPlan best_plan;
    std::vector<std::pair<std::size_t, Expr>> best_raise;
    std::exception_ptr first_error;
    // The smallest input first, so that it wins a tie.
    std::vector<std::size_t> starts;
    for (std::size_t s = 0; s < select.from.size(); ++s)
      if (!select.from[s].outer) starts.push_back(s);
    std::stable_sort(starts.begin(), starts.end(), [&](std::size_t x, std::size_t y) {
      return EstimatedRows(select, plan.sources[x]) < EstimatedRows(select, plan.sources[y]);
    });
    for (const std::size_t start : starts) {
      QueryPlan trial = plan;
      std::vector<std::pair<std::size_t, Expr>> raise = may_raise;
      double cost = 0;
      try {
        cost = order_from(start, trial, raise);
      } catch (const InvalidInputError&) {
        // Another start may connect where this one does not (an inner join
        // to a LEFT JOIN's table reaches it only after its left side); where
        // none does, the smallest input's error says why.
        if (!first_error) first_error = std::current_exception();
        continue;
      }
      if (!best_start || cost < best_cost) {
        best_start = start;
        best_cost = cost;
        best_plan = std::move(trial);
        best_raise = std::move(raise);
      }
    }
    if (!best_start) std::rethrow_exception(first_error);
    plan = std::move(best_plan);
    may_raise = std::move(best_raise);
  }
  for (std::size_t s = 0; s < select.from.size(); ++s) {
    if (key_checks[s].empty()) continue;
    // The key is computed on every row its table's own conditions pass: a
    // conjunct the WHERE implies is none of them, and runs after the check.
    std::vector<Expr>& filters = plan.sources[s].filters;
    const auto implied = std::stable_partition(filters.begin(), filters.end(),
                                               [](const Expr& f) { return !f.implied; });
    std::vector<Expr> after(std::make_move_iterator(implied),
                            std::make_move_iterator(filters.end()));
    filters.erase(implied, filters.end());
    for (Expr& check : key_checks[s])
      filters.push_back(std::move(check));
    for (Expr& f : after)
      filters.push_back(std::move(f));
  }
  std::stable_sort(may_raise.begin(), may_raise.end(),
                   [](const auto& a, const auto& b) { return a.first < b.first; });
  for (auto& [position, c] : may_raise)
    plan.residual.push_back(std::move(c));

  if (!select.aggregated) {
    plan.aggregation = AggregationMode::kNone;
  } else if (select.group_keys.empty()) {
    plan.aggregation = AggregationMode::kUngrouped;
    for (const sql::Aggregate& a : select.aggregates) {
      if (a.function == AggregateFunction::kMedian || a.function == AggregateFunction::kQuantile)
        plan.needs_radix_select = true;
    }
    // Fused, the WHERE and the arguments are one program over the table,
    // which holds at most VM_MAX_SLOTS columns; past that the filter runs
    // in passes of its own first (RowSet::Filter). MEDIAN and QUANTILE need
    // the filtered values, so they are never fused.
    plan.fused_aggregate = select.from.size() == 1 && !plan.needs_radix_select;
    if (plan.fused_aggregate) {
      std::vector<std::pair<std::size_t, std::size_t>> columns;
      for (const sql::Expr& f : plan.sources[0].filters)
        ColumnsOf(f, columns);
      for (const sql::Aggregate& a : select.aggregates)
        if (a.argument) ColumnsOf(*a.argument, columns);
      plan.fused_aggregate = columns.size() <= VM_MAX_SLOTS;
    }
  } else {
    plan.aggregation = AggregationMode::kGrouped;
  }
  return plan;
}

}  // namespace clq
