#include "operators/relation.hpp"

#include "common/errors.hpp"

namespace clq {

std::vector<VmInputColumn> Relation::columns() const {
  std::vector<VmInputColumn> result;
  for (std::size_t c = 0; c < column_count(); ++c)
    result.push_back(column(c));
  return result;
}

TableRelation::TableRelation(Engine& engine, TablePtr table)
    : engine_(engine), table_(std::move(table)), tablets_(engine.tables().Tablets(*table_)) {}

VmInputColumn TableVmColumn(const Table& table, std::size_t index) {
  const Column& column = table.column(index);
  // A NULL row's value is 0, which the column's range covers: still a bound.
  return {column.type(), column.nullable(),
          [data = column.shared_data()] { return data->IntegerRange(); }};
}

VmInputColumn TableRelation::column(std::size_t index) const {
  return TableVmColumn(*table_, index);
}

const std::string& TableRelation::column_name(std::size_t index) const {
  return table_->column(index).name();
}

TabletRangeRelation::TabletRangeRelation(Relation& inner, std::size_t first, std::size_t count,
                                         bool rebased)
    : inner_(inner), first_(first) {
  const std::vector<Tablet> all = inner.tablets();
  CLQ_CHECK(first + count <= all.size(), "tablet range past the relation's tablets");
  const RowCount base = count > 0 && rebased ? all[first].begin : 0;
  for (std::size_t t = first; t < first + count; ++t) {
    tablets_.push_back({all[t].begin - base, all[t].rows});
    rows_ += all[t].rows;
  }
  if (tablets_.empty()) tablets_.push_back({0, 0});
}

cl::Buffer TableRelation::values(std::size_t column, std::size_t tablet) {
  return engine_.tables().Column(table_, column, tablet);
}

cl::Buffer TableRelation::nulls(std::size_t column, std::size_t tablet) {
  if (!table_->column(column).nullable()) return cl::Buffer();
  return engine_.tables().Nulls(table_, column, tablet);
}

void VectorRelation::Add(std::string name, DeviceVector vector) {
  if (vectors_.empty()) rows_ = vector.size;
  CLQ_CHECK(vector.size == rows_, "vectors of one relation differ in length");
  names_.push_back(std::move(name));
  vectors_.push_back(std::move(vector));
}

VmInputColumn VectorRelation::column(std::size_t index) const {
  const DeviceVector& v = vectors_.at(index);
  return {v.type, v.has_nulls(), v.range};
}

cl::Buffer VectorRelation::values(std::size_t column, std::size_t tablet) {
  CLQ_CHECK(tablet == 0, "vector relations have one tablet");
  return vectors_.at(column).values.get();
}

cl::Buffer VectorRelation::nulls(std::size_t column, std::size_t tablet) {
  CLQ_CHECK(tablet == 0, "vector relations have one tablet");
  const DeviceVector& v = vectors_.at(column);
  return v.has_nulls() ? v.nulls.get() : cl::Buffer();
}

}  // namespace clq
