// Dense multimap join (kernels join_dense_* in kernels_cl/join_dense.cl): for
// build keys of a dense range, duplicates allowed, one bucket per key value
// (key - min), so no key is hashed or compared.
//   build: count per chunk and bucket (local memory; one chunk in global
//          memory past JOIN_DENSE_MAX_BUCKETS buckets) -> exclusive scan in
//          bucket-major order -> stable scatter of the row numbers;
//   probe: match counts per work-item (and 64-bit sums per tile, checked
//          before the 32-bit scan) -> scan -> write, each work-item copying
//          its rows' buckets in probe row order from its own offset (no
//          work-group scan, no barrier).
// A probe row's matches come out in build row order (the scatter is
// stable), so no bucket is sorted and the order of the contract holds.
#include <algorithm>
#include <sstream>

#include "kernels_cl/join_shared.h"
#include "operators/join_internal.hpp"
#include "operators/scan.hpp"

namespace clq::join_detail {
namespace {

// Build rows per chunk before another chunk (work-group) is worth its
// histogram; at most kMaxChunksPerUnit chunks per compute unit.
constexpr RowCount kRowsPerChunk = 65536;
constexpr std::uint64_t kMaxChunksPerUnit = 4;

}  // namespace

bool DenseTableFits(Engine& engine, const KeyRange& range, RowCount build_rows,
                    double slots_per_row, std::string& reason) {
  if (range.span < JOIN_DENSE_MAX_BUCKETS) return true;
  // Wider ranges as the direct table's: at most `slots_per_row` buckets per
  // build row, one 32-bit start each.
  const double buckets = static_cast<double>(range.span) + 1.0;
  if (buckets > slots_per_row * static_cast<double>(build_rows) ||
      (buckets + 1) * sizeof(cl_uint) > static_cast<double>(engine.pool().max_alloc_bytes())) {
    std::ostringstream text;
    text << "build keys span " << range.span << " + 1 values, more than " << JOIN_DENSE_MAX_BUCKETS
         << " and more than " << slots_per_row << " per build row";
    reason = text.str();
    return false;
  }
  return true;
}

JoinResult DenseJoin(Engine& engine, const VectorView& build, const VectorView& probe,
                     const KeyRange& range, std::uint64_t output_budget) {
  const std::uint64_t buckets = range.span + 1;
  const bool wide = buckets > JOIN_DENSE_MAX_BUCKETS;
  const std::uint64_t chunks =
      wide ? 1
           : std::clamp<std::uint64_t>(
                 (build.size + kRowsPerChunk - 1) / kRowsPerChunk, 1,
                 kMaxChunksPerUnit * std::max<std::uint64_t>(engine.info().compute_units, 1));
  const cl_ulong chunk = (build.size + chunks - 1) / chunks;
  const std::uint64_t entries = buckets * chunks + 1;
  DeviceBuffer starts = engine.pool().Acquire(entries * sizeof(cl_uint), "join dense starts");
  // Padding: the pair writer reads whole blocks of a bucket's rows.
  DeviceBuffer rows = engine.pool().Acquire((build.size + JOIN_DENSE_BLOCK - 1) * sizeof(cl_uint),
                                            "join dense rows");
  if (!wide) {
    // The last entry (after every bucket's counts) becomes the total.
    engine.Fill(starts.get(), 0, (entries - 1) * sizeof(cl_uint), sizeof(cl_uint), "join build");
    cl::Kernel& count = engine.kernel("join_dense_count");
    BindKeys(count, 0, build);
    count.setArg(5, static_cast<cl_long>(range.min));
    count.setArg(6, static_cast<cl_uint>(buckets));
    count.setArg(7, chunk);
    count.setArg(8, starts.get());
    engine.Launch(count, chunks, "join build count (dense)");
    ExclusiveScan(engine, starts.get(), entries, starts.get(), nullptr, "join build");
    cl::Kernel& scatter = engine.kernel("join_dense_scatter");
    BindKeys(scatter, 0, build);
    scatter.setArg(5, static_cast<cl_long>(range.min));
    scatter.setArg(6, static_cast<cl_uint>(buckets));
    scatter.setArg(7, chunk);
    scatter.setArg(8, starts.get());
    scatter.setArg(9, rows.get());
    engine.Launch(scatter, chunks, "join build scatter (dense)");
  } else {
    engine.Fill(starts.get(), 0, 0, entries * sizeof(cl_uint), "join build");
    cl::Kernel& count = engine.kernel("join_dense_count_wide");
    BindKeys(count, 0, build);
    count.setArg(5, static_cast<cl_long>(range.min));
    count.setArg(6, starts.get());
    engine.Launch(count, 1, "join build count (dense)");
    ExclusiveScan(engine, starts.get(), entries, starts.get(), nullptr, "join build");
    DeviceBuffer cursors = engine.pool().Acquire(buckets * sizeof(cl_uint), "join dense cursors");
    engine.Copy(starts.get(), 0, cursors.get(), 0, buckets * sizeof(cl_uint), "join build");
    cl::Kernel& scatter = engine.kernel("join_dense_scatter_wide");
    BindKeys(scatter, 0, build);
    scatter.setArg(5, static_cast<cl_long>(range.min));
    scatter.setArg(6, cursors.get());
    scatter.setArg(7, rows.get());
    engine.Launch(scatter, 1, "join build scatter (dense)");
  }

  const std::uint64_t tiles = engine.TilesFor(probe.size);
  const std::uint64_t items = tiles * engine.tuning().work_group_size;
  DeviceBuffer tile_sums = engine.pool().Acquire(tiles * sizeof(cl_ulong), "join count sums");
  DeviceBuffer item_counts = engine.pool().Acquire(items * sizeof(cl_uint), "join item counts");
  cl::Kernel& probe_count = engine.kernel("join_dense_probe_count");
  BindKeys(probe_count, 0, probe);
  probe_count.setArg(5, static_cast<cl_long>(range.min));
  probe_count.setArg(6, static_cast<cl_ulong>(range.span));
  probe_count.setArg(7, starts.get());
  probe_count.setArg(8, static_cast<cl_uint>(chunks));
  probe_count.setArg(9, tile_sums.get());
  probe_count.setArg(10, item_counts.get());
  engine.Launch(probe_count, tiles, "join probe count (dense)");
  // 64-bit total first: the 32-bit scan below must not wrap.
  const std::uint64_t pairs = SumOnDevice(engine, std::move(tile_sums), tiles, "join probe count");
  JoinResult result = AllocateJoinOutput(engine, pairs, output_budget);
  if (pairs == 0) return result;
  ExclusiveScan(engine, item_counts.get(), items, item_counts.get(), nullptr, "join probe scan");
  cl::Kernel& write = engine.kernel("join_dense_probe_write");
  BindKeys(write, 0, probe);
  write.setArg(5, static_cast<cl_long>(range.min));
  write.setArg(6, static_cast<cl_ulong>(range.span));
  write.setArg(7, starts.get());
  write.setArg(8, static_cast<cl_uint>(chunks));
  write.setArg(9, rows.get());
  write.setArg(10, item_counts.get());
  write.setArg(11, static_cast<cl_uint>(pairs));
  write.setArg(12, result.build_positions.ids.get());
  write.setArg(13, result.probe_positions.ids.get());
  engine.Launch(write, tiles, "join probe write");
  return result;
}

}  // namespace clq::join_detail
