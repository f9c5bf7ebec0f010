// Filter: keeps the rows where a conjunction holds. Its conjuncts are
// compiled in batches the expression machine holds (plan/
// compiled_expressions.hpp); each batch selects row ids (operators/
// selection.hpp: a filter kernel, a scan of tile counts, a scatter), the
// first over the table in place when its input is a whole table, later ones
// over the columns gathered for the rows kept so far.
#pragma once

#include "plan/physical_node.hpp"

namespace clq {

class FilterNode : public RowNode {
 public:
  // `what` names the filter in EXPLAIN ("WHERE of t1", "residual").
  FilterNode(const Engine& engine, const QueryOptions& options, const sql::BoundSelect& select,
             std::unique_ptr<RowNode> child, const std::vector<sql::Expr>& conjuncts,
             std::string what);
  std::string Name() const override { return "Filter"; }
  std::string Describe() const override;
  std::string Programs() const override;
  RowSet Run(ExecutionContext& context) const override;

 private:
  const sql::BoundSelect& select_;
  std::unique_ptr<RowNode> child_;
  std::string what_;
  std::string text_;
  std::vector<CompiledPredicate> predicates_;
  std::vector<std::string> notes_;  // per predicate: the filter kernel's note
};

}  // namespace clq
