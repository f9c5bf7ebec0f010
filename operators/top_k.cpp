#include "operators/top_k.hpp"

#include <algorithm>
#include <utility>

#include "common/errors.hpp"
#include "kernels_cl/sort_shared.h"
#include "operators/gather.hpp"
#include "operators/scan.hpp"

namespace clq {
namespace {

// On CPUs top_k_groups runs for k up to max(kCpuMinGroupK, rows /
// kCpuRowsPerGroupK): by measurement its heaps on random input stay several
// times faster than the full sort there, with a margin for orders worse than
// random (up to log k per row).
constexpr RowCount kCpuMinGroupK = 4096;
constexpr RowCount kCpuRowsPerGroupK = 64;

// First-pass work-groups per compute unit at most. On CPUs one: each group
// pays about k ln(its rows / k) heap insertions on random input, so more
// groups cost more than they balance. GPUs need groups enough to keep every
// compute unit busy.
constexpr std::uint32_t kCpuGroupsPerComputeUnit = 1;
constexpr std::uint32_t kGpuGroupsPerComputeUnit = 4;

// A pass gives a group at least this many rows per k it keeps, so that each
// merge pass shrinks its input by this factor.
constexpr RowCount kRowsPerKept = 32;

// Devices that cap a work-item's loop iterations (DeviceInfo::
// loop_iteration_limit): a CPU heap's group takes at most this many rows and
// keeps at most this many, so that one work-item's loops (per block of
// TOP_K_BLOCK rows a few passes over it, then the heap's sifts) stay well
// inside the cap.
constexpr RowCount kLimitedGroupRows = 4096;
constexpr RowCount kLimitedGroupK = 256;

// Rows a GPU work-group tests between two reductions (TOP_K_CHUNK).
RowCount GpuChunk(const DeviceTuning& tuning) {
  const RowCount wg = tuning.work_group_size;
  if (tuning.tile_size() <= TOP_K_MAX_CHUNK) return tuning.tile_size();
  return wg < TOP_K_MAX_CHUNK ? TOP_K_MAX_CHUNK : wg;
}

// Bits of a key's full segment (a not-NULL bit and the value).
std::uint32_t SegmentBits(const TopKKey& key, bool* flag) {
  *flag = key.nullable && key.type.type != DataType::kDouble;
  const std::uint32_t value_bits = key.type.type == DataType::kChar    ? 8 * key.type.width
                                   : key.type.type == DataType::kInt32 ? 32
                                                                       : 64;
  return value_bits + (*flag ? 1 : 0);
}

// The descriptor word of a key's segment of `len` bits.
std::uint32_t KeyWord(const TopKKey& key, bool flag, std::uint32_t len) {
  return static_cast<std::uint32_t>(key.type.type) | (flag ? TOP_K_FLAG : 0u) |
         (key.descending ? TOP_K_DESC : 0u) | (len << TOP_K_LEN_SHIFT);
}

// One key of the image as the kernels take it.
struct ImageKey {
  cl::Buffer values;
  cl::Buffer nulls;  // `values` when there is no NULL map
  std::uint32_t word = 0;
  std::uint32_t width = 0;
};

ImageKey ToImageKey(const VectorView& view, std::uint32_t word) {
  if (view.has_nulls()) return {view.values, view.nulls, word | TOP_K_NULLS, view.type.width};
  return {view.values, view.values, word, view.type.width};
}

// The arguments top_k_groups and top_k_ties share: the image's keys (b's
// word 0 when absent).
void SetImageArgs(cl::Kernel& kernel, const ImageKey& a, const ImageKey& b) {
  kernel.setArg(0, a.values);
  kernel.setArg(1, a.nulls);
  kernel.setArg(2, static_cast<cl_uint>(a.word));
  kernel.setArg(3, static_cast<cl_uint>(a.width));
  const bool has_b = TOP_K_LEN(b.word) != 0;
  kernel.setArg(4, has_b ? b.values : a.values);
  kernel.setArg(5, has_b ? b.nulls : a.values);
  kernel.setArg(6, static_cast<cl_uint>(b.word));
  kernel.setArg(7, static_cast<cl_uint>(b.width));
}

// One pass of top_k_groups: output of `groups` groups of k sorted entries.
struct GroupsOutput {
  DeviceBuffer images;
  DeviceBuffer positions;
  DeviceBuffer floors;  // per group
  RowCount entries = 0;
  std::uint32_t groups = 0;
};

// Work-groups for a pass over n rows keeping k each.
std::uint32_t PassGroups(const TopKPlan& plan, RowCount n, RowCount k) {
  const RowCount per_group = std::max(plan.granule, kRowsPerKept * k);
  RowCount groups = std::clamp<RowCount>((n + per_group - 1) / per_group, 1, plan.max_groups);
  if (plan.max_group_rows != 0)
    groups = std::max(groups, (n + plan.max_group_rows - 1) / plan.max_group_rows);
  return static_cast<std::uint32_t>(groups);
}

GroupsOutput LaunchGroups(Engine& engine, const TopKPlan& plan, const ImageKey& a,
                          const ImageKey& b, const cl::Buffer* positions, RowCount n, RowCount k) {
  const std::uint32_t groups = PassGroups(plan, n, k);
  const bool exact = plan.strategy == TopKStrategy::kGroups;
  const RowCount per_group = (n + groups - 1) / groups;
  const RowCount rows_per_group = (per_group + plan.granule - 1) / plan.granule * plan.granule;
  GroupsOutput out;
  out.entries = groups * k;
  out.groups = groups;
  out.images = engine.pool().Acquire(out.entries * sizeof(cl_ulong), "top-k images");
  out.positions = engine.pool().Acquire(out.entries * sizeof(cl_uint), "top-k positions");
  out.floors = engine.pool().Acquire(groups * sizeof(cl_ulong), "top-k floors");
  cl::Kernel& kernel = engine.kernel("top_k_groups");
  SetImageArgs(kernel, a, b);
  kernel.setArg(8, positions != nullptr ? *positions : a.values);
  kernel.setArg(9, static_cast<cl_uint>(positions != nullptr ? 1 : 0));
  kernel.setArg(10, static_cast<cl_ulong>(n));
  kernel.setArg(11, static_cast<cl_ulong>(rows_per_group));
  kernel.setArg(12, static_cast<cl_uint>(k));
  kernel.setArg(13, static_cast<cl_uint>(exact ? 1 : 0));
  kernel.setArg(14, out.images.get());
  kernel.setArg(15, out.positions.get());
  kernel.setArg(16, out.floors.get());
  engine.Launch(kernel, groups, positions == nullptr ? "top-k groups" : "top-k merge");
  return out;
}

// The k smallest (image, position) of rows 0..rows-1, sorted: the groups'
// pass over the rows, then merge passes until one group is left. With
// `floor`, the smallest floor of every pass's groups (inexact images).
GroupsOutput SelectImages(Engine& engine, const TopKPlan& plan, const ImageKey& a,
                          const ImageKey& b, RowCount rows, RowCount k, std::uint64_t* floor) {
  const auto lower_floor = [&](const GroupsOutput& pass) {
    if (floor == nullptr) return;
    std::vector<cl_ulong> floors(pass.groups);
    engine.Download(pass.floors.get(), 0, floors.size() * sizeof(cl_ulong), floors.data(),
                    "top-k floors");
    for (cl_ulong f : floors)
      *floor = std::min<std::uint64_t>(*floor, f);
  };
  GroupsOutput out = LaunchGroups(engine, plan, a, b, nullptr, rows, k);
  lower_floor(out);
  while (out.entries > k) {
    const ImageKey merged{out.images.get(), out.images.get(),
                          SORT_TYPE_IMAGE | (64u << TOP_K_LEN_SHIFT), 8};
    out = LaunchGroups(engine, plan, merged, ImageKey{}, &out.positions.get(), out.entries, k);
    lower_floor(out);
  }
  return out;
}

// Work-groups of selection_scatter take this many tiles each.
constexpr cl_uint kTieScatterTilesPerGroup = 8;

// The positions of the rows whose image is at most `limit`, ascending:
// top_k_ties' bitmap and tile counts, their scan, selection_scatter.
RowIds RowsUpTo(Engine& engine, const ImageKey& a, const ImageKey& b, RowCount rows,
                std::uint64_t limit) {
  const std::uint64_t tiles = engine.TilesFor(rows);
  DeviceBuffer bits = engine.pool().Acquire((rows + 31) / 32 * sizeof(cl_uint), "top-k bitmap");
  DeviceBuffer offsets = engine.pool().Acquire(tiles * sizeof(cl_uint), "top-k tile counts");
  DeviceBuffer total = engine.pool().Acquire(sizeof(cl_uint), "top-k count");
  cl::Kernel& mark = engine.kernel("top_k_ties");
  SetImageArgs(mark, a, b);
  mark.setArg(8, static_cast<cl_ulong>(rows));
  mark.setArg(9, static_cast<cl_ulong>(limit));
  mark.setArg(10, bits.get());
  mark.setArg(11, offsets.get());
  engine.Launch(mark, tiles, "top-k ties");
  ExclusiveScan(engine, offsets.get(), tiles, offsets.get(), &total.get(), "top-k ties");
  cl_uint count = 0;
  engine.Download(total.get(), 0, sizeof(count), &count, "top-k count");
  RowIds candidates = AllocateRowIds(engine, count, "top-k candidates");
  if (count == 0) return candidates;
  cl::Kernel& scatter = engine.kernel("selection_scatter");
  scatter.setArg(0, bits.get());
  scatter.setArg(1, static_cast<cl_ulong>(rows));
  scatter.setArg(2, offsets.get());
  scatter.setArg(3, static_cast<cl_uint>(0));
  scatter.setArg(4, candidates.ids.get());
  scatter.setArg(5, static_cast<cl_ulong>(0));
  scatter.setArg(6, count);
  scatter.setArg(7, static_cast<cl_uint>(tiles));
  scatter.setArg(8, kTieScatterTilesPerGroup);
  engine.Launch(scatter, engine.GroupsFor(tiles, kTieScatterTilesPerGroup), "top-k ties");
  return candidates;
}

// The first `take` of `sorted` as new row ids.
RowIds Slice(Engine& engine, const RowIds& sorted, RowCount take) {
  RowIds result = AllocateRowIds(engine, take, "top-k positions");
  if (take != 0)
    engine.Copy(sorted.ids.get(), 0, result.ids.get(), 0, take * sizeof(cl_uint), "top-k slice");
  return result;
}

// The first `take` positions of the stable sort of `candidates` by every
// key; candidates of equal keys must come in position order.
RowIds SortCandidates(QueryContext& context, const std::vector<SortKey>& keys, RowCount rows,
                      const RowIds& candidates, RowCount take) {
  Engine& engine = context.engine();
  const RowCount m = candidates.size;
  std::vector<DeviceVector> gathered;
  std::vector<SortKey> candidate_keys;
  for (const SortKey& key : keys) {
    DeviceVector v = AllocateVector(engine, key.values.type, m, "top-k keys");
    GatherBuffer(engine, key.values.values, key.values.type.width, 0, rows, candidates,
                 v.values.get());
    if (key.values.has_nulls()) {
      v.nulls = engine.pool().Acquire(m, "top-k NULL map");
      GatherBuffer(engine, key.values.nulls, 1, 0, rows, candidates, v.nulls.get());
    }
    gathered.push_back(std::move(v));
  }
  for (std::size_t i = 0; i < keys.size(); ++i)
    candidate_keys.push_back({View(gathered[i]), keys[i].descending});
  const RowIds order = SortPermutation(context, candidate_keys, m);
  RowIds first = Slice(engine, order, take);
  RowIds result = AllocateRowIds(engine, take, "top-k positions");
  GatherBuffer(engine, candidates.ids.get(), 4, 0, m, first, result.ids.get());
  return result;
}

const char* StrategyName(TopKStrategy strategy) {
  switch (strategy) {
    case TopKStrategy::kSort:
      return "full sort";
    case TopKStrategy::kGroups:
      return "per-group top-k";
    case TopKStrategy::kGroupsThenTies:
      return "per-group top-k of a prefix image, then a sort of the rows up to its limit";
  }
  return "?";
}

}  // namespace

std::vector<TopKKey> TopKKeysOf(const std::vector<SortKey>& keys) {
  std::vector<TopKKey> result;
  for (const SortKey& key : keys)
    result.push_back({key.values.type, key.values.has_nulls(), key.descending});
  return result;
}

TopKPlan PlanTopK(const DeviceInfo& info, const DeviceTuning& tuning,
                  const std::vector<TopKKey>& keys, RowCount max_rows, RowCount k,
                  const TopKOptions& options) {
  TopKPlan plan;
  plan.k = k;
  plan.max_rows = max_rows;
  plan.cpu_kernels = tuning.cpu_paths;
  for (const TopKKey& key : keys)
    plan.nullable |= key.nullable;
  // The image: the first key's segment, then the second's while bits remain.
  bool exact = !keys.empty();
  for (std::size_t i = 0; i < keys.size(); ++i) {
    if (plan.image_bits >= 64 || i >= 2) {
      exact = false;
      break;
    }
    bool flag = false;
    const std::uint32_t bits = SegmentBits(keys[i], &flag);
    const std::uint32_t len = std::min<std::uint32_t>(bits, 64 - plan.image_bits);
    exact &= len == bits;
    plan.key_words[i] = KeyWord(keys[i], flag, len);
    plan.image_keys = i + 1;
    plan.image_bits += len;
  }
  const std::uint32_t units = std::max<std::uint32_t>(info.compute_units, 1);
  plan.max_groups = options.max_groups != 0 ? options.max_groups
                    : plan.cpu_kernels      ? units * kCpuGroupsPerComputeUnit
                                            : units * kGpuGroupsPerComputeUnit;
  if (plan.cpu_kernels) {
    plan.granule = TOP_K_BLOCK;
    plan.max_group_k = options.max_group_k != 0
                           ? options.max_group_k
                           : std::max(kCpuMinGroupK, max_rows / kCpuRowsPerGroupK);
    if (info.loop_iteration_limit != 0) {
      plan.max_group_rows = kLimitedGroupRows;
      plan.max_group_k = std::min(plan.max_group_k, kLimitedGroupK);
    }
  } else {
    // A group's buffer holds k entries and a chunk of rows.
    plan.granule = GpuChunk(tuning);
    plan.max_group_k = TOP_K_CAPACITY - plan.granule;
    if (options.max_group_k != 0)
      plan.max_group_k = std::min(plan.max_group_k, options.max_group_k);
  }
  if (keys.empty() || k == 0 || k >= max_rows || k > plan.max_group_k) {
    plan.strategy = TopKStrategy::kSort;
  } else {
    plan.strategy = exact ? TopKStrategy::kGroups : TopKStrategy::kGroupsThenTies;
  }
  return plan;
}

KernelSet TopKPlan::Kernels(const Engine& engine, bool exact) const {
  const std::vector<bool> nullable_keys(1, nullable);
  if (strategy == TopKStrategy::kSort)
    return SortPermutationKernels(engine, nullable_keys, max_rows, exact);
  KernelSet kernels{"top_k_groups"};
  if (strategy == TopKStrategy::kGroups) return kernels;
  // The k rows up to the limit, their keys gathered and sorted by every key;
  // the rows at the limit found first by a pass of their own when a group
  // dropped one.
  kernels.Add(SortPermutationKernels(engine, nullable_keys, k, false));
  for (const char* name :
       {"gather_u32", "gather_u64", "gather_bytes", "top_k_ties", "selection_scatter"})
    kernels.AddWhenNeeded(name);
  kernels.Add(ExclusiveScanKernels(engine, engine.TilesFor(max_rows), false), true);
  return kernels;
}

std::string TopKPlan::Describe() const {
  std::string text = "top-" + std::to_string(k) + " of at most " + std::to_string(max_rows) +
                     " rows: " + StrategyName(strategy);
  if (strategy == TopKStrategy::kSort) return text;
  text += std::string(cpu_kernels ? " (CPU heaps" : " (GPU local-memory selection") + ", " +
          (max_group_rows != 0 ? "groups of at most " + std::to_string(max_group_rows) + " rows"
                               : "up to " + std::to_string(max_groups) + " groups") +
          " of " + std::to_string(granule) + "-row multiples), " + std::to_string(image_bits) +
          "-bit image of " + std::to_string(image_keys) + (image_keys == 1 ? " key" : " keys");
  return text;
}

TopKResult TopK(QueryContext& context, const TopKPlan& plan, const std::vector<SortKey>& keys,
                RowCount rows) {
  Engine& engine = context.engine();
  const RowCount take = std::min(plan.k, rows);
  TopKResult result;
  if (take == 0) {
    result.positions = AllocateRowIds(engine, 0, "top-k positions");
    return result;
  }
  if (plan.strategy == TopKStrategy::kSort) {
    RowIds sorted = SortPermutation(context, keys, rows);
    result.positions = take == rows ? std::move(sorted) : Slice(engine, sorted, take);
    return result;
  }
  if (rows > kMaxTableRows) throw DeviceLimitError("top-k: too many rows");
  CLQ_CHECK(keys.size() >= plan.image_keys, "top-k keys do not match the plan");
  ImageKey image_keys[2];
  for (std::size_t i = 0; i < plan.image_keys; ++i) {
    const VectorView& view = keys[i].values;
    CLQ_CHECK(view.size >= rows, "top-k key shorter than the rows");
    CLQ_CHECK(static_cast<std::uint32_t>(view.type.type) == TOP_K_TYPE(plan.key_words[i]) &&
                  keys[i].descending == ((plan.key_words[i] & TOP_K_DESC) != 0),
              "top-k key does not match the plan");
    CLQ_CHECK(!view.has_nulls() || (plan.key_words[i] & TOP_K_FLAG) != 0 ||
                  view.type.type == DataType::kDouble,
              "top-k key has NULLs its plan has no room for");
    image_keys[i] = ToImageKey(view, plan.key_words[i]);
  }
  const bool exact = plan.strategy == TopKStrategy::kGroups;
  std::uint64_t floor = ~std::uint64_t{0};
  GroupsOutput selected = SelectImages(engine, plan, image_keys[0], image_keys[1], rows, take,
                                       exact ? nullptr : &floor);
  if (exact) {
    result.positions.ids = std::move(selected.positions);
    result.positions.size = take;
    return result;
  }
  // The image is a prefix of the order: the answer lies among the rows whose
  // image is at most the k-th smallest, the limit. Unless a pass dropped a
  // row at or below it, they are all in the selection (which lists rows of
  // equal images by position, so the stable sort keeps ties in position
  // order); otherwise one more pass finds them.
  cl_ulong limit = 0;
  engine.Download(selected.images.get(), (take - 1) * sizeof(cl_ulong), sizeof(limit), &limit,
                  "top-k limit");
  RowIds candidates;
  if (limit < floor) {
    candidates.ids = std::move(selected.positions);
    candidates.size = take;
  } else {
    candidates = RowsUpTo(engine, image_keys[0], image_keys[1], rows, limit);
    result.tie_rows = candidates.size;
  }
  result.positions = SortCandidates(context, keys, rows, candidates, take);
  return result;
}

}  // namespace clq
