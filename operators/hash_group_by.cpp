#include "operators/hash_group_by.hpp"

#include <algorithm>
#include <array>
#include <bit>
#include <climits>

#include "common/errors.hpp"
#include "kernels_cl/group_by_shared.h"
#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "operators/gather.hpp"
#include "operators/scan.hpp"
#include "operators/sort.hpp"

namespace clq {
namespace {

// Binds a kernel's arguments in order.
class ArgBinder {
 public:
  explicit ArgBinder(cl::Kernel& kernel) : kernel_(kernel) {}
  template <typename T>
  ArgBinder& operator()(const T& value) {
    kernel_.setArg(next_++, value);
    return *this;
  }

 private:
  cl::Kernel& kernel_;
  cl_uint next_ = 0;
};

bool IsReal(std::uint32_t op) {
  return op == VM_AGG_SUM_R || op == VM_AGG_MIN_R || op == VM_AGG_MAX_R;
}

// The bounds an integer argument of `type` certainly keeps.
std::optional<IntRange> ArgumentRange(const GroupAggregateSpec& spec) {
  if (spec.range) return spec.range;
  if (spec.argument && spec.argument->type.type == DataType::kInt32)
    return IntRange{INT32_MIN, INT32_MAX};
  return std::nullopt;
}

// [lowest set bit, highest set bit] of the finite non-zero values of each
// REAL SUM's argument, one group_by_window pass per argument and one
// download for all; nullopt where there is none.
std::vector<std::optional<std::array<cl_int, 2>>> RealWindows(
    Engine& engine, const std::vector<const VectorView*>& arguments, RowCount rows) {
  std::vector<std::optional<std::array<cl_int, 2>>> windows(arguments.size());
  if (arguments.empty()) return windows;
  std::vector<cl_int> host(arguments.size() * 2);
  for (std::size_t a = 0; a < arguments.size(); ++a) {
    host[a * 2] = INT_MAX;
    host[a * 2 + 1] = INT_MIN;
  }
  DeviceBuffer buffer = engine.pool().Acquire(host.size() * sizeof(cl_int), "group by window");
  engine.Upload(buffer.get(), 0, host.size() * sizeof(cl_int), host.data(), "group by window");
  const std::uint64_t tiles = engine.TilesFor(rows);
  const std::uint64_t tiles_per_group =
      std::max<std::uint64_t>(1, tiles / (std::uint64_t{8} * engine.info().compute_units));
  cl::Kernel& kernel = engine.kernel("group_by_window");
  for (std::size_t a = 0; a < arguments.size(); ++a) {
    const VectorView& v = *arguments[a];
    ArgBinder{kernel}(v.values)(v.has_nulls() ? v.nulls : v.values)(static_cast<cl_uint>(
        v.has_nulls() ? 1 : 0))(static_cast<cl_uint>(v.type.type))(static_cast<cl_ulong>(rows))(
        static_cast<cl_ulong>(tiles_per_group * engine.tuning().tile_size()))(buffer.get())(
        static_cast<cl_uint>(a));
    engine.Launch(kernel, engine.GroupsFor(tiles, tiles_per_group), "group by REAL window");
  }
  engine.Download(buffer.get(), 0, host.size() * sizeof(cl_int), host.data(), "group by window");
  for (std::size_t a = 0; a < arguments.size(); ++a)
    if (host[a * 2] != INT_MAX) windows[a] = std::array<cl_int, 2>{host[a * 2], host[a * 2 + 1]};
  return windows;
}

// Full-range REAL SUM bins: from the lowest significand bit of a subnormal
// to the highest of the largest double.
constexpr int kLowestBit = -1074;
constexpr int kHighestBit = 1023;

// A work-group's hash table stays about the size of a core's cache: a
// larger one is mostly cold, and setting it up and flushing it costs its
// size again per work-group.
constexpr std::uint64_t kHashWorkGroupSlots = std::uint64_t{1} << 14;

// A core's cache, roughly (L2 of the CPUs PoCL runs on).
constexpr std::uint64_t kCpuCacheBytes = std::uint64_t{1} << 20;

// Work-group tables of a fold: `slots` per table (0: none), `copies` per
// GPU work-group, `probes` of a HASH table; on CPUs `parts` tables.
struct WorkGroupTables {
  std::uint32_t slots = 0;
  std::uint32_t copies = 1;
  std::uint32_t probes = 0;
};

bool IsHashMode(std::uint32_t mode) {
  return mode == HGB_MODE_HASH || mode == HGB_MODE_PACKED;
}

WorkGroupTables SizeWorkGroupTables(const Engine& engine, const GroupByPlan& plan,
                                    const GroupStateLayout& layout, std::uint32_t mode,
                                    std::uint64_t table_slots) {
  WorkGroupTables tables;
  const std::uint64_t budget = plan.work_group_bytes;
  const std::uint64_t slot_bytes = std::uint64_t{layout.words} * 8;
  if (budget == 0) return tables;
  if (IsHashMode(mode)) {
    std::uint64_t slots = std::bit_floor(budget / slot_bytes);
    if (plan.work_group_slots_cap != 0)
      slots = std::min<std::uint64_t>(slots, std::bit_floor(plan.work_group_slots_cap));
    slots = std::min<std::uint64_t>({slots, table_slots, kHashWorkGroupSlots});
    if (slots < 16) return tables;
    tables.slots = static_cast<std::uint32_t>(slots);
    tables.probes = static_cast<std::uint32_t>(std::min<std::uint64_t>(slots, 8));
    return tables;
  }
  const std::uint64_t bytes = table_slots * slot_bytes;
  if (bytes > budget) return tables;
  if (plan.work_group_slots_cap != 0 && table_slots > plan.work_group_slots_cap) return tables;
  tables.slots = static_cast<std::uint32_t>(table_slots);
  // GPUs: copies of a small table spread the work-items' atomics. A table
  // of fewer slots than a warp has lanes gets a copy per lane, since a
  // warp's lanes would otherwise collide on its words; a larger one a copy
  // per warp, since its lanes rarely collide and more copies cost occupancy
  // and flush time. (CPUs: copies that items alternate between, to break
  // one group's chain of loads and stores, measured no faster.)
  if (!plan.cpu_paths) {
    constexpr std::uint64_t kWarpLanes = 32;
    const std::uint64_t items = engine.tuning().work_group_size;
    const std::uint64_t most = table_slots < kWarpLanes
                                   ? std::min(kWarpLanes, items)
                                   : std::max<std::uint64_t>(1, items / kWarpLanes);
    tables.copies = static_cast<std::uint32_t>(
        std::clamp<std::uint64_t>(budget / std::max<std::uint64_t>(bytes, 1), 1, most));
  }
  return tables;
}

}  // namespace

std::vector<std::vector<std::size_t>> FoldPasses(const GroupStateLayout& layout) {
  std::vector<std::vector<std::size_t>> passes(1);
  for (std::size_t a = 0; a < layout.aggregates.size(); ++a) {
    if (!layout.aggregates[a].row_work) continue;
    if (passes.back().size() == HGB_MAX_ARGS) passes.emplace_back();
    passes.back().push_back(a);
  }
  return passes;
}

DeviceBuffer UploadAggregateDescriptors(Engine& engine, const GroupStateLayout& layout,
                                        const std::vector<GroupAggregateSpec>& aggregates,
                                        const std::vector<std::size_t>& pass) {
  std::vector<cl_uint> words(std::max<std::size_t>(pass.size(), 1) * HGB_AGG_UINTS, 0);
  for (std::size_t i = 0; i < pass.size(); ++i) {
    const GroupStateLayout::Aggregate& a = layout.aggregates[pass[i]];
    const VectorView& argument = *aggregates[pass[i]].argument;
    cl_uint* d = &words[i * HGB_AGG_UINTS];
    d[HGB_AGG_OP] = a.op;
    d[HGB_AGG_TYPE] = static_cast<cl_uint>(argument.type.type);
    d[HGB_AGG_NULLS] = argument.has_nulls() ? 1 : 0;
    d[HGB_AGG_WORD] = a.word;
    d[HGB_AGG_COUNT] = a.count_word;
    d[HGB_AGG_BINS] = a.bins;
    d[HGB_AGG_BASE] = static_cast<cl_uint>(a.base);
    d[HGB_AGG_REAL] = a.real ? 1 : 0;
  }
  DeviceBuffer buffer = engine.pool().Acquire(words.size() * 4, "group descriptors");
  engine.Upload(buffer.get(), 0, words.size() * 4, words.data(), "group descriptors");
  return buffer;
}

std::uint64_t GroupTableBytes(const GroupStateLayout& layout, std::uint64_t slots) {
  return slots * layout.words * 8;
}

GroupStateLayout LayoutGroupState(QueryContext& context, const GroupByPlan& plan,
                                  const std::vector<GroupAggregateSpec>& aggregates, RowCount rows,
                                  std::uint64_t slots) {
  Engine& engine = context.engine();
  GroupStateLayout layout;
  // The header (never merged as a word), the first position, the rows.
  layout.words = 2;
  layout.kinds = {HGB_MERGE_OR, HGB_MERGE_MAX};
  if (aggregates.empty()) return layout;
  layout.words = 3;
  layout.kinds.push_back(HGB_MERGE_ADD);
  // A few slots take bins over every double's range, without a pass over
  // the arguments to find their window.
  const bool full_range = slots <= kFullRangeSlots;
  std::vector<const VectorView*> real_sums;
  for (const GroupAggregateSpec& spec : aggregates)
    if (spec.operation == VM_AGG_SUM_R && !full_range) real_sums.push_back(&*spec.argument);
  const auto windows = RealWindows(engine, real_sums, rows);
  std::size_t next_window = 0;
  const auto add_words = [&](std::uint32_t count, std::uint32_t kind) {
    const std::uint32_t first = layout.words;
    layout.words += count;
    layout.kinds.insert(layout.kinds.end(), count, kind);
    return first;
  };
  for (const GroupAggregateSpec& spec : aggregates) {
    GroupStateLayout::Aggregate a;
    a.count_word = HGB_NO_WORD;
    const std::uint32_t op = spec.operation;
    if (spec.argument) {
      const VectorView& argument = *spec.argument;
      CLQ_CHECK(argument.size >= rows, "aggregate argument shorter than the rows to group");
      CLQ_CHECK(argument.type.is_numeric(), "group by: aggregate of CHAR values");
      CLQ_CHECK(IsReal(op) || op == VM_AGG_COUNT || op == GROUP_AGG_QUANTILE ||
                    argument.type.is_integer(),
                "group by: integer aggregate of DOUBLE values");
    }
    if (IsReal(op) && !engine.info().fp64)
      throw DeviceLimitError("group by: REAL aggregates need a device with fp64");
    const bool counted = spec.argument && spec.argument->has_nulls() && op != GROUP_AGG_QUANTILE;
    a.op = HGB_OP_COUNT;
    if (op == GROUP_AGG_QUANTILE || !spec.argument) {
      // QUANTILE is finished on the sort path; COUNT(*) reads the rows.
    } else if (op == VM_AGG_COUNT) {
      a.row_work = counted;
    } else if (op == VM_AGG_SUM_I) {
      a.row_work = true;
      a.op = SumFitsInt64(ArgumentRange(spec), rows) ? HGB_OP_SUM : HGB_OP_SUM_SPLIT;
      a.word = add_words(a.op == HGB_OP_SUM ? 1 : 2, HGB_MERGE_ADD);
    } else if (op == VM_AGG_MIN_I || op == VM_AGG_MAX_I || op == VM_AGG_MIN_R ||
               op == VM_AGG_MAX_R) {
      a.row_work = true;
      a.op = op == VM_AGG_MIN_I || op == VM_AGG_MIN_R ? HGB_OP_MIN : HGB_OP_MAX;
      a.real = IsReal(op);
      a.word = add_words(1, HGB_MERGE_MAX);
    } else if (op == VM_AGG_SUM_R) {
      a.row_work = true;
      a.op = HGB_OP_SUM_REAL;
      a.bins = 3;  // zeros still add three (zero) pieces at bin 0
      if (full_range) {
        a.base = kLowestBit;
        a.bins = static_cast<std::uint32_t>((kHighestBit - kLowestBit) / HGB_BIN_BITS + 3);
      } else if (const auto& window = windows[next_window++]) {
        a.base = (*window)[0];
        // Two more bins than the window needs: every value adds three
        // pieces, the top ones zero where the window ends.
        a.bins = static_cast<std::uint32_t>(((*window)[1] - (*window)[0]) / HGB_BIN_BITS + 3);
      }
      CLQ_CHECK(a.bins <= HGB_MAX_BINS, "group by: REAL SUM window past its bins");
      a.word = add_words(a.bins, HGB_MERGE_ADD);
      add_words(1, HGB_MERGE_OR);
    } else {
      throw InternalError("group by: unknown aggregate operation");
    }
    if (counted && a.row_work) a.count_word = add_words(1, HGB_MERGE_ADD);
    if (op == VM_AGG_COUNT && counted) a.word = a.count_word;
    layout.aggregates.push_back(a);
  }
  (void)plan;
  return layout;
}

GroupTable FoldGroups(QueryContext& context, const GroupByPlan& plan, const GroupTableSpec& spec,
                      const GroupStateLayout& layout, const std::vector<VectorView>& keys,
                      const std::vector<GroupAggregateSpec>& aggregates, RowCount rows) {
  Engine& engine = context.engine();
  const std::uint32_t mode = spec.mode;
  const std::uint64_t slots = spec.slots;
  const std::uint32_t words = layout.words;
  CLQ_CHECK(keys.size() <= HGB_MAX_KEYS, "group by: too many keys for a group table");
  CLQ_CHECK(slots > 0 && slots < HGB_GLOBAL_SLOT, "group by: table size out of range");
  CLQ_CHECK(!IsHashMode(mode) || std::has_single_bit(slots), "hash table not a power of two");
  if (!engine.info().int64_atomics)
    throw DeviceLimitError("GROUP BY needs 64-bit atomics (cl_khr_int64_base_atomics)");

  GroupTable table;
  table.slots = slots;
  table.words = words;
  table.state = engine.pool().Acquire(slots * words * 8, "group table");
  DeviceBuffer control =
      engine.pool().Acquire(HGB_CONTROL_WORDS * sizeof(cl_uint), "group control");
  engine.Fill(table.state.get(), 0, 0, slots * words * 8, "group table");
  engine.Fill(control.get(), 0, 0, HGB_CONTROL_WORDS * sizeof(cl_uint), "group control");

  // Descriptors: keys, the words' merge kinds, aggregates.
  std::vector<cl_long> key_desc(std::max<std::size_t>(keys.size(), 1) * HGB_KEY_LONGS, 0);
  for (std::size_t k = 0; k < keys.size(); ++k) {
    const VectorView& key = keys[k];
    CLQ_CHECK(key.size >= rows, "group key shorter than the rows to group");
    cl_long* d = &key_desc[k * HGB_KEY_LONGS];
    d[HGB_KEY_TYPE] = static_cast<cl_long>(key.type.type);
    d[HGB_KEY_WIDTH] = key.type.width;
    d[HGB_KEY_NULLS] = key.has_nulls() ? 1 : 0;
    if (mode == HGB_MODE_DIRECT || mode == HGB_MODE_PACKED) {
      CLQ_CHECK(plan.direct.size() == keys.size() && (plan.keys[k].nullable || !key.has_nulls()),
                "group by: keys differ from the plan's");
      d[HGB_KEY_LO] = plan.direct[k].lo;
      d[HGB_KEY_CARD] = static_cast<cl_long>(plan.direct[k].card);
      d[HGB_KEY_STRIDE] = static_cast<cl_long>(plan.direct[k].stride);
    }
  }
  DeviceBuffer key_buffer = engine.pool().Acquire(key_desc.size() * 8, "group descriptors");
  engine.Upload(key_buffer.get(), 0, key_desc.size() * 8, key_desc.data(), "group descriptors");
  std::vector<cl_uint> kinds(layout.kinds.begin(), layout.kinds.end());
  DeviceBuffer kind_buffer = engine.pool().Acquire(kinds.size() * 4, "group descriptors");
  engine.Upload(kind_buffer.get(), 0, kinds.size() * 4, kinds.data(), "group descriptors");

  const std::vector<std::vector<std::size_t>> passes = FoldPasses(layout);

  const WorkGroupTables wg = SizeWorkGroupTables(engine, plan, layout, mode, slots);
  table.work_group_tables = wg.slots != 0;
  const bool cpu = plan.cpu_paths;
  const std::uint64_t tile = engine.tuning().tile_size();
  std::uint64_t rows_per_group = 0;
  std::uint64_t groups = 0;
  if (cpu) {
    // Several work-groups per core balance the load; one per core when each
    // sets up, and the merge reads, a table larger than a core's cache.
    const std::uint64_t blocks = (rows + HGB_CPU_BLOCK - 1) / HGB_CPU_BLOCK;
    const std::uint64_t table_bytes = std::uint64_t{wg.slots} * wg.copies * words * 8;
    const std::uint64_t per_core = table_bytes > kCpuCacheBytes ? 1 : 4;
    const std::uint64_t parts =
        std::clamp<std::uint64_t>(per_core * std::max(1u, engine.info().compute_units), 1, blocks);
    rows_per_group = (blocks + parts - 1) / parts * HGB_CPU_BLOCK;
    groups = (rows + rows_per_group - 1) / rows_per_group;
  } else {
    const std::uint64_t tiles = engine.TilesFor(rows);
    // Work-group tables pay their set-up and flush once per work-group:
    // more tiles each, while the device still gets several groups per
    // compute unit.
    const std::uint64_t wanted = std::uint64_t{16} * std::max(1u, engine.info().compute_units);
    const std::uint64_t per_group =
        std::clamp<std::uint64_t>(tiles / wanted, 1, table.work_group_tables ? 64 : 16);
    rows_per_group = per_group * tile;
    groups = engine.GroupsFor(tiles, per_group);
  }
  // Work-group tables: local memory on GPUs, one table per work-group in
  // global memory on CPUs.
  const std::uint64_t entries = std::uint64_t{wg.slots} * wg.copies;
  DeviceBuffer private_tables;
  if (cpu)
    private_tables = engine.pool().Acquire(std::max<std::uint64_t>(entries * groups * words, 1) * 8,
                                           "group work-group tables");
  const bool merge_after = cpu && table.work_group_tables && !IsHashMode(mode);

  cl::Kernel& kernel = engine.kernel("hash_group_by_aggregate");
  for (std::size_t p = 0; p < passes.size(); ++p) {
    const std::vector<std::size_t>& pass = passes[p];
    DeviceBuffer agg_buffer = UploadAggregateDescriptors(engine, layout, aggregates, pass);

    const cl::Buffer& dummy = control.get();
    ArgBinder bind(kernel);
    bind(static_cast<cl_ulong>(rows))(static_cast<cl_ulong>(rows_per_group))(
        static_cast<cl_uint>(mode))(key_buffer.get())(static_cast<cl_uint>(keys.size()));
    for (std::size_t k = 0; k < HGB_MAX_KEYS; ++k) {
      const bool present = k < keys.size();
      bind(present ? keys[k].values : dummy)(present && keys[k].has_nulls() ? keys[k].nulls
                                                                            : dummy);
    }
    bind(spec.row_groups != nullptr ? spec.row_groups->ids.get()
                                    : dummy)(agg_buffer.get())(static_cast<cl_uint>(pass.size()));
    for (std::size_t i = 0; i < HGB_MAX_ARGS; ++i) {
      const VectorView* argument = i < pass.size() ? &*aggregates[pass[i]].argument : nullptr;
      bind(argument != nullptr ? argument->values : dummy)(
          argument != nullptr && argument->has_nulls() ? argument->nulls : dummy);
    }
    bind(static_cast<cl_uint>(words))(static_cast<cl_uint>(p == 0 ? 1 : 0))(table.state.get())(
        static_cast<cl_ulong>(slots))(static_cast<cl_uint>(slots - slots / 4));
    if (cpu) {
      bind(private_tables.get());
    } else {
      bind(cl::Local(std::max<std::uint64_t>(entries * words, 1) * 8));
    }
    bind(static_cast<cl_uint>(wg.slots))(static_cast<cl_uint>(wg.probes))(static_cast<cl_uint>(
        wg.copies))(control.get())(kind_buffer.get())(static_cast<cl_uint>(merge_after ? 0 : 1));
    engine.Launch(kernel, groups, "group by fold");
    if (merge_after) {
      cl::Kernel& merge = engine.kernel("group_by_merge");
      ArgBinder{merge}(private_tables.get())(static_cast<cl_uint>(groups * wg.copies))(
          static_cast<cl_ulong>(slots))(static_cast<cl_uint>(words))(kind_buffer.get())(
          table.state.get());
      engine.Launch(merge, engine.TilesFor(slots), "group by merge");
    }
  }
  std::array<cl_uint, HGB_CONTROL_WORDS> flags{};
  engine.Download(control.get(), 0, sizeof(flags), flags.data(), "group control");
  table.overflow = flags[0];
  table.groups_held = flags[1];
  table.rows_before_full = flags[2];
  return table;
}

FinishedGroups FinishGroups(QueryContext& context, const GroupTable& table,
                            const GroupStateLayout& layout,
                            const std::vector<GroupAggregateSpec>& aggregates) {
  Engine& engine = context.engine();
  const std::uint64_t slots = table.slots;
  // The occupied slots, compacted in slot order, then ordered by first position.
  DeviceBuffer offsets = engine.pool().Acquire(slots * 4, "group slots");
  DeviceBuffer total = engine.pool().Acquire(4, "group count");
  const auto words = static_cast<cl_uint>(table.words);
  cl::Kernel& occupied = engine.kernel("group_by_occupied");
  ArgBinder{occupied}(table.state.get())(static_cast<cl_ulong>(slots))(words)(offsets.get());
  engine.Launch(occupied, engine.TilesFor(slots), "group by compact");
  ExclusiveScan(engine, offsets.get(), slots, offsets.get(), &total.get(), "group by compact");
  cl_uint groups = 0;
  engine.Download(total.get(), 0, sizeof(groups), &groups, "group count");
  DeviceBuffer slot_of = engine.pool().Acquire(std::max<cl_uint>(groups, 1) * 4, "group slots");
  DeviceBuffer first_of = engine.pool().Acquire(std::max<cl_uint>(groups, 1) * 4, "group slots");
  cl::Kernel& compact = engine.kernel("group_by_compact");
  ArgBinder{compact}(table.state.get())(static_cast<cl_ulong>(slots))(words)(offsets.get())(
      slot_of.get())(first_of.get());
  engine.Launch(compact, engine.TilesFor(slots), "group by compact");
  bool in_order = false;
  const RowIds order = RadixSortPermutation(
      engine, {RadixKey{first_of.get(), cl::Buffer(), SORT_TYPE_UINT32, 4, false}}, groups,
      &in_order);

  FinishedGroups finished;
  GroupByResult& result = finished.result;
  result.groups = groups;
  if (in_order) {
    // Slot order is first-appearance order already (a direct table over
    // rows clustered by their keys).
    result.first_positions = RowIds{std::move(first_of), groups};
    finished.group_slots = RowIds{std::move(slot_of), groups};
  } else {
    result.first_positions = AllocateRowIds(engine, groups, "group first positions");
    finished.group_slots = AllocateRowIds(engine, groups, "group slots");
    if (groups > 0) {
      GatherBuffer(engine, first_of.get(), 4, 0, groups, order, result.first_positions.ids.get());
      GatherBuffer(engine, slot_of.get(), 4, 0, groups, order, finished.group_slots.ids.get());
    }
  }
  cl::Kernel& finish = engine.kernel("group_by_finish");
  for (std::size_t i = 0; i < aggregates.size(); ++i) {
    const GroupAggregateSpec& spec = aggregates[i];
    const GroupStateLayout::Aggregate& a = layout.aggregates[i];
    const bool real =
        IsReal(spec.operation) || (spec.operation == GROUP_AGG_QUANTILE && spec.argument &&
                                   spec.argument->type.type == DataType::kDouble);
    GroupAggregateOutput output;
    output.values = AllocateVector(engine, real ? ColumnType::Double() : ColumnType::Int64(),
                                   groups, "group aggregate values");
    output.counts = AllocateVector(engine, ColumnType::Int64(), groups, "group counts");
    if (spec.operation != GROUP_AGG_QUANTILE && groups > 0) {
      ArgBinder{finish}(finished.group_slots.ids.get())(static_cast<cl_ulong>(groups))(
          table.state.get())(static_cast<cl_uint>(layout.words))(static_cast<cl_uint>(a.op))(
          static_cast<cl_uint>(a.word))(static_cast<cl_uint>(a.count_word))(static_cast<cl_uint>(
          a.bins))(static_cast<cl_int>(a.base))(static_cast<cl_uint>(a.real ? 1 : 0))(
          output.values.values.get())(output.counts.values.get())(context.status());
      engine.Launch(finish, engine.TilesFor(groups), "group by finish");
    }
    result.aggregates.push_back(std::move(output));
  }
  return finished;
}

}  // namespace clq
