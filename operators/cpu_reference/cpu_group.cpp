#include "operators/cpu_reference/cpu_group.hpp"

#include "operators/cpu_reference/row_hash.hpp"
#include "runtime/errors.hpp"

namespace clq::cpu_reference {

Grouping GroupRows(std::span<const ValueVector> keys, std::size_t rows) {
  CLQ_CHECK(!keys.empty(), "grouping without keys");
  const std::vector<std::uint64_t> hashes = HashRows(keys, rows);
  // Chains hold group numbers; a group is identified by its first row.
  HashChains chains(rows);
  Grouping grouping;
  grouping.group_of_row.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint64_t hash = hashes[i];
    std::size_t group = HashChains::kEnd;
    for (std::size_t g = chains.First(hash); g != HashChains::kEnd; g = chains.Next(g)) {
      const Position first = grouping.first_row[g];
      if (hashes[first] == hash && RowsEqual(keys, first, keys, i)) {
        group = g;
        break;
      }
    }
    if (group == HashChains::kEnd) {
      group = grouping.first_row.size();
      grouping.first_row.push_back(i);
      chains.Insert(hash, group);
    }
    grouping.group_of_row[i] = group;
  }
  return grouping;
}

}  // namespace clq::cpu_reference
