// The rows that flow out of FROM and WHERE: for every FROM source, which row
// of its base table each result row comes from (late materialisation: row ids,
// not values). Three shapes:
//   - all rows of a single table, in order (no ids at all),
//   - a contiguous range of a single table (LIMIT without ORDER BY),
//   - explicit row ids per source (after a filter, a join or a sort).
//
// Columns are materialised only when an expression or the result needs them:
// Evaluate() gathers the columns an expression reads (or reads the table in
// place when the row set is a whole single table) and runs the expression
// machine. Not thread-safe; buffers belong to the engine's pool.
#pragma once

#include <memory>
#include <optional>
#include <vector>

#include "operators/device_vector.hpp"
#include "operators/query_context.hpp"
#include "operators/relation.hpp"
#include "plan/compiled_expressions.hpp"
#include "sql/bound.hpp"

namespace clq {

class RowSet {
 public:
  // Every row of source `start`; the other sources join later.
  RowSet(Engine& engine, const std::vector<sql::TableRef>& from, std::size_t start);

  RowCount rows() const { return rows_; }
  bool joined(std::size_t source) const { return joined_.at(source); }
  // The set is every row of its one source, in order.
  bool whole_table() const { return implicit_ && range_begin_ == 0 && rows_ == TableRows(start_); }
  TableRelation& table(std::size_t source) { return *tables_.at(source); }
  // While the set is a contiguous range of its one source: {source, first row}.
  std::optional<std::pair<std::size_t, RowCount>> range() const {
    if (!implicit_) return std::nullopt;
    return std::make_pair(start_, range_begin_);
  }

  // Row ids of `source` for every row of the set (materialised for ranges and
  // whole tables on demand).
  const RowIds& Ids(std::size_t source);
  // Moves the row ids of `source` out (materialised first); the set must not
  // be used afterwards.
  RowIds TakeIds(std::size_t source) {
    Ids(source);
    return std::move(*ids_[source]);
  }

  // Keeps the rows at `positions` (indexes into this set), in that order.
  void Reorder(QueryContext& context, const RowIds& positions);
  // Keeps rows [begin, begin + count).
  void Slice(QueryContext& context, RowCount begin, RowCount count);
  // Keeps the rows of tablets [first, first + count) of its one source's
  // table (REQUIRES: the set is that whole table): a chunk of a streamed
  // pipeline. Programs planned for the whole table run over those tablets
  // in place, and gathers by row id read those tablets only.
  void KeepTablets(std::size_t first, std::size_t count);
  // Keeps the rows where a compiled predicate is true (its in_place must
  // match whole_table()).
  void Filter(QueryContext& context, const CompiledPredicate& predicate);
  // Replaces the set by joined rows: `left_positions` index this set,
  // `right_rows` are row ids of the new source `source` (already in its
  // table's row-id space; kNoRow for a LEFT JOIN's row without a match).
  void Join(QueryContext& context, const RowIds& left_positions, std::size_t source,
            RowIds right_rows);
  // Restricts a single-source set to the given base-table row ids.
  void SetIds(std::size_t source, RowIds ids);

  // Column `e` (a kColumnRef) read in place, without a copy: only while the
  // set is every row of its one source and that table is one tablet on the
  // device; std::nullopt otherwise. Valid while the engine holds the table.
  std::optional<VectorView> ColumnInPlace(const sql::Expr& e);

  // The value of each compiled expression (INTEGER, REAL; a plain column of
  // any type) for every row, as device vectors.
  std::vector<DeviceVector> Evaluate(QueryContext& context, const CompiledValues& values);

  // A relation holding `columns` ((source, column) pairs) for every row,
  // gathered by row id, in that order; or the table itself when `in_place`
  // (the set is its whole table).
  struct Materialized {
    Relation* relation = nullptr;  // the table, `chunk` or `gathered`
    std::unique_ptr<TabletRangeRelation> chunk;
    std::unique_ptr<VectorRelation> gathered;
  };
  Materialized Materialize(QueryContext& context, bool in_place,
                           const std::vector<std::pair<std::size_t, std::size_t>>& columns);
  // The mapper of gathered columns: (source, column) to its place in
  // `columns`.
  static ColumnMapper GatheredMapper(std::vector<std::pair<std::size_t, std::size_t>> columns);

 private:
  RowCount TableRows(std::size_t source) const { return tables_.at(source)->rows(); }
  // Where the columns of `source` are gathered from: its table, or the
  // chunk's tablets of it.
  Relation& GatherSource(std::size_t source);
  RowIds Compose(const RowIds& base, const RowIds& positions);

  Engine& engine_;
  std::vector<std::unique_ptr<TableRelation>> tables_;
  std::vector<bool> joined_;
  // LEFT JOIN tables: their row ids may be kNoRow (operators/gather.hpp),
  // and their gathered columns always have NULL maps.
  std::vector<bool> outer_;
  std::size_t start_ = 0;
  // While implicit_, the set is rows [range_begin_, range_begin_ + rows_) of
  // source start_ and ids_ is empty; Ids() materialises them.
  bool implicit_ = true;
  RowCount range_begin_ = 0;
  RowCount rows_ = 0;
  std::vector<std::optional<RowIds>> ids_;
  // KeepTablets: the chunk's first tablet and tablet count, and its tablets
  // with the table's row ids (for gathers).
  std::optional<std::pair<std::size_t, std::size_t>> chunk_;
  std::unique_ptr<TabletRangeRelation> chunk_rows_;
};

// Splits expressions into batches that each read at most VM_MAX_SLOTS
// distinct columns, the most one machine program holds (an expression that
// alone reads more stays alone, and the compiler reports it).
std::vector<std::vector<const sql::Expr*>> BatchByColumns(
    const std::vector<const sql::Expr*>& exprs);

}  // namespace clq
