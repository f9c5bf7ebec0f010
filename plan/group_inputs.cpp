#include "plan/group_inputs.hpp"

#include <cmath>

#include "operators/relation.hpp"

namespace clq {

GroupInputs::GroupInputs(const Engine& engine, const sql::BoundSelect& select,
                         std::vector<const sql::Expr*> exprs, const RowShape& shape)
    : exprs_(std::move(exprs)) {
  std::vector<const sql::Expr*> computed;
  for (const sql::Expr* e : exprs_) {
    in_place_.push_back(e->kind == sql::Expr::Kind::kColumnRef &&
                        shape.kind == RowShape::Kind::kWholeTable && e->source == shape.source &&
                        engine.TabletCountFor(*select.from.at(e->source).table) == 1);
    if (!in_place_.back()) computed.push_back(e);
  }
  computed_ = CompileValues(select, computed, shape);
  const std::vector<ValueVectorType> computed_types = ValueVectorTypes(select, computed_);
  std::vector<std::optional<IntRange>> computed_ranges(computed.size());
  for (std::size_t i = 0; i < computed.size(); ++i)
    if (computed[i]->kind == sql::Expr::Kind::kColumnRef)
      computed_ranges[i] =
          TableVmColumn(*select.from.at(computed[i]->source).table, computed[i]->index).range();
  for (const CompiledValues::Batch& batch : computed_.batches)
    for (std::size_t j = 0; j < batch.outputs.size(); ++j)
      computed_ranges[batch.outputs[j]] = batch.program.entry(batch.entries[j]).range;
  for (std::size_t i = 0, c = 0; i < exprs_.size(); ++i) {
    if (in_place_[i]) {
      const VmInputColumn column =
          TableVmColumn(*select.from.at(exprs_[i]->source).table, exprs_[i]->index);
      types_.push_back({column.type, column.nullable});
      ranges_.push_back(column.type.is_integer() ? column.range() : std::nullopt);
    } else {
      types_.push_back(computed_types[c]);
      ranges_.push_back(computed_types[c].type.is_integer() ? computed_ranges[c] : std::nullopt);
      ++c;
    }
  }
}

KernelSet GroupInputs::Kernels(const Engine& engine, const QueryOptions& options,
                               const sql::BoundSelect& select, const RowShape& shape) const {
  return ValuesKernels(engine, options, select, computed_, shape);
}

std::vector<VectorView> GroupInputs::Evaluate(QueryContext& context, RowSet& rows,
                                              std::vector<DeviceVector>& owned) const {
  owned = rows.Evaluate(context, computed_);
  std::vector<VectorView> views;
  for (std::size_t i = 0, c = 0; i < exprs_.size(); ++i) {
    if (in_place_[i]) {
      const std::optional<VectorView> view = rows.ColumnInPlace(*exprs_[i]);
      CLQ_CHECK(view.has_value(), "a grouping input planned in place is not");
      views.push_back(*view);
    } else {
      views.push_back(View(owned[c++]));
    }
  }
  return views;
}

GroupByPlan PlanGrouping(const Engine& engine, const GroupInputs& inputs,
                         const std::vector<std::size_t>& keys,
                         const std::vector<GroupAggregateInfo>& aggregates, RowCount max_rows,
                         RowCount expected_rows) {
  std::vector<GroupKeyInfo> key_infos;
  double product = 1;
  for (const std::size_t k : keys) {
    const std::optional<IntRange>& range = inputs.ranges()[k];
    key_infos.push_back({inputs.types()[k].type, inputs.types()[k].nullable, range});
    // A NULL is one more value.
    product *=
        range ? static_cast<double>(range->max) - static_cast<double>(range->min) + 2 : INFINITY;
  }
  std::optional<RowCount> estimate;
  if (product <= static_cast<double>(max_rows)) estimate = static_cast<RowCount>(product);
  GroupByOptions options;
  options.expected_rows = expected_rows;
  return PlanGroupBy(engine.info(), engine.tuning(), key_infos, aggregates, max_rows, estimate,
                     options);
}

std::vector<std::size_t> FirstPositions(std::size_t count) {
  std::vector<std::size_t> positions(count);
  for (std::size_t i = 0; i < count; ++i)
    positions[i] = i;
  return positions;
}

}  // namespace clq
