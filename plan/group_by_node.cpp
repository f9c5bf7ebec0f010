#include "plan/group_by_node.hpp"
#include "sql/expr_equality.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "common/byte_size.hpp"
#include "kernels_cl/sort_shared.h"
#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "operators/gather.hpp"
#include "operators/group_by.hpp"
#include "operators/pinned_result_download.hpp"
#include "operators/result_builder.hpp"
#include "plan/aggregate_pass.hpp"
#include "plan/host_rows.hpp"
#include "plan/join_partitions.hpp"
#include "plan/row_buffers.hpp"
#include "plan/streamed_groups.hpp"
#include "plan/streamed_input.hpp"
#include "plan/text_order_codes.hpp"

namespace clq {
namespace {

using sql::AggregateFunction;
using sql::ValueType;

// The host column of a device vector's values at `positions` (one gather,
// one download).
ResultColumn KeysAt(Engine& engine, const VectorView& vector, ValueType type,
                    const RowIds& positions) {
  return DownloadResultColumn(engine, "", type,
                              GatherVector(engine, vector, positions, "group keys"));
}

// An aggregate's value for every group, as SQL values (AggregateResult's,
// column by column): NULL where no row contributed (COUNT: 0), an AVG as
// total / count, `wide`: an integer total summed as doubles.
ResultColumn AggregateColumn(Engine& engine, const sql::Aggregate& a, bool wide,
                             const GroupAggregateOutput& out, RowCount groups) {
  ResultColumn column;
  column.type = a.type;
  const bool counts_rows =
      a.function == AggregateFunction::kCountStar || a.function == AggregateFunction::kCount;
  if (a.type == ValueType::kNull) {
    if (counts_rows) {
      column.type = ValueType::kInteger;
      column.integers.assign(groups, 0);
    } else {
      column.nulls.assign(groups, 1);
    }
    return column;
  }
  // Counts and integer values go straight into result memory (pinned on
  // GPUs, one DMA each): a GROUP BY may have millions of groups, and a
  // derived table's columns then take that memory as it is.
  ResultColumn count_column = DownloadResultColumn(engine, "", ValueType::kInteger, out.counts);
  if (counts_rows) {
    column.integers = std::move(count_column.integers);
    return column;
  }
  const ResultVector<std::int64_t>& counts = count_column.integers;
  if (std::find(counts.begin(), counts.end(), 0) != counts.end()) {
    column.nulls.resize(groups);
    for (RowCount g = 0; g < groups; ++g)
      column.nulls[g] = counts[g] == 0 ? 1 : 0;
  }
  if (a.type == ValueType::kInteger) {
    column.integers = DownloadResultColumn(engine, "", ValueType::kInteger, out.values).integers;
    return column;
  }
  const std::vector<std::int64_t> bits = DownloadValues<std::int64_t>(engine, out.values);
  const bool real_argument = a.argument && a.argument->type == ValueType::kReal;
  column.reals.resize(groups);
  for (RowCount g = 0; g < groups; ++g) {
    const double value = real_argument || wide || IsQuantile(a) ? std::bit_cast<double>(bits[g])
                                                                : static_cast<double>(bits[g]);
    const bool average = a.function == AggregateFunction::kAvg;
    column.reals[g] = average && counts[g] != 0 ? value / static_cast<double>(counts[g]) : value;
    // Infinities of both signs sum to NaN: NULL, as in SQLite.
    if (std::isnan(column.reals[g])) {
      if (column.nulls.empty()) column.nulls.assign(groups, 0);
      column.nulls[g] = 1;
      column.reals[g] = 0;
    }
  }
  return column;
}

// The outputs a grouped result is made of: the visible ones, and with an
// ORDER BY also the hidden ones it may read.
std::size_t ResultOutputs(const sql::BoundSelect& select) {
  return select.order_by.empty() ? select.visible_outputs : select.outputs.size();
}

// Whether every output the result is made of is a group key or an
// aggregate as it is (or the strings of its order codes), with nothing to
// evaluate or filter: the columns are the result, ordered and cut
// (OrderOutputColumns) where the query says so.
bool OutputsAreColumns(const sql::BoundSelect& select, bool having_done = false) {
  if ((select.having && !having_done) || select.distinct) return false;
  for (std::size_t o = 0; o < ResultOutputs(select); ++o) {
    const sql::Expr& e = Undecoded(select.outputs[o].expr);
    if (e.kind != sql::Expr::Kind::kGroupRef && e.kind != sql::Expr::Kind::kAggregateRef)
      return false;
    if (e.type != (e.kind == sql::Expr::Kind::kGroupRef ? select.group_keys.at(e.index).type
                                                        : select.aggregates.at(e.index).type))
      return false;
  }
  return true;
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

// Host bytes per group: each key's column (its gathered device values too),
// each aggregate's downloaded values and counts and its column; when the
// outputs need evaluating, every key and aggregate as a host value, and
// the output row (plan/host_rows.hpp).
std::uint64_t GroupHostBytes(const sql::BoundSelect& select,
                             const std::vector<ValueVectorType>& inputs) {
  std::uint64_t bytes = 0;
  for (std::size_t k = 0; k < select.group_keys.size(); ++k)
    bytes += 2 * std::max<std::uint64_t>(inputs.at(k).type.width, 8) + 1;
  bytes += select.aggregates.size() * (3 * 8 + 1);
  // A key or MIN/MAX looked up from order codes: its strings, and the codes
  // kept beside them.
  for (std::size_t o = 0; o < select.visible_outputs; ++o)
    if (const sql::Expr& e = select.outputs[o].expr; e.kind == sql::Expr::Kind::kTextOfCode)
      bytes += std::max<std::uint64_t>(e.dictionary->width, 1) + 8;
  if (!OutputsAreColumns(select))
    bytes += (select.group_keys.size() + select.aggregates.size() + select.outputs.size()) *
                 sizeof(sql::Value) +
             sizeof(std::vector<sql::Value>) + select.visible_outputs * 8;
  return bytes;
}

// The GROUP BY keys to find groups by: every key but the columns of a FROM
// table whose other key column is unique in it (no NULL map, no two values
// equal): rows with one value of that column come from one row of the
// table, so its other columns are equal too and follow it (TPC-H Q10 groups
// by c_custkey and six more customer and nation columns, three of them
// strings without order codes at SF 10). A LEFT JOIN's unmatched rows have
// every column of the table NULL, one group as well.
std::vector<std::size_t> GroupedKeys(const sql::BoundSelect& select) {
  const std::vector<sql::Expr>& keys = select.group_keys;
  // Only a table with two key columns or more has keys that could follow.
  std::vector<std::size_t> columns_of(select.from.size(), 0);
  for (const sql::Expr& key : keys)
    if (key.kind == sql::Expr::Kind::kColumnRef) ++columns_of.at(key.source);
  std::vector<std::optional<std::size_t>> unique_of(select.from.size());
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const sql::Expr& key = keys[k];
    if (key.kind != sql::Expr::Kind::kColumnRef || columns_of[key.source] < 2 ||
        unique_of[key.source])
      continue;
    const Table& table = *select.from[key.source].table;
    const Column& column = table.column(key.index);
    if (column.type().is_integer() && !column.nullable() && column.rows() > 1 &&
        column.shared_data()->ValuesUnique())
      unique_of[key.source] = k;
  }
  std::vector<std::size_t> grouped;
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const sql::Expr& key = keys[k];
    const bool follows = key.kind == sql::Expr::Kind::kColumnRef && unique_of[key.source] &&
                         *unique_of[key.source] != k;
    if (!follows) grouped.push_back(k);
  }
  return grouped;
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
  for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
    const sql::Aggregate& a = select.aggregates[i];
    operations_.push_back(SpecOf(a).operation);
    if (!a.argument || CountsRows(a) || a.type == ValueType::kNull) continue;
    if (a.argument->type == ValueType::kText)
      throw DeviceLimitError(
          "TEXT expressions other than comparisons are not supported on devices (" +
          std::string(sql::AggregateName(a.function)) + " of a CHAR column with GROUP BY)");
    argument_of_[i] = exprs.size();
    exprs.push_back(&*a.argument);
  }
  const RowShape& shape = child_->shape();
  inputs_ = GroupInputs(engine, select, exprs, shape);
  AddKernelNames(inputs_.Kernels(engine, options, select, shape));
  std::vector<GroupAggregateInfo> infos;
  for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
    GroupAggregateInfo info;
    if (argument_of_[i]) {
      const std::size_t at = *argument_of_[i];
      info.argument = inputs_.types()[at].type;
      info.nullable = inputs_.types()[at].nullable;
      info.range = inputs_.ranges()[at];
    }
    // An integer AVG whose group totals may pass int64 sums doubles, as
    // SQLite's AVG does on overflow, instead of raising "integer overflow".
    if (select.aggregates[i].function == AggregateFunction::kAvg &&
        operations_[i] == VM_AGG_SUM_I && !SumFitsInt64(info.range, shape.max_rows))
      operations_[i] = VM_AGG_SUM_R;
    info.operation = operations_[i];
    infos.push_back(info);
  }
  grouped_ = GroupedKeys(select);
  plan_ = PlanGrouping(engine, inputs_, grouped_, infos, shape.max_rows, shape.expected_rows);
  AddKernelNames(plan_.Kernels());
  row_bytes_ = EvaluatedBytesPerRow(inputs_.types()) + kGroupBytesPerRow +
               (plan_.strategy == GroupByStrategy::kSort ? kSortBytesPerRow : 0) +
               HeldRowIdBytesPerRow(select, shape);
  group_bytes_ = GroupHostBytes(select, inputs_.types());
  // Streamed where every aggregate's partial results combine exactly: an
  // integer SUM only where no total can leave int64, since a chunk's total
  // or a running one could where the whole group's does not (one pass
  // raises "integer overflow" only for the group's total).
  mergeable_ = std::all_of(infos.begin(), infos.end(), [&](const auto& info) {
    return StreamedGroups::IsMergeable(info.operation) &&
           (info.operation != VM_AGG_SUM_I || SumFitsInt64(info.range, shape.max_rows));
  });
  if (mergeable_) {
    stream_tablets_ = StreamTablets(engine, select, *child_, row_bytes_);
    if (stream_tablets_ == 0)
      partitions_ = JoinPartitions::Plan(engine, options, select, *child_, row_bytes_);
  }
  // A streamed GROUP BY finishes its merged groups on the host.
  if (!Streams()) {
    selection_ = GroupSelection::Plan(
        engine, options, select,
        std::vector<ValueVectorType>(inputs_.types().begin(),
                                     inputs_.types().begin() + select.group_keys.size()),
        operations_, shape.max_rows);
    if (selection_) AddKernelNames(selection_->kernels());
  }
  // Each key's value at its group's first row.
  for (std::size_t k = 0; k < select.group_keys.size(); ++k) {
    AddKernelNames({GatherBufferKernel(inputs_.types()[k].type.width)});
    if (inputs_.types()[k].nullable) AddKernelNames({GatherBufferKernel(1)});
  }
  AddKernelNames(PinnedResultKernels(engine));  // keys of many groups, into pinned blocks
}

std::string GroupByNode::Describe() const {
  std::string keys, aggregates;
  for (const sql::Expr& k : select_.group_keys)
    keys += (keys.empty() ? "" : ", ") + ExpressionText(select_, k);
  for (const sql::Aggregate& a : select_.aggregates)
    aggregates += (aggregates.empty() ? "" : ", ") + std::string(sql::AggregateName(a.function)) +
                  "(" + (a.argument ? ExpressionText(select_, *a.argument) : "*") + ")";
  std::string grouping = "groups in order of first appearance";
  if (stream_tablets_ > 0)
    grouping = "streamed, " + std::to_string(stream_tablets_) +
               (stream_tablets_ == 1 ? " tablet" : " tablets") +
               " of the input at a time, each chunk's groups merged on the host in order of "
               "first appearance";
  if (partitions_)
    grouping = "streamed, " + partitions_->Describe(select_) +
               ", each partition's groups merged on the host in order of first appearance";
  std::string follow;
  if (grouped_.size() < select_.group_keys.size()) {
    std::string by;
    for (const std::size_t k : grouped_)
      by += (by.empty() ? "" : ", ") + ExpressionText(select_, select_.group_keys[k]);
    follow = "; grouped by " + by + " (the other keys follow a column unique in its table)";
  }
  return keys + ": " + (aggregates.empty() ? "no aggregates" : aggregates) + follow + "; " +
         plan_.Describe() + "; " + grouping + "; then " +
         (selection_ ? "on the device: " + selection_->Describe() + "; on the host: "
                     : "on the host: ") +
         (select_.having && !(selection_ && selection_->having()) ? "HAVING, " : "") + "outputs" +
         (select_.distinct ? ", DISTINCT" : "") + (select_.order_by.empty() ? "" : ", ORDER BY") +
         (select_.limit || select_.offset ? ", LIMIT" : "");
}

std::string GroupByNode::Programs() const {
  std::string text;
  for (const CompiledValues::Batch& batch : inputs_.computed().batches)
    text += ValuesListing("group keys and aggregate arguments", select_, batch,
                          child_->shape().source, options_);
  if (selection_) text += selection_->Listing(select_);
  return text;
}

GroupByResult GroupByNode::Group(ExecutionContext& context, RowSet& rows,
                                 std::vector<DeviceVector>& owned, std::vector<VectorView>& keys,
                                 std::vector<GroupAggregateSpec>& specs) const {
  CheckRowBuffers(context, "GROUP BY", rows.rows(), row_bytes_);
  const std::vector<VectorView> views = inputs_.Evaluate(context.query(), rows, owned);
  context.query().CheckStatus();
  keys.assign(views.begin(), views.begin() + select_.group_keys.size());
  specs.clear();
  for (std::size_t i = 0; i < select_.aggregates.size(); ++i) {
    GroupAggregateSpec spec = SpecOf(select_.aggregates[i]);
    spec.operation = operations_[i];
    if (argument_of_[i]) {
      spec.argument = views[*argument_of_[i]];
      spec.range = inputs_.ranges()[*argument_of_[i]];
    }
    specs.push_back(spec);
  }
  std::vector<VectorView> grouped;
  for (const std::size_t k : grouped_)
    grouped.push_back(keys[k]);
  GroupByResult groups = GroupBy(context.query(), plan_, grouped, specs, rows.rows());
  context.query().CheckStatus();
  return groups;
}

void GroupByNode::AddGroupsOf(ExecutionContext& context, RowSet& rows,
                              StreamedGroups& merged) const {
  const ExecutionContext::NodeScope scope(context, *this);
  Engine& engine = context.engine();
  std::vector<DeviceVector> owned;
  std::vector<VectorView> keys;
  std::vector<GroupAggregateSpec> specs;
  const GroupByResult groups = Group(context, rows, owned, keys, specs);
  if (groups.groups == 0) return;
  context.query().CheckHostMemory(
      "the streamed GROUP BY's groups (" + std::to_string(merged.groups() + groups.groups) +
          " at most)",
      SaturatingMultiply(merged.groups() + groups.groups, merged.BytesPerGroup() + group_bytes_));
  std::vector<ResultColumn> key_columns;
  for (std::size_t k = 0; k < keys.size(); ++k)
    key_columns.push_back(
        KeysAt(engine, keys[k], select_.group_keys[k].type, groups.first_positions));
  std::vector<std::vector<std::int64_t>> counts(specs.size()), states(specs.size());
  for (std::size_t i = 0; i < specs.size(); ++i) {
    counts[i] = DownloadValues<std::int64_t>(engine, groups.aggregates[i].counts);
    if (operations_[i] != VM_AGG_COUNT)
      states[i] = DownloadValues<std::int64_t>(engine, groups.aggregates[i].values);
  }
  merged.Add(key_columns, counts, states, groups.groups);
}

StreamedGroups GroupByNode::NoGroups() const {
  return StreamedGroups(operations_, select_.group_keys.size());
}

void GroupByNode::AddGroups(ExecutionContext& context, StreamedGroups& groups) const {
  const auto add = [&](RowSet& rows) { AddGroupsOf(context, rows, groups); };
  if (stream_tablets_ > 0) {
    ForEachPart(context, add);
    return;
  }
  JoinPartitions::OnePassOrPartitioned(
      partitions_,
      [&] {
        RowSet rows = child_->Run(context);
        add(rows);
      },
      [&] { ForEachPart(context, add); });
}

QueryResult GroupByNode::Finish(ExecutionContext& context, const StreamedGroups& groups) const {
  const HostStage stage(context.engine().profiler(), "streamed groups as host values");
  return FinishGroupedRows(select_, groups.keys(), groups.AggregateValues(select_.aggregates),
                           groups.groups(), true);
}

void GroupByNode::ForEachPart(ExecutionContext& context,
                              const std::function<void(RowSet& rows)>& consume) const {
  if (partitions_)
    partitions_->ForEach(context, *child_, select_, consume);
  else
    ForEachChunk(context, *child_, *select_.from.front().table, stream_tablets_, consume);
}

QueryResult GroupByNode::Run(ExecutionContext& context) const {
  const auto streamed = [&] {
    StreamedGroups groups = NoGroups();
    ForEachPart(context, [&](RowSet& rows) { AddGroupsOf(context, rows, groups); });
    return Finish(context, groups);
  };
  if (stream_tablets_ > 0) return streamed();
  return JoinPartitions::OnePassOrPartitioned(
      partitions_, [&] { return RunOnePass(context); }, streamed);
}

QueryResult GroupByNode::RunOnePass(ExecutionContext& context) const {
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  Engine& engine = context.engine();
  std::vector<DeviceVector> owned;
  std::vector<VectorView> keys;
  std::vector<GroupAggregateSpec> specs;
  GroupByResult groups = Group(context, rows, owned, keys, specs);
  const auto check_host_memory = [&](RowCount kept) {
    context.query().CheckHostMemory("the GROUP BY result (" + std::to_string(kept) + " groups)",
                                    SaturatingMultiply(kept, group_bytes_));
  };
  if (selection_) {
    std::optional<QueryResult> result =
        selection_->Apply(context.query(), keys, groups, check_host_memory);
    context.query().CheckStatus();
    if (result) return std::move(*result);
  }
  check_host_memory(groups.groups);

  std::vector<ResultColumn> key_columns;
  for (std::size_t k = 0; k < select_.group_keys.size(); ++k)
    key_columns.push_back(
        KeysAt(engine, keys[k], select_.group_keys[k].type, groups.first_positions));
  std::vector<ResultColumn> aggregate_columns;
  for (std::size_t i = 0; i < select_.aggregates.size(); ++i) {
    const sql::Aggregate& a = select_.aggregates[i];
    const GroupAggregateOutput& out = groups.aggregates[i];
    // An integer argument summed as doubles (the AVG above).
    const bool wide =
        specs[i].operation == VM_AGG_SUM_R && a.argument && a.argument->type != ValueType::kReal;
    aggregate_columns.push_back(AggregateColumn(engine, a, wide, out, groups.groups));
  }
  if (OutputsAreColumns(select_, selection_ && selection_->having())) {
    // Each output a group key or an aggregate, nothing else to evaluate: the
    // columns are the result.
    // A column is moved into its last output (copied before that: an output
    // may repeat), so large keys keep the memory they were downloaded into.
    const auto is_key = [this](std::size_t o) {
      return Undecoded(select_.outputs[o].expr).kind == sql::Expr::Kind::kGroupRef;
    };
    const std::size_t outputs = ResultOutputs(select_);
    const auto used_later = [&](std::size_t o) {
      for (std::size_t later = o + 1; later < outputs; ++later)
        if (is_key(later) == is_key(o) && Undecoded(select_.outputs[later].expr).index ==
                                              Undecoded(select_.outputs[o].expr).index)
          return true;
      return false;
    };
    QueryResult result;
    result.rows = groups.groups;
    for (std::size_t o = 0; o < outputs; ++o) {
      const sql::Expr& output = select_.outputs[o].expr;
      ResultColumn& column =
          (is_key(o) ? key_columns : aggregate_columns).at(Undecoded(output).index);
      if (output.kind == sql::Expr::Kind::kTextOfCode) {
        // The codes stay beside the strings, for a derived table to group by.
        result.columns.push_back(TextOfCodes(column, output.dictionary));
        if (used_later(o))
          result.columns.back().codes = column.integers;
        else
          result.columns.back().codes = std::move(column.integers);
      } else
        result.columns.push_back(used_later(o) ? column : std::move(column));
      result.columns.back().name = select_.outputs[o].name;
    }
    if (select_.order_by.empty() && !select_.limit && select_.offset == 0) return result;
    const HostStage stage(context.engine().profiler(), "order groups on the host");
    return OrderOutputColumns(select_, std::move(result.columns), result.rows);
  }
  const HostStage stage(context.engine().profiler(), "groups as host values");
  std::vector<std::vector<sql::Value>> key_values(key_columns.size());
  for (std::size_t k = 0; k < key_columns.size(); ++k)
    for (RowCount g = 0; g < groups.groups; ++g)
      key_values[k].push_back(key_columns[k].ValueAt(g));
  std::vector<std::vector<sql::Value>> aggregate_values(aggregate_columns.size());
  for (std::size_t i = 0; i < aggregate_columns.size(); ++i)
    for (RowCount g = 0; g < groups.groups; ++g)
      aggregate_values[i].push_back(aggregate_columns[i].ValueAt(g));
  return FinishGroupedRows(select_, key_values, aggregate_values, groups.groups,
                           !(selection_ && selection_->having()));
}

}  // namespace clq
