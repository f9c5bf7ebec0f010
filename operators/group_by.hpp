// GROUP BY with COUNT, SUM, MIN and MAX per group, sort-based: the positions
// are radix sorted by the key tuple (operators/sort.hpp), cut where the tuple
// changes (group_by_boundaries in kernels_cl/group_by.cl), the cuts scanned
// to group ids (ExclusiveScan), the groups ordered by their smallest position
// (a radix sort of those positions) and each group reduced by one work-item
// walking its rows in position order (group_by_aggregate).
//
// Deterministic on every device: groups come in order of first appearance,
// and a double SUM adds the group's values in input (position) order, exactly
// as a sequential loop over the rows would. Integer SUM is exact int64; an
// overflow throws InvalidInputError("integer overflow") (QueryContext
// status). Results are owned by the caller. Blocks (reads the group count and
// the status word).
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "operators/device_vector.hpp"
#include "operators/query_context.hpp"

namespace clq {

struct GroupAggregateSpec {
  // VM_AGG_COUNT, SUM_I, SUM_R, MIN_I, MAX_I, MIN_R, MAX_R
  // (kernels_cl/vm_shared.h). _I operations take INT32 or INT64 arguments; _R
  // operations DOUBLE, or integers converted to double.
  std::uint32_t operation = 0;
  std::optional<VectorView> argument;  // none: COUNT(*)
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
