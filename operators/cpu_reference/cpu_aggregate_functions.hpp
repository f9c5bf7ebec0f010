// The aggregate functions of the CPU reference, computed for all groups in
// one pass over the rows (MEDIAN/QUANTILE: one sort per group).
//
// COUNT(*) counts rows and COUNT(x) non-NULL x. SUM of INTEGER is INTEGER
// (an overflow of any partial sum, in row order, is InvalidInputError
// "integer overflow", as in SQLite); SUM of REAL adds in row order. AVG is
// REAL: the values added as doubles in row order (SQLite's rSum), divided by
// their count. MIN and MAX ignore NULLs (TEXT compares bytewise). MEDIAN and
// QUANTILE(x, q) return the element of 0-based rank floor(q * (n - 1)) of
// the n sorted non-NULL values. Every aggregate but COUNT is NULL for a group
// without non-NULL input.
#pragma once

#include <cstddef>
#include <vector>

#include "host/sql/bound.hpp"
#include "operators/cpu_reference/value_vector.hpp"

namespace clq::cpu_reference {

// `aggregate` for each of `groups` groups, with its type aggregate.type.
// `argument` holds one value per row (nullptr for COUNT(*)); row i belongs
// to group group_of_row[i].
ValueVector ComputeAggregate(const sql::Aggregate& aggregate, const ValueVector* argument,
                             const std::vector<std::size_t>& group_of_row, std::size_t groups);

}  // namespace clq::cpu_reference
