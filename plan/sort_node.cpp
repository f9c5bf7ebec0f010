#include "plan/sort_node.hpp"
#include "sql/expr_equality.hpp"

#include "operators/gather.hpp"
#include "operators/sort.hpp"

namespace clq {

SortNode::SortNode(const Engine& engine, const QueryOptions& options,
                   const sql::BoundSelect& select, std::unique_ptr<RowNode> child)
    : RowNode({RowShape::Kind::kRowIds, child->shape().source, child->shape().max_rows,
               child->shape().exact}),
      select_(select),
      options_(options),
      child_(std::move(child)) {
  AddChild(child_.get());
  std::vector<const sql::Expr*> keys;
  for (const sql::OrderKey& key : select.order_by) {
    const sql::Expr& e = select.outputs.at(key.expr.index).expr;
    if (!sql::ContainsKind(e, sql::Expr::Kind::kColumnRef)) continue;  // orders nothing
    keys.push_back(&e);
    descending_.push_back(key.descending);
  }
  if (select.limit) top_k_ = select.offset + *select.limit;
  if (keys.empty()) {
    shape_ = child_->shape();
    return;
  }
  keys_ = CompileValues(select, keys, child_->shape());
  AddKernelNames(ValuesKernels(engine, options, select, keys_, child_->shape()));
  std::vector<bool> nullable;
  for (const ValueVectorType& type : ValueVectorTypes(select, keys_))
    nullable.push_back(type.nullable);
  const RowCount rows = child_->shape().max_rows;
  const bool exact = child_->shape().exact;
  AddKernelNames(top_k_ ? TopKKernels(engine, nullable, rows, *top_k_, exact)
                        : SortPermutationKernels(engine, nullable, rows, exact));
  if (!child_->shape().implicit()) AddKernelNames({GatherBufferKernel(4)});
  if (top_k_) shape_.max_rows = std::min(shape_.max_rows, *top_k_);
}

std::string SortNode::Describe() const {
  if (keys_.exprs.empty()) return "no key reads a column: the input order";
  std::string keys;
  for (std::size_t k = 0; k < keys_.exprs.size(); ++k)
    keys += (keys.empty() ? "" : ", ") + ExpressionText(select_, *keys_.exprs[k]) +
            (descending_[k] ? " DESC" : "");
  return keys + (top_k_ ? ", the first " + std::to_string(*top_k_) + " rows" : "");
}

std::string SortNode::Programs() const {
  std::string text;
  for (const CompiledValues::Batch& batch : keys_.batches)
    text += ValuesListing("ORDER BY keys", select_, batch, child_->shape().source, options_);
  return text;
}

RowSet SortNode::Run(ExecutionContext& context) const {
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  if (keys_.exprs.empty() || rows.rows() <= 1) return rows;
  const std::vector<DeviceVector> vectors = rows.Evaluate(context.query(), keys_);
  std::vector<SortKey> keys;
  for (std::size_t k = 0; k < vectors.size(); ++k)
    keys.push_back({View(vectors[k]), descending_[k]});
  const RowIds order = top_k_ ? TopK(context.query(), keys, rows.rows(), *top_k_)
                              : SortPermutation(context.query(), keys, rows.rows());
  rows.Reorder(context.query(), order);
  return rows;
}

}  // namespace clq
