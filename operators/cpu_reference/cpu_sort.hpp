// ORDER BY and DISTINCT in the CPU reference, over computed output columns.
//
// ORDER BY is a stable sort on kOutputRef keys. As in SQLite, NULL orders
// first ascending and last descending; INTEGER and REAL compare numerically
// and TEXT bytewise. DISTINCT keeps the first row of each set of equal rows
// (NULL equal to NULL).
#pragma once

#include <span>
#include <vector>

#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

// Reorders `positions` (rows of `outputs`) by `order_by`, stably.
// REQUIRES: each key is a kOutputRef into `outputs`.
void SortPositions(std::span<const ValueVector> outputs, const std::vector<sql::OrderKey>& order_by,
                   std::vector<Position>& positions);

// The position of the first row of each distinct row of `columns`, in order.
std::vector<Position> DistinctPositions(std::span<const ValueVector> columns, std::size_t rows);

}  // namespace clq::cpu_reference
