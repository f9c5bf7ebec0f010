// Direct (perfect-hash) join for unique build keys of a dense range, as
// DuckDB's perfect hash join (kernels join_direct_* in
// kernels_cl/join_direct.cl): one 32-bit slot per value of [min, max],
// filled with HASH_JOIN_NO_ROW, each build row in its key's slot. Probe: one
// load per probe row, no hash, no second slot. Against the cuckoo table it
// saves the hashing, up to four probes per key, the eviction chains and the
// check pass, and needs 32-bit atomics only.
//
// GPU kernels: each build row claims its slot by compare-and-swap (a lost
// swap is a duplicate key; the caller then falls back), the probe loads the
// slot of every probe row. CPU kernels: plain stores, then a pass over the
// table that counts the filled slots (by pigeonhole, fewer filled slots than
// stored rows means a key repeats) and writes a bitmap of them; the probe
// counts per tile the probe keys whose bit is set, and after a scan of the
// counts writes the pairs, loading only the slots of those keys.
#include <algorithm>
#include <sstream>
#include <string>

#include "operators/join_internal.hpp"
#include "operators/scan.hpp"

namespace clq::join_detail {
namespace {

// Whether some build key repeats, from the CPU build's two counts.
bool StoredKeysRepeat(Engine& engine, DeviceBuffer stored, std::uint64_t stored_tiles,
                      DeviceBuffer filled, std::uint64_t filled_tiles) {
  const std::uint64_t keys =
      SumOnDevice(engine, std::move(stored), stored_tiles, "join build count");
  const std::uint64_t slots =
      SumOnDevice(engine, std::move(filled), filled_tiles, "join build count");
  return slots != keys;
}

}  // namespace

JoinResult ProbeBitmapOnCpu(Engine& engine, const VectorView& probe, const KeyRange& range,
                            const DeviceBuffer& bits, const char* write_kernel,
                            std::uint64_t output_budget,
                            const std::function<cl_uint(cl::Kernel&)>& bind_table) {
  const std::uint64_t tiles = engine.TilesFor(probe.size);
  const std::uint64_t items = tiles * engine.tuning().work_group_size;
  DeviceBuffer counts = engine.pool().Acquire(items * sizeof(cl_uint), "join item counts");
  cl::Kernel& count = engine.kernel("join_direct_probe_count");
  BindKeys(count, 0, probe);
  count.setArg(5, static_cast<cl_long>(range.min));
  count.setArg(6, static_cast<cl_ulong>(range.span));
  count.setArg(7, bits.get());
  count.setArg(8, counts.get());
  engine.Launch(count, tiles, "join probe count (direct)");
  // At most one match per probe row: the sum fits 32 bits.
  DeviceBuffer total = engine.pool().Acquire(sizeof(cl_uint), "join output size");
  ExclusiveScan(engine, counts.get(), items, counts.get(), &total.get(), "join probe scan");
  cl_uint pairs = 0;
  engine.Download(total.get(), 0, sizeof(pairs), &pairs, "join output size");
  JoinResult result = AllocateJoinOutput(engine, pairs, output_budget);
  if (pairs == 0) return result;
  cl::Kernel& write = engine.kernel(write_kernel);
  BindKeys(write, 0, probe);
  write.setArg(5, static_cast<cl_long>(range.min));
  write.setArg(6, static_cast<cl_ulong>(range.span));
  write.setArg(7, bits.get());
  const cl_uint next = bind_table(write);
  write.setArg(next, counts.get());
  write.setArg(next + 1, pairs);
  write.setArg(next + 2, result.build_positions.ids.get());
  write.setArg(next + 3, result.probe_positions.ids.get());
  engine.Launch(write, tiles, "join probe write");
  return result;
}

bool DirectTableFits(Engine& engine, const KeyRange& range, RowCount build_rows,
                     double slots_per_row, RowCount probe_rows, double slots_per_probe_row,
                     bool cpu_kernels, std::string& reason) {
  // The CPU kernels keep slot numbers (and bitmap positions) in 32 bits.
  if (cpu_kernels && range.span > 0xFFFFFFFFull) {
    reason = "build keys span more than 2^32 values";
    return false;
  }
  // span + 1 slots; a span of 2^64 - 1 would wrap, so test the span itself.
  const double slots = static_cast<double>(range.span) + 1.0;
  // By the probe side, a table of at most 1/16 of the device's memory.
  const double by_probe =
      std::min(slots_per_probe_row * static_cast<double>(probe_rows),
               static_cast<double>(engine.info().global_mem_bytes) / 16 / sizeof(cl_uint));
  const double allowed = std::max(slots_per_row * static_cast<double>(build_rows), by_probe);
  if (slots > allowed) {
    std::ostringstream text;
    text << "build keys span " << range.span << " + 1 values, more than " << slots_per_row
         << " per build row";
    if (slots_per_probe_row > 0) text << " and " << slots_per_probe_row << " per probe row";
    reason = text.str();
    return false;
  }
  if (slots * sizeof(cl_uint) > static_cast<double>(engine.pool().max_alloc_bytes())) {
    reason = "a direct table of " + std::to_string(range.span) +
             " + 1 slots exceeds the device's allocation limit";
    return false;
  }
  return true;
}

std::optional<JoinResult> DirectJoin(Engine& engine, const VectorView& build,
                                     const VectorView& probe, const KeyRange& range,
                                     bool cpu_kernels, std::uint64_t output_budget,
                                     std::string& reason) {
  const std::uint64_t slot_count = range.span + 1;
  const std::uint64_t slot_bytes = slot_count * sizeof(cl_uint);
  const std::uint64_t build_tiles = engine.TilesFor(build.size);
  DeviceBuffer slots = engine.pool().Acquire(slot_bytes, "join direct table");
  engine.Fill(slots.get(), 0xFFFFFFFFu, 0, slot_bytes, "join build");
  if (!cpu_kernels) {
    DeviceBuffer flags = engine.pool().Acquire(sizeof(cl_uint), "join direct flags");
    engine.Fill(flags.get(), 0, 0, sizeof(cl_uint), "join build");
    cl::Kernel& insert = engine.kernel("join_direct_insert");
    BindKeys(insert, 0, build);
    insert.setArg(5, static_cast<cl_long>(range.min));
    insert.setArg(6, slots.get());
    insert.setArg(7, flags.get());
    engine.Launch(insert, build_tiles, "join build insert (direct)");
    cl_uint flag = 0;
    engine.Download(flags.get(), 0, sizeof(flag), &flag, "join build flags");
    if ((flag & kDuplicateFlag) != 0) {
      reason = kDuplicateKeysReason;
      return std::nullopt;
    }
    return ProbeUnique(engine, probe, range, "join_direct_probe", "join probe count (direct)",
                       output_budget, [&](cl::Kernel& lookup) {
                         lookup.setArg(7, slots.get());
                         return cl_uint{8};
                       });
  }

  DeviceBuffer stored = engine.pool().Acquire(build_tiles * sizeof(cl_ulong), "join build counts");
  cl::Kernel& store = engine.kernel("join_direct_store");
  BindKeys(store, 0, build);
  store.setArg(5, static_cast<cl_long>(range.min));
  store.setArg(6, slots.get());
  store.setArg(7, stored.get());
  engine.Launch(store, build_tiles, "join build insert (direct)");
  const std::uint64_t words = (slot_count + 31) / 32;
  const std::uint64_t word_tiles = engine.TilesFor(words);
  DeviceBuffer bits = engine.pool().Acquire(words * sizeof(cl_uint), "join direct bitmap");
  DeviceBuffer filled = engine.pool().Acquire(word_tiles * sizeof(cl_ulong), "join build counts");
  cl::Kernel& bitmap = engine.kernel("join_direct_bitmap");
  bitmap.setArg(0, slots.get());
  bitmap.setArg(1, static_cast<cl_ulong>(slot_count));
  bitmap.setArg(2, bits.get());
  bitmap.setArg(3, filled.get());
  engine.Launch(bitmap, word_tiles, "join build bitmap (direct)");
  if (StoredKeysRepeat(engine, std::move(stored), build_tiles, std::move(filled), word_tiles)) {
    reason = kDuplicateKeysReason;
    return std::nullopt;
  }
  return ProbeBitmapOnCpu(engine, probe, range, bits, "join_direct_probe_write", output_budget,
                          [&](cl::Kernel& write) {
                            write.setArg(8, slots.get());
                            return cl_uint{9};
                          });
}

}  // namespace clq::join_detail
