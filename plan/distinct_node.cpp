#include "plan/distinct_node.hpp"
#include "sql/expr_equality.hpp"

#include <algorithm>

#include "operators/gather.hpp"
#include "operators/group_by.hpp"
#include "plan/row_buffers.hpp"
#include "plan/text_order_codes.hpp"

namespace clq {
namespace {

// The visible outputs that read a column: the DISTINCT keys.
std::vector<const sql::Expr*> DistinctKeys(const sql::BoundSelect& select) {
  std::vector<const sql::Expr*> keys;
  for (std::size_t o = 0; o < select.visible_outputs; ++o)
    if (sql::ContainsKind(select.outputs[o].expr, sql::Expr::Kind::kColumnRef))
      keys.push_back(&select.outputs[o].expr);
  return keys;
}

}  // namespace

DistinctNode::DistinctNode(const Engine& engine, const QueryOptions& options,
                           const sql::BoundSelect& select, std::unique_ptr<RowNode> child)
    : RowNode({RowShape::Kind::kRowIds, child->shape().source, child->shape().max_rows, false,
               child->shape().expected_rows}),
      select_(select),
      options_(options),
      child_(std::move(child)) {
  AddChild(child_.get());
  std::vector<const sql::Expr*> keys = DistinctKeys(select);
  // A CHAR column's rows group by its order codes (the rows kept are those
  // the strings would keep: equal codes are equal strings).
  coded_keys_.reserve(keys.size());
  for (const sql::Expr*& key : keys)
    if (std::optional<GroupingCodes> codes = CodesToGroup(select, *key, options.host_memory)) {
      coded_keys_.push_back(std::move(codes->key));
      key = &coded_keys_.back();
    }
  if (keys.empty()) {
    shape_ = child_->shape();  // one row of the input, as a range
    if (shape_.kind == RowShape::Kind::kWholeTable) shape_.kind = RowShape::Kind::kRange;
    shape_.max_rows = std::min<RowCount>(shape_.max_rows, 1);
    return;
  }
  keys_ = GroupInputs(engine, select, keys, child_->shape());
  AddKernelNames(keys_.Kernels(engine, options, select, child_->shape()));
  plan_ = PlanGrouping(engine, keys_, FirstPositions(keys.size()), {}, child_->shape().max_rows,
                       child_->shape().expected_rows);
  AddKernelNames(plan_.Kernels());
  row_bytes_ = EvaluatedBytesPerRow(keys_.types()) + kGroupBytesPerRow +
               (plan_.strategy == GroupByStrategy::kSort ? kSortBytesPerRow : 0) +
               HeldRowIdBytesPerRow(select, child_->shape()) + RowIdBytesPerRow(select);
  // The first row of each group, by position: a copy for a whole table.
  if (!child_->shape().implicit()) AddKernelNames({GatherBufferKernel(4)});
}

std::string DistinctNode::Describe() const {
  if (keys_.exprs().empty()) return "no output reads a column: the first row";
  std::string keys;
  for (const sql::Expr* key : keys_.exprs())
    keys += (keys.empty() ? "" : ", ") + ExpressionText(select_, *key);
  return keys + ": the first row of each group, in input order; " + plan_.Describe();
}

std::string DistinctNode::Programs() const {
  std::string text;
  for (const CompiledValues::Batch& batch : keys_.computed().batches)
    text += ValuesListing("DISTINCT keys", select_, batch, child_->shape().source, options_);
  return text;
}

RowSet DistinctNode::Run(ExecutionContext& context) const {
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  if (keys_.exprs().empty()) {
    rows.Slice(context.query(), 0, std::min<RowCount>(rows.rows(), 1));
    return rows;
  }
  CheckRowBuffers(context, "DISTINCT", rows.rows(), row_bytes_);
  std::vector<DeviceVector> owned;
  const std::vector<VectorView> keys = keys_.Evaluate(context.query(), rows, owned);
  const GroupByResult groups = GroupBy(context.query(), plan_, keys, {}, rows.rows());
  rows.Reorder(context.query(), groups.first_positions);
  return rows;
}

std::optional<std::uint64_t> DistinctNode::MostRows() const {
  std::uint64_t most = 1;
  for (const GroupKeyInfo& key : plan_.keys) {
    if (!key.range) return std::nullopt;
    // At most 2^64 - 1 values of a key (and NULL): saturate past 2^63.
    const std::uint64_t values = static_cast<std::uint64_t>(key.range->max) -
                                 static_cast<std::uint64_t>(key.range->min) + 1 +
                                 (key.nullable ? 1 : 0);
    if (values == 0 || most > (std::uint64_t{1} << 63) / values) return std::nullopt;
    most *= values;
  }
  return most;
}

}  // namespace clq
