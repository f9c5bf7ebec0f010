#include "operators/query_executor.hpp"

#include <algorithm>
#include <bit>
#include <cmath>
#include <optional>
#include <span>

#include "host/sql/expr_equality.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/aggregate_pass.hpp"
#include "operators/aggregation.hpp"
#include "operators/device_program.hpp"
#include "operators/gather.hpp"
#include "operators/group_by.hpp"
#include "operators/hash_join.hpp"
#include "operators/host_rows.hpp"
#include "operators/projection.hpp"
#include "operators/result_builder.hpp"
#include "operators/scalar_eval.hpp"
#include "operators/sort.hpp"
#include "runtime/environment.hpp"
#include "runtime/errors.hpp"

namespace clq {
namespace {

using sql::AggregateFunction;
using sql::Expr;
using sql::ValueType;

sql::Value QuantileResult(const std::optional<NumericValue>& v) {
  if (!v) return sql::Value::Null();
  return v->is_real ? sql::Value::Real(v->real) : sql::Value::Integer(v->integer);
}

// Host values of device values at `positions` (one gather, one download).
std::vector<sql::Value> ValuesAt(Engine& engine, const VectorView& vector, sql::ValueType type,
                                 const RowIds& positions) {
  DeviceVector picked = AllocateVector(engine, vector.type, positions.size, "group keys");
  if (positions.size > 0) {
    GatherBuffer(engine, vector.values, vector.type.width, 0, vector.size, positions,
                 picked.values.get());
    if (vector.has_nulls()) {
      picked.nulls = engine.pool().Acquire(positions.size, "group key NULL map");
      GatherBuffer(engine, vector.nulls, 1, 0, vector.size, positions, picked.nulls.get());
    }
  }
  const ResultColumn column = DownloadResultColumn(engine, "", type, picked);
  std::vector<sql::Value> values;
  for (RowCount g = 0; g < positions.size; ++g)
    values.push_back(column.ValueAt(g));
  return values;
}

// Whether the result's `rows` values of `column` of `table` come from the
// host table rather than the device: when the device does not hold the
// column and the rows are at most 1/64 of the table, uploading the whole
// column to gather a few rows would cost more than reading them here (the
// thesis selection's SELECT * uploaded all 16 columns of 100M rows, 20.8 GB,
// for 1,248 rows). CLQ_HOST_GATHER=0 never does, =1 always does (tests).
bool GatherOnHost(Engine& engine, const Table& table, std::size_t column, RowCount rows) {
  if (const std::optional<bool> forced = ForcedByEnvironment("CLQ_HOST_GATHER")) return *forced;
  return rows <= table.rows() / 64 && !engine.tables().Holds(table, column);
}

// Group keys or aggregate arguments: a column of a whole table in place (no
// copy), anything else evaluated; with the integer bounds of each.
struct GroupInputs {
  std::vector<DeviceVector> computed;
  std::vector<VectorView> views;
  std::vector<std::optional<IntRange>> ranges;
};
GroupInputs EvaluateGroupInputs(QueryContext& context, RowSet& rows, const sql::BoundSelect& select,
                                const std::vector<const Expr*>& exprs) {
  GroupInputs inputs;
  inputs.views.resize(exprs.size());
  inputs.ranges.resize(exprs.size());
  std::vector<const Expr*> computed;
  std::vector<std::size_t> computed_index;
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    if (const std::optional<VectorView> view = rows.ColumnInPlace(*exprs[i])) {
      inputs.views[i] = *view;
      if (view->type.is_integer())
        inputs.ranges[i] = select.from[exprs[i]->source]
                               .table->column(exprs[i]->index)
                               .shared_data()
                               ->IntegerRange();
    } else {
      computed.push_back(exprs[i]);
      computed_index.push_back(i);
    }
  }
  inputs.computed = rows.Evaluate(context, computed);
  for (std::size_t j = 0; j < computed.size(); ++j) {
    const DeviceVector& v = inputs.computed[j];
    inputs.views[computed_index[j]] = View(v);
    if (v.range) inputs.ranges[computed_index[j]] = v.range();
  }
  return inputs;
}

// The plan of a GROUP BY (or DISTINCT) over `rows` rows, with the product of
// the integer keys' value counts as the estimate of groups when all have
// bounds.
GroupByPlan PlanGroups(const Engine& engine, const std::vector<VectorView>& keys,
                       const std::vector<std::optional<IntRange>>& key_ranges,
                       const std::vector<GroupAggregateSpec>& specs, RowCount rows) {
  std::vector<GroupKeyInfo> key_infos;
  double product = 1;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    key_infos.push_back(KeyInfoOf(keys[k], key_ranges[k]));
    product *= key_ranges[k] ? static_cast<double>(key_ranges[k]->max) -
                                   static_cast<double>(key_ranges[k]->min) + 2
                             : INFINITY;
  }
  std::vector<GroupAggregateInfo> infos;
  for (const GroupAggregateSpec& spec : specs)
    infos.push_back(AggregateInfoOf(spec));
  std::optional<RowCount> estimate;
  if (product <= static_cast<double>(rows)) estimate = static_cast<RowCount>(product);
  return PlanGroupBy(engine.info(), engine.tuning(), key_infos, infos, rows, estimate);
}

// The SQL value of an aggregate from its reduced device value.
sql::Value AggregateResult(const sql::Aggregate& a, const AggregateValue& v) {
  const bool real = a.argument && a.argument->type == ValueType::kReal;
  switch (a.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return sql::Value::Integer(static_cast<std::int64_t>(v.count));
    case AggregateFunction::kAvg:
      if (v.count == 0) return sql::Value::Null();
      return sql::Value::Real(
          (real ? v.real() : v.wide_total.value_or(static_cast<double>(v.bits))) /
          static_cast<double>(v.count));
    default:
      if (v.count == 0 || a.type == ValueType::kNull) return sql::Value::Null();
      return real ? sql::Value::Real(v.real()) : sql::Value::Integer(v.bits);
  }
}

}  // namespace

QueryResult QueryExecutor::Execute(const sql::BoundSelect& select) {
  const QueryPlan plan = PlanQuery(select);
  QueryContext context(engine_);
  switch (plan.aggregation) {
    case AggregationMode::kNone:
      return ExecuteRows(plan, context);
    case AggregationMode::kUngrouped:
      return ExecuteUngrouped(plan, context);
    case AggregationMode::kGrouped:
      return ExecuteGrouped(plan, context);
  }
  throw InternalError("unknown aggregation mode");
}

RowSet QueryExecutor::BuildRowSet(const QueryPlan& plan, QueryContext& context) {
  const sql::BoundSelect& select = *plan.select;
  const std::size_t start = plan.join_edges.empty() ? 0 : plan.join_edges.front().left_source;
  RowSet rows(engine_, select.from, start);
  if (auto filter = AndAll(plan.sources[start].filters)) rows.Filter(context, *filter);
  for (const JoinEdge& edge : plan.join_edges) {
    // The incoming table, filtered by its own conjuncts, joins the rows so
    // far; the smaller side builds the hash table.
    RowSet incoming(engine_, select.from, edge.right_source);
    if (auto filter = AndAll(plan.sources[edge.right_source].filters))
      incoming.Filter(context, *filter);
    // Keys of a whole table are read where they lie; others are computed.
    DeviceVector left_computed, right_computed;
    const auto keys = [&](RowSet& set, const sql::Expr& key, DeviceVector& computed) {
      if (std::optional<VectorView> in_place = set.ColumnInPlace(key)) return *in_place;
      computed = std::move(set.Evaluate(context, {&key})[0]);
      return View(computed);
    };
    const VectorView left_keys = keys(rows, edge.left_key, left_computed);
    const VectorView right_keys = keys(incoming, edge.right_key, right_computed);
    const bool left_builds = rows.rows() <= incoming.rows();
    JoinResult joined = left_builds ? HashJoin(context, left_keys, right_keys)
                                    : HashJoin(context, right_keys, left_keys);
    RowIds& left_positions = left_builds ? joined.build_positions : joined.probe_positions;
    RowIds& right_positions = left_builds ? joined.probe_positions : joined.build_positions;
    incoming.Reorder(context, right_positions);
    rows.Join(context, left_positions, edge.right_source, incoming.TakeIds(edge.right_source));
  }
  if (auto residual = AndAll(plan.residual)) rows.Filter(context, *residual);
  return rows;
}

QueryResult QueryExecutor::ExecuteRows(const QueryPlan& plan, QueryContext& context) {
  const sql::BoundSelect& select = *plan.select;
  RowSet rows = BuildRowSet(plan, context);
  if (select.distinct) {
    // DISTINCT groups the rows by their visible outputs and keeps the first
    // row of each group, in input order.
    std::vector<const Expr*> outputs;
    for (std::size_t o = 0; o < select.visible_outputs; ++o)
      if (sql::ContainsKind(select.outputs[o].expr, Expr::Kind::kColumnRef))
        outputs.push_back(&select.outputs[o].expr);
    if (outputs.empty()) {
      rows.Slice(context, 0, std::min<RowCount>(rows.rows(), 1));
    } else {
      const GroupInputs keys = EvaluateGroupInputs(context, rows, select, outputs);
      const GroupByPlan group_plan = PlanGroups(engine_, keys.views, keys.ranges, {}, rows.rows());
      const GroupByResult groups = GroupBy(context, group_plan, keys.views, {}, rows.rows());
      rows.Reorder(context, groups.first_positions);
    }
  }
  if (!select.order_by.empty()) {
    std::vector<const Expr*> key_exprs;
    std::vector<bool> descending;
    for (const sql::OrderKey& key : select.order_by) {
      const Expr& e = select.outputs.at(key.expr.index).expr;
      if (!sql::ContainsKind(e, Expr::Kind::kColumnRef)) continue;  // a constant orders nothing
      key_exprs.push_back(&e);
      descending.push_back(key.descending);
    }
    if (!key_exprs.empty() && rows.rows() > 1) {
      const std::vector<DeviceVector> vectors = rows.Evaluate(context, key_exprs);
      std::vector<SortKey> keys;
      for (std::size_t k = 0; k < vectors.size(); ++k)
        keys.push_back({View(vectors[k]), descending[k]});
      RowIds order;
      if (select.limit && select.offset + *select.limit < rows.rows()) {
        order = TopK(context, keys, rows.rows(), select.offset + *select.limit);
      } else {
        order = SortPermutation(context, keys, rows.rows());
      }
      rows.Reorder(context, order);
    }
  }
  if (select.offset > 0 || select.limit) {
    rows.Slice(context, select.offset, select.limit.value_or(rows.rows()));
  }

  QueryResult result;
  result.rows = rows.rows();
  std::vector<const Expr*> device_exprs;
  std::vector<std::size_t> device_outputs;
  std::vector<std::optional<std::vector<std::uint32_t>>> host_ids(select.from.size());
  result.columns.resize(select.visible_outputs);
  for (std::size_t o = 0; o < select.visible_outputs; ++o) {
    const sql::OutputColumn& out = select.outputs[o];
    if (!sql::ContainsKind(out.expr, Expr::Kind::kColumnRef)) {
      // A constant output (text literals included) is the same on every row.
      // Evaluated only when there is a row: with none, an overflow in it
      // raises nothing, as a per-row evaluation would not.
      std::vector<sql::Value> values;
      if (rows.rows() > 0) {
        const sql::Value value = EvaluateScalar(out.expr, [](const Expr&) -> sql::Value {
          throw InternalError("unexpected reference in a constant output");
        });
        values.assign(rows.rows(), value);
      }
      result.columns[o] = ValuesResultColumn(out.name, out.expr.type, std::move(values));
    } else if (out.expr.kind == Expr::Kind::kColumnRef && rows.range()) {
      // Whole table or a range of it: the host already has these values.
      const auto [source, begin] = *rows.range();
      const Column& column = select.from[source].table->column(out.expr.index);
      result.columns[o] = HostResultColumn(out.name, out.expr.type, column, begin, rows.rows());
    } else if (out.expr.kind == Expr::Kind::kColumnRef &&
               GatherOnHost(engine_, *select.from[out.expr.source].table, out.expr.index,
                            rows.rows())) {
      const std::size_t source = out.expr.source;
      if (!host_ids[source]) host_ids[source] = DownloadRowIds(engine_, rows.Ids(source));
      const Column& column = select.from[source].table->column(out.expr.index);
      result.columns[o] =
          HostGatheredResultColumn(out.name, out.expr.type, column, *host_ids[source]);
    } else {
      device_exprs.push_back(&out.expr);
      device_outputs.push_back(o);
    }
  }
  if (!device_exprs.empty()) {
    std::vector<DeviceVector> vectors = rows.Evaluate(context, device_exprs);
    context.CheckStatus();
    for (std::size_t j = 0; j < vectors.size(); ++j) {
      const sql::OutputColumn& out = select.outputs[device_outputs[j]];
      result.columns[device_outputs[j]] =
          DownloadResultColumn(engine_, out.name, out.expr.type, vectors[j]);
    }
  }
  return result;
}

QueryResult QueryExecutor::ExecuteUngrouped(const QueryPlan& plan, QueryContext& context) {
  const sql::BoundSelect& select = *plan.select;

  // The input relation: the table itself with the filter fused into the
  // aggregation pass, or the materialised arguments of filtered/joined rows.
  // MEDIAN and QUANTILE need the filtered values, so they take the second.
  std::unique_ptr<RowSet> rows;
  RowSet::Materialized input;
  std::optional<Expr> predicate;
  const std::vector<const Expr*> arguments = DeviceArguments(select);
  const bool fused = plan.fused_aggregate;
  if (fused) {
    rows = std::make_unique<RowSet>(engine_, select.from, 0);
    input = rows->Materialize(context, arguments);
    predicate = AndAll(plan.sources[0].filters);
  } else {
    rows = std::make_unique<RowSet>(BuildRowSet(plan, context));
    input = rows->Materialize(context, arguments);
  }

  // The aggregates in groups, each one program and one pass.
  const std::vector<std::vector<std::size_t>> groups =
      UngroupedAggregateGroups(select, arguments, fused);
  std::vector<sql::Value> aggregate_values(select.aggregates.size());
  for (const std::vector<std::size_t>& group : groups) {
    for (const std::vector<std::size_t>& pass : InPasses(group, VM_MAX_AGGREGATES)) {
      const AggregatePass compiled = CompileAggregatePass(
          ExpressionProgram(input.relation->columns(), input.mapper), select, predicate, pass);
      DeviceProgram device_program(engine_, compiled.program);
      const std::vector<AggregateValue> values =
          compiled.specs.empty() ? std::vector<AggregateValue>{}
                                 : Aggregate(context, *input.relation, device_program,
                                             compiled.predicate_entry, compiled.specs);
      for (const std::size_t i : pass) {
        const sql::Aggregate& a = select.aggregates[i];
        if (!IsQuantile(a)) {
          aggregate_values[i] = AggregateResult(a, values[compiled.spec_of[i]]);
        } else if (a.type != ValueType::kNull) {
          const DeviceVector argument =
              Project(context, *input.relation, device_program, compiled.quantile_entries[i]);
          context.CheckStatus();
          aggregate_values[i] =
              QuantileResult(SelectQuantile(context, View(argument), argument.size, a.quantile));
        }
      }
    }
  }
  const LeafResolver resolve = [&](const Expr& leaf) -> sql::Value {
    if (leaf.kind == Expr::Kind::kAggregateRef) return aggregate_values.at(leaf.index);
    throw InternalError("unexpected reference in an ungrouped aggregate output");
  };

  bool keep = true;
  if (select.having) keep = IsTrue(EvaluateScalar(*select.having, resolve));
  if (select.offset > 0 || (select.limit && *select.limit == 0)) keep = false;
  QueryResult result;
  result.rows = keep ? 1 : 0;
  for (std::size_t o = 0; o < select.visible_outputs; ++o) {
    const sql::OutputColumn& out = select.outputs[o];
    std::vector<sql::Value> column;
    if (keep) column.push_back(EvaluateScalar(out.expr, resolve));
    result.columns.push_back(ValuesResultColumn(out.name, out.expr.type, column));
  }
  return result;
}

QueryResult QueryExecutor::ExecuteGrouped(const QueryPlan& plan, QueryContext& context) {
  const sql::BoundSelect& select = *plan.select;
  RowSet rows = BuildRowSet(plan, context);

  // Device vectors of the group keys, then of the aggregate arguments.
  std::vector<const Expr*> exprs;
  for (const Expr& key : select.group_keys) {
    if (!sql::ContainsKind(key, Expr::Kind::kColumnRef))
      throw DeviceLimitError("GROUP BY a constant expression is not supported on devices");
    exprs.push_back(&key);
  }
  std::vector<std::optional<std::size_t>> argument_of(select.aggregates.size());
  for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
    const sql::Aggregate& a = select.aggregates[i];
    if (!a.argument || CountsRows(a) || a.type == ValueType::kNull) continue;
    if (a.argument->type == ValueType::kText)
      throw DeviceLimitError(
          "TEXT expressions other than comparisons are not supported on devices (" +
          std::string(sql::AggregateName(a.function)) + " of a CHAR column with GROUP BY)");
    argument_of[i] = exprs.size();
    exprs.push_back(&*a.argument);
  }
  const GroupInputs inputs = EvaluateGroupInputs(context, rows, select, exprs);
  context.CheckStatus();

  const std::vector<VectorView> keys(inputs.views.begin(),
                                     inputs.views.begin() + select.group_keys.size());
  std::vector<GroupAggregateSpec> specs;
  for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
    const sql::Aggregate& a = select.aggregates[i];
    GroupAggregateSpec spec;
    if (a.type == ValueType::kNull) {
      spec.operation = VM_AGG_COUNT;  // placeholder: the result is NULL for every group
    } else if (IsQuantile(a)) {
      spec.operation = GROUP_AGG_QUANTILE;
      spec.quantile = a.quantile;
    } else {
      spec.operation = AggregateOperation(a);
    }
    if (argument_of[i]) {
      spec.argument = inputs.views[*argument_of[i]];
      spec.range = inputs.ranges[*argument_of[i]];
    }
    // An integer AVG whose group totals may pass int64 sums doubles, as
    // SQLite's AVG does on overflow, instead of raising "integer overflow".
    if (a.function == AggregateFunction::kAvg && spec.operation == VM_AGG_SUM_I &&
        !SumFitsInt64(spec.range, rows.rows())) {
      spec.operation = VM_AGG_SUM_R;
    }
    specs.push_back(spec);
  }
  const GroupByPlan group_plan =
      PlanGroups(engine_, keys, {inputs.ranges.begin(), inputs.ranges.begin() + keys.size()}, specs,
                 rows.rows());
  const GroupByResult groups = GroupBy(context, group_plan, keys, specs, rows.rows());
  context.CheckStatus();

  std::vector<std::vector<sql::Value>> key_values;
  for (std::size_t k = 0; k < select.group_keys.size(); ++k)
    key_values.push_back(
        ValuesAt(engine_, keys[k], select.group_keys[k].type, groups.first_positions));
  std::vector<std::vector<sql::Value>> aggregate_values;
  for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
    const sql::Aggregate& a = select.aggregates[i];
    const GroupAggregateOutput& out = groups.aggregates[i];
    const std::vector<std::int64_t> counts = DownloadValues<std::int64_t>(engine_, out.counts);
    const std::vector<std::int64_t> bits = DownloadValues<std::int64_t>(engine_, out.values);
    std::vector<sql::Value> column;
    for (RowCount g = 0; g < groups.groups; ++g) {
      if (a.type == ValueType::kNull) {
        column.push_back(a.function == AggregateFunction::kCount ? sql::Value::Integer(0)
                                                                 : sql::Value::Null());
        continue;
      }
      if (IsQuantile(a)) {
        if (counts[g] == 0) {
          column.push_back(sql::Value::Null());
        } else if (a.type == ValueType::kReal) {
          column.push_back(sql::Value::Real(std::bit_cast<double>(bits[g])));
        } else {
          column.push_back(sql::Value::Integer(bits[g]));
        }
        continue;
      }
      AggregateValue v;
      v.bits = bits[g];
      v.count = static_cast<std::uint64_t>(counts[g]);
      // An integer argument summed as doubles (the AVG above): its total.
      if (specs[i].operation == VM_AGG_SUM_R && a.argument->type != ValueType::kReal)
        v.wide_total = std::bit_cast<double>(bits[g]);
      column.push_back(AggregateResult(a, v));
    }
    aggregate_values.push_back(std::move(column));
  }
  return FinishGroupedRows(select, key_values, aggregate_values, groups.groups);
}

}  // namespace clq
