// The expressions a grouping reads (GROUP BY keys and aggregate arguments,
// DISTINCT keys), planned for the rows they come from: a column of a whole
// one-tablet table is read in place, anything else evaluated (plan/
// compiled_expressions.hpp). Each comes with its vector's type, NULL map and
// integer bounds, known at plan time, for PlanGroupBy.
#pragma once

#include <optional>
#include <vector>

#include "operators/group_by.hpp"
#include "plan/compiled_expressions.hpp"
#include "plan/row_set.hpp"

namespace clq {

class GroupInputs {
 public:
  GroupInputs() = default;
  GroupInputs(const Engine& engine, const sql::BoundSelect& select,
              std::vector<const sql::Expr*> exprs, const RowShape& shape);

  const std::vector<const sql::Expr*>& exprs() const { return exprs_; }
  const std::vector<ValueVectorType>& types() const { return types_; }
  const std::vector<std::optional<IntRange>>& ranges() const { return ranges_; }
  const CompiledValues& computed() const { return computed_; }
  // The kernels that evaluate the ones not read in place.
  KernelSet Kernels(const Engine& engine, const QueryOptions& options,
                    const sql::BoundSelect& select, const RowShape& shape) const;

  // The values, one view per expression; `owned` keeps the evaluated ones.
  std::vector<VectorView> Evaluate(QueryContext& context, RowSet& rows,
                                   std::vector<DeviceVector>& owned) const;

 private:
  std::vector<const sql::Expr*> exprs_;
  std::vector<bool> in_place_;
  std::vector<ValueVectorType> types_;
  std::vector<std::optional<IntRange>> ranges_;
  CompiledValues computed_;
};

// The plan of a grouping by `keys` (positions in `inputs`) over at most
// `max_rows` rows, the product of the integer keys' value counts as the
// estimate of groups when every key has bounds; `expected_rows` is the
// RowShape's (GroupByOptions::expected_rows).
GroupByPlan PlanGrouping(const Engine& engine, const GroupInputs& inputs,
                         const std::vector<std::size_t>& keys,
                         const std::vector<GroupAggregateInfo>& aggregates, RowCount max_rows,
                         RowCount expected_rows);

// Positions 0, 1, ..., count - 1.
std::vector<std::size_t> FirstPositions(std::size_t count);

}  // namespace clq
