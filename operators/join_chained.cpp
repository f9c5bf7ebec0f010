// Chained hash join, the always-correct path (kernels hash_join_chain_* in
// kernels_cl/hash_join.cl):
//   build: count keys per bucket -> exclusive scan -> scatter (key, row) into
//          the bucket's range -> sort each bucket by row (unless the caller
//          waives the order of one probe row's matches);
//   probe: count matches per probe row (and 64-bit tile sums) -> check the
//          total -> exclusive scan -> write pairs.
// 32-bit atomics only; duplicate keys and any 64-bit key range are fine.
#include <algorithm>
#include <bit>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "operators/join_internal.hpp"
#include "operators/scan.hpp"

namespace clq::join_detail {
namespace {

constexpr cl_ulong kBucketSeed = 0x9E3779B97F4A7C15ull;

// Loop iterations a bucket's rows may cost one work-item on devices that cap
// them (DeviceInfo::loop_iteration_limit): a work-item probes IPT rows'
// buckets, each a loop over the bucket, and sorts buckets of up to a tile,
// the larger ones with the work-group's loops over all their rows.
constexpr std::uint64_t kLimitedProbeIterations = 49152;

// Throws DeviceLimitError when such a device's table has a bucket larger
// than that allows (build keys repeated that often), rather than let its
// loops end early.
void CheckBucketsFitTheLoops(Engine& engine, const DeviceBuffer& offsets, std::uint64_t buckets) {
  if (engine.info().loop_iteration_limit == 0) return;
  const std::uint64_t limit = std::min<std::uint64_t>(
      engine.tuning().tile_size(), kLimitedProbeIterations / engine.tuning().items_per_thread);
  std::vector<cl_uint> host(buckets + 1);
  engine.Download(offsets.get(), 0, host.size() * sizeof(cl_uint), host.data(), "join build");
  std::uint64_t largest = 0;
  for (std::uint64_t b = 0; b < buckets; ++b)
    largest = std::max<std::uint64_t>(largest, host[b + 1] - host[b]);
  if (largest > limit)
    throw DeviceLimitError("hash join: a build key repeats up to " + std::to_string(largest) +
                           " times; " + engine.info().name + " caps a work-item's loops at " +
                           std::to_string(engine.info().loop_iteration_limit) +
                           " iterations, which allows at most " + std::to_string(limit) +
                           " rows of one bucket");
}

// The build side as a bucket-sorted table.
struct ChainedTable {
  DeviceBuffer offsets;  // buckets + 1 slot offsets
  DeviceBuffer keys;     // int64 key per slot
  DeviceBuffer rows;     // build row per slot
  std::uint64_t buckets = 0;
  cl_uint mask = 0;
};

ChainedTable BuildChained(Engine& engine, const VectorView& build, bool ordered_matches) {
  ChainedTable table;
  // One bucket per build row (rounded up to a power of two): short chains.
  table.buckets = std::bit_ceil(std::max<RowCount>(build.size, 1));
  table.mask = static_cast<cl_uint>(table.buckets - 1);
  const std::uint64_t tiles = engine.TilesFor(build.size);
  table.offsets =
      engine.pool().Acquire((table.buckets + 1) * sizeof(cl_uint), "join bucket offsets");
  engine.Fill(table.offsets.get(), 0, 0, (table.buckets + 1) * sizeof(cl_uint), "join build");
  cl::Kernel& count = engine.kernel("hash_join_chain_count");
  BindKeys(count, 0, build);
  count.setArg(5, kBucketSeed);
  count.setArg(6, table.mask);
  count.setArg(7, table.offsets.get());
  engine.Launch(count, tiles, "join build count");
  // Scanning buckets + 1 counts (the last is 0) leaves the total in the last.
  ExclusiveScan(engine, table.offsets.get(), table.buckets + 1, table.offsets.get(), nullptr,
                "join build");

  DeviceBuffer cursors =
      engine.pool().Acquire(table.buckets * sizeof(cl_uint), "join bucket cursors");
  engine.Fill(cursors.get(), 0, 0, table.buckets * sizeof(cl_uint), "join build");
  table.keys = engine.pool().Acquire(build.size * sizeof(cl_long), "join bucket keys");
  table.rows = engine.pool().Acquire(build.size * sizeof(cl_uint), "join bucket rows");
  cl::Kernel& scatter = engine.kernel("hash_join_chain_scatter");
  BindKeys(scatter, 0, build);
  scatter.setArg(5, kBucketSeed);
  scatter.setArg(6, table.mask);
  scatter.setArg(7, table.offsets.get());
  scatter.setArg(8, cursors.get());
  scatter.setArg(9, table.keys.get());
  scatter.setArg(10, table.rows.get());
  engine.Launch(scatter, tiles, "join build scatter");
  CheckBucketsFitTheLoops(engine, table.offsets, table.buckets);

  if (!ordered_matches) return table;
  // Buckets up to a tile: one work-item each; larger ones are listed and
  // sorted by a work-group each (enough groups for the most there can be).
  DeviceBuffer large = engine.pool().Acquire(
      (build.size / (engine.tuning().tile_size() + 1) + 1) * sizeof(cl_uint), "join large buckets");
  DeviceBuffer large_count = engine.pool().Acquire(sizeof(cl_uint), "join large buckets");
  engine.Fill(large_count.get(), 0, 0, sizeof(cl_uint), "join build sort");
  cl::Kernel& sort = engine.kernel("hash_join_chain_sort");
  sort.setArg(0, table.offsets.get());
  sort.setArg(1, static_cast<cl_ulong>(table.buckets));
  sort.setArg(2, table.keys.get());
  sort.setArg(3, table.rows.get());
  sort.setArg(4, large.get());
  sort.setArg(5, large_count.get());
  engine.Launch(sort, engine.TilesFor(table.buckets), "join build sort");
  if (build.size > engine.tuning().tile_size()) {
    DeviceBuffer temp = engine.pool().Acquire(build.size * sizeof(cl_uint), "join sort rows");
    cl::Kernel& sort_large = engine.kernel("hash_join_chain_sort_large");
    BindKeys(sort_large, 0, build);
    sort_large.setArg(5, table.offsets.get());
    sort_large.setArg(6, large.get());
    sort_large.setArg(7, large_count.get());
    sort_large.setArg(8, table.keys.get());
    sort_large.setArg(9, table.rows.get());
    sort_large.setArg(10, temp.get());
    const std::uint64_t groups =
        std::min<std::uint64_t>(build.size / (engine.tuning().tile_size() + 1) + 1, 1024);
    engine.Launch(sort_large, groups, "join build sort");
  }
  return table;
}

}  // namespace

JoinResult ChainedJoin(Engine& engine, const VectorView& build, const VectorView& probe,
                       bool ordered_matches, std::uint64_t output_budget) {
  ChainedTable table = BuildChained(engine, build, ordered_matches);
  const std::uint64_t tiles = engine.TilesFor(probe.size);
  DeviceBuffer offsets = engine.pool().Acquire(probe.size * sizeof(cl_uint), "join probe offsets");
  DeviceBuffer tile_sums = engine.pool().Acquire(tiles * sizeof(cl_ulong), "join count sums");
  cl::Kernel& count = engine.kernel("hash_join_chain_probe_count");
  BindKeys(count, 0, probe);
  count.setArg(5, kBucketSeed);
  count.setArg(6, table.mask);
  count.setArg(7, table.offsets.get());
  count.setArg(8, table.keys.get());
  count.setArg(9, offsets.get());
  count.setArg(10, tile_sums.get());
  engine.Launch(count, tiles, "join probe count");
  // 64-bit total first: the 32-bit scan below must not wrap.
  const std::uint64_t pairs = SumOnDevice(engine, std::move(tile_sums), tiles, "join probe count");
  JoinResult result = AllocateJoinOutput(engine, pairs, output_budget);
  if (pairs == 0) return result;
  ExclusiveScan(engine, offsets.get(), probe.size, offsets.get(), nullptr, "join probe scan");

  cl::Kernel& write = engine.kernel("hash_join_chain_probe_write");
  BindKeys(write, 0, probe);
  write.setArg(5, kBucketSeed);
  write.setArg(6, table.mask);
  write.setArg(7, table.offsets.get());
  write.setArg(8, table.keys.get());
  write.setArg(9, table.rows.get());
  write.setArg(10, offsets.get());
  write.setArg(11, result.build_positions.ids.get());
  write.setArg(12, result.probe_positions.ids.get());
  engine.Launch(write, tiles, "join probe write");
  return result;
}

}  // namespace clq::join_detail
