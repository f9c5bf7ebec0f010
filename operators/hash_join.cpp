#include "operators/hash_join.hpp"

#include <algorithm>
#include <cstdio>

#include "common/errors.hpp"
#include "operators/join_internal.hpp"
#include "operators/scan.hpp"

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

std::uint64_t SumOnDevice(Engine& engine, DeviceBuffer values, RowCount n) {
  cl::Kernel& merge = engine.kernel("hash_join_sum_merge");
  while (n > 1) {
    const std::uint64_t tiles = engine.TilesFor(n);
    DeviceBuffer sums = engine.pool().Acquire(tiles * sizeof(cl_ulong), "join count sums");
    merge.setArg(0, values.get());
    merge.setArg(1, static_cast<cl_ulong>(n));
    merge.setArg(2, sums.get());
    engine.Launch(merge, tiles, "join probe count");
    values = std::move(sums);
    n = tiles;
  }
  std::uint64_t total = 0;
  if (n == 1) engine.Download(values.get(), 0, sizeof(total), &total, "join output size");
  return total;
}

JoinResult AllocateJoinOutput(Engine& engine, std::uint64_t pairs) {
  if (pairs > kMaxTableRows) {
    throw DeviceLimitError("join output of " + std::to_string(pairs) +
                           " pairs exceeds the 4294967295 pairs a 32-bit row-id vector holds");
  }
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
                       const char* kernel, const char* stage,
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
  JoinResult result = AllocateJoinOutput(engine, pairs);
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

// Tries the direct table, then the cuckoo table, then the chained one; the
// first two need unique build keys, so duplicates found by either go
// straight to chained. Sets method, rebuilds and fallback_reason (why the
// method before the one used did not give the result).
JoinResult UniqueOrChainedJoin(Engine& engine, const VectorView& build, const VectorView& probe,
                               const JoinOptions& options, JoinStats& s) {
  std::string& reason = s.fallback_reason;
  std::optional<KeyRange> range;  // one reduction, only if a unique-key table needs it
  const auto key_range = [&]() -> const KeyRange& {
    if (!range) range = BuildKeyRange(engine, build);
    return *range;
  };
  std::optional<JoinResult> unique;
  bool duplicate_keys = false;
  if (!options.allow_direct) {
    reason = "direct table disabled";
  } else if (DirectTableFits(engine, key_range(), build.size, options, reason)) {
    unique = DirectJoin(engine, build, probe, key_range(), reason);
    duplicate_keys = !unique;  // a fitting direct table fails only on repeated keys
    if (unique) s.method = "direct";
  }
  if (!unique && !duplicate_keys) {
    if (!options.allow_cuckoo) {
      reason = "cuckoo disabled";
    } else if (!engine.info().int64_atomics) {
      reason = "device lacks 64-bit atomics";
    } else if (key_range().span > 0xFFFFFFFFull) {
      reason = "build keys span more than 2^32 values";
    } else {
      std::string cuckoo_reason;
      unique = CuckooJoin(engine, build, probe, key_range(), options, s.rebuilds, cuckoo_reason);
      if (unique) {
        s.method = "cuckoo";
      } else {
        reason = cuckoo_reason;
      }
    }
  }
  if (unique) return std::move(*unique);
  s.method = "chained";
  return ChainedJoin(engine, build, probe, options.ordered_matches);
}

}  // namespace

KernelSet HashJoinKernels(const Engine& engine, const JoinOptions&) {
  KernelSet kernels{"hash_join_key_range", "hash_join_direct_insert", "hash_join_direct_probe",
                    "scan_tiles", "hash_join_unique_write"};
  for (const char* name : {"hash_join_range_merge", "scan_add_offsets"})
    kernels.AddWhenNeeded(name);
  // The cuckoo table where the keys span too many values, the chained one
  // where they repeat.
  for (const char* name :
       {"hash_join_cuckoo_insert", "hash_join_cuckoo_check", "hash_join_cuckoo_probe",
        "hash_join_chain_count", "hash_join_chain_scatter", "hash_join_chain_sort",
        "hash_join_chain_sort_large", "hash_join_chain_probe_count", "hash_join_chain_probe_write",
        "hash_join_sum_merge"})
    kernels.AddWhenNeeded(name);
  (void)engine;
  return kernels;
}

std::string HashJoinMethods() {
  return "a direct table; a cuckoo table where build keys span too many values, a chained one "
         "where they repeat";
}

JoinResult HashJoin(QueryContext& context, const VectorView& build_keys,
                    const VectorView& probe_keys, JoinStats* stats) {
  return HashJoin(context, build_keys, probe_keys, JoinOptions{}, stats);
}

JoinResult HashJoin(QueryContext& context, const VectorView& build_keys,
                    const VectorView& probe_keys, const JoinOptions& options, JoinStats* stats) {
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
    result = AllocateJoinOutput(engine, 0);
  } else {
    result = UniqueOrChainedJoin(engine, build_keys, probe_keys, options, s);
  }
  s.output_rows = result.size;
  return result;
}

}  // namespace clq
