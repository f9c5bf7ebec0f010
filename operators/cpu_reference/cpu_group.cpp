#include "operators/cpu_reference/cpu_group.hpp"

#include "common/errors.hpp"

namespace clq::cpu_reference {

GroupTable::GroupTable(const std::vector<sql::ValueType>& key_types) : slots_(1024) {
  CLQ_CHECK(!key_types.empty(), "grouping without keys");
  for (sql::ValueType type : key_types)
    keys_.push_back(ValueVector::Make(type, 0));
}

void GroupTable::Assign(std::span<const ValueVector> keys, std::vector<std::size_t>& group_of_row) {
  CLQ_CHECK(keys.size() == keys_.size(), "key columns differ from the group table's");
  const std::size_t rows = keys.front().size();
  for (std::size_t k = 0; k < keys.size(); ++k)
    CLQ_CHECK(keys[k].type == keys_[k].type, "key of another type than the group table's");
  const std::vector<std::uint64_t> hashes = HashRows(keys, rows);
  group_of_row.resize(rows);
  for (std::size_t i = 0; i < rows; ++i) {
    const std::uint64_t hash = hashes[i];
    const std::size_t new_group = groups();
    std::size_t group = new_group;
    slots_.ForEach(hash, [&](std::size_t g) {
      if (!RowsEqual(keys_, g, keys, i)) return true;
      group = g;
      return false;
    });
    if (group == new_group) {
      for (std::size_t k = 0; k < keys.size(); ++k)
        AppendRow(keys_[k], keys[k], i);
      slots_.Insert(hash, group);
    }
    group_of_row[i] = group;
  }
}

std::vector<Position> FirstOfEachGroup(std::span<const ValueVector> columns, std::size_t rows) {
  std::vector<sql::ValueType> types;
  for (const ValueVector& c : columns)
    types.push_back(c.type);
  GroupTable table(types);
  std::vector<std::size_t> group_of_row;
  table.Assign(columns, group_of_row);
  // Groups are numbered in order of their first row.
  std::vector<Position> first;
  for (std::size_t i = 0; i < rows; ++i)
    if (group_of_row[i] == first.size()) first.push_back(i);
  return first;
}

}  // namespace clq::cpu_reference
