#include "operators/query_executor.hpp"

#include <algorithm>
#include <bit>

#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "operators/device_program.hpp"
#include "operators/result_builder.hpp"
#include "operators/scalar_eval.hpp"
#include "runtime/errors.hpp"

namespace clq {
namespace {

using sql::AggregateFunction;
using sql::Expr;
using sql::ValueType;

std::optional<Expr> AndAll(const std::vector<Expr>& conjuncts) {
  if (conjuncts.empty()) return std::nullopt;
  Expr result = conjuncts[0];
  for (std::size_t i = 1; i < conjuncts.size(); ++i) {
    Expr both;
    both.kind = Expr::Kind::kBinary;
    both.type = ValueType::kInteger;
    both.binary_op = sql::BinaryOp::kAnd;
    both.children = {std::move(result), conjuncts[i]};
    result = std::move(both);
  }
  return result;
}

// The VM aggregate operation computing (part of) a SQL aggregate.
std::uint32_t AggregateOperation(const sql::Aggregate& a) {
  const bool real = a.argument && a.argument->type == ValueType::kReal;
  switch (a.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return VM_AGG_COUNT;
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
      return real ? VM_AGG_SUM_R : VM_AGG_SUM_I;
    case AggregateFunction::kMin:
      return real ? VM_AGG_MIN_R : VM_AGG_MIN_I;
    case AggregateFunction::kMax:
      return real ? VM_AGG_MAX_R : VM_AGG_MAX_I;
    default:
      break;
  }
  throw DeviceLimitError(std::string(sql::AggregateName(a.function)) +
                         " is not supported in this position yet");
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
      return sql::Value::Real((real ? v.real() : static_cast<double>(v.bits)) /
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
  if (!plan.join_edges.empty()) {
    throw DeviceLimitError("joins are not available in this build yet");
  }
  if (auto residual = AndAll(plan.residual)) rows.Filter(context, *residual);
  return rows;
}

QueryResult QueryExecutor::ExecuteRows(const QueryPlan& plan, QueryContext& context) {
  const sql::BoundSelect& select = *plan.select;
  RowSet rows = BuildRowSet(plan, context);
  if (select.distinct) throw DeviceLimitError("DISTINCT is not available in this build yet");
  if (!select.order_by.empty()) throw DeviceLimitError("ORDER BY is not available in this build yet");
  if (select.offset > 0 || select.limit) {
    rows.Slice(context, select.offset, select.limit.value_or(rows.rows()));
  }

  QueryResult result;
  result.rows = rows.rows();
  std::vector<const Expr*> device_exprs;
  std::vector<std::size_t> device_outputs;
  result.columns.resize(select.visible_outputs);
  for (std::size_t o = 0; o < select.visible_outputs; ++o) {
    const sql::OutputColumn& out = select.outputs[o];
    if (out.expr.kind == Expr::Kind::kColumnRef && rows.range()) {
      // Whole table or a range of it: the host already has these values.
      const auto [source, begin] = *rows.range();
      const Column& column = select.from[source].table->column(out.expr.index);
      result.columns[o] = HostResultColumn(out.name, out.expr.type, column, begin, rows.rows());
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
  if (plan.needs_radix_select) throw DeviceLimitError("MEDIAN and QUANTILE are not available in this build yet");

  // The input relation: the table itself with the filter fused into the
  // aggregation pass, or the materialised arguments of joined rows.
  std::unique_ptr<RowSet> rows;
  RowSet::Materialized input;
  std::optional<Expr> predicate;
  std::vector<const Expr*> arguments;
  for (const sql::Aggregate& a : select.aggregates)
    if (a.argument) arguments.push_back(&*a.argument);
  if (plan.fused_aggregate) {
    rows = std::make_unique<RowSet>(engine_, select.from, 0);
    input = rows->Materialize(context, arguments);
    predicate = AndAll(plan.sources[0].filters);
  } else {
    rows = std::make_unique<RowSet>(BuildRowSet(plan, context));
    input = rows->Materialize(context, arguments);
  }

  ExpressionProgram program(input.relation->columns(), input.mapper);
  std::optional<std::size_t> predicate_entry;
  if (predicate) predicate_entry = program.AddPredicate(*predicate);
  std::vector<AggregateSpec> specs;
  for (const sql::Aggregate& a : select.aggregates) {
    AggregateSpec spec;
    spec.operation = AggregateOperation(a);
    if (a.argument) spec.entry = program.AddValue(*a.argument);
    specs.push_back(spec);
  }
  DeviceProgram device_program(engine_, program);
  const std::vector<AggregateValue> values =
      Aggregate(context, *input.relation, device_program, predicate_entry, specs);

  std::vector<sql::Value> aggregate_values;
  for (std::size_t a = 0; a < select.aggregates.size(); ++a)
    aggregate_values.push_back(AggregateResult(select.aggregates[a], values[a]));
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

QueryResult QueryExecutor::ExecuteGrouped(const QueryPlan&, QueryContext&) {
  throw DeviceLimitError("GROUP BY is not available in this build yet");
}

}  // namespace clq
