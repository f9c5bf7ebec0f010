// GroupBy: the group keys and aggregate arguments evaluated for the rows, or
// read in place (plan/group_inputs.hpp), grouped on the device by the plan
// PlanGroupBy chose (operators/group_by.hpp: a direct or hash table, or a
// sort), one row per group downloaded; HAVING, the outputs,
// DISTINCT, ORDER BY and LIMIT then run on the host over the groups
// (plan/host_rows.hpp). The device buffers that grow with the input rows
// are held to the host-memory budget before grouping (where the device's
// memory is the host's), the groups' host columns and rows once their
// count is known. A table (or its filter) of several tablets whose
// intermediates would pass a quarter of the device's memory streams: the
// input runs a chunk of tablets at a time, each chunk grouped on the
// device and its groups merged on the host, where HAVING and the rest
// then run; so does a join past the device's memory, a partition at a time
// (plan/join_partitions.hpp). Where every aggregate merges, several devices
// each add the groups of their part of the rows (MergeableResult,
// plan/device_split.hpp).
#pragma once

#include "operators/group_by.hpp"
#include "plan/group_inputs.hpp"
#include "plan/group_selection.hpp"
#include "plan/join_partitions.hpp"
#include "plan/physical_node.hpp"

namespace clq {

class GroupByNode : public ResultNode, public MergeableResult {
 public:
  // Throws DeviceLimitError for what devices do not run: a constant group
  // key, an aggregate of a CHAR column.
  GroupByNode(const Engine& engine, const QueryOptions& options, const sql::BoundSelect& select,
              std::unique_ptr<RowNode> child);
  std::string Name() const override { return "GroupBy"; }
  std::string Describe() const override;
  std::string Programs() const override;
  QueryResult Run(ExecutionContext& context) const override;
  const MergeableResult* Mergeable() const override { return mergeable_ ? this : nullptr; }
  StreamedGroups NoGroups() const override;
  void AddGroups(ExecutionContext& context, StreamedGroups& groups) const override;
  QueryResult Finish(ExecutionContext& context, const StreamedGroups& groups) const override;

 private:
  // Evaluates the keys and arguments for `rows` (into `owned`, viewed by
  // `keys` and `specs`) and groups them on the device.
  GroupByResult Group(ExecutionContext& context, RowSet& rows, std::vector<DeviceVector>& owned,
                      std::vector<VectorView>& keys, std::vector<GroupAggregateSpec>& specs) const;
  // Adds the groups of `rows` to `merged`.
  void AddGroupsOf(ExecutionContext& context, RowSet& rows, StreamedGroups& merged) const;
  // The GROUP BY of every row at once.
  QueryResult RunOnePass(ExecutionContext& context) const;
  bool Streams() const { return stream_tablets_ > 0 || partitions_.has_value(); }
  // Runs the input a part at a time: a chunk of tablets, or a partition.
  void ForEachPart(ExecutionContext& context,
                   const std::function<void(RowSet& rows)>& consume) const;

  const sql::BoundSelect& select_;
  QueryOptions options_;
  std::unique_ptr<RowNode> child_;
  GroupInputs inputs_;  // the group keys, then the arguments
  // By aggregate: its argument's position in inputs_, when it has one.
  std::vector<std::optional<std::size_t>> argument_of_;
  std::vector<std::uint32_t> operations_;  // by aggregate: its device operation
  GroupByPlan plan_;
  // The keys the groups are found by (positions in select_.group_keys): all
  // but those that follow one of them (GroupedKeys); the others are read
  // at each group's first row like every key.
  std::vector<std::size_t> grouped_;
  // The groups HAVING and ORDER BY ... LIMIT keep, on the device; none: the
  // host filters, orders and cuts every group.
  std::optional<GroupSelection> selection_;
  // Device buffers per input row, and host bytes per group (its keys and
  // aggregates downloaded, and as host values when the outputs need more).
  std::uint64_t row_bytes_ = 0, group_bytes_ = 0;
  // Tablets of the input's table a chunk takes when the input (a table, or
  // its filter) outgrows what the device's memory holds of intermediates
  // and every aggregate merges; 0: one pass over every row.
  std::size_t stream_tablets_ = 0;
  // Whether every aggregate's partial results combine exactly.
  bool mergeable_ = false;
  // Where the input is a join past the device's memory (and every
  // aggregate merges): its partitions, run one at a time.
  std::optional<JoinPartitions> partitions_;
};

}  // namespace clq
