// Limit (LIMIT n OFFSET m without ORDER BY, or after a sort): keeps a range of
// the rows. Launches nothing: a range of a whole table stays a range, and row
// ids are copied.
#pragma once

#include <optional>

#include "plan/physical_node.hpp"

namespace clq {

class LimitNode : public RowNode {
 public:
  LimitNode(std::unique_ptr<RowNode> child, RowCount offset, std::optional<RowCount> limit);
  std::string Name() const override { return "Limit"; }
  std::string Describe() const override;
  RowSet Run(ExecutionContext& context) const override;

 private:
  std::unique_ptr<RowNode> child_;
  RowCount offset_ = 0;
  std::optional<RowCount> limit_;
};

}  // namespace clq
