// Scan: every row of one FROM source, in order. Launches nothing: a column
// is uploaded to the device (or viewed in place on CPU devices) when a later
// step first reads it.
#pragma once

#include "plan/physical_node.hpp"

namespace clq {

class ScanNode : public RowNode {
 public:
  ScanNode(const Engine& engine, const sql::BoundSelect& select, std::size_t source);
  std::string Name() const override { return "Scan"; }
  std::string Describe() const override { return description_; }
  RowSet Run(ExecutionContext& context) const override;

 private:
  const sql::BoundSelect& select_;
  std::string description_;
};

}  // namespace clq
