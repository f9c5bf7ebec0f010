// The groups of a GROUP BY that streams its input a chunk of tablets at a
// time (plan/group_by_node.hpp): each chunk is grouped on the device, and
// its groups (keys, and per aggregate its count of inputs and its state
// word) are merged here, in the order chunks come, so that groups keep the
// order of their first appearance in the whole input.
//
// Only operations whose partial results combine exactly merge: COUNT,
// integer SUM where no total can leave int64 (the caller checks the
// argument's range; a merged total past int64 still raises "integer
// overflow"), MIN and MAX of integers and of REALs (-0.0 below 0.0). A
// REAL SUM, whose exact total the device rounds once, and quantiles do not;
// IsMergeable says which. Key equality is the device's: NULL equals NULL,
// -0.0 equals 0.0, and a group's keys are those of its first row.
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <vector>

#include "common/value.hpp"
#include "operators/query_result.hpp"
#include "sql/bound.hpp"

namespace clq {

// Appends the bytes of one value of a key tuple to `out`: tuples encode
// equal exactly where the device's keys are (NULL equals NULL, -0.0 equals
// 0.0).
void EncodeKeyValue(const sql::Value& v, std::string& out);

class StreamedGroups {
 public:
  // `operations`: per aggregate its device operation (kernels_cl/vm_shared.h).
  explicit StreamedGroups(std::vector<std::uint32_t> operations, std::size_t keys);

  static bool IsMergeable(std::uint32_t operation);

  // A chunk's `groups` groups: keys[k] their keys' columns; counts[i] and
  // states[i] aggregate i's inputs counted and its state word per group
  // (states[i] empty for COUNT). Throws InvalidInputError("integer
  // overflow") when an integer SUM's total leaves int64.
  void Add(const std::vector<ResultColumn>& keys,
           const std::vector<std::vector<std::int64_t>>& counts,
           const std::vector<std::vector<std::int64_t>>& states, RowCount groups);

  // Adds `other`'s groups, in their order, as Add does a chunk's: the groups
  // of parts of the input that ran apart (on other devices), merged in the
  // order of the parts. Throws as Add does.
  void Merge(const StreamedGroups& other);

  RowCount groups() const { return groups_; }
  // Bytes of host memory each group holds here.
  std::uint64_t BytesPerGroup() const;

  // The keys (keys[k][g]) and the aggregates' SQL values (values[i][g], as
  // the unstreamed GROUP BY gives them).
  const std::vector<std::vector<sql::Value>>& keys() const { return keys_; }
  std::vector<std::vector<sql::Value>> AggregateValues(
      const std::vector<sql::Aggregate>& aggregates) const;

 private:
  // Adds one group (its key tuple, moved from; per aggregate its count of
  // inputs and its state word), or merges it into the group of equal keys.
  void AddGroup(std::vector<sql::Value>& tuple, const std::vector<std::int64_t>& counts,
                const std::vector<std::int64_t>& states);

  std::vector<std::uint32_t> operations_;
  std::vector<std::vector<sql::Value>> keys_;
  std::vector<std::vector<std::int64_t>> counts_, states_;
  std::unordered_map<std::string, RowCount> index_;  // encoded key tuple -> group
  RowCount groups_ = 0;
  std::string encoded_;  // AddGroup's scratch
};

}  // namespace clq
