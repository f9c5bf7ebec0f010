#include "operators/hash_join.hpp"

#include <algorithm>
#include <sstream>

#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "operators/join_internal.hpp"
#include "operators/scan.hpp"
#include "runtime/device_tuning.hpp"

namespace clq {
namespace join_detail {

// Row ids are 32-bit and the cuckoo word keeps the row in its low 31 bits
// (so that a word is never the all-ones empty marker).
constexpr RowCount kMaxJoinInputRows = 0x7FFFFFFFull;

void BindKeys(cl::Kernel& kernel, cl_uint first, const VectorView& keys) {
  kernel.setArg(first, keys.values);
  kernel.setArg(first + 1, static_cast<cl_uint>(keys.type.width == 8 ? 1 : 0));
  kernel.setArg(first + 2, keys.has_nulls() ? keys.nulls : keys.values);
  kernel.setArg(first + 3, static_cast<cl_uint>(keys.has_nulls() ? 1 : 0));
  kernel.setArg(first + 4, static_cast<cl_ulong>(keys.size));
}

std::uint64_t SumOnDevice(Engine& engine, DeviceBuffer values, RowCount n, std::string_view stage) {
  cl::Kernel& merge = engine.kernel("hash_join_sum_merge");
  while (n > 1) {
    const std::uint64_t tiles = engine.TilesFor(n);
    DeviceBuffer sums = engine.pool().Acquire(tiles * sizeof(cl_ulong), "join count sums");
    merge.setArg(0, values.get());
    merge.setArg(1, static_cast<cl_ulong>(n));
    merge.setArg(2, sums.get());
    engine.Launch(merge, tiles, stage);
    values = std::move(sums);
    n = tiles;
  }
  std::uint64_t total = 0;
  if (n == 1) engine.Download(values.get(), 0, sizeof(total), &total, stage);
  return total;
}

JoinResult AllocateJoinOutput(Engine& engine, std::uint64_t pairs, std::uint64_t output_budget) {
  if (pairs > kMaxTableRows) {
    throw DeviceLimitError("join output of " + std::to_string(pairs) +
                           " pairs exceeds the 4294967295 pairs a 32-bit row-id vector holds");
  }
  // Both sides' row ids of every matched pair.
  CheckHostMemory(output_budget, "the join's result (" + std::to_string(pairs) + " matched rows)",
                  2 * pairs * sizeof(cl_uint));
  const std::uint64_t bytes = pairs * sizeof(cl_uint);
  if (bytes > engine.pool().max_alloc_bytes()) {
    throw DeviceLimitError("join output of " + std::to_string(pairs) + " pairs needs " +
                           std::to_string(bytes) +
                           " bytes per row-id vector; the device allocates at most " +
                           std::to_string(engine.pool().max_alloc_bytes()));
  }
  JoinResult result;
  result.build_positions = AllocateRowIds(engine, pairs, "join build positions");
  result.probe_positions = AllocateRowIds(engine, pairs, "join probe positions");
  result.size = pairs;
  return result;
}

JoinResult ProbeUnique(Engine& engine, const VectorView& probe, const KeyRange& range,
                       const char* kernel, const char* stage, std::uint64_t output_budget,
                       const std::function<cl_uint(cl::Kernel&)>& bind_table) {
  const std::uint64_t tiles = engine.TilesFor(probe.size);
  DeviceBuffer matches = engine.pool().Acquire(probe.size * sizeof(cl_uint), "join probe matches");
  DeviceBuffer counts = engine.pool().Acquire(tiles * sizeof(cl_uint), "join probe tile counts");
  cl::Kernel& lookup = engine.kernel(kernel);
  BindKeys(lookup, 0, probe);
  lookup.setArg(5, static_cast<cl_long>(range.min));
  lookup.setArg(6, static_cast<cl_ulong>(range.span));
  const cl_uint next = bind_table(lookup);
  lookup.setArg(next, matches.get());
  lookup.setArg(next + 1, counts.get());
  engine.Launch(lookup, tiles, stage);

  DeviceBuffer total = engine.pool().Acquire(sizeof(cl_uint), "join output size");
  // At most one match per probe row: the sum fits 32 bits.
  // One count per tile: the write kernel orders a tile's pairs itself.
  ExclusiveScan(engine, counts.get(), tiles, counts.get(), &total.get(), "join probe scan");
  cl_uint pairs = 0;
  engine.Download(total.get(), 0, sizeof(pairs), &pairs, "join output size");
  JoinResult result = AllocateJoinOutput(engine, pairs, output_budget);
  if (pairs == 0) return result;
  cl::Kernel& write = engine.kernel("hash_join_unique_write");
  write.setArg(0, matches.get());
  write.setArg(1, static_cast<cl_ulong>(probe.size));
  write.setArg(2, counts.get());
  write.setArg(3, result.build_positions.ids.get());
  write.setArg(4, result.probe_positions.ids.get());
  write.setArg(5, pairs);
  engine.Launch(write, tiles, "join probe write");
  return result;
}

KeyRange BuildKeyRange(Engine& engine, const VectorView& build) {
  std::uint64_t tiles = engine.TilesFor(build.size);
  DeviceBuffer lo = engine.pool().Acquire(tiles * sizeof(cl_long), "join key minima");
  DeviceBuffer hi = engine.pool().Acquire(tiles * sizeof(cl_long), "join key maxima");
  cl::Kernel& range = engine.kernel("hash_join_key_range");
  BindKeys(range, 0, build);
  range.setArg(5, lo.get());
  range.setArg(6, hi.get());
  engine.Launch(range, tiles, "join key range");
  cl::Kernel& merge = engine.kernel("hash_join_range_merge");
  while (tiles > 1) {
    const std::uint64_t next = engine.TilesFor(tiles);
    DeviceBuffer next_lo = engine.pool().Acquire(next * sizeof(cl_long), "join key minima");
    DeviceBuffer next_hi = engine.pool().Acquire(next * sizeof(cl_long), "join key maxima");
    merge.setArg(0, lo.get());
    merge.setArg(1, hi.get());
    merge.setArg(2, static_cast<cl_ulong>(tiles));
    merge.setArg(3, next_lo.get());
    merge.setArg(4, next_hi.get());
    engine.Launch(merge, next, "join key range");
    lo = std::move(next_lo);
    hi = std::move(next_hi);
    tiles = next;
  }
  std::int64_t bounds[2] = {0, 0};
  engine.Download(lo.get(), 0, sizeof(std::int64_t), &bounds[0], "join key range");
  engine.Download(hi.get(), 0, sizeof(std::int64_t), &bounds[1], "join key range");
  KeyRange result;
  result.any = bounds[0] <= bounds[1];
  if (result.any) {
    result.min = bounds[0];
    result.span = static_cast<std::uint64_t>(bounds[1]) - static_cast<std::uint64_t>(bounds[0]);
  }
  return result;
}

}  // namespace join_detail

using namespace join_detail;

namespace {

constexpr double kJoinDirectSlotsPerRow = 16.0;  // JoinOptions::direct_slots_per_row says why

// Tries the plan's methods in order. The unique-key tables (direct, cuckoo)
// fail on repeated keys, after which the other unique-key table is not
// tried. Sets method, rebuilds and fallback_reason.
JoinResult RunMethods(Engine& engine, const JoinPlan& plan, const VectorView& build,
                      const VectorView& probe, std::uint64_t output_budget, JoinStats& s) {
  std::optional<KeyRange> range;  // one reduction, only if a table needs it
  const auto key_range = [&]() -> const KeyRange& {
    if (!range) range = BuildKeyRange(engine, build);
    return *range;
  };
  std::vector<std::string> reasons;
  bool duplicate_keys = false;
  for (const JoinMethod method : plan.methods) {
    std::string reason;
    std::optional<JoinResult> result;
    switch (method) {
      case JoinMethod::kDirect:
        if (duplicate_keys) continue;
        if (DirectTableFits(engine, key_range(), build.size, plan.options.direct_slots_per_row,
                            probe.size, plan.options.direct_slots_per_probe_row, plan.cpu_kernels,
                            reason)) {
          result = DirectJoin(engine, build, probe, key_range(), plan.cpu_kernels, output_budget,
                              reason);
          duplicate_keys = !result;  // a fitting direct table fails only on repeated keys
        }
        break;
      case JoinMethod::kRank:
        if (duplicate_keys) continue;
        if (RankTableFits(engine, key_range(), build.size, probe.size, reason)) {
          // Repeated keys take the dense multimap over their ranks.
          result = RankJoin(engine, build, probe, key_range(), plan.rank_repeats_densely,
                            output_budget, reason);
          duplicate_keys = !result;  // a fitting rank table fails only on repeated keys
        }
        break;
      case JoinMethod::kDense:
        if (DenseTableFits(engine, key_range(), build.size, plan.options.direct_slots_per_row,
                           reason))
          result = DenseJoin(engine, build, probe, key_range(), output_budget);
        break;
      case JoinMethod::kCuckoo:
        if (duplicate_keys) continue;
        if (!engine.info().int64_atomics) {
          reason = "device lacks 64-bit atomics";
        } else if (key_range().span > 0xFFFFFFFFull) {
          reason = "build keys span more than 2^32 values";
        } else {
          result = CuckooJoin(engine, build, probe, key_range(), plan.options, plan.cpu_kernels,
                              output_budget, s.rebuilds, reason);
          duplicate_keys = !result && reason == kDuplicateKeysReason;
        }
        break;
      case JoinMethod::kChained:
        result = ChainedJoin(engine, build, probe, plan.options.ordered_matches, output_budget);
        break;
    }
    if (result) {
      s.method = JoinMethodName(method);
      for (std::size_t r = 0; r < reasons.size(); ++r)
        s.fallback_reason += (r == 0 ? "" : "; ") + reasons[r];
      return std::move(*result);
    }
    reasons.push_back(std::string(JoinMethodName(method)) + ": " + reason);
  }
  throw InternalError("join plan without the chained table");
}

}  // namespace

const char* JoinMethodName(JoinMethod method) {
  switch (method) {
    case JoinMethod::kDirect:
      return "direct";
    case JoinMethod::kRank:
      return "rank";
    case JoinMethod::kDense:
      return "dense";
    case JoinMethod::kCuckoo:
      return "cuckoo";
    case JoinMethod::kChained:
      return "chained";
  }
  return "?";
}

namespace {

// The kernels one method launches.
std::vector<std::string> MethodKernels(JoinMethod method, bool cpu_kernels, bool ordered) {
  switch (method) {
    case JoinMethod::kDirect:
      if (cpu_kernels)
        return {"join_direct_store", "join_direct_bitmap", "join_direct_probe_count", "scan_tiles",
                "join_direct_probe_write"};
      return {"join_direct_insert", "join_direct_probe", "scan_tiles", "hash_join_unique_write"};
    case JoinMethod::kRank:
      return {"join_rank_mark",    "join_rank_popcount",      "scan_tiles",
              "join_rank_scatter", "join_direct_probe_count", "join_rank_probe_write"};
    case JoinMethod::kDense:
      // Narrow key ranges count in local memory, wide ones in global memory.
      return {"scan_tiles", "join_dense_probe_count", "join_dense_probe_write"};
    case JoinMethod::kCuckoo:
      if (cpu_kernels)
        return {"join_cuckoo_insert",         "join_cuckoo_check", "join_cuckoo_filter",
                "join_cuckoo_probe_filtered", "scan_tiles",        "hash_join_unique_write"};
      return {"join_cuckoo_insert", "join_cuckoo_check", "join_cuckoo_probe", "scan_tiles",
              "hash_join_unique_write"};
    case JoinMethod::kChained: {
      std::vector<std::string> kernels = {"hash_join_chain_count", "scan_tiles",
                                          "hash_join_chain_scatter"};
      if (ordered) kernels.emplace_back("hash_join_chain_sort");
      kernels.emplace_back("hash_join_chain_probe_count");
      kernels.emplace_back("hash_join_chain_probe_write");
      return kernels;
    }
  }
  return {};
}

}  // namespace

KernelSet JoinPlan::Kernels() const {
  KernelSet kernels;
  if (empty) return kernels;
  const bool keyed = std::any_of(methods.begin(), methods.end(),
                                 [](JoinMethod m) { return m != JoinMethod::kChained; });
  if (keyed) kernels.Add("hash_join_key_range");
  for (std::size_t m = 0; m < methods.size(); ++m)
    for (const std::string& name : MethodKernels(methods[m], cpu_kernels, options.ordered_matches))
      m == 0 ? kernels.Add(name) : kernels.AddWhenNeeded(name);
  // Steps that sizes or the data decide: reduction levels, wide dense
  // ranges, large chained buckets.
  for (const char* name : {"hash_join_range_merge", "scan_add_offsets", "hash_join_sum_merge"})
    kernels.AddWhenNeeded(name);
  const auto has = [&](JoinMethod m) {
    return std::find(methods.begin(), methods.end(), m) != methods.end();
  };
  // Repeated keys of a rank table join through the dense multimap.
  const bool ranks_densely = has(JoinMethod::kRank) && rank_repeats_densely;
  if (ranks_densely) {
    kernels.AddWhenNeeded("join_rank_map");
    for (const std::string& name : MethodKernels(JoinMethod::kDense, cpu_kernels, false))
      kernels.AddWhenNeeded(name);
  }
  if (has(JoinMethod::kDense) || ranks_densely)
    for (const char* name : {"join_dense_count", "join_dense_scatter", "join_dense_count_wide",
                             "join_dense_scatter_wide"})
      kernels.AddWhenNeeded(name);
  if (options.ordered_matches) kernels.AddWhenNeeded("hash_join_chain_sort_large");
  return kernels;
}

std::string JoinPlan::Describe() const {
  if (empty) return "empty (a side has no rows)";
  std::ostringstream text;
  for (std::size_t m = 0; m < methods.size(); ++m) {
    if (m > 0) text << " -> ";
    text << JoinMethodName(methods[m]);
    if (methods[m] == JoinMethod::kDirect) {
      text << " (" << (cpu_kernels ? "cpu" : "gpu") << " kernels, at most "
           << options.direct_slots_per_row << " slots per build row";
      if (options.direct_slots_per_probe_row > 0)
        text << " or " << options.direct_slots_per_probe_row << " per probe row";
      text << ")";
    }
    if (methods[m] == JoinMethod::kRank)
      text << " (at most " << kRankSlotsPerBuildRow << " slots per build row or "
           << kRankSlotsPerProbeRow << " per probe row"
           << (rank_repeats_densely ? "; repeated keys: dense over their ranks)" : ")");
    if (methods[m] == JoinMethod::kCuckoo && cpu_kernels) text << " (probe through a filter)";
    if (methods[m] == JoinMethod::kChained && !options.ordered_matches) text << " (unordered)";
  }
  return text.str();
}

JoinPlan PlanJoin(const DeviceInfo& device, const DeviceTuning& tuning, const JoinInputs& inputs,
                  const JoinOptions& options) {
  if (!inputs.build_type.is_integer() || !inputs.probe_type.is_integer()) {
    throw InvalidInputError("hash join keys must be INT32 or INT64, not " +
                            inputs.build_type.ToString() + " and " + inputs.probe_type.ToString());
  }
  JoinPlan plan;
  plan.options = options;
  plan.cpu_kernels = options.cpu_kernels.value_or(tuning.cpu_paths);
  plan.empty = inputs.build_rows == 0 || inputs.probe_rows == 0;
  if (plan.options.direct_slots_per_row <= 0) {
    plan.options.direct_slots_per_row = kJoinDirectSlotsPerRow;
  }
  if (plan.options.direct_slots_per_probe_row < 0)
    plan.options.direct_slots_per_probe_row = plan.cpu_kernels ? 1.0 : 0.0;
  if (!options.methods.empty()) {
    plan.methods = options.methods;
  } else if (plan.cpu_kernels) {
    // A CPU probes the dense multimap's buckets in cache, where the chained
    // table hashes and compares every key it meets; it tests a sparse range's
    // bitmap (the rank table) in order, where the cuckoo table hashes.
    plan.methods = {JoinMethod::kDirect, JoinMethod::kRank, JoinMethod::kDense,
                    JoinMethod::kCuckoo};
  } else {
    plan.methods = {JoinMethod::kDirect, JoinMethod::kCuckoo};
  }
  // Cuckoo needs 64-bit atomics; without them the plan leaves it out. The
  // dense multimap counts and scatters a range of keys in one work-item,
  // past the loops of a device that caps them.
  if (!device.int64_atomics) std::erase(plan.methods, JoinMethod::kCuckoo);
  if (device.loop_iteration_limit != 0) std::erase(plan.methods, JoinMethod::kDense);
  plan.rank_repeats_densely = device.loop_iteration_limit == 0;
  std::erase(plan.methods, JoinMethod::kChained);
  plan.methods.push_back(JoinMethod::kChained);
  return plan;
}

JoinResult ExecuteJoin(QueryContext& context, const JoinPlan& plan, const VectorView& build_keys,
                       const VectorView& probe_keys, JoinStats* stats) {
  Engine& engine = context.engine();
  if (!build_keys.type.is_integer() || !probe_keys.type.is_integer()) {
    throw InvalidInputError("hash join keys must be INT32 or INT64, not " +
                            build_keys.type.ToString() + " and " + probe_keys.type.ToString());
  }
  for (const VectorView* keys : {&build_keys, &probe_keys}) {
    if (keys->size > kMaxJoinInputRows) {
      throw DeviceLimitError("hash join input of " + std::to_string(keys->size) +
                             " rows exceeds the 2147483647 rows a join side may have");
    }
  }
  JoinStats local;
  JoinStats& s = stats != nullptr ? *stats : local;
  s = JoinStats{};
  s.build_rows = build_keys.size;
  s.probe_rows = probe_keys.size;

  JoinResult result;
  if (build_keys.size == 0 || probe_keys.size == 0) {
    s.method = "empty";
    result = AllocateJoinOutput(engine, 0, kUnlimitedHostMemory);
  } else {
    result = RunMethods(engine, plan, build_keys, probe_keys, context.DeviceBufferBudget(), s);
  }
  s.output_rows = result.size;
  return result;
}

JoinResult HashJoin(QueryContext& context, const VectorView& build_keys,
                    const VectorView& probe_keys, JoinStats* stats) {
  return HashJoin(context, build_keys, probe_keys, JoinOptions{}, stats);
}

JoinResult HashJoin(QueryContext& context, const VectorView& build_keys,
                    const VectorView& probe_keys, const JoinOptions& options, JoinStats* stats) {
  const JoinInputs inputs{build_keys.type, probe_keys.type, build_keys.size, probe_keys.size};
  return ExecuteJoin(context,
                     PlanJoin(context.engine().info(), context.engine().tuning(), inputs, options),
                     build_keys, probe_keys, stats);
}

}  // namespace clq
