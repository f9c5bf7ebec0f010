// Sort (ORDER BY): orders the rows by the ORDER BY keys that read a column
// (a constant key orders nothing), stably. With a LIMIT it keeps only the
// first OFFSET + LIMIT rows, by top-k (operators/top_k.hpp), which never
// sorts more than it must. Keys that are columns of a whole one-tablet
// table are read in place; others are computed or gathered. A top-k over a
// table past the device's memory streams (plan/streamed_input.hpp): each
// chunk's first OFFSET + LIMIT rows are candidates, whose keys come to the
// host, and one more top-k over the candidates in the order they came
// (tied keys in row order) gives the rows.
#pragma once

#include <optional>

#include "operators/top_k.hpp"
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
  // ORDER BY ... LIMIT over a chunk of tablets at a time: each chunk's top
  // rows (their keys and row ids) are the candidates of a last top-k.
  RowSet RunStreamed(ExecutionContext& context) const;
  void CheckConstantKeys() const;

  const sql::BoundSelect& select_;
  QueryOptions options_;
  std::unique_ptr<RowNode> child_;
  // Keys read from CHAR columns' order codes, where made (keys_ points at
  // them; reserved up front, so they do not move).
  std::vector<sql::Expr> coded_keys_;
  std::vector<const sql::Expr*> keys_;
  // Keys that read no column: they order nothing, but are computed once when
  // there is a row, so that one that overflows raises as on every row.
  std::vector<const sql::Expr*> constant_keys_;
  std::vector<bool> in_place_;  // by key: read where it lies
  CompiledValues computed_;     // the other keys
  std::vector<bool> descending_;
  std::optional<TopKPlan> top_k_;  // OFFSET + LIMIT rows, when there is a LIMIT
  // Device buffers per input row (plan/row_buffers.hpp): the keys evaluated,
  // the radix sort's arrays, the reordered row ids.
  std::uint64_t row_bytes_ = 0;
  // With a LIMIT over one table (or its filter) whose keys would pass a
  // quarter of the device's memory: the tablets a chunk takes; else 0.
  std::size_t stream_tablets_ = 0;
};

}  // namespace clq
