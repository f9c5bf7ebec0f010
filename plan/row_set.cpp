#include "plan/row_set.hpp"

#include <algorithm>
#include <map>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/device_program.hpp"
#include "operators/gather.hpp"
#include "operators/projection.hpp"
#include "operators/selection.hpp"
#include "plan/query_plan.hpp"

namespace clq {
namespace {

RowIds CopyRange(Engine& engine, const RowIds& ids, RowCount begin, RowCount count) {
  RowIds result = AllocateRowIds(engine, count, "sliced row ids");
  engine.Copy(ids.ids.get(), begin * sizeof(cl_uint), result.ids.get(), 0, count * sizeof(cl_uint),
              "slice");
  return result;
}

}  // namespace

std::vector<std::vector<const sql::Expr*>> BatchByColumns(
    const std::vector<const sql::Expr*>& exprs) {
  std::vector<std::vector<const sql::Expr*>> batches;
  std::vector<std::pair<std::size_t, std::size_t>> columns;
  for (const sql::Expr* e : exprs) {
    std::vector<std::pair<std::size_t, std::size_t>> with = columns;
    ColumnsOf(*e, with);
    if (!batches.empty() && with.size() <= VM_MAX_SLOTS) {
      batches.back().push_back(e);
      columns = std::move(with);
    } else {
      batches.push_back({e});
      columns.clear();
      ColumnsOf(*e, columns);
    }
  }
  return batches;
}

RowSet::RowSet(Engine& engine, const std::vector<sql::TableRef>& from, std::size_t start)
    : engine_(engine), joined_(from.size(), false), start_(start), ids_(from.size()) {
  for (const sql::TableRef& ref : from) {
    tables_.push_back(std::make_unique<TableRelation>(engine, ref.table));
    outer_.push_back(ref.outer);
  }
  joined_.at(start) = true;
  rows_ = TableRows(start);
}

const RowIds& RowSet::Ids(std::size_t source) {
  CLQ_CHECK(joined_.at(source), "row ids of a source that is not joined");
  if (implicit_) {
    RowIds ids = AllocateRowIds(engine_, rows_, "row ids");
    if (rows_ > 0) {
      cl::Kernel& iota = engine_.kernel("gather_iota");
      Bind(iota,
           GatherIotaArgs{
               .target = ids.ids.get(), .n = rows_, .first = static_cast<cl_uint>(range_begin_)});
      engine_.Launch(iota, engine_.TilesFor(rows_), "row ids");
    }
    ids_[start_] = std::move(ids);
    implicit_ = false;
  }
  return *ids_[source];
}

RowIds RowSet::Compose(const RowIds& base, const RowIds& positions) {
  RowIds result = AllocateRowIds(engine_, positions.size, "row ids");
  GatherBuffer(engine_, base.ids.get(), sizeof(cl_uint), 0, base.size, positions, result.ids.get());
  return result;
}

void RowSet::SetIds(std::size_t source, RowIds ids) {
  CLQ_CHECK(joined_.at(source), "SetIds on a source that is not joined");
  rows_ = ids.size;
  ids_[source] = std::move(ids);
  implicit_ = false;
}

void RowSet::Reorder(QueryContext&, const RowIds& positions) {
  if (implicit_ && range_begin_ == 0) {
    // Positions in a whole table are its row ids: a copy, not a gather
    // through materialised ids of every row.
    ids_[start_] = CopyRange(engine_, positions, 0, positions.size);
    implicit_ = false;
    rows_ = positions.size;
    return;
  }
  for (std::size_t s = 0; s < joined_.size(); ++s) {
    if (!joined_[s]) continue;
    RowIds composed = Compose(Ids(s), positions);
    ids_[s] = std::move(composed);
  }
  rows_ = positions.size;
}

void RowSet::Slice(QueryContext&, RowCount begin, RowCount count) {
  begin = std::min(begin, rows_);
  count = std::min(count, rows_ - begin);
  if (implicit_) {
    range_begin_ += begin;
    rows_ = count;
    return;
  }
  for (std::size_t s = 0; s < joined_.size(); ++s)
    if (joined_[s]) ids_[s] = CopyRange(engine_, *ids_[s], begin, count);
  rows_ = count;
}

void RowSet::Join(QueryContext& context, const RowIds& left_positions, std::size_t source,
                  RowIds right_rows) {
  CLQ_CHECK(!joined_.at(source), "source joined twice");
  CLQ_CHECK(left_positions.size == right_rows.size, "join sides differ in length");
  Reorder(context, left_positions);
  joined_[source] = true;
  ids_[source] = std::move(right_rows);
  rows_ = left_positions.size;
}

ColumnMapper RowSet::GatheredMapper(std::vector<std::pair<std::size_t, std::size_t>> columns) {
  return [columns = std::move(columns)](std::size_t source, std::size_t column) {
    const auto it = std::find(columns.begin(), columns.end(), std::make_pair(source, column));
    CLQ_CHECK(it != columns.end(), "column not materialised");
    return static_cast<std::size_t>(it - columns.begin());
  };
}

void RowSet::KeepTablets(std::size_t first, std::size_t count) {
  CLQ_CHECK(whole_table(), "a chunk of tablets taken from rows that are not a whole table");
  TableRelation& table = *tables_.at(start_);
  chunk_rows_ = std::make_unique<TabletRangeRelation>(table, first, count, false);
  chunk_ = std::make_pair(first, count);
  range_begin_ = count > 0 ? table.tablets().at(first).begin : 0;
  rows_ = chunk_rows_->rows();
}

Relation& RowSet::GatherSource(std::size_t source) {
  if (chunk_ && source == start_) return *chunk_rows_;
  return *tables_.at(source);
}

RowSet::Materialized RowSet::Materialize(
    QueryContext&, bool in_place, const std::vector<std::pair<std::size_t, std::size_t>>& columns) {
  Materialized result;
  if (in_place && whole_table()) {
    result.relation = tables_[start_].get();
    return result;
  }
  if (in_place) {
    // A chunk: its tablets, rows counted from its first.
    CLQ_CHECK(chunk_ && implicit_ && rows_ == chunk_rows_->rows(),
              "a program planned for a whole table runs on other rows");
    result.chunk = std::make_unique<TabletRangeRelation>(*tables_[start_], chunk_->first,
                                                         chunk_->second, true);
    result.relation = result.chunk.get();
    return result;
  }
  result.gathered = std::make_unique<VectorRelation>();
  for (const auto& [source, column] : columns) {
    DeviceVector values =
        GatherColumn(engine_, GatherSource(source), column, Ids(source), outer_.at(source));
    result.gathered->Add(tables_[source]->column_name(column), std::move(values));
  }
  if (columns.empty()) {
    // An expression without columns still needs the row count.
    result.gathered->Add("rows", AllocateVector(engine_, ColumnType::Int32(), rows_, "row count"));
  }
  result.relation = result.gathered.get();
  return result;
}

void RowSet::Filter(QueryContext& context, const CompiledPredicate& predicate) {
  Materialized input = Materialize(context, predicate.in_place, predicate.gathered);
  DeviceProgram device_program(engine_, predicate.program, context.options());
  RowIds selected = Select(context, *input.relation, device_program, predicate.entry);
  if (predicate.in_place && whole_table()) {
    SetIds(start_, std::move(selected));  // positions are the table's row ids
  } else {
    Reorder(context, selected);
  }
}

std::optional<VectorView> RowSet::ColumnInPlace(const sql::Expr& e) {
  if (e.kind != sql::Expr::Kind::kColumnRef || !whole_table() || e.source != start_)
    return std::nullopt;
  TableRelation& table = *tables_.at(e.source);
  if (table.tablets().size() != 1) return std::nullopt;
  VectorView view;
  view.values = table.values(e.index, 0);
  view.nulls = table.nulls(e.index, 0);
  view.type = table.column(e.index).type;
  view.size = rows_;
  return view;
}

std::vector<DeviceVector> RowSet::Evaluate(QueryContext& context, const CompiledValues& values) {
  const std::vector<const sql::Expr*>& exprs = values.exprs;
  std::vector<DeviceVector> results(exprs.size());
  std::map<std::size_t, std::vector<std::size_t>> gathered;  // source -> positions in exprs
  for (std::size_t i = 0; i < exprs.size(); ++i) {
    const sql::Expr& e = *exprs[i];
    if (e.kind != sql::Expr::Kind::kColumnRef) continue;
    if (!implicit_) {
      gathered[e.source].push_back(i);
      continue;
    }
    // A range of one table: copy the column's rows tablet by tablet.
    TableRelation& table = *tables_.at(e.source);
    const VmInputColumn input = table.column(e.index);
    const ColumnType type = input.type;
    DeviceVector v = AllocateVector(engine_, type, rows_, "column copy");
    if (input.nullable) v.nulls = engine_.pool().Acquire(rows_, "column copy NULL map");
    const std::vector<Tablet> tablets = table.tablets();
    for (std::size_t t = 0; t < tablets.size(); ++t) {
      const RowCount begin = std::max(tablets[t].begin, range_begin_);
      const RowCount end = std::min(tablets[t].begin + tablets[t].rows, range_begin_ + rows_);
      if (begin >= end) continue;
      engine_.Copy(table.values(e.index, t), (begin - tablets[t].begin) * type.width,
                   v.values.get(), (begin - range_begin_) * type.width, (end - begin) * type.width,
                   "column copy");
      if (input.nullable) {
        engine_.Copy(table.nulls(e.index, t), begin - tablets[t].begin, v.nulls.get(),
                     begin - range_begin_, end - begin, "column copy");
      }
    }
    if (outer_.at(e.source) && !v.has_nulls()) {
      // Typed nullable, as a LEFT JOIN's table's columns are (none NULL here).
      const RowCount words_bytes = (rows_ + 3) / 4 * 4;  // Fill writes 32-bit patterns
      v.nulls = engine_.pool().Acquire(words_bytes, "column copy NULL map");
      engine_.Fill(v.nulls.get(), 0, 0, words_bytes, "column copy");
    }
    results[i] = std::move(v);
  }
  // Columns of one table are gathered together: its ids are read once per
  // few columns rather than once per column.
  for (const auto& [source, positions] : gathered) {
    std::vector<std::size_t> columns;
    for (const std::size_t i : positions)
      columns.push_back(exprs[i]->index);
    std::vector<DeviceVector> gathered_values =
        GatherColumns(engine_, GatherSource(source), columns, Ids(source), outer_.at(source));
    for (std::size_t j = 0; j < positions.size(); ++j)
      results[positions[j]] = std::move(gathered_values[j]);
  }
  for (const CompiledValues::Batch& batch : values.batches) {
    Materialized input = Materialize(context, batch.in_place, batch.gathered);
    DeviceProgram device_program(engine_, batch.program, context.options());
    for (std::size_t j = 0; j < batch.outputs.size(); ++j)
      results[batch.outputs[j]] =
          Project(context, *input.relation, device_program, batch.entries[j]);
  }
  return results;
}

}  // namespace clq
