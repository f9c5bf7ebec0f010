// GROUP BY with COUNT, SUM, MIN, MAX and QUANTILE per group, and DISTINCT
// (no aggregates). PlanGroupBy decides once, from what is known before the
// rows exist, how groups are found:
//
//   - kDirect: integer keys whose ranges are known and whose product of
//     value counts (NULL counting as one more) is small: a row's slot is the
//     mixed-radix image of its keys, no hashing or comparison;
//   - kHash: a hash table whose slots hold a representative row, probed
//     linearly and compared key by key (any keys up to four);
//   - kSort: the positions radix sorted by the key tuple (operators/sort.hpp)
//     and cut where it changes; for QUANTILE (MEDIAN), more than four keys,
//     tables past the device's memory, and as the fallback when a hash table
//     overflows or a key leaves its range; and always on devices without
//     64-bit atomics or with capped loops, which fold the sorted groups by
//     chunks of rows (operators/sorted_group_by.hpp) instead of into a table
//     with atomics.
//
// Aggregates then fold into per-group state words, in work-group tables
// first where they fit (operators/hash_group_by.hpp), with operations whose
// result does not depend on the order rows arrive in. So every strategy,
// device and work-group geometry gives the same answer: integer results
// exact; integer SUM exact and an error exactly when a group's total leaves
// int64; REAL SUM the exact sum of the group's values rounded once to the
// nearest double; MIN/MAX of REAL ordering -0.0 below 0.0.
//
// Groups come in order of first appearance (first_positions ascending); NULL
// keys equal each other, -0.0 equals 0.0, CHAR(n) compares all n bytes.
// Results are owned by the caller. Blocks (reads counts and flags back).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels_cl/sort_shared.h"
#include "operators/device_vector.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"
#include "runtime/device_info.hpp"
#include "runtime/device_tuning.hpp"

namespace clq {

struct GroupAggregateSpec {
  // VM_AGG_COUNT, SUM_I, SUM_R, MIN_I, MAX_I, MIN_R, MAX_R
  // (kernels_cl/vm_shared.h). _I operations take INT32 or INT64 arguments; _R
  // operations DOUBLE, or integers converted to double.
  std::uint32_t operation = 0;
  // or GROUP_AGG_QUANTILE (kernels_cl/sort_shared.h; INT32, INT64 or DOUBLE
  // argument, result of its type widened to INT64 or DOUBLE).
  std::optional<VectorView> argument;  // none: COUNT(*)
  double quantile = 0.5;               // GROUP_AGG_QUANTILE only: q (MEDIAN: 0.5)
  // Bounds of an integer argument: a SUM_I that provably stays inside int64
  // adds plain int64s, any other adds its 32-bit halves apart.
  std::optional<IntRange> range = std::nullopt;
};

struct GroupAggregateOutput {
  DeviceVector values;  // per group: INT64 (COUNT, _I) or DOUBLE (_R); undefined where counts is 0
  DeviceVector counts;  // INT64 per group: non-NULL inputs (rows for COUNT(*))
};

enum class GroupByStrategy : std::uint8_t { kDirect, kHash, kSort };
const char* GroupByStrategyName(GroupByStrategy strategy);

// What the plan knows of a key and of an aggregate before the rows exist.
struct GroupKeyInfo {
  ColumnType type = ColumnType::Int64();
  bool nullable = false;
  std::optional<IntRange> range;  // integer keys: bounds of the non-NULL values
};
struct GroupAggregateInfo {
  std::uint32_t operation = 0;
  std::optional<ColumnType> argument;  // none: COUNT(*)
  bool nullable = false;
  std::optional<IntRange> range;  // integer arguments: bounds
};
GroupKeyInfo KeyInfoOf(const VectorView& key, std::optional<IntRange> range = std::nullopt);
GroupAggregateInfo AggregateInfoOf(const GroupAggregateSpec& spec);

// Knobs for tests and experiments; the defaults are the engine's choice.
struct GroupByOptions {
  // Forced: kDirect only where possible, and without 64-bit atomics only kSort.
  std::optional<GroupByStrategy> strategy;
  std::optional<bool> work_group_tables;          // forced on or off
  std::optional<std::uint64_t> hash_slots;        // kHash: the table's first size (a power of two)
  std::optional<std::uint32_t> work_group_slots;  // cap of a work-group table's slots
  // The sort with the sorted groups folded by chunks of rows
  // (operators/sorted_group_by.hpp), as on devices without 64-bit atomics
  // (implies kSort).
  bool fold_sorted = false;
  // The rows the input is expected to have where max_rows is a loose bound
  // (a join's is the product of its sides'); 0: max_rows. A direct table has
  // a slot per key image whatever the rows, so its size is held to this.
  RowCount expected_rows = 0;
};

struct GroupByPlan {
  GroupByStrategy strategy = GroupByStrategy::kSort;
  std::string reason;  // why this strategy
  bool cpu_paths = false;
  std::vector<GroupKeyInfo> keys;
  std::vector<GroupAggregateInfo> aggregates;
  // kDirect and packed kHash: per key its smallest value, value count and
  // stride of a mixed-radix image (kDirect: the slot; slots = the product of
  // the value counts).
  struct DirectKey {
    std::int64_t lo = 0;
    std::uint64_t card = 0;
    std::uint64_t stride = 0;
  };
  std::vector<DirectKey> direct;
  std::uint64_t table_slots = 0;  // kDirect: image count; kHash: first capacity
  // kHash: the keys' image (`direct`'s layout) fits 63 bits and is kept in
  // the slots, so no row's keys are read to compare.
  bool packed = false;
  // Work-group tables (local memory on GPUs, a table per work-group in
  // global memory on CPUs), sized at execution from the state words within
  // work_group_bytes; none when 0.
  std::uint64_t work_group_bytes = 0;
  std::uint32_t work_group_slots_cap = 0;
  std::uint64_t memory_budget = 0;  // bytes the device-wide tables may take
  // kSort on a device without 64-bit atomics or with capped loops: the
  // sorted groups folded by chunks of rows (operators/sorted_group_by.hpp),
  // no group table atomics.
  bool fold_sorted = false;

  bool HasQuantile() const;
  // The kernels GroupBy launches: those of this plan's path, and when needed
  // those of the sort it falls back to (a hash table that stays full, a key
  // outside its planned range) and of a second scan level.
  KernelSet Kernels() const;
  // "hash GROUP BY (4096 slots, local tables): ..." for EXPLAIN.
  std::string Describe() const;
};

// REQUIRES: rows < 2^32.
GroupByPlan PlanGroupBy(const DeviceInfo& device, const DeviceTuning& tuning,
                        const std::vector<GroupKeyInfo>& keys,
                        const std::vector<GroupAggregateInfo>& aggregates, RowCount max_rows,
                        std::optional<RowCount> estimated_groups,
                        const GroupByOptions& options = {});

struct GroupByResult {
  RowIds first_positions;  // per group: its smallest input position, ascending
  std::vector<GroupAggregateOutput> aggregates;
  RowCount groups = 0;
  GroupByStrategy strategy = GroupByStrategy::kSort;  // what ran
  // Empty, or why the plan's strategy gave way to the sort (a hash table
  // overflowed, a key left its range, the tables outgrew the memory).
  std::string fallback;
};

// REQUIRES: keys (INT32, INT64, DOUBLE, CHAR(n)) and arguments have at least
// `rows` values and match the plan's infos; rows <= the plan's max_rows.
// Groups rows 0..rows-1 by equal key tuples. No keys: one group of all rows
// (none when rows == 0). Throws InvalidInputError("integer overflow") when
// a SUM_I total leaves int64.
GroupByResult GroupBy(QueryContext& context, const GroupByPlan& plan,
                      const std::vector<VectorView>& keys,
                      const std::vector<GroupAggregateSpec>& aggregates, RowCount rows);

// Plans from the views themselves (no key ranges, no estimate) and runs.
GroupByResult GroupBy(QueryContext& context, const std::vector<VectorView>& keys,
                      const std::vector<GroupAggregateSpec>& aggregates, RowCount rows,
                      const GroupByOptions& options = {});

}  // namespace clq
