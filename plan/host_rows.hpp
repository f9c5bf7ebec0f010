// The last steps of a grouped query on the host: one row of values per group
// (group keys and aggregates, already reduced on the device) runs through
// HAVING, the output expressions, DISTINCT, ORDER BY and LIMIT/OFFSET.
// Groups are few compared with the input rows, so this is host work; the
// ordering matches SQLite (CompareSqlValues) and is stable.
#pragma once

#include <cstddef>
#include <utility>
#include <vector>

#include "operators/query_result.hpp"
#include "sql/bound.hpp"

namespace clq {

// Whether one row comes before another under `order_by`:
// `compare(output)` is <0, 0 or >0 comparing the two rows' values of
// output `output` (an OrderKey's index); ties are not before.
template <typename CompareOutput>
bool OrderedBefore(const std::vector<sql::OrderKey>& order_by, const CompareOutput& compare) {
  for (const sql::OrderKey& key : order_by) {
    const int c = compare(key.expr.index);
    if (c != 0) return key.descending ? c > 0 : c < 0;
  }
  return false;
}

// [first, last) of `rows` ordered rows that OFFSET and LIMIT keep.
std::pair<std::size_t, std::size_t> OffsetLimitRows(const sql::BoundSelect& select,
                                                    std::size_t rows);

// keys[i][g]: group key i of group g; aggregates[j][g]: aggregate j of group g.
// `apply_having` false: the groups already passed HAVING (on the device).
QueryResult FinishGroupedRows(const sql::BoundSelect& select,
                              const std::vector<std::vector<sql::Value>>& keys,
                              const std::vector<std::vector<sql::Value>>& aggregates,
                              std::size_t groups, bool apply_having = true);

// ORDER BY, OFFSET and LIMIT of a select whose outputs are columns already
// (`outputs[o]`: output o, hidden ones included, `rows` rows each): a
// stable sort of the row numbers, comparing typed values in place (a TEXT
// column with order codes compares its codes), then the visible outputs'
// rows in that order. The rows and their order are FinishGroupedRows's,
// without a host value per row. REQUIRES: no DISTINCT.
QueryResult OrderOutputColumns(const sql::BoundSelect& select, std::vector<ResultColumn> outputs,
                               RowCount rows);

}  // namespace clq
