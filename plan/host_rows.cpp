#include "plan/host_rows.hpp"

#include <algorithm>
#include <numeric>
#include <span>

#include "common/errors.hpp"
#include "operators/result_builder.hpp"
#include "operators/scalar_eval.hpp"

namespace clq {

std::pair<std::size_t, std::size_t> OffsetLimitRows(const sql::BoundSelect& select,
                                                    std::size_t rows) {
  const std::size_t begin = std::min<std::size_t>(select.offset, rows);
  std::size_t end = rows;
  if (select.limit)
    end = std::min<std::size_t>(end, begin + std::min<std::uint64_t>(*select.limit, rows));
  return {begin, end};
}

QueryResult FinishGroupedRows(const sql::BoundSelect& select,
                              const std::vector<std::vector<sql::Value>>& keys,
                              const std::vector<std::vector<sql::Value>>& aggregates,
                              std::size_t groups, bool apply_having) {
  using Row = std::vector<sql::Value>;
  std::vector<Row> rows;
  for (std::size_t g = 0; g < groups; ++g) {
    const LeafResolver resolve = [&](const sql::Expr& leaf) -> sql::Value {
      if (leaf.kind == sql::Expr::Kind::kGroupRef) return keys.at(leaf.index)[g];
      if (leaf.kind == sql::Expr::Kind::kAggregateRef) return aggregates.at(leaf.index)[g];
      throw InternalError("unexpected reference in a grouped output");
    };
    if (apply_having && select.having && !IsTrue(EvaluateScalar(*select.having, resolve))) continue;
    Row row;
    for (const sql::OutputColumn& out : select.outputs)
      row.push_back(EvaluateScalar(out.expr, resolve));
    rows.push_back(std::move(row));
  }

  const auto same_visible = [&](const Row& a, const Row& b) {
    for (std::size_t o = 0; o < select.visible_outputs; ++o)
      if (CompareSqlValues(a[o], b[o]) != 0) return false;
    return true;
  };
  if (select.distinct) {
    // Keeps the first row of each distinct visible tuple, in order.
    std::vector<std::size_t> order(rows.size());
    std::iota(order.begin(), order.end(), std::size_t{0});
    std::stable_sort(order.begin(), order.end(), [&](std::size_t x, std::size_t y) {
      for (std::size_t o = 0; o < select.visible_outputs; ++o) {
        const int c = CompareSqlValues(rows[x][o], rows[y][o]);
        if (c != 0) return c < 0;
      }
      return false;
    });
    std::vector<bool> keep(rows.size(), false);
    for (std::size_t i = 0; i < order.size(); ++i)
      if (i == 0 || !same_visible(rows[order[i - 1]], rows[order[i]])) keep[order[i]] = true;
    std::vector<Row> kept;
    for (std::size_t r = 0; r < rows.size(); ++r)
      if (keep[r]) kept.push_back(std::move(rows[r]));
    rows = std::move(kept);
  }
  if (!select.order_by.empty()) {
    std::stable_sort(rows.begin(), rows.end(), [&](const Row& a, const Row& b) {
      return OrderedBefore(select.order_by,
                           [&](std::size_t o) { return CompareSqlValues(a[o], b[o]); });
    });
  }
  const auto [begin, end] = OffsetLimitRows(select, rows.size());

  QueryResult result;
  result.rows = end - begin;
  for (std::size_t o = 0; o < select.visible_outputs; ++o) {
    std::vector<sql::Value> column;
    for (std::size_t r = begin; r < end; ++r)
      column.push_back(rows[r][o]);
    result.columns.push_back(
        ValuesResultColumn(select.outputs[o].name, select.outputs[o].expr.type, column));
  }
  return result;
}

QueryResult OrderOutputColumns(const sql::BoundSelect& select, std::vector<ResultColumn> outputs,
                               RowCount rows) {
  CLQ_CHECK(!select.distinct, "DISTINCT outputs ordered as columns");
  std::vector<RowCount> order(rows);
  std::iota(order.begin(), order.end(), RowCount{0});
  if (!select.order_by.empty()) {
    const auto compare = [&](const ResultColumn& c, RowCount a, RowCount b) {
      if (c.codes.empty() || c.IsNull(a) || c.IsNull(b)) return CompareResultValues(c, a, c, b);
      return c.codes[a] < c.codes[b] ? -1 : c.codes[a] == c.codes[b] ? 0 : 1;
    };
    std::stable_sort(order.begin(), order.end(), [&](RowCount a, RowCount b) {
      return OrderedBefore(select.order_by,
                           [&](std::size_t o) { return compare(outputs.at(o), a, b); });
    });
  }
  const auto [begin, end] = OffsetLimitRows(select, order.size());
  const std::span<const RowCount> kept(order.data() + begin, end - begin);
  QueryResult result;
  result.rows = kept.size();
  for (std::size_t o = 0; o < select.visible_outputs; ++o)
    result.columns.push_back(GatherResultRows(outputs.at(o), kept));
  return result;
}

}  // namespace clq
