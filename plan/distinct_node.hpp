// Distinct (SELECT DISTINCT without aggregates): groups the rows by their
// visible outputs and keeps the first row of each group, in input order
// (operators/group_by.hpp without aggregates). Outputs without a column are
// the same on every row: one row is kept.
#pragma once

#include <cstdint>
#include <optional>

#include "operators/group_by.hpp"
#include "plan/group_inputs.hpp"
#include "plan/physical_node.hpp"

namespace clq {

class DistinctNode : public RowNode {
 public:
  DistinctNode(const Engine& engine, const QueryOptions& options, const sql::BoundSelect& select,
               std::unique_ptr<RowNode> child);
  std::string Name() const override { return "Distinct"; }
  std::string Describe() const override;
  std::string Programs() const override;
  RowSet Run(ExecutionContext& context) const override;
  // The most rows it can give, where its keys' ranges bound them (integer
  // keys of known ranges: the product of their value counts, NULL one more).
  std::optional<std::uint64_t> MostRows() const;

 private:
  const sql::BoundSelect& select_;
  QueryOptions options_;
  std::unique_ptr<RowNode> child_;
  // Keys read from CHAR columns' order codes (keys_ points at them; reserved
  // up front, so they do not move).
  std::vector<sql::Expr> coded_keys_;
  GroupInputs keys_;
  GroupByPlan plan_;
  // Device buffers per input row (plan/row_buffers.hpp).
  std::uint64_t row_bytes_ = 0;
};

}  // namespace clq
