#include "plan/limit_node.hpp"

#include <algorithm>

namespace clq {

LimitNode::LimitNode(std::unique_ptr<RowNode> child, RowCount offset, std::optional<RowCount> limit)
    : RowNode(child->shape()), child_(std::move(child)), offset_(offset), limit_(limit) {
  AddChild(child_.get());
  if (shape_.kind == RowShape::Kind::kWholeTable) shape_.kind = RowShape::Kind::kRange;
  shape_.max_rows = shape_.max_rows > offset_ ? shape_.max_rows - offset_ : 0;
  if (limit_) shape_.max_rows = std::min(shape_.max_rows, *limit_);
}

std::string LimitNode::Describe() const {
  return (limit_ ? "LIMIT " + std::to_string(*limit_) : std::string("no LIMIT")) +
         (offset_ > 0 ? " OFFSET " + std::to_string(offset_) : "");
}

RowSet LimitNode::Run(ExecutionContext& context) const {
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  rows.Slice(context.query(), offset_, limit_.value_or(rows.rows()));
  return rows;
}

}  // namespace clq
