// Output (a query without aggregates): the visible outputs of the rows, on
// the host. An output without a column is one host value repeated; a column
// of a whole table or a range of one is copied from the host table; a
// column of rows given by ids is gathered on the device, or read from the
// host table at the row ids when the device does not hold the column and
// the rows are at most 1/64 of its table's (QueryOptions::host_gather
// forces either way); a SUBSTRING of a column is that column's values, cut
// on the host as they arrive; the other outputs are computed on the device
// (vm_project) and downloaded. Before any of it, the result's bytes (and,
// where the device's memory is the host's, its device columns') are held to
// the host-memory budget.
#pragma once

#include "plan/physical_node.hpp"

namespace clq {

class OutputNode : public ResultNode {
 public:
  OutputNode(const Engine& engine, const QueryOptions& options, const sql::BoundSelect& select,
             std::unique_ptr<RowNode> child);
  std::string Name() const override { return "Output"; }
  std::string Describe() const override;
  std::string Programs() const override;
  QueryResult Run(ExecutionContext& context) const override;

 private:
  const sql::BoundSelect& select_;
  QueryOptions options_;
  std::unique_ptr<RowNode> child_;
  CompiledValues computed_;  // outputs that are not plain columns, on the device
  std::size_t constants_ = 0, host_columns_ = 0, gathered_columns_ = 0, cut_columns_ = 0;
  // Bytes a result row takes on the host, and in device buffers before it
  // is downloaded (ResultRowBytes in the .cpp).
  std::uint64_t host_row_bytes_ = 0, device_row_bytes_ = 0;
};

}  // namespace clq
