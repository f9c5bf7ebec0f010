#include "operators/group_by.hpp"

#include <algorithm>
#include <bit>
#include <cmath>

#include "common/errors.hpp"
#include "kernels_cl/group_by_shared.h"
#include "kernels_cl/sort_shared.h"
#include "kernels_cl/vm_shared.h"
#include "operators/gather.hpp"
#include "operators/hash_group_by.hpp"
#include "operators/scan.hpp"
#include "operators/sort.hpp"
#include "operators/sorted_group_by.hpp"

namespace clq {
namespace {

// A direct table of at most this many slots per row bound (plus a constant
// for small inputs): beyond it most slots stay empty and listing the groups
// costs more than hashing.
constexpr std::uint64_t kDirectSlotsPerRow = 2;
constexpr std::uint64_t kDirectSlotsMinimum = 1 << 16;
std::uint64_t DirectSlotsFor(RowCount rows) {
  return kDirectSlotsPerRow * rows + kDirectSlotsMinimum;
}
// Groups a hash table is first sized for when there is no estimate: a
// table for every row its own group costs its size in set-up and listing
// however few groups there are, and a table that fills grows
// (NextHashSlots) after a pass that stops where it filled.
constexpr RowCount kHashFirstGroups = RowCount{1} << 15;
constexpr std::uint64_t kHashGrowth = 4;
constexpr std::uint64_t kHashMostGrowth = 64;

// The slots of the table that replaces a filled one of `slots`: twice the
// groups the pass suggests, its groups held scaled by the share of the rows
// folded before it filled (the rate of new groups held up for the rest: an
// overestimate where groups repeat more later, so rarely a third pass);
// at least kHashGrowth and at most kHashMostGrowth times larger (an
// estimate from few rows misleads most), at most room for every row its
// own group, and shrunk to the `most_slots` the device holds where the
// estimate asked for more.
std::uint64_t NextHashSlots(std::uint64_t slots, const GroupTable& table, RowCount rows,
                            std::uint64_t most_slots) {
  const std::uint64_t most =
      std::min(slots * kHashMostGrowth, std::bit_ceil(std::max<std::uint64_t>(2 * rows, 64)));
  const std::uint64_t least = std::min(slots * kHashGrowth, most);
  const double estimate = table.rows_before_full == 0
                              ? static_cast<double>(rows)
                              : static_cast<double>(table.groups_held) * static_cast<double>(rows) /
                                    static_cast<double>(table.rows_before_full);
  std::uint64_t room = least;
  while (room < most && static_cast<double>(room) < 2 * estimate)
    room *= 2;
  while (room > least && room > most_slots)
    room /= 2;
  return room;
}
// A CPU work-group's own table (in global memory) takes at most this.
constexpr std::uint64_t kCpuWorkGroupBytes = std::uint64_t{64} << 20;

// State words per slot the plan assumes for its memory checks (a REAL SUM's
// bins are known only once its argument is: assumed four for the window,
// two of padding and the flags; small tables take 73, which they afford).
std::uint64_t PlannedWords(const std::vector<GroupAggregateInfo>& aggregates) {
  // The header and first position, the rows (hash_group_by.hpp).
  if (aggregates.empty()) return 2;
  std::uint64_t words = 3;
  for (const GroupAggregateInfo& a : aggregates) {
    if (!a.argument) continue;
    if (a.nullable) ++words;
    if (a.operation == VM_AGG_SUM_I) words += 2;
    if (a.operation == VM_AGG_SUM_R) words += 7;
    if (a.operation >= VM_AGG_MIN_I && a.operation <= VM_AGG_MAX_R) words += 1;
  }
  return words;
}

// Sorted groups: the permutation, each sorted group's first index, each
// row's group, and the group count.
struct SortedGroups {
  std::vector<RadixKey> keys;
  RowIds perm;
  DeviceBuffer starts;
  RowIds row_groups;
  RowCount groups = 0;
};

SortedGroups FindGroups(Engine& engine, const std::vector<VectorView>& keys, RowCount rows) {
  SortedGroups sorted;
  std::vector<RadixKey>& radix_keys = sorted.keys;
  for (const VectorView& key : keys) {
    CLQ_CHECK(key.size >= rows, "group key shorter than the rows to group");
    radix_keys.push_back(
        {key.values, key.nulls, static_cast<std::uint32_t>(key.type.type), key.type.width, false});
  }
  sorted.perm = RadixSortPermutation(engine, radix_keys, rows);
  const std::uint64_t tiles = engine.TilesFor(rows);
  DeviceBuffer flags = engine.pool().Acquire(rows * sizeof(cl_uint), "group by cuts");
  engine.Fill(flags.get(), 0, 0, rows * sizeof(cl_uint), "group by cuts");
  engine.Fill(flags.get(), 1, 0, sizeof(cl_uint), "group by cuts");
  cl::Kernel& boundaries = engine.kernel("group_by_boundaries");
  for (const RadixKey& key : radix_keys) {
    const bool has_nulls = key.nulls() != nullptr;
    boundaries.setArg(0, sorted.perm.ids.get());
    boundaries.setArg(1, static_cast<cl_ulong>(rows));
    boundaries.setArg(2, key.values);
    boundaries.setArg(3, has_nulls ? key.nulls : key.values);
    boundaries.setArg(4, static_cast<cl_uint>(has_nulls ? 1 : 0));
    boundaries.setArg(5, static_cast<cl_uint>(key.type));
    boundaries.setArg(6, static_cast<cl_uint>(key.width));
    boundaries.setArg(7, flags.get());
    engine.Launch(boundaries, tiles, "group by boundaries");
  }
  DeviceBuffer ids = engine.pool().Acquire(rows * sizeof(cl_uint), "group by ids");
  DeviceBuffer total = engine.pool().Acquire(sizeof(cl_uint), "group by count");
  ExclusiveScan(engine, flags.get(), rows, ids.get(), &total.get());
  cl_uint groups = 0;
  engine.Download(total.get(), 0, sizeof(groups), &groups, "group by count");
  sorted.groups = groups;
  sorted.starts = engine.pool().Acquire(groups * sizeof(cl_uint), "group starts");
  sorted.row_groups = AllocateRowIds(engine, rows, "group of each row");
  cl::Kernel& starts = engine.kernel("group_by_starts");
  starts.setArg(0, flags.get());
  starts.setArg(1, ids.get());
  starts.setArg(2, sorted.perm.ids.get());
  starts.setArg(3, static_cast<cl_ulong>(rows));
  starts.setArg(4, sorted.starts.get());
  starts.setArg(5, sorted.row_groups.ids.get());
  engine.Launch(starts, tiles, "group by starts");
  return sorted;
}

// QUANTILE: the positions sorted again, by the group keys and then the
// argument (a stable LSD sort gives the same group segments), and one binary
// search and pick per group. group_slots[j] is output group j's sorted group.
void Quantile(QueryContext& context, const SortedGroups& sorted, const RowIds& group_slots,
              const GroupAggregateSpec& spec, RowCount rows, GroupAggregateOutput& output) {
  Engine& engine = context.engine();
  CLQ_CHECK(spec.argument.has_value(), "group by: QUANTILE without an argument");
  const VectorView& argument = *spec.argument;
  CLQ_CHECK(argument.size >= rows, "aggregate argument shorter than the rows to group");
  CLQ_CHECK(argument.type.is_numeric(), "group by: QUANTILE of CHAR values");
  std::vector<RadixKey> keys = sorted.keys;
  keys.push_back({argument.values, argument.nulls, static_cast<std::uint32_t>(argument.type.type),
                  argument.type.width, false});
  const RowIds perm = RadixSortPermutation(engine, keys, rows);
  const bool has_nulls = argument.has_nulls();
  cl::Kernel& kernel = engine.kernel("group_by_quantile");
  kernel.setArg(0, perm.ids.get());
  kernel.setArg(1, static_cast<cl_ulong>(rows));
  kernel.setArg(2, sorted.starts.get());
  kernel.setArg(3, group_slots.ids.get());
  kernel.setArg(4, static_cast<cl_ulong>(sorted.groups));
  kernel.setArg(5, argument.values);
  kernel.setArg(6, has_nulls ? argument.nulls : argument.values);
  kernel.setArg(7, static_cast<cl_uint>(has_nulls ? 1 : 0));
  kernel.setArg(8, static_cast<cl_uint>(argument.type.type));
  // Clamped here too: without fp64 the kernel takes q as it comes.
  kernel.setArg(
      9, static_cast<cl_ulong>(std::bit_cast<std::uint64_t>(std::clamp(spec.quantile, 0.0, 1.0))));
  kernel.setArg(10, output.values.values.get());
  kernel.setArg(11, output.counts.values.get());
  engine.Launch(kernel, engine.TilesFor(sorted.groups), "group by quantile");
}

GroupByResult SortGroupBy(QueryContext& context, const GroupByPlan& plan,
                          const std::vector<VectorView>& keys,
                          const std::vector<GroupAggregateSpec>& aggregates,
                          const GroupStateLayout& layout, RowCount rows) {
  Engine& engine = context.engine();
  const SortedGroups sorted = FindGroups(engine, keys, rows);
  if (GroupTableBytes(layout, sorted.groups) > engine.info().max_alloc_bytes)
    throw DeviceLimitError("group by: the groups' state does not fit the device");
  GroupTable table;
  if (plan.fold_sorted) {
    table = FoldSortedGroups(context, layout, sorted.perm, sorted.row_groups, sorted.groups,
                             aggregates, rows);
  } else {
    GroupTableSpec spec;
    spec.mode = HGB_MODE_IDS;
    spec.slots = sorted.groups;
    spec.row_groups = &sorted.row_groups;
    table = FoldGroups(context, plan, spec, layout, {}, aggregates, rows);
  }
  CLQ_CHECK(table.overflow == 0, "group by: sorted group ids out of range");
  FinishedGroups finished = FinishGroups(context, table, layout, aggregates);
  for (std::size_t i = 0; i < aggregates.size(); ++i)
    if (aggregates[i].operation == GROUP_AGG_QUANTILE)
      Quantile(context, sorted, finished.group_slots, aggregates[i], rows,
               finished.result.aggregates[i]);
  finished.result.strategy = GroupByStrategy::kSort;
  context.CheckStatus();
  return std::move(finished.result);
}

}  // namespace

const char* GroupByStrategyName(GroupByStrategy strategy) {
  switch (strategy) {
    case GroupByStrategy::kDirect:
      return "direct";
    case GroupByStrategy::kHash:
      return "hash";
    case GroupByStrategy::kSort:
      return "sort";
  }
  return "?";
}

GroupKeyInfo KeyInfoOf(const VectorView& key, std::optional<IntRange> range) {
  return {key.type, key.has_nulls(), range};
}

GroupAggregateInfo AggregateInfoOf(const GroupAggregateSpec& spec) {
  GroupAggregateInfo info;
  info.operation = spec.operation;
  if (spec.argument) {
    info.argument = spec.argument->type;
    info.nullable = spec.argument->has_nulls();
  }
  info.range = spec.range;
  return info;
}

bool GroupByPlan::HasQuantile() const {
  return std::any_of(aggregates.begin(), aggregates.end(),
                     [](const GroupAggregateInfo& a) { return a.operation == GROUP_AGG_QUANTILE; });
}

KernelSet GroupByPlan::Kernels() const {
  const bool real_sum =
      std::any_of(aggregates.begin(), aggregates.end(),
                  [](const GroupAggregateInfo& a) { return a.operation == VM_AGG_SUM_R; });
  const bool key_nulls =
      std::any_of(keys.begin(), keys.end(), [](const GroupKeyInfo& k) { return k.nullable; });
  // The sort's kernels: the plan's path, or its fallback.
  KernelSet sort{"gather_iota",       "sort_key_bits",       "sort_load_keys", "sort_count_keys",
                 "sort_scatter_keys", "group_by_boundaries", "scan_tiles",     "group_by_starts"};
  if (key_nulls) sort.AddWhenNeeded("sort_count_nulls");
  sort.AddWhenNeeded("sort_scatter_nulls");
  KernelSet kernels;
  if (strategy == GroupByStrategy::kSort) {
    if (real_sum) kernels.Add("group_by_window");
    kernels.Add(sort);
  }
  if (fold_sorted) {
    kernels.Add("sorted_group_by_fold");
    // Groups that go on past a chunk of sorted rows: inputs of more than one.
    kernels.AddWhenNeeded("sorted_group_by_merge");
  } else {
    kernels.Add("hash_group_by_aggregate");
    if (cpu_paths && work_group_bytes != 0 && strategy != GroupByStrategy::kHash) {
      // Not where a direct table hashes instead, fewer rows having come than
      // it was planned for (GroupBy).
      if (strategy == GroupByStrategy::kDirect && table_slots > kDirectSlotsMinimum) {
        kernels.AddWhenNeeded("group_by_merge");
      } else {
        kernels.Add("group_by_merge");
      }
    }
  }
  if (strategy != GroupByStrategy::kSort && real_sum) {
    // Tables past the full-range bins find the argument's exponents first.
    if (table_slots > kFullRangeSlots) {
      kernels.Add("group_by_window");
    } else {
      kernels.AddWhenNeeded("group_by_window");
    }
  }
  // Compaction of the occupied slots, the groups' radix sort by first
  // position, the gathers of positions and slots, the results.
  for (const char* name :
       {"group_by_occupied", "scan_tiles", "group_by_compact", "gather_iota", "sort_key_bits",
        "sort_load_keys", "sort_count_keys", "sort_scatter_keys", "gather_u32", "group_by_finish"})
    kernels.Add(name);
  if (HasQuantile()) kernels.Add("group_by_quantile");
  if (strategy != GroupByStrategy::kSort) kernels.Add(sort, true);
  kernels.AddWhenNeeded("scan_add_offsets");
  return kernels;
}

std::string GroupByPlan::Describe() const {
  std::string text = std::string(GroupByStrategyName(strategy)) + " GROUP BY";
  if (fold_sorted) text += ", sorted groups folded by chunks of rows";
  if (strategy != GroupByStrategy::kSort) text += ", " + std::to_string(table_slots) + " slots";
  if (strategy == GroupByStrategy::kDirect && table_slots > kDirectSlotsMinimum)
    text += " (hashed, keys packed, where fewer than " +
            std::to_string((table_slots - kDirectSlotsMinimum) / kDirectSlotsPerRow) +
            " rows come)";
  if (strategy == GroupByStrategy::kHash)
    text += std::string(" (fewer where fewer than half as many rows come)") +
            (packed ? ", keys packed in the slots" : ", keys compared at a row");
  if (work_group_bytes != 0)
    text += std::string(", work-group tables in ") + (cpu_paths ? "global" : "local") +
            " memory (up to " + std::to_string(work_group_bytes / 1024) + " KiB)";
  return text + ": " + reason;
}

GroupByPlan PlanGroupBy(const DeviceInfo& device, const DeviceTuning& tuning,
                        const std::vector<GroupKeyInfo>& keys,
                        const std::vector<GroupAggregateInfo>& aggregates, RowCount max_rows,
                        std::optional<RowCount> estimated_groups, const GroupByOptions& options) {
  GroupByPlan plan;
  plan.cpu_paths = tuning.cpu_paths;
  plan.keys = keys;
  plan.aggregates = aggregates;
  plan.memory_budget = std::min(device.max_alloc_bytes, device.global_mem_bytes / 2);
  if (plan.cpu_paths) {
    const std::uint64_t parts = std::uint64_t{4} * std::max(1u, device.compute_units);
    plan.work_group_bytes = std::min(kCpuWorkGroupBytes, plan.memory_budget / (2 * parts));
  } else if (device.local_mem_bytes >= 8192) {
    // Leave room for the kernel's own local arrays.
    plan.work_group_bytes = device.local_mem_bytes - 4096;
  }
  if (options.work_group_tables && !*options.work_group_tables) plan.work_group_bytes = 0;
  plan.work_group_slots_cap = options.work_group_slots.value_or(0);
  (void)tuning;

  const std::uint64_t slot_bytes = PlannedWords(aggregates) * 8;
  const auto sort = [&](std::string reason) {
    plan.strategy = GroupByStrategy::kSort;
    plan.reason = std::move(reason);
    return plan;
  };
  if (!device.int64_atomics || device.loop_iteration_limit != 0 || options.fold_sorted) {
    // Group tables take rows with 64-bit atomics, and a CPU work-group's
    // table all its rows in one work-item; sorted groups need neither.
    plan.fold_sorted = true;
    plan.work_group_bytes = 0;
    return sort(options.fold_sorted ? "forced"
                : !device.int64_atomics
                    ? "the device lacks 64-bit atomics (cl_khr_int64_base_atomics)"
                    : "the device caps each work-item's loop iterations");
  }
  if (options.strategy == GroupByStrategy::kSort) return sort("forced");
  if (plan.HasQuantile()) return sort("QUANTILE sorts each group's values");
  if (keys.size() > HGB_MAX_KEYS)
    return sort("more than " + std::to_string(HGB_MAX_KEYS) + " keys");

  // Direct: integer keys with known ranges and few images.
  const RowCount direct_rows =
      options.expected_rows != 0 ? std::min(options.expected_rows, max_rows) : max_rows;
  const std::uint64_t direct_limit =
      std::min<std::uint64_t>(DirectSlotsFor(direct_rows), HGB_GLOBAL_SLOT - 1);
  double images = 1;
  for (const GroupKeyInfo& key : keys) {
    if (!key.type.is_integer() || !key.range) {
      images = INFINITY;
      break;
    }
    images *= (static_cast<double>(key.range->max) - static_cast<double>(key.range->min) + 1) +
              (key.nullable ? 1 : 0);
  }
  if (options.strategy != GroupByStrategy::kHash && images <= static_cast<double>(direct_limit) &&
      images * static_cast<double>(slot_bytes) <= static_cast<double>(plan.memory_budget)) {
    std::uint64_t stride = 1;
    for (const GroupKeyInfo& key : keys) {
      GroupByPlan::DirectKey d;
      d.lo = key.range->min;
      d.card = static_cast<std::uint64_t>(key.range->max) -
               static_cast<std::uint64_t>(key.range->min) + 1;
      d.stride = stride;
      stride *= d.card + (key.nullable ? 1 : 0);
      plan.direct.push_back(d);
    }
    plan.table_slots = stride;
    plan.strategy = GroupByStrategy::kDirect;
    plan.reason = "integer keys with known ranges, " + std::to_string(stride) + " images";
    return plan;
  }

  // Hash: twice the expected groups, a power of two. The slots' headers
  // hold the keys' image when integer keys pack into 63 bits (their ranges,
  // or INT32's), else a hash tag and a row whose keys are compared.
  double packed_images = 1;
  for (const GroupKeyInfo& key : keys) {
    const std::optional<IntRange> range =
        key.range ? key.range
        : key.type.type == DataType::kInt32
            ? std::optional<IntRange>(IntRange{INT32_MIN, INT32_MAX})
            : std::nullopt;
    if (!key.type.is_integer() || !range) {
      packed_images = INFINITY;
      break;
    }
    packed_images *= (static_cast<double>(range->max) - static_cast<double>(range->min) + 1) +
                     (key.nullable ? 1 : 0);
  }
  if (packed_images < 0x1p62) {
    std::uint64_t stride = 1;
    for (const GroupKeyInfo& key : keys) {
      const IntRange range = key.range.value_or(IntRange{INT32_MIN, INT32_MAX});
      GroupByPlan::DirectKey d;
      d.lo = range.min;
      d.card = static_cast<std::uint64_t>(range.max) - static_cast<std::uint64_t>(range.min) + 1;
      d.stride = stride;
      stride *= d.card + (key.nullable ? 1 : 0);
      plan.direct.push_back(d);
    }
    plan.packed = true;
  }
  // Without an estimate the table starts small and grows when it fills
  // (GroupBy).
  const RowCount expected = std::max<RowCount>(
      1, std::min(estimated_groups.value_or(std::min(max_rows, kHashFirstGroups)), direct_rows));
  std::uint64_t slots =
      options.hash_slots.value_or(std::bit_ceil(std::max<std::uint64_t>(2 * expected, 64)));
  CLQ_CHECK(std::has_single_bit(slots), "group by: hash slots not a power of two");
  if (slots >= HGB_GLOBAL_SLOT || slots * slot_bytes > plan.memory_budget)
    return sort("a hash table for " + std::to_string(expected) +
                " groups does not fit the device's memory");
  plan.table_slots = slots;
  plan.strategy = GroupByStrategy::kHash;
  plan.reason = estimated_groups && *estimated_groups <= direct_rows
                    ? "about " + std::to_string(*estimated_groups) + " groups"
                : direct_rows < max_rows
                    ? "group count unknown, about " + std::to_string(direct_rows) +
                          " rows expected (up to " + std::to_string(max_rows) + ")"
                    : "group count unknown, up to " + std::to_string(max_rows);
  return plan;
}

GroupByResult GroupBy(QueryContext& context, const GroupByPlan& plan,
                      const std::vector<VectorView>& keys,
                      const std::vector<GroupAggregateSpec>& aggregates, RowCount rows) {
  Engine& engine = context.engine();
  if (rows > kMaxTableRows) throw DeviceLimitError("group by: too many rows");
  CLQ_CHECK(keys.size() == plan.keys.size() && aggregates.size() == plan.aggregates.size(),
            "group by: keys or aggregates differ from the plan's");
  GroupByResult result;
  result.strategy = plan.strategy;
  if (rows == 0) {
    result.first_positions = AllocateRowIds(engine, 0, "group first positions");
    for (const GroupAggregateSpec& spec : aggregates) {
      const bool real = spec.operation == VM_AGG_SUM_R || spec.operation == VM_AGG_MIN_R ||
                        spec.operation == VM_AGG_MAX_R ||
                        (spec.operation == GROUP_AGG_QUANTILE && spec.argument &&
                         spec.argument->type.type == DataType::kDouble);
      GroupAggregateOutput output;
      output.values = AllocateVector(engine, real ? ColumnType::Double() : ColumnType::Int64(), 0,
                                     "group aggregate values");
      output.counts = AllocateVector(engine, ColumnType::Int64(), 0, "group counts");
      result.aggregates.push_back(std::move(output));
    }
    return result;
  }
  const GroupStateLayout layout = LayoutGroupState(
      context, plan, aggregates, rows,
      plan.strategy == GroupByStrategy::kSort ? rows + HGB_GLOBAL_SLOT : plan.table_slots);
  if (plan.strategy == GroupByStrategy::kSort)
    return SortGroupBy(context, plan, keys, aggregates, layout, rows);

  // Tables are planned for the most rows the input could have. Where far
  // fewer came (a join or filter that kept few), a direct table's images go
  // into a hash table instead, as the plan would have chosen for these rows,
  // and a hash table shrinks to room for every row its own group (the
  // layout stays the plan's).
  GroupByPlan resized;
  const GroupByPlan* run = &plan;
  const std::uint64_t fitted = std::bit_ceil(std::max<std::uint64_t>(2 * rows, 64));
  if (fitted < plan.table_slots &&
      (plan.strategy == GroupByStrategy::kHash ||
       (plan.strategy == GroupByStrategy::kDirect && DirectSlotsFor(rows) < plan.table_slots))) {
    resized = plan;
    resized.packed = plan.strategy == GroupByStrategy::kDirect || plan.packed;
    resized.strategy = GroupByStrategy::kHash;
    resized.table_slots = fitted;
    run = &resized;
  }
  GroupTableSpec spec;
  spec.mode = run->strategy == GroupByStrategy::kDirect ? HGB_MODE_DIRECT
              : run->packed                             ? HGB_MODE_PACKED
                                                        : HGB_MODE_HASH;
  spec.slots = run->table_slots;
  std::string fallback;
  std::uint32_t rebuilds = 0;
  for (;;) {
    const std::uint64_t bytes = GroupTableBytes(layout, spec.slots);
    if (bytes > plan.memory_budget) {
      fallback = "the group table (" + std::to_string(bytes) + " bytes) does not fit the device";
      break;
    }
    const GroupTable table = FoldGroups(context, *run, spec, layout, keys, aggregates, rows);
    if (table.overflow == 0) {
      FinishedGroups finished = FinishGroups(context, table, layout, aggregates);
      context.CheckStatus();
      finished.result.strategy = run->strategy;
      finished.result.fallback = fallback;
      return std::move(finished.result);
    }
    if ((table.overflow & HGB_OVERFLOW_RANGE) != 0) {
      fallback = "a key value outside its planned range";
      break;
    }
    // The hash table filled: once more, larger, up to room for every row its
    // own group.
    const std::uint64_t room =
        NextHashSlots(spec.slots, table, rows, plan.memory_budget / GroupTableBytes(layout, 1));
    if (spec.slots >= room || room >= HGB_GLOBAL_SLOT) {
      fallback = "the hash table overflowed";
      break;
    }
    ++rebuilds;
    fallback = "the hash table of " + std::to_string(spec.slots) +
               " slots overflowed: rebuilt with " + std::to_string(room) + " (rebuild " +
               std::to_string(rebuilds) + ")";
    spec.slots = room;
  }
  result = SortGroupBy(context, plan, keys, aggregates, layout, rows);
  result.fallback = fallback;
  context.CheckStatus();
  return result;
}

GroupByResult GroupBy(QueryContext& context, const std::vector<VectorView>& keys,
                      const std::vector<GroupAggregateSpec>& aggregates, RowCount rows,
                      const GroupByOptions& options) {
  std::vector<GroupKeyInfo> key_infos;
  for (const VectorView& key : keys)
    key_infos.push_back(KeyInfoOf(key));
  std::vector<GroupAggregateInfo> infos;
  for (const GroupAggregateSpec& spec : aggregates)
    infos.push_back(AggregateInfoOf(spec));
  const Engine& engine = context.engine();
  const GroupByPlan plan =
      PlanGroupBy(engine.info(), engine.tuning(), key_infos, infos, rows, std::nullopt, options);
  return GroupBy(context, plan, keys, aggregates, rows);
}

}  // namespace clq
