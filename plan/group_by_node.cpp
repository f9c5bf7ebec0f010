#include "plan/group_by_node.hpp"
#include "sql/expr_equality.hpp"

#include <bit>

#include "kernels_cl/sort_shared.h"
#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "operators/gather.hpp"
#include "operators/group_by.hpp"
#include "operators/result_builder.hpp"
#include "plan/aggregate_pass.hpp"
#include "plan/host_rows.hpp"

namespace clq {
namespace {

using sql::AggregateFunction;
using sql::ValueType;

// Host values of a device vector at `positions` (one gather, one download).
std::vector<sql::Value> ValuesAt(Engine& engine, const DeviceVector& vector, ValueType type,
                                 const RowIds& positions) {
  DeviceVector picked = AllocateVector(engine, vector.type, positions.size, "group keys");
  if (positions.size > 0) {
    GatherBuffer(engine, vector.values.get(), vector.type.width, 0, vector.size, positions,
                 picked.values.get());
    if (vector.has_nulls()) {
      picked.nulls = engine.pool().Acquire(positions.size, "group key NULL map");
      GatherBuffer(engine, vector.nulls.get(), 1, 0, vector.size, positions, picked.nulls.get());
    }
  }
  const ResultColumn column = DownloadResultColumn(engine, "", type, picked);
  std::vector<sql::Value> values;
  for (RowCount g = 0; g < positions.size; ++g)
    values.push_back(column.ValueAt(g));
  return values;
}

// The device operation of an aggregate (a placeholder COUNT for one whose
// result is NULL in every group).
GroupAggregateSpec SpecOf(const sql::Aggregate& a) {
  GroupAggregateSpec spec;
  if (a.type == ValueType::kNull) {
    spec.operation = VM_AGG_COUNT;
  } else if (IsQuantile(a)) {
    spec.operation = GROUP_AGG_QUANTILE;
    spec.quantile = a.quantile;
  } else {
    spec.operation = AggregateOperation(a);
  }
  return spec;
}

}  // namespace

GroupByNode::GroupByNode(const Engine& engine, const QueryOptions& options,
                         const sql::BoundSelect& select, std::unique_ptr<RowNode> child)
    : select_(select), options_(options), child_(std::move(child)) {
  AddChild(child_.get());
  std::vector<const sql::Expr*> exprs;
  for (const sql::Expr& key : select.group_keys) {
    if (!sql::ContainsKind(key, sql::Expr::Kind::kColumnRef))
      throw DeviceLimitError("GROUP BY a constant expression is not supported on devices");
    exprs.push_back(&key);
  }
  argument_of_.resize(select.aggregates.size());
  std::vector<GroupAggregateSpec> specs;
  for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
    const sql::Aggregate& a = select.aggregates[i];
    specs.push_back(SpecOf(a));
    if (!a.argument || CountsRows(a) || a.type == ValueType::kNull) continue;
    if (a.argument->type == ValueType::kText)
      throw DeviceLimitError(
          "TEXT expressions other than comparisons are not supported on devices (" +
          std::string(sql::AggregateName(a.function)) + " of a CHAR column with GROUP BY)");
    argument_of_[i] = exprs.size();
    exprs.push_back(&*a.argument);
  }
  const RowShape& shape = child_->shape();
  values_ = CompileValues(select, exprs, shape);
  AddKernelNames(ValuesKernels(engine, options, select, values_, shape));
  const std::vector<ValueVectorType> types = ValueVectorTypes(select, values_);
  std::vector<bool> nullable_keys;
  for (std::size_t k = 0; k < select.group_keys.size(); ++k)
    nullable_keys.push_back(types[k].nullable);
  AddKernelNames(GroupByKernels(engine, nullable_keys, specs, shape.max_rows, shape.exact));
  // Each key's value at its group's first row.
  for (std::size_t k = 0; k < select.group_keys.size(); ++k) {
    AddKernelNames({GatherBufferKernel(types[k].type.width)});
    if (types[k].nullable) AddKernelNames({GatherBufferKernel(1)});
  }
}

std::string GroupByNode::Describe() const {
  std::string keys, aggregates;
  for (const sql::Expr& k : select_.group_keys)
    keys += (keys.empty() ? "" : ", ") + ExpressionText(select_, k);
  for (const sql::Aggregate& a : select_.aggregates)
    aggregates += (aggregates.empty() ? "" : ", ") + std::string(sql::AggregateName(a.function)) +
                  "(" + (a.argument ? ExpressionText(select_, *a.argument) : "*") + ")";
  return keys + ": " + (aggregates.empty() ? "no aggregates" : aggregates) +
         "; groups in order of first appearance; then on the host: " +
         (select_.having ? "HAVING, " : "") + "outputs" + (select_.distinct ? ", DISTINCT" : "") +
         (select_.order_by.empty() ? "" : ", ORDER BY") +
         (select_.limit || select_.offset ? ", LIMIT" : "");
}

std::string GroupByNode::Programs() const {
  std::string text;
  for (const CompiledValues::Batch& batch : values_.batches)
    text += ValuesListing("group keys and aggregate arguments", select_, batch,
                          child_->shape().source, options_);
  return text;
}

QueryResult GroupByNode::Run(ExecutionContext& context) const {
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  Engine& engine = context.engine();
  const std::vector<DeviceVector> vectors = rows.Evaluate(context.query(), values_);
  context.query().CheckStatus();
  std::vector<VectorView> keys;
  for (std::size_t k = 0; k < select_.group_keys.size(); ++k)
    keys.push_back(View(vectors[k]));
  std::vector<GroupAggregateSpec> specs;
  for (std::size_t i = 0; i < select_.aggregates.size(); ++i) {
    const sql::Aggregate& a = select_.aggregates[i];
    GroupAggregateSpec spec = SpecOf(a);
    if (argument_of_[i]) spec.argument = View(vectors[*argument_of_[i]]);
    // An integer AVG whose group totals may pass int64 sums doubles, as
    // SQLite's AVG does on overflow, instead of raising "integer overflow".
    if (a.function == AggregateFunction::kAvg && spec.operation == VM_AGG_SUM_I) {
      const DeviceVector& argument = vectors[*argument_of_[i]];
      if (!SumFitsInt64(argument.range ? argument.range() : std::nullopt, rows.rows()))
        spec.operation = VM_AGG_SUM_R;
    }
    specs.push_back(spec);
  }
  const GroupByResult groups = GroupBy(context.query(), keys, specs, rows.rows());
  context.query().CheckStatus();

  std::vector<std::vector<sql::Value>> key_values;
  for (std::size_t k = 0; k < select_.group_keys.size(); ++k)
    key_values.push_back(
        ValuesAt(engine, vectors[k], select_.group_keys[k].type, groups.first_positions));
  std::vector<std::vector<sql::Value>> aggregate_values;
  for (std::size_t i = 0; i < select_.aggregates.size(); ++i) {
    const sql::Aggregate& a = select_.aggregates[i];
    const GroupAggregateOutput& out = groups.aggregates[i];
    const std::vector<std::int64_t> counts = DownloadValues<std::int64_t>(engine, out.counts);
    const std::vector<std::int64_t> bits = DownloadValues<std::int64_t>(engine, out.values);
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
  return FinishGroupedRows(select_, key_values, aggregate_values, groups.groups);
}

}  // namespace clq
