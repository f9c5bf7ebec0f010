#include "plan/distinct_node.hpp"
#include "sql/expr_equality.hpp"

#include <algorithm>

#include "operators/gather.hpp"
#include "operators/group_by.hpp"

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
    : RowNode({RowShape::Kind::kRowIds, child->shape().source, child->shape().max_rows, false}),
      select_(select),
      options_(options),
      child_(std::move(child)) {
  AddChild(child_.get());
  const std::vector<const sql::Expr*> keys = DistinctKeys(select);
  if (keys.empty()) {
    shape_ = child_->shape();  // one row of the input, as a range
    if (shape_.kind == RowShape::Kind::kWholeTable) shape_.kind = RowShape::Kind::kRange;
    shape_.max_rows = std::min<RowCount>(shape_.max_rows, 1);
    return;
  }
  keys_ = CompileValues(select, keys, child_->shape());
  AddKernelNames(ValuesKernels(engine, options, select, keys_, child_->shape()));
  std::vector<bool> nullable;
  for (const ValueVectorType& type : ValueVectorTypes(select, keys_))
    nullable.push_back(type.nullable);
  AddKernelNames(
      GroupByKernels(engine, nullable, {}, child_->shape().max_rows, child_->shape().exact));
  // The first row of each group, by position: a copy for a whole table.
  if (!child_->shape().implicit()) AddKernelNames({GatherBufferKernel(4)});
}

std::string DistinctNode::Describe() const {
  if (keys_.exprs.empty()) return "no output reads a column: the first row";
  std::string keys;
  for (const sql::Expr* key : keys_.exprs)
    keys += (keys.empty() ? "" : ", ") + ExpressionText(select_, *key);
  return keys + " (group by hashing of the keys; the first row of each group, in input order)";
}

std::string DistinctNode::Programs() const {
  std::string text;
  for (const CompiledValues::Batch& batch : keys_.batches)
    text += ValuesListing("DISTINCT keys", select_, batch, child_->shape().source, options_);
  return text;
}

RowSet DistinctNode::Run(ExecutionContext& context) const {
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  if (keys_.exprs.empty()) {
    rows.Slice(context.query(), 0, std::min<RowCount>(rows.rows(), 1));
    return rows;
  }
  const std::vector<DeviceVector> vectors = rows.Evaluate(context.query(), keys_);
  std::vector<VectorView> keys;
  for (const DeviceVector& v : vectors)
    keys.push_back(View(v));
  const GroupByResult groups = GroupBy(context.query(), keys, {}, rows.rows());
  rows.Reorder(context.query(), groups.first_positions);
  return rows;
}

}  // namespace clq
