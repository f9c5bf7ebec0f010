#include "operators/subquery_materialize.hpp"

#include <algorithm>
#include <cstring>
#include <optional>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "common/parallel_ranges.hpp"
#include "runtime/pinned_result_pool.hpp"
#include "sql/substring.hpp"

namespace clq {
namespace {

// A list subquery's values, each a constant (sql::Subquery::list).
using ListValues = std::vector<std::optional<std::vector<sql::Expr>>>;

void ReplaceValues(sql::Expr& e, const std::vector<std::optional<sql::Expr>>& values,
                   const ListValues& lists) {
  if (e.kind == sql::Expr::Kind::kInList && e.children.size() == 2 &&
      e.children[1].kind == sql::Expr::Kind::kSubqueryValue && lists.at(e.children[1].index)) {
    const std::vector<sql::Expr>& items = *lists[e.children[1].index];
    ReplaceValues(e.children[0], values, lists);
    if (items.empty()) {  // x IN (no rows) is false and NOT IN true, whatever x is
      const std::size_t position = e.position;
      e = sql::MakeConstant(sql::Value::Integer(e.negated ? 1 : 0), position);
      return;
    }
    e.children.resize(1);
    e.children.insert(e.children.end(), items.begin(), items.end());
    e = sql::LowerSubstringComparison(std::move(e));  // now a list of constants
    return;
  }
  if (e.kind == sql::Expr::Kind::kSubqueryValue) {
    const std::optional<sql::Expr>& value = values.at(e.index);
    CLQ_CHECK(value.has_value(), "a scalar subquery without a value");
    const std::size_t position = e.position;
    e = *value;
    e.position = position;
    return;
  }
  for (sql::Expr& child : e.children)
    ReplaceValues(child, values, lists);
  // A SUBSTRING compared with what was a scalar subquery, now a constant.
  if (e.kind == sql::Expr::Kind::kBinary) e = sql::LowerSubstringComparison(std::move(e));
}

// The stored type of a result column: CHAR as wide as the result's values
// (their NUL-padded width), so that the table can read them in place.
ColumnType StorageTypeOf(const ResultColumn& column) {
  const std::uint32_t width = column.type == sql::ValueType::kText ? column.text_width : 1;
  return sql::StoredTypeOf(column.type, column.logical, std::max<std::uint32_t>(width, 1));
}

// Zeroes the `width` bytes of each row in [begin, end) that `nulls` (empty:
// none) marks NULL: a NULL's bytes are zero in a table.
void ZeroNullValues(std::byte* data, std::uint32_t width, const std::vector<std::uint8_t>& nulls,
                    std::size_t begin, std::size_t end) {
  if (nulls.empty()) return;
  for (std::size_t r = begin; r < end; ++r)
    if (nulls[r] != 0) std::memset(data + r * width, 0, width);
}

// `values`' memory as a table column's, or null where it cannot be read in
// place (not aligned as tables need, or no rows). Memory of the engine's
// pinned result pool stays pinned, so a GPU uploads the column in one DMA.
template <typename T>
std::shared_ptr<ColumnData> Adopt(ResultVector<T>&& values, ColumnType type, RowCount rows,
                                  const std::vector<std::uint8_t>& nulls) {
  if (rows == 0 || values.size() < rows * type.width / sizeof(T) ||
      reinterpret_cast<std::uintptr_t>(values.data()) % kHostBlockAlignment != 0)
    return nullptr;
  const void* pinned_for = nullptr;
  if (const std::shared_ptr<PinnedResultPool> pool = values.get_allocator().pool();
      pool && pool->Lent(values.data()))
    pinned_for = pool->context()();
  auto owner = std::make_shared<ResultVector<T>>(std::move(values));
  auto* data = reinterpret_cast<std::byte*>(owner->data());
  if (!nulls.empty())
    ParallelRanges(rows, std::size_t{1} << 20, 1, [&](std::size_t begin, std::size_t end) {
      ZeroNullValues(data, type.width, nulls, begin, end);
    });
  return std::make_shared<ColumnData>(type, rows, data, std::shared_ptr<void>(std::move(owner)),
                                      pinned_for);
}

// A fresh column holding `column`'s values as `type` (DATE narrowed to
// INT32, a column of NULLs, or memory Adopt cannot take), copied in parts on
// several threads.
std::shared_ptr<ColumnData> CopyColumn(const ResultColumn& column, ColumnType type, RowCount rows) {
  auto copy = std::make_shared<ColumnData>(type, rows);
  std::byte* data = copy->data();
  const std::uint32_t width = type.width;
  if (column.type == sql::ValueType::kNull) {
    std::memset(data, 0, rows * width);
    return copy;
  }
  ParallelRanges(rows, std::size_t{1} << 20, 1, [&](std::size_t begin, std::size_t end) {
    switch (type.type) {
      case DataType::kInt32: {
        auto* out = reinterpret_cast<std::int32_t*>(data);
        for (std::size_t r = begin; r < end; ++r)
          out[r] = static_cast<std::int32_t>(column.integers[r]);
        break;
      }
      case DataType::kInt64:
        std::memcpy(data + begin * 8, column.integers.data() + begin, (end - begin) * 8);
        break;
      case DataType::kDouble:
        std::memcpy(data + begin * 8, column.reals.data() + begin, (end - begin) * 8);
        break;
      case DataType::kChar:
        std::memcpy(data + begin * width, column.text.data() + begin * width,
                    (end - begin) * width);
        break;
    }
    ZeroNullValues(data, width, column.nulls, begin, end);
  });
  return copy;
}

// The order codes of `column` as a column: INT32 where the dictionary
// allows, 0 at NULL rows.
std::shared_ptr<ColumnData> CodesColumn(const ResultColumn& column, RowCount rows,
                                        std::uint64_t host_memory) {
  const bool wide = column.dictionary->values.size() > static_cast<std::size_t>(INT32_MAX);
  const ColumnType type = wide ? ColumnType::Int64() : ColumnType::Int32();
  CheckHostMemory(host_memory, "the order codes of a derived table's column",
                  SaturatingMultiply(rows, type.width));
  auto data = std::make_shared<ColumnData>(type, rows);
  ParallelRanges(rows, std::size_t{1} << 20, 1, [&](std::size_t begin, std::size_t end) {
    for (std::size_t r = begin; r < end; ++r)
      SetOrderCode(data->data(), wide, r, column.IsNull(r) ? 0 : column.codes[r]);
  });
  return data;
}

}  // namespace

TablePtr ResultTable(QueryResult&& result, const std::string& name,
                     const std::vector<std::string>& column_names, std::uint64_t host_memory) {
  const RowCount rows = result.rows;
  if (rows > kMaxTableRows)
    throw InvalidInputError("table " + name + ": " + std::to_string(rows) +
                            " rows is more than clq supports (" + std::to_string(kMaxTableRows) +
                            ")");
  std::vector<Column> columns;
  for (std::size_t c = 0; c < result.columns.size(); ++c) {
    ResultColumn& column = result.columns[c];
    const ColumnType type = StorageTypeOf(column);
    const bool all_null = column.type == sql::ValueType::kNull;
    const bool nulls =
        all_null ||
        std::any_of(column.nulls.begin(), column.nulls.begin() + (column.nulls.empty() ? 0 : rows),
                    [](std::uint8_t n) { return n != 0; });
    if (!nulls) column.nulls.clear();
    std::shared_ptr<ColumnData> data;
    if (!all_null) {
      if (type.type == DataType::kInt64)
        data = Adopt(std::move(column.integers), type, rows, column.nulls);
      else if (type.type == DataType::kDouble)
        data = Adopt(std::move(column.reals), type, rows, column.nulls);
      else if (type.type == DataType::kChar && column.text_width == type.width)
        data = Adopt(std::move(column.text), type, rows, column.nulls);
    }
    if (data == nullptr) {
      CheckHostMemory(host_memory, "column " + column_names.at(c) + " of table " + name,
                      SaturatingMultiply(rows, type.width));
      data = CopyColumn(column, type, rows);
    }
    // Strings looked up from order codes keep them as the column's codes.
    if (data != nullptr && type.type == DataType::kChar && column.dictionary != nullptr &&
        column.codes.size() == rows)
      data->AdoptOrderCodes(CodesColumn(column, rows, host_memory), column.dictionary);
    std::shared_ptr<ColumnData> null_map;
    if (nulls) {
      null_map = std::make_shared<ColumnData>(ColumnType::Char(1), rows);
      if (all_null)
        std::memset(null_map->data(), 1, rows);
      else
        std::memcpy(null_map->data(), column.nulls.data(), rows);
    }
    columns.emplace_back(column_names.at(c), std::move(data), 0, rows, std::move(null_map));
  }
  return std::make_shared<const Table>(name, std::move(columns));
}

sql::BoundSelect MaterializeSubqueries(const sql::BoundSelect& select, const SelectRunner& run,
                                       std::uint64_t host_memory, Profiler* profiler,
                                       DerivedTables* made) {
  sql::BoundSelect out = select;
  out.subqueries.clear();
  std::vector<std::optional<sql::Expr>> values(select.subqueries.size());
  ListValues lists(select.subqueries.size());
  for (std::size_t i = 0; i < select.subqueries.size(); ++i) {
    const sql::Subquery& subquery = select.subqueries[i];
    if (subquery.source && made != nullptr) {
      const auto earlier = made->find(subquery.select.get());
      if (earlier != made->end()) {
        out.from[*subquery.source].table = earlier->second;
        out.from[*subquery.source].derived = true;
        continue;
      }
    }
    QueryResult result = run(*subquery.select);
    if (subquery.source) {
      const sql::TableRef& placeholder = out.from.at(*subquery.source);
      std::vector<std::string> names;
      for (const ColumnSpec& spec : placeholder.table->schema())
        names.push_back(spec.name);
      std::optional<HostStage> stage;
      if (profiler != nullptr) stage.emplace(*profiler, "derived table to host table");
      out.from[*subquery.source].table =
          ResultTable(std::move(result), placeholder.alias, names, host_memory);
      out.from[*subquery.source].derived = true;
      if (made != nullptr) made->emplace(subquery.select.get(), out.from[*subquery.source].table);
      continue;
    }
    if (subquery.list) {
      if (result.rows > sql::kMaxSubqueryList)
        throw InvalidInputError(
            "a NOT IN (subquery), or an IN (subquery) that is not a condition ANDed at the top "
            "of WHERE, may return at most " +
            std::to_string(sql::kMaxSubqueryList) +
            " rows (an anti join would take more; clq "
            "has none yet); this one returned " +
            std::to_string(result.rows));
      std::vector<sql::Expr> items;
      const ResultColumn& column = result.columns.at(0);
      for (RowCount r = 0; r < result.rows; ++r) {
        sql::Expr item = sql::MakeConstant(column.ValueAt(r), 0);
        if (item.type == sql::ValueType::kInteger) item.logical = column.logical;
        items.push_back(std::move(item));
      }
      lists[i] = std::move(items);
      continue;
    }
    if (result.rows > 1)
      throw InvalidInputError("a scalar subquery returned " + std::to_string(result.rows) +
                              " rows; it must return at most one");
    const ResultColumn& column = result.columns.at(0);
    sql::Expr value =
        sql::MakeConstant(result.rows == 0 ? sql::Value::Null() : column.ValueAt(0), 0);
    if (value.type == sql::ValueType::kInteger) value.logical = column.logical;
    values[i] = std::move(value);
  }
  if (out.where) ReplaceValues(*out.where, values, lists);
  for (sql::TableRef& ref : out.from)
    if (ref.on) ReplaceValues(*ref.on, values, lists);
  for (sql::Expr& key : out.group_keys)
    ReplaceValues(key, values, lists);
  for (sql::Aggregate& a : out.aggregates)
    if (a.argument) ReplaceValues(*a.argument, values, lists);
  if (out.having) ReplaceValues(*out.having, values, lists);
  for (sql::OutputColumn& o : out.outputs)
    ReplaceValues(o.expr, values, lists);
  return out;
}

}  // namespace clq
