// The physical plan of one SELECT on one device (plan/physical_node.hpp): built
// once by the planner, then explained (EXPLAIN prints the tree, each node's
// kernels and its expression programs) and executed from the same nodes.
//
// The planner's decisions (plan/query_plan.hpp) become the tree:
//   Scan -> [Filter] -> HashJoin (with each incoming table's Scan -> [Filter])
//   -> [Filter of the joined rows] -> one of
//        Aggregate (ungrouped; fused with the Scan's WHERE for one table)
//      | GroupBy (HAVING, ORDER BY and LIMIT of the groups on the host)
//      | [Distinct] -> [Sort or TopK] -> [Limit] -> Output.
//
// The plan holds references into the BoundSelect, which must outlive it.
// Not thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "plan/physical_node.hpp"

namespace clq {

// One kernel launch of an execution: the node that launched it (its id) and
// the kernel's name.
struct KernelLaunch {
  std::size_t node = 0;
  std::string kernel;
};

class PhysicalPlan {
 public:
  // Throws SqlError / InvalidInputError / DeviceLimitError for queries the
  // engine cannot plan (cross joins, more columns than the machine holds).
  PhysicalPlan(const Engine& engine, const QueryOptions& options, const sql::BoundSelect& select);

  const ResultNode& root() const { return *root_; }
  // Every node, pre-order (a node's position is its id).
  const std::vector<const PhysicalNode*>& nodes() const { return nodes_; }

  // The tree, one node per line with its kernels, then the expression
  // programs of every node.
  std::string Explain() const;

  // Runs the plan; when `launches` is given, appends every kernel launch.
  QueryResult Execute(Engine& engine, std::vector<KernelLaunch>* launches = nullptr) const;
  // Gives a result of the root's the outputs' logical types (DATE, DECIMAL),
  // as Execute does.
  void SetOutputTypes(QueryResult& result) const;

 private:
  QueryOptions options_;
  // The select as planned where it differs from the one given (MIN and MAX
  // of CHAR on order codes, plan/text_order_codes.hpp); the nodes refer to it.
  std::shared_ptr<const sql::BoundSelect> coded_;
  std::vector<LogicalType> output_logical_;  // of each visible output
  std::string device_line_;
  std::unique_ptr<ResultNode> root_;
  std::vector<const PhysicalNode*> nodes_;
};

}  // namespace clq
