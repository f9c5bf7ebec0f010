// GROUP BY's fold on devices without 64-bit atomics (the sort strategy of a
// plan with GroupByPlan::fold_sorted; operators/group_by.hpp): rows sorted
// by the key tuple are folded group by group, each sorted group by one
// work-item into its own slot, so no two work-items write one word and no
// atomic is needed (kernels_cl/sorted_group_by.cl: sorted_group_by_fold).
// The table has the slots and state words of hash_group_by's IDS mode, one
// slot per sorted group, and is finished by FinishGroups. Internal to
// GroupBy. Only enqueues.
#pragma once

#include <vector>

#include "operators/hash_group_by.hpp"

namespace clq {

// REQUIRES: perm sorts rows 0..rows-1 by the key tuple, and starts holds the
// first sorted index of each of the `groups` sorted groups.
GroupTable FoldSortedGroups(QueryContext& context, const GroupStateLayout& layout,
                            const RowIds& perm, const DeviceBuffer& starts, RowCount groups,
                            const std::vector<GroupAggregateSpec>& aggregates, RowCount rows);

}  // namespace clq
