#include "plan/sort_node.hpp"

#include "common/errors.hpp"
#include "operators/gather.hpp"
#include "operators/scalar_eval.hpp"
#include "operators/sort.hpp"
#include "plan/row_buffers.hpp"
#include "sql/expr_equality.hpp"

namespace clq {

SortNode::SortNode(const Engine& engine, const QueryOptions& options,
                   const sql::BoundSelect& select, std::unique_ptr<RowNode> child)
    : RowNode({RowShape::Kind::kRowIds, child->shape().source, child->shape().max_rows,
               child->shape().exact, child->shape().expected_rows}),
      select_(select),
      options_(options),
      child_(std::move(child)) {
  AddChild(child_.get());
  const RowShape& input = child_->shape();
  std::vector<const sql::Expr*> computed;
  for (const sql::OrderKey& key : select.order_by) {
    const sql::Expr& e = select.outputs.at(key.expr.index).expr;
    if (!sql::ContainsKind(e, sql::Expr::Kind::kColumnRef)) {
      constant_keys_.push_back(&e);
      continue;
    }
    keys_.push_back(&e);
    descending_.push_back(key.descending);
    in_place_.push_back(e.kind == sql::Expr::Kind::kColumnRef &&
                        input.kind == RowShape::Kind::kWholeTable && e.source == input.source &&
                        engine.TabletCountFor(*select.from.at(e.source).table) == 1);
    if (!in_place_.back()) computed.push_back(&e);
  }
  if (keys_.empty()) {
    shape_ = input;
    return;
  }
  computed_ = CompileValues(select, computed, input);
  AddKernelNames(ValuesKernels(engine, options, select, computed_, input));
  // The keys as TopK sees them: their vectors' types and NULL maps.
  const std::vector<ValueVectorType> computed_types = ValueVectorTypes(select, computed_);
  std::vector<TopKKey> top_k_keys;
  std::vector<bool> nullable;
  for (std::size_t k = 0, c = 0; k < keys_.size(); ++k) {
    ValueVectorType type;
    if (in_place_[k]) {
      const Column& column = select.from.at(keys_[k]->source).table->column(keys_[k]->index);
      type = {column.type(), column.nullable()};
    } else {
      type = computed_types[c++];
    }
    top_k_keys.push_back({type.type, type.nullable, descending_[k]});
    nullable.push_back(type.nullable);
  }
  if (select.limit) {
    top_k_ = PlanTopK(engine.info(), engine.tuning(), top_k_keys, input.max_rows,
                      select.offset + *select.limit);
    AddKernelNames(top_k_->Kernels(engine, input.exact));
    shape_.max_rows = std::min(shape_.max_rows, top_k_->k);
  } else {
    AddKernelNames(SortPermutationKernels(engine, nullable, input.max_rows, input.exact));
  }
  row_bytes_ = EvaluatedBytesPerRow(computed_types) + (top_k_ ? 0 : kSortBytesPerRow) +
               HeldRowIdBytesPerRow(select, input) + RowIdBytesPerRow(select);
  // The order then indexes the row ids (a copy of the positions for a whole
  // table).
  if (!input.implicit()) AddKernelNames({GatherBufferKernel(4)});
}

std::string SortNode::Describe() const {
  if (keys_.empty()) return "no key reads a column: the input order";
  std::string keys;
  for (std::size_t k = 0; k < keys_.size(); ++k)
    keys += (keys.empty() ? "" : ", ") + ExpressionText(select_, *keys_[k]) +
            (descending_[k] ? " DESC" : "") + (in_place_[k] ? " (in place)" : "");
  return keys + (top_k_ ? "; " + top_k_->Describe() : "; radix sort");
}

std::string SortNode::Programs() const {
  std::string text;
  for (const CompiledValues::Batch& batch : computed_.batches)
    text += ValuesListing("ORDER BY keys", select_, batch, child_->shape().source, options_);
  return text;
}

RowSet SortNode::Run(ExecutionContext& context) const {
  RowSet rows = child_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  if (rows.rows() > 0) {
    for (const sql::Expr* key : constant_keys_)
      (void)EvaluateScalar(*key, [](const sql::Expr&) -> sql::Value {
        throw InternalError("a column in an ORDER BY key that reads none");
      });
  }
  if (keys_.empty() || rows.rows() == 0) return rows;
  CheckRowBuffers(context, top_k_ ? "ORDER BY with LIMIT" : "ORDER BY", rows.rows(), row_bytes_);
  // Evaluated even for one row, which needs no order: a key that overflows
  // raises the error on every row it is computed for, as the CPU reference's.
  const std::vector<DeviceVector> vectors = rows.Evaluate(context.query(), computed_);
  if (rows.rows() == 1) return rows;
  std::vector<SortKey> keys;
  for (std::size_t k = 0, c = 0; k < keys_.size(); ++k) {
    if (in_place_[k]) {
      const std::optional<VectorView> view = rows.ColumnInPlace(*keys_[k]);
      CLQ_CHECK(view.has_value(), "an ORDER BY key planned in place is not");
      keys.push_back({*view, descending_[k]});
    } else {
      keys.push_back({View(vectors[c++]), descending_[k]});
    }
  }
  const RowIds order = top_k_ ? TopK(context.query(), *top_k_, keys, rows.rows()).positions
                              : SortPermutation(context.query(), keys, rows.rows());
  rows.Reorder(context.query(), order);
  return rows;
}

}  // namespace clq
