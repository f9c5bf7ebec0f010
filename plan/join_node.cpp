#include "plan/join_node.hpp"

#include <algorithm>
#include <limits>

#include "operators/gather.hpp"
#include "operators/join_unmatched.hpp"

namespace clq {
namespace {

RowCount ExpectedRows(const RowShape& shape) {
  return shape.expected_rows != 0 ? std::min(shape.expected_rows, shape.max_rows) : shape.max_rows;
}

RowCount ProductBound(RowCount a, RowCount b) {
  if (a != 0 && b > kMaxTableRows / a) return kMaxTableRows;
  return a * b;
}

}  // namespace

HashJoinNode::Key HashJoinNode::PlanKey(const Engine& engine, const QueryOptions& options,
                                        const sql::Expr& key, const RowShape& shape) {
  Key planned{false, {}};
  if (key.kind == sql::Expr::Kind::kColumnRef && shape.kind == RowShape::Kind::kWholeTable &&
      key.source == shape.source &&
      engine.TabletCountFor(*select_.from.at(key.source).table) == 1) {
    planned.in_place = true;
    return planned;
  }
  planned.values = CompileValues(select_, {&key}, shape);
  AddKernelNames(ValuesKernels(engine, options, select_, planned.values, shape));
  return planned;
}

HashJoinNode::HashJoinNode(const Engine& engine, const QueryOptions& options,
                           const sql::BoundSelect& select, std::unique_ptr<RowNode> left,
                           std::unique_ptr<RowNode> right, JoinEdge edge)
    : RowNode({RowShape::Kind::kRowIds, left->shape().source,
               // A LEFT JOIN keeps every left row at least once.
               std::max(ProductBound(left->shape().max_rows, right->shape().max_rows),
                        edge.outer ? left->shape().max_rows : RowCount{0}),
               false, std::max(ExpectedRows(left->shape()), ExpectedRows(right->shape()))}),
      select_(select),
      options_(options),
      left_(std::move(left)),
      right_(std::move(right)),
      edge_(std::move(edge)) {
  AddChild(left_.get());
  AddChild(right_.get());
  left_key_ = PlanKey(engine, options, edge_.left_key, left_->shape());
  right_key_ = PlanKey(engine, options, edge_.right_key, right_->shape());
  const ColumnType left_type = KeyType(left_key_, edge_.left_key);
  const ColumnType right_type = KeyType(right_key_, edge_.right_key);
  const RowCount left_rows = left_->shape().max_rows, right_rows = right_->shape().max_rows;
  left_builds_ =
      PlanJoin(engine.info(), engine.tuning(), {left_type, right_type, left_rows, right_rows});
  right_builds_ =
      PlanJoin(engine.info(), engine.tuning(), {right_type, left_type, right_rows, left_rows});
  // Both orientations' kernels; the side that builds is known at run time.
  const KernelSet left_kernels = left_builds_.Kernels(), right_kernels = right_builds_.Kernels();
  for (const std::string& name : left_kernels.always())
    AddKernelNames(KernelSet{name},
                   !right_kernels.Contains(name) ||
                       std::find(right_kernels.always().begin(), right_kernels.always().end(),
                                 name) == right_kernels.always().end());
  AddKernelNames(left_kernels, true);
  AddKernelNames(right_kernels, true);
  // The matched positions then index each side's row ids (a copy of the
  // positions for a whole table).
  if (!left_->shape().implicit() || !right_->shape().implicit())
    AddKernelNames({GatherBufferKernel(4)});
  if (edge_.outer)
    AddKernelNames(AppendUnmatchedKernels(engine, left_->shape().max_rows, left_->shape().exact));
}

ColumnType HashJoinNode::KeyType(const Key& key, const sql::Expr& expr) const {
  if (key.in_place) return select_.from.at(expr.source).table->column(expr.index).type();
  return ValueVectorTypes(select_, key.values).at(0).type;
}

std::string HashJoinNode::Describe() const {
  return std::string(edge_.outer ? "LEFT JOIN " : "") + ExpressionText(select_, edge_.left_key) +
         " = " + ExpressionText(select_, edge_.right_key) +
         " (the smaller side builds, the other where it cannot: " + left_builds_.Describe() + ")";
}

std::string HashJoinNode::Programs() const {
  std::string text;
  const auto list = [&](const char* side, const Key& key, const RowShape& shape) {
    for (const CompiledValues::Batch& batch : key.values.batches)
      text +=
          ValuesListing(std::string("join key of ") + side, select_, batch, shape.source, options_);
  };
  list("the left side", left_key_, left_->shape());
  list("the right side", right_key_, right_->shape());
  return text;
}

VectorView HashJoinNode::KeyView(ExecutionContext& context, RowSet& rows, const Key& key,
                                 const sql::Expr& expr, DeviceVector& computed) const {
  if (key.in_place) {
    const std::optional<VectorView> view = rows.ColumnInPlace(expr);
    CLQ_CHECK(view.has_value(), "a join key planned in place is not");
    return *view;
  }
  computed = std::move(rows.Evaluate(context.query(), key.values)[0]);
  return View(computed);
}

RowSet HashJoinNode::Run(ExecutionContext& context) const {
  RowSet rows = left_->Run(context);
  RowSet incoming = right_->Run(context);
  const ExecutionContext::NodeScope scope(context, *this);
  DeviceVector left_computed, right_computed;
  const VectorView left_keys = KeyView(context, rows, left_key_, edge_.left_key, left_computed);
  const VectorView right_keys =
      KeyView(context, incoming, right_key_, edge_.right_key, right_computed);
  bool left_builds = rows.rows() <= incoming.rows();
  const auto join = [&] {
    return left_builds ? ExecuteJoin(context.query(), left_builds_, left_keys, right_keys)
                       : ExecuteJoin(context.query(), right_builds_, right_keys, left_keys);
  };
  JoinResult joined;
  try {
    joined = join();
  } catch (const DeviceLimitError&) {
    // The smaller side cannot build here (its keys repeat past what the
    // device's loops allow, or its table past the device's memory): the
    // other side may.
    left_builds = !left_builds;
    joined = join();
  }
  // Composing the joined rows gives each of them a row id of every table
  // joined so far, beside the matched positions still held.
  std::uint64_t tables = 1;
  for (std::size_t s = 0; s < select_.from.size(); ++s)
    tables += rows.joined(s) ? 1 : 0;
  context.query().CheckDeviceBuffers("the joined rows (" + std::to_string(joined.size) +
                                         " rows, a row id of each of " + std::to_string(tables) +
                                         " tables)",
                                     joined.size * sizeof(cl_uint) * (tables + 2));
  RowIds& left_positions = left_builds ? joined.build_positions : joined.probe_positions;
  RowIds& right_positions = left_builds ? joined.probe_positions : joined.build_positions;
  incoming.Reorder(context.query(), right_positions);
  RowIds right_rows = incoming.TakeIds(edge_.right_source);
  if (edge_.outer) {
    // The left rows without a match follow, once each, with no right row.
    RowIds positions = std::move(left_positions);
    AppendUnmatched(context.query(), rows.rows(), positions, right_rows);
    rows.Join(context.query(), positions, edge_.right_source, std::move(right_rows));
    return rows;
  }
  rows.Join(context.query(), left_positions, edge_.right_source, std::move(right_rows));
  return rows;
}

}  // namespace clq
