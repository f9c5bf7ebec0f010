// Grouping in the CPU reference: assigns each row the group of its key
// values, for GROUP BY and DISTINCT.
//
// Rows with equal keys (NULL equal to NULL, 0.0 equal to -0.0) share a
// group; groups are numbered in the order of their first row.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "operators/cpu_reference/value_vector.hpp"

namespace clq::cpu_reference {

struct Grouping {
  std::vector<std::size_t> group_of_row;  // one group number per input row
  std::vector<Position> first_row;        // per group, the position of its first row
  std::size_t groups() const { return first_row.size(); }
};

// REQUIRES: keys not empty, each `rows` long.
Grouping GroupRows(std::span<const ValueVector> keys, std::size_t rows);

}  // namespace clq::cpu_reference
