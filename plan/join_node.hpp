// HashJoin: joins the rows so far (left) with an incoming table's rows
// (right) on key equality (operators/hash_join.hpp: PlanJoin's methods, the
// first that the build keys allow). Keys that are a column of a whole
// one-tablet table are read in place; others are computed or gathered. The
// smaller side, by row count at run time, builds the table; where it cannot
// (a DeviceLimitError), the other side does.
// The result is row ids of both sides' sources, ordered by probe row. On a
// device whose memory is the host's, the matched rows and their row ids are
// held to the host-memory budget before they are allocated.
#pragma once

#include "operators/hash_join.hpp"
#include "plan/physical_node.hpp"
#include "plan/query_plan.hpp"

namespace clq {

class HashJoinNode : public RowNode {
 public:
  HashJoinNode(const Engine& engine, const QueryOptions& options, const sql::BoundSelect& select,
               std::unique_ptr<RowNode> left, std::unique_ptr<RowNode> right, JoinEdge edge);
  std::string Name() const override { return "HashJoin"; }
  std::string Describe() const override;
  std::string Programs() const override;
  RowSet Run(ExecutionContext& context) const override;
  const JoinEdge& edge() const { return edge_; }

 private:
  // A side's key: read in place, or evaluated from `values`.
  struct Key {
    bool in_place = false;
    CompiledValues values;
  };
  Key PlanKey(const Engine& engine, const QueryOptions& options, const sql::Expr& key,
              const RowShape& shape);
  ColumnType KeyType(const Key& key, const sql::Expr& expr) const;
  VectorView KeyView(ExecutionContext& context, RowSet& rows, const Key& key, const sql::Expr& expr,
                     DeviceVector& computed) const;

  const sql::BoundSelect& select_;
  QueryOptions options_;
  std::unique_ptr<RowNode> left_;
  std::unique_ptr<RowNode> right_;
  JoinEdge edge_;
  Key left_key_;
  Key right_key_;
  // The join as each side would build it; the smaller side at run time does.
  JoinPlan left_builds_;
  JoinPlan right_builds_;
};

}  // namespace clq
