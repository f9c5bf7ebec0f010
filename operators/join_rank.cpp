// Rank join for unique build keys too sparse for the direct table (kernels
// join_rank_* in kernels_cl/join_direct.cl): the direct table's bitmap of
// filled slots, a rank per 32-bit word of it (the bits set before the
// word) and the build rows in key order. The build row of a key is found
// by one bit test and, for a hit, one rank, one popcount and one row: no
// hash, no second slot. It keeps 2 bits per value of the key range where
// the direct table keeps 32, so it serves ranges 16 times as wide for the
// same memory: a subquery's few keys joined to a clustered fact table's
// (TPC-H's order keys), where the cuckoo table hashes every probe row and
// its filter loads three scattered bytes.
//
// Build: mark the keys' bits (32-bit atomic OR; rows of one key set one
// bit, so fewer bits than rows means a key repeats), count each word's
// bits and scan them into the ranks, then scatter each build row to its
// rank. Probe: the direct table's CPU probe (count the set bits per
// work-item, scan, write), the write looking the row up through the ranks.
// Repeated build keys: both sides' keys become the ranks of their slots,
// which the dense multimap joins (one bucket per distinct key, in cache),
// where a hashed table would hash every probe row.
#include <algorithm>
#include <cmath>
#include <sstream>
#include <string>

#include "operators/join_internal.hpp"
#include "operators/scan.hpp"

namespace clq::join_detail {

bool RankTableFits(Engine& engine, const KeyRange& range, RowCount build_rows, RowCount probe_rows,
                   std::string& reason) {
  // Slot numbers and ranks are 32-bit.
  if (range.span > 0xFFFFFFFFull) {
    reason = "build keys span more than 2^32 values";
    return false;
  }
  const double slots = static_cast<double>(range.span) + 1.0;
  const double words = std::ceil(slots / 32);
  // The bitmap and the ranks, at most 1/16 of the device's memory.
  const double table_bytes = 2 * words * sizeof(cl_uint);
  const double allowed = std::max(kRankSlotsPerBuildRow * static_cast<double>(build_rows),
                                  kRankSlotsPerProbeRow * static_cast<double>(probe_rows));
  if (slots > allowed || table_bytes > static_cast<double>(engine.info().global_mem_bytes) / 16) {
    std::ostringstream text;
    text << "build keys span " << range.span << " + 1 values, more than " << kRankSlotsPerBuildRow
         << " per build row and " << kRankSlotsPerProbeRow
         << " per probe row, or a table past 1/16 of the device's memory";
    reason = text.str();
    return false;
  }
  if (table_bytes / 2 > static_cast<double>(engine.pool().max_alloc_bytes())) {
    reason = "a rank table of " + std::to_string(range.span) +
             " + 1 slots exceeds the device's allocation limit";
    return false;
  }
  return true;
}

namespace {

// Both sides' keys as the ranks of their slots (-1 for a key no build row
// has), joined by the dense multimap over [0, distinct - 1]: repeated build
// keys, one bucket per distinct key, the pairs in the documented order.
JoinResult JoinRanksDensely(Engine& engine, const VectorView& build, const VectorView& probe,
                            const KeyRange& range, const DeviceBuffer& bits,
                            const DeviceBuffer& ranks, std::uint64_t distinct,
                            std::uint64_t output_budget) {
  cl::Kernel& map = engine.kernel("join_rank_map");
  const auto ranked = [&](const VectorView& keys, DeviceVector& out) {
    out = AllocateVector(engine, ColumnType::Int32(), keys.size, "join ranked keys");
    BindKeys(map, 0, keys);
    map.setArg(5, static_cast<cl_long>(range.min));
    map.setArg(6, static_cast<cl_ulong>(range.span));
    map.setArg(7, bits.get());
    map.setArg(8, ranks.get());
    map.setArg(9, out.values.get());
    engine.Launch(map, engine.TilesFor(keys.size), "join ranked keys (rank)");
    // NULL keys map to -1, outside every bucket: the NULL map may stay.
    return VectorView{out.values.get(), keys.nulls, ColumnType::Int32(), keys.size};
  };
  DeviceVector build_ranks, probe_ranks;
  const VectorView build_view = ranked(build, build_ranks);
  const VectorView probe_view = ranked(probe, probe_ranks);
  KeyRange dense;
  dense.min = 0;
  dense.span = distinct - 1;
  dense.any = true;
  return DenseJoin(engine, build_view, probe_view, dense, output_budget);
}

}  // namespace

std::optional<JoinResult> RankJoin(Engine& engine, const VectorView& build, const VectorView& probe,
                                   const KeyRange& range, bool repeated_keys_allowed,
                                   std::uint64_t output_budget, std::string& reason) {
  const std::uint64_t words = (range.span + 1 + 31) / 32;
  const std::uint64_t word_bytes = words * sizeof(cl_uint);
  const std::uint64_t build_tiles = engine.TilesFor(build.size);
  DeviceBuffer bits = engine.pool().Acquire(word_bytes, "join rank bitmap");
  engine.Fill(bits.get(), 0u, 0, word_bytes, "join build");
  DeviceBuffer stored = engine.pool().Acquire(build_tiles * sizeof(cl_ulong), "join build counts");
  cl::Kernel& mark = engine.kernel("join_rank_mark");
  BindKeys(mark, 0, build);
  mark.setArg(5, static_cast<cl_long>(range.min));
  mark.setArg(6, bits.get());
  mark.setArg(7, stored.get());
  engine.Launch(mark, build_tiles, "join build mark (rank)");

  DeviceBuffer ranks = engine.pool().Acquire(word_bytes, "join rank ranks");
  cl::Kernel& popcount = engine.kernel("join_rank_popcount");
  popcount.setArg(0, bits.get());
  popcount.setArg(1, static_cast<cl_ulong>(words));
  popcount.setArg(2, ranks.get());
  engine.Launch(popcount, engine.TilesFor(words), "join build ranks (rank)");
  // At most one bit per build row: the sum fits 32 bits.
  DeviceBuffer total = engine.pool().Acquire(sizeof(cl_uint), "join rank total");
  ExclusiveScan(engine, ranks.get(), words, ranks.get(), &total.get(), "join build ranks (rank)");
  cl_uint filled = 0;
  engine.Download(total.get(), 0, sizeof(filled), &filled, "join build count");
  const std::uint64_t keys =
      SumOnDevice(engine, std::move(stored), build_tiles, "join build count");
  if (filled != keys) {
    if (!repeated_keys_allowed) {
      reason = kDuplicateKeysReason;
      return std::nullopt;
    }
    return JoinRanksDensely(engine, build, probe, range, bits, ranks, filled, output_budget);
  }

  DeviceBuffer rows =
      engine.pool().Acquire(std::max<std::uint64_t>(keys, 1) * sizeof(cl_uint), "join rank rows");
  cl::Kernel& scatter = engine.kernel("join_rank_scatter");
  BindKeys(scatter, 0, build);
  scatter.setArg(5, static_cast<cl_long>(range.min));
  scatter.setArg(6, bits.get());
  scatter.setArg(7, ranks.get());
  scatter.setArg(8, rows.get());
  engine.Launch(scatter, build_tiles, "join build scatter (rank)");
  return ProbeBitmapOnCpu(engine, probe, range, bits, "join_rank_probe_write", output_budget,
                          [&](cl::Kernel& write) {
                            write.setArg(8, ranks.get());
                            write.setArg(9, rows.get());
                            return cl_uint{10};
                          });
}

}  // namespace clq::join_detail
