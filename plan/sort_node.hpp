// Sort (ORDER BY): orders the rows by the ORDER BY keys that read a column
// (a constant key orders nothing), stably. With a LIMIT it keeps only the
// first OFFSET + LIMIT rows, by top-k (operators/sort.hpp TopK), which
// never sorts more than it must.
#pragma once

#include <optional>

#include "plan/physical_node.hpp"

namespace clq {

class SortNode : public RowNode {
 public:
  SortNode(const Engine& engine, const QueryOptions& options, const sql::BoundSelect& select,
           std::unique_ptr<RowNode> child);
  std::string Name() const override { return top_k_ ? "TopK" : "Sort"; }
  std::string Describe() const override;
  std::string Programs() const override;
  RowSet Run(ExecutionContext& context) const override;

 private:
  const sql::BoundSelect& select_;
  QueryOptions options_;
  std::unique_ptr<RowNode> child_;
  CompiledValues keys_;
  std::vector<bool> descending_;
  std::optional<RowCount> top_k_;  // OFFSET + LIMIT, when there is a LIMIT
};

}  // namespace clq
