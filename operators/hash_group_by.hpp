// The group tables behind GroupBy (operators/group_by.hpp): rows folded into
// per-group state words (kernels_cl/hash_group_by.cl), then the groups
// listed in order of first appearance and their aggregates finished
// (group_by_finish in kernels_cl/group_by.cl). Internal to GroupBy; the
// sort path uses the same tables with a group id per row (HGB_MODE_IDS).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "operators/group_by.hpp"

namespace clq {

// Tables of at most this many slots give a REAL SUM bins over the whole
// range of doubles (72 words a slot); larger ones a window found by a pass
// over the argument (hash_group_by_window).
inline constexpr std::uint64_t kFullRangeSlots = 4096;

// Where each aggregate keeps its state in a slot's words.
struct GroupStateLayout {
  struct Aggregate {
    std::uint32_t op = 0;   // HGB_OP_*; QUANTILE: HGB_OP_COUNT, no per-row work
    bool row_work = false;  // folds its argument per row
    std::uint32_t word = 0;
    std::uint32_t count_word = 0;  // HGB_NO_WORD: the group's rows (HGB_WORD_ROWS)
    std::uint32_t bins = 0;        // SUM_REAL
    std::int32_t base = 0;         // SUM_REAL
    bool real = false;             // MIN/MAX ordered as doubles
  };
  // Per slot: header, first position, with aggregates the rows
  // (HGB_WORD_*), then the aggregates' words.
  std::uint32_t words = 0;
  std::vector<std::uint32_t> kinds;  // HGB_MERGE_* per word
  std::vector<Aggregate> aggregates;
};

// The layout of `aggregates` over `rows` rows in a table of `slots` slots;
// a REAL SUM's bins span every double (few slots) or its argument's values
// (hash_group_by_window, one pass over the argument).
GroupStateLayout LayoutGroupState(QueryContext& context, const GroupByPlan& plan,
                                  const std::vector<GroupAggregateSpec>& aggregates, RowCount rows,
                                  std::uint64_t slots);

// How rows find their slots in one fold.
struct GroupTableSpec {
  std::uint32_t mode = 0;              // HGB_MODE_*
  std::uint64_t slots = 0;             // device-wide table (a power of two for PACKED and HASH)
  const RowIds* row_groups = nullptr;  // IDS: each row's group
};

// A device-wide table after the fold. `overflow` holds HGB_OVERFLOW_* bits
// when the rows did not all find a slot (the table is then unusable).
struct GroupTable {
  DeviceBuffer state;  // per slot: `words` words (kernels_cl/group_by_shared.h)
  std::uint64_t slots = 0;
  std::uint32_t words = 0;
  std::uint32_t overflow = 0;
  bool work_group_tables = false;
  // After an HGB_OVERFLOW_TABLE: the groups the table took, and the rows
  // folded (by work-groups that finished) before it filled.
  std::uint64_t groups_held = 0;
  std::uint64_t rows_before_full = 0;
};

// The fold's passes: indices of the aggregates with per-row work, at most
// HGB_MAX_ARGS a pass (one pass, maybe empty, when none has any); the first
// pass also writes first positions and row counts.
std::vector<std::vector<std::size_t>> FoldPasses(const GroupStateLayout& layout);

// The HGB_AGG_UINTS descriptor words of each aggregate of `pass`, on the
// device.
DeviceBuffer UploadAggregateDescriptors(Engine& engine, const GroupStateLayout& layout,
                                        const std::vector<GroupAggregateSpec>& aggregates,
                                        const std::vector<std::size_t>& pass);

// Bytes of a device-wide table of `slots` slots.
std::uint64_t GroupTableBytes(const GroupStateLayout& layout, std::uint64_t slots);

GroupTable FoldGroups(QueryContext& context, const GroupByPlan& plan, const GroupTableSpec& table,
                      const GroupStateLayout& layout, const std::vector<VectorView>& keys,
                      const std::vector<GroupAggregateSpec>& aggregates, RowCount rows);

// The groups of `table` in order of first appearance: first positions and
// every aggregate but QUANTILE finished; `group_slots[j]` is output group
// j's slot (for QUANTILE on the sort path, its sorted group).
struct FinishedGroups {
  GroupByResult result;
  RowIds group_slots;
};
FinishedGroups FinishGroups(QueryContext& context, const GroupTable& table,
                            const GroupStateLayout& layout,
                            const std::vector<GroupAggregateSpec>& aggregates);

}  // namespace clq
