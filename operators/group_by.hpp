// GROUP BY with COUNT, SUM, MIN and MAX per group, sort-based: the positions
// are radix sorted by the key tuple (operators/sort.hpp), cut where the tuple
// changes (group_by_boundaries in kernels_cl/group_by.cl), the cuts scanned
// to group ids (ExclusiveScan), the groups ordered by their smallest position
// (a radix sort of those positions) and each group reduced in two levels:
// chunks of kGroupByChunkRows of its rows, in position order, one work-item
// each (group_by_partial), then the chunk partials of each group in order
// (group_by_combine). QUANTILE (MEDIAN) sorts the positions once more, by the
// keys and then the argument, and picks rank floor(q * (n - 1)) of each
// group's non-NULL arguments (group_by_quantile).
//
// Deterministic on every device: groups come in order of first appearance,
// and a double SUM adds each chunk's values in position order starting from
// 0.0, then the chunk sums in order starting from 0.0 (for groups of at most
// kGroupByChunkRows rows exactly a sequential loop over the rows); the chunk
// size is a constant, not the device geometry. Integer SUM is exact int64;
// an overflow of a chunk's or the group's running sum throws
// InvalidInputError("integer overflow") (QueryContext status). Results are owned by the caller.
// Blocks (reads the group count and the status word).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "kernels_cl/sort_shared.h"
#include "operators/device_vector.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"

namespace clq {

// Rows per chunk of the two-level reductions (the double SUM order).
inline constexpr RowCount kGroupByChunkRows = 512;

struct GroupAggregateSpec {
  // VM_AGG_COUNT, SUM_I, SUM_R, MIN_I, MAX_I, MIN_R, MAX_R
  // (kernels_cl/vm_shared.h). _I operations take INT32 or INT64 arguments; _R
  // operations DOUBLE, or integers converted to double.
  std::uint32_t operation = 0;
  // or GROUP_AGG_QUANTILE (kernels_cl/sort_shared.h; INT32, INT64 or DOUBLE
  // argument, result of its type widened to INT64 or DOUBLE).
  std::optional<VectorView> argument;  // none: COUNT(*)
  double quantile = 0.5;               // GROUP_AGG_QUANTILE only: q (MEDIAN: 0.5)
};

struct GroupAggregateOutput {
  DeviceVector values;  // per group: INT64 (COUNT, _I) or DOUBLE (_R); undefined where counts is 0
  DeviceVector counts;  // INT64 per group: non-NULL inputs (rows for COUNT(*))
};

struct GroupByResult {
  RowIds first_positions;  // per group: its smallest input position, ascending
  std::vector<GroupAggregateOutput> aggregates;
  RowCount groups = 0;
};

// REQUIRES: keys (INT32, INT64, DOUBLE, CHAR(n)) and arguments have at least
// `rows` values; rows < 2^32.
// Groups rows 0..rows-1 by equal key tuples (NULL equals NULL, -0.0 equals
// 0.0). No keys: one group of all rows (none when rows == 0).
GroupByResult GroupBy(QueryContext& context, const std::vector<VectorView>& keys,
                      const std::vector<GroupAggregateSpec>& aggregates, RowCount rows);

}  // namespace clq

namespace clq {

// The kernels GroupBy launches over at most `rows` rows.
KernelSet GroupByKernels(const Engine& engine, const std::vector<bool>& nullable_keys,
                         const std::vector<GroupAggregateSpec>& aggregates, RowCount rows,
                         bool exact);

}  // namespace clq
