#include "plan/aggregate_node.hpp"

#include <algorithm>

#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "operators/projection.hpp"
#include "operators/result_builder.hpp"
#include "operators/scalar_eval.hpp"
#include "operators/sort.hpp"
#include "plan/query_plan.hpp"
#include "plan/row_buffers.hpp"
#include "plan/streamed_groups.hpp"

namespace clq {
namespace {

using sql::AggregateFunction;
using sql::ValueType;

sql::Value QuantileResult(const std::optional<NumericValue>& v) {
  if (!v) return sql::Value::Null();
  return v->is_real ? sql::Value::Real(v->real) : sql::Value::Integer(v->integer);
}

std::string PassSuffix(std::size_t index, std::size_t count, const char* what) {
  if (count <= 1) return "";
  return ", " + std::string(what) + " " + std::to_string(index + 1) + " of " +
         std::to_string(count);
}

}  // namespace

AggregateNode::AggregateNode(const Engine& engine, const QueryOptions& options,
                             const sql::BoundSelect& select, std::unique_ptr<RowNode> child,
                             bool fused, std::optional<sql::Expr> fused_predicate)
    : select_(select),
      child_(std::move(child)),
      fused_(fused),
      fused_predicate_(std::move(fused_predicate)) {
  AddChild(child_.get());
  const RowShape& shape = child_->shape();
  in_place_ = shape.kind == RowShape::Kind::kWholeTable;
  CLQ_CHECK(!fused_ || in_place_, "a fused aggregation over rows that are not a table");
  rows_bound_ = shape.max_rows;
  const std::vector<const sql::Expr*> arguments = DeviceArguments(select);
  if (!in_place_) {
    for (const sql::Expr* e : arguments)
      ColumnsOf(*e, gathered_);
    AddKernelNames(MaterializeKernels(select, shape, gathered_));
  }
  const std::vector<std::vector<std::size_t>> groups =
      UngroupedAggregateGroups(select, arguments, fused_);
  for (std::size_t g = 0; g < groups.size(); ++g) {
    const auto passes = InPasses(groups[g], VM_MAX_AGGREGATES);
    for (std::size_t p = 0; p < passes.size(); ++p) {
      Pass pass{CompileAggregatePass(EmptyProgram(select, in_place_, shape.source, gathered_),
                                     select, fused_predicate_, passes[p]),
                passes[p],
                "aggregation" +
                    (fused_ ? " of " + select.from[shape.source].alias : std::string()) +
                    PassSuffix(g, groups.size(), "group") + PassSuffix(p, passes.size(), "pass"),
                {},
                {}};
      if (!pass.compiled.specs.empty()) {
        pass.kernels =
            AggregateKernels(engine, options, pass.compiled.program, pass.compiled.predicate_entry,
                             pass.compiled.specs, rows_bound_, shape.exact);
        // The machine of each device pass, as Aggregate splits this one.
        std::vector<std::string> machines;
        for (const std::vector<AggregateSpec>& device_pass :
             SplitForDevice(pass.compiled.program, rows_bound_, pass.compiled.specs).passes) {
          const AggregateKernelChoice choice = ChooseAggregateKernel(
              pass.compiled.program, pass.compiled.predicate_entry, device_pass, options);
          const std::string_view direct = choice.DirectKernelName();
          const std::string machine =
              direct.empty() ? choice.machine.Describe() : std::string(direct) + ", no interpreter";
          if (std::find(machines.begin(), machines.end(), machine) == machines.end())
            machines.push_back(machine);
        }
        for (const std::string& m : machines)
          pass.machines += (pass.machines.empty() ? "" : "; ") + m;
      }
      for (const std::size_t i : pass.aggregates) {
        if (!IsQuantile(select.aggregates[i]) || select.aggregates[i].type == ValueType::kNull)
          continue;
        if (rows_bound_ == 0) continue;
        pass.kernels.Add(
            ProjectKernel(pass.compiled.program, pass.compiled.quantile_entries[i], options));
        pass.kernels.Add(SelectQuantileKernels(engine, rows_bound_, shape.exact));
      }
      AddKernelNames(pass.kernels);
      passes_.push_back(std::move(pass));
    }
  }
  // The columns gathered for the aggregates, beside the rows' ids.
  row_bytes_ = HeldRowIdBytesPerRow(select_, shape);
  if (!in_place_)
    for (const auto& [source, column] : gathered_) {
      const Column& gathered = select_.from.at(source).table->column(column);
      row_bytes_ += gathered.type().width + (gathered.nullable() ? 1 : 0);  // and its NULL map
    }
  // Merged from parts (join partitions, devices) where each aggregate's
  // partial results combine exactly: an integer SUM only of a column whose
  // total cannot leave int64 (a part's could where the whole's does not,
  // and one pass raises "integer overflow" only for the whole's).
  mergeable_ = std::all_of(select.aggregates.begin(), select.aggregates.end(), [&](const auto& a) {
    if (IsQuantile(a)) return false;
    const std::uint32_t operation = AggregateOperation(a);
    if (!StreamedGroups::IsMergeable(operation)) return false;
    if (operation != VM_AGG_SUM_I || a.type == ValueType::kNull) return true;
    const sql::Expr& e = *a.argument;
    return e.kind == sql::Expr::Kind::kColumnRef &&
           SumFitsInt64(TableVmColumn(*select.from.at(e.source).table, e.index).range(),
                        rows_bound_);
  });
  // A fused aggregation reads one table: no join to partition.
  if (mergeable_ && !fused_)
    partitions_ = JoinPartitions::Plan(engine, options, select, *child_, row_bytes_);
}

std::string AggregateNode::Describe() const {
  std::string text;
  for (const sql::Aggregate& a : select_.aggregates)
    text += (text.empty() ? "" : ", ") + std::string(sql::AggregateName(a.function)) + "(" +
            (a.argument ? ExpressionText(select_, *a.argument) : "*") + ")";
  if (fused_predicate_) text += " WHERE " + ExpressionText(select_, *fused_predicate_) + " (fused)";
  return text + "; " + std::to_string(passes_.size()) +
         (passes_.size() == 1 ? " pass" : " passes") +
         (partitions_ ? "; streamed, " + partitions_->Describe(select_) +
                            ", each partition's aggregates merged on the host"
                      : "") +
         (select_.having ? "; HAVING on the host" : "");
}

std::string AggregateNode::Programs() const {
  std::string text;
  for (const Pass& pass : passes_) {
    text += "  " + pass.title + " (" + (pass.machines.empty() ? "no device pass" : pass.machines) +
            "):\n" +
            ProgramListing(select_, pass.compiled.program, in_place_, child_->shape().source,
                           gathered_);
  }
  return text;
}

std::vector<sql::Value> AggregateNode::Compute(ExecutionContext& context, RowSet& rows,
                                               std::vector<AggregateValue>* device_values) const {
  CheckRowBuffers(context, "the aggregates", rows.rows(), row_bytes_);
  RowSet::Materialized input = rows.Materialize(context.query(), in_place_, gathered_);
  std::vector<sql::Value> aggregate_values(select_.aggregates.size());
  if (device_values != nullptr) device_values->assign(select_.aggregates.size(), {});
  for (const Pass& pass : passes_) {
    const AggregatePass& compiled = pass.compiled;
    DeviceProgram device_program(context.engine(), compiled.program, context.options());
    const std::vector<AggregateValue> values =
        compiled.specs.empty() ? std::vector<AggregateValue>{}
                               : Aggregate(context.query(), *input.relation, device_program,
                                           compiled.predicate_entry, compiled.specs, rows_bound_);
    for (const std::size_t i : pass.aggregates) {
      const sql::Aggregate& a = select_.aggregates[i];
      if (!IsQuantile(a)) {
        aggregate_values[i] = AggregateResult(a, values[compiled.spec_of[i]]);
        if (device_values != nullptr) (*device_values)[i] = values[compiled.spec_of[i]];
      } else if (a.type != ValueType::kNull) {
        const DeviceVector argument =
            Project(context.query(), *input.relation, device_program, compiled.quantile_entries[i]);
        context.query().CheckStatus();
        aggregate_values[i] = QuantileResult(
            SelectQuantile(context.query(), View(argument), argument.size, a.quantile));
      }
    }
  }
  return aggregate_values;
}

void AggregateNode::AddGroupOf(ExecutionContext& context, RowSet& rows,
                               StreamedGroups& groups) const {
  const ExecutionContext::NodeScope scope(context, *this);
  std::vector<AggregateValue> values;
  Compute(context, rows, &values);
  std::vector<std::vector<std::int64_t>> counts(values.size()), states(values.size());
  for (std::size_t i = 0; i < values.size(); ++i) {
    CLQ_CHECK(!values[i].wide_total, "a merged aggregate's total past int64");
    counts[i] = {static_cast<std::int64_t>(values[i].count)};
    if (AggregateOperation(select_.aggregates[i]) != VM_AGG_COUNT) states[i] = {values[i].bits};
  }
  groups.Add({}, counts, states, 1);
}

StreamedGroups AggregateNode::NoGroups() const {
  std::vector<std::uint32_t> operations;
  for (const sql::Aggregate& a : select_.aggregates)
    operations.push_back(AggregateOperation(a));
  return StreamedGroups(operations, 0);
}

void AggregateNode::AddGroups(ExecutionContext& context, StreamedGroups& groups) const {
  const auto add = [&](RowSet& rows) { AddGroupOf(context, rows, groups); };
  JoinPartitions::OnePassOrPartitioned(
      partitions_,
      [&] {
        RowSet rows = child_->Run(context);
        add(rows);
      },
      [&] { partitions_->ForEach(context, *child_, select_, add); });
}

std::vector<sql::Value> AggregateNode::ValuesOf(const StreamedGroups& groups) const {
  std::vector<sql::Value> aggregate_values;
  for (std::vector<sql::Value>& values : groups.AggregateValues(select_.aggregates))
    aggregate_values.push_back(values.empty() ? sql::Value::Null() : std::move(values.front()));
  return aggregate_values;
}

QueryResult AggregateNode::Finish(ExecutionContext&, const StreamedGroups& groups) const {
  return ResultOf(ValuesOf(groups));
}

QueryResult AggregateNode::Run(ExecutionContext& context) const {
  const auto one_pass = [&] {
    RowSet rows = child_->Run(context);
    const ExecutionContext::NodeScope scope(context, *this);
    return Compute(context, rows, nullptr);
  };
  const auto partitioned = [&] {
    StreamedGroups groups = NoGroups();
    partitions_->ForEach(context, *child_, select_,
                         [&](RowSet& rows) { AddGroupOf(context, rows, groups); });
    return ValuesOf(groups);
  };
  return ResultOf(JoinPartitions::OnePassOrPartitioned(partitions_, one_pass, partitioned));
}

QueryResult AggregateNode::ResultOf(const std::vector<sql::Value>& aggregate_values) const {
  const LeafResolver resolve = [&](const sql::Expr& leaf) -> sql::Value {
    if (leaf.kind == sql::Expr::Kind::kAggregateRef) return aggregate_values.at(leaf.index);
    throw InternalError("unexpected reference in an ungrouped aggregate output");
  };
  bool keep = true;
  if (select_.having) keep = IsTrue(EvaluateScalar(*select_.having, resolve));
  if (select_.offset > 0 || (select_.limit && *select_.limit == 0)) keep = false;
  QueryResult result;
  result.rows = keep ? 1 : 0;
  for (std::size_t o = 0; o < select_.visible_outputs; ++o) {
    const sql::OutputColumn& out = select_.outputs[o];
    std::vector<sql::Value> column;
    if (keep) column.push_back(EvaluateScalar(out.expr, resolve));
    result.columns.push_back(ValuesResultColumn(out.name, out.expr.type, column));
  }
  return result;
}

}  // namespace clq
