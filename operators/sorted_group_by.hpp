// GROUP BY's fold where group tables cannot be used: on devices without
// 64-bit atomics, or whose loops are capped (llvmpipe; the sort strategy of
// a plan with GroupByPlan::fold_sorted, operators/group_by.hpp). The rows,
// sorted by the key tuple, are folded in chunks of sorted rows, one
// work-item a chunk (kernels_cl/sorted_group_by.cl): a group inside a chunk
// straight into its slot, the chunks' first and last runs into records
// merged chunk by chunk, level after level (sorted_group_by_merge), until
// one chunk holds them. No word is written by two work-items, so no atomic
// is needed, and a work-item's loops are bounded by the chunk whatever the
// groups' sizes. The table has the slots and state words of
// hash_group_by's IDS mode, one slot per sorted group, and is finished by
// FinishGroups. Internal to GroupBy. Only enqueues.
#pragma once

#include <vector>

#include "operators/hash_group_by.hpp"

namespace clq {

// Sorted rows a work-item folds, and records it merges.
inline constexpr std::uint32_t kSortedGroupChunk = 256;

// REQUIRES: perm sorts rows 0..rows-1 by the key tuple and row_groups gives
// each row its sorted group, of `groups`.
GroupTable FoldSortedGroups(QueryContext& context, const GroupStateLayout& layout,
                            const RowIds& perm, const RowIds& row_groups, RowCount groups,
                            const std::vector<GroupAggregateSpec>& aggregates, RowCount rows);

}  // namespace clq
