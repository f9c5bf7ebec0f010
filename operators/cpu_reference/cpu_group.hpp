// Grouping in the CPU reference: assigns rows the group of their key
// values, for GROUP BY and DISTINCT, a batch of rows at a time.
//
// Rows with equal keys (NULL equal to NULL, 0.0 equal to -0.0) share a
// group; groups are numbered 0, 1, ... in the order of their first row.
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "operators/cpu_reference/row_hash.hpp"
#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

class GroupTable {
 public:
  // One entry per key column. REQUIRES: not empty.
  explicit GroupTable(const std::vector<sql::ValueType>& key_types);

  // Sets group_of_row[i] to the group of row i of `keys` (a batch of rows,
  // one ValueVector per key column, of the key types), adding new groups.
  void Assign(std::span<const ValueVector> keys, std::vector<std::size_t>& group_of_row);

  std::size_t groups() const { return keys_.front().size(); }
  // Per key column, the key value of each group.
  const std::vector<ValueVector>& keys() const { return keys_; }

 private:
  std::vector<ValueVector> keys_;
  HashSlots slots_;  // key hash -> group
};

// For DISTINCT: the position of the first row of each distinct row of
// `columns`, in order. REQUIRES: columns not empty, each `rows` long.
std::vector<Position> FirstOfEachGroup(std::span<const ValueVector> columns, std::size_t rows);

}  // namespace clq::cpu_reference
