#include "operators/subquery_materialize.hpp"

#include <algorithm>
#include <cstring>

#include "common/errors.hpp"
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

// The stored type of a result column: CHAR as wide as its longest value.
ColumnType StorageTypeOf(const ResultColumn& column) {
  std::size_t width = 1;
  if (column.type == sql::ValueType::kText)
    for (RowCount r = 0; r < column.rows(); ++r)
      if (!column.IsNull(r)) width = std::max(width, column.TextAt(r).size());
  return sql::StoredTypeOf(column.type, column.logical, static_cast<std::uint32_t>(width));
}

}  // namespace

TablePtr ResultTable(const QueryResult& result, const std::string& name,
                     const std::vector<std::string>& column_names, std::uint64_t host_memory) {
  Schema schema;
  for (std::size_t c = 0; c < result.columns.size(); ++c) {
    const ResultColumn& column = result.columns[c];
    bool nulls = column.type == sql::ValueType::kNull;
    for (RowCount r = 0; r < result.rows && !nulls; ++r)
      nulls = column.IsNull(r);
    schema.push_back({column_names.at(c), StorageTypeOf(column), nulls});
  }
  TableBuilder builder(name, schema, result.rows, host_memory);
  for (std::size_t c = 0; c < result.columns.size(); ++c) {
    const ResultColumn& column = result.columns[c];
    const ColumnType type = schema[c].type;
    for (RowCount r = 0; r < result.rows; ++r) {
      if (column.type == sql::ValueType::kNull || column.IsNull(r)) {
        builder.SetNull(c, r);
        continue;
      }
      switch (type.type) {
        case DataType::kInt32:
          builder.column_values<std::int32_t>(c)[r] = static_cast<std::int32_t>(
              column.type == sql::ValueType::kInteger ? column.integers[r] : 0);
          break;
        case DataType::kInt64:
          builder.column_values<std::int64_t>(c)[r] = column.integers[r];
          break;
        case DataType::kDouble:
          builder.column_values<double>(c)[r] = column.reals[r];
          break;
        case DataType::kChar:
          builder.SetString(c, r, column.TextAt(r));
          break;
      }
    }
  }
  return builder.Finish();
}

sql::BoundSelect MaterializeSubqueries(const sql::BoundSelect& select, const SelectRunner& run,
                                       std::uint64_t host_memory) {
  sql::BoundSelect out = select;
  out.subqueries.clear();
  std::vector<std::optional<sql::Expr>> values(select.subqueries.size());
  ListValues lists(select.subqueries.size());
  for (std::size_t i = 0; i < select.subqueries.size(); ++i) {
    const sql::Subquery& subquery = select.subqueries[i];
    const QueryResult result = run(*subquery.select);
    if (subquery.source) {
      const sql::TableRef& placeholder = out.from.at(*subquery.source);
      std::vector<std::string> names;
      for (const ColumnSpec& spec : placeholder.table->schema())
        names.push_back(spec.name);
      out.from[*subquery.source].table = ResultTable(result, placeholder.alias, names, host_memory);
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
