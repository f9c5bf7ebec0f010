// Aggregate (without GROUP BY): COUNT, SUM, MIN, MAX, AVG, MEDIAN, QUANTILE
// of the rows, one result row on the host (HAVING and the outputs are
// evaluated there). The aggregates run in passes (plan/aggregate_pass.hpp):
// each pass one program over the table in place, with the WHERE fused into
// it when the planner fused them, or over the argument columns gathered for
// the rows (operators/aggregation.hpp). MEDIAN and QUANTILE project their
// argument and select the value of their rank (operators/sort.hpp). The
// gathered columns are held to the host-memory budget first, where the
// device's memory is the host's (plan/row_buffers.hpp). Over a join past
// the device's memory, where every aggregate's partial results combine
// exactly, the join runs a partition at a time (plan/join_partitions.hpp)
// and each partition's aggregates are merged on the host; several devices
// likewise each add the aggregates of their part of the rows
// (MergeableResult, plan/device_split.hpp).
#pragma once

#include <optional>

#include "plan/aggregate_pass.hpp"
#include "plan/join_partitions.hpp"
#include "plan/physical_node.hpp"

namespace clq {

class AggregateNode : public ResultNode, public MergeableResult {
 public:
  // `fused`: the child is a scan of one table and its WHERE,
  // `fused_predicate`, runs inside the aggregation, in one program with the
  // arguments.
  AggregateNode(const Engine& engine, const QueryOptions& options, const sql::BoundSelect& select,
                std::unique_ptr<RowNode> child, bool fused,
                std::optional<sql::Expr> fused_predicate);
  std::string Name() const override { return "Aggregate"; }
  std::string Describe() const override;
  std::string Programs() const override;
  QueryResult Run(ExecutionContext& context) const override;
  const MergeableResult* Mergeable() const override { return mergeable_ ? this : nullptr; }
  StreamedGroups NoGroups() const override;
  void AddGroups(ExecutionContext& context, StreamedGroups& groups) const override;
  QueryResult Finish(ExecutionContext& context, const StreamedGroups& groups) const override;

 private:
  struct Pass {
    AggregatePass compiled;
    std::vector<std::size_t> aggregates;  // indexes into select.aggregates
    std::string title;
    std::string machines;  // each device pass's machine or kernel, for EXPLAIN
    KernelSet kernels;
  };
  // The aggregates over `rows`: their SQL values, and each one's device
  // value (a quantile's none) where `device_values` is given.
  std::vector<sql::Value> Compute(ExecutionContext& context, RowSet& rows,
                                  std::vector<AggregateValue>* device_values) const;
  // Adds the aggregates over `rows` to `groups` (one group, no keys).
  void AddGroupOf(ExecutionContext& context, RowSet& rows, StreamedGroups& groups) const;
  // The aggregates' SQL values in merged `groups`.
  std::vector<sql::Value> ValuesOf(const StreamedGroups& groups) const;
  // The result row of the aggregates' values (HAVING, the outputs).
  QueryResult ResultOf(const std::vector<sql::Value>& aggregate_values) const;

  const sql::BoundSelect& select_;
  std::unique_ptr<RowNode> child_;
  bool fused_ = false;
  std::optional<sql::Expr> fused_predicate_;
  bool in_place_ = false;
  std::vector<std::pair<std::size_t, std::size_t>> gathered_;
  RowCount rows_bound_ = 0;
  std::vector<Pass> passes_;
  // Over a join past the device's memory: its partitions.
  std::optional<JoinPartitions> partitions_;
  std::uint64_t row_bytes_ = 0;  // device buffers per input row
  // Whether every aggregate's partial results combine exactly.
  bool mergeable_ = false;
};

}  // namespace clq
