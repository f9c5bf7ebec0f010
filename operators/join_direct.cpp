// Direct (perfect-hash) join for unique build keys of a dense range, as
// DuckDB's perfect hash join (kernels hash_join_direct_* in
// kernels_cl/hash_join.cl). Build: one 32-bit slot per value of
// [min, max], filled with HASH_JOIN_NO_ROW, each build row claims its key's
// slot by compare-and-swap; a lost swap is a duplicate key (the caller then
// falls back to the chained table). Probe: one load per probe row, no hash,
// no second slot. Against the cuckoo table it saves the hashing, up to four
// probes per key, the eviction chains and the check pass, and needs 32-bit
// atomics only.
#include <sstream>
#include <string>

#include "operators/join_internal.hpp"

namespace clq::join_detail {

bool DirectTableFits(Engine& engine, const KeyRange& range, RowCount build_rows,
                     const JoinOptions& options, std::string& reason) {
  // span + 1 slots; a span of 2^64 - 1 would wrap, so test the span itself.
  const double slots = static_cast<double>(range.span) + 1.0;
  const double allowed = options.direct_slots_per_row * static_cast<double>(build_rows);
  if (slots > allowed) {
    std::ostringstream text;
    text << "build keys span " << range.span << " + 1 values, more than "
         << options.direct_slots_per_row << " per build row";
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
                                     std::string& reason) {
  const std::uint64_t slot_bytes = (range.span + 1) * sizeof(cl_uint);
  DeviceBuffer slots = engine.pool().Acquire(slot_bytes, "join direct table");
  DeviceBuffer flags = engine.pool().Acquire(sizeof(cl_uint), "join direct flags");
  engine.Fill(slots.get(), 0xFFFFFFFFu, 0, slot_bytes, "join build");
  engine.Fill(flags.get(), 0, 0, sizeof(cl_uint), "join build");
  cl::Kernel& insert = engine.kernel("hash_join_direct_insert");
  BindKeys(insert, 0, build);
  insert.setArg(5, static_cast<cl_long>(range.min));
  insert.setArg(6, slots.get());
  insert.setArg(7, flags.get());
  engine.Launch(insert, engine.TilesFor(build.size), "join build insert (direct)");
  cl_uint flag = 0;
  engine.Download(flags.get(), 0, sizeof(flag), &flag, "join build flags");
  if ((flag & kDuplicateFlag) != 0) {
    reason = kDuplicateKeysReason;
    return std::nullopt;
  }

  return ProbeUnique(engine, probe, range, "hash_join_direct_probe", "join probe count (direct)",
                     [&](cl::Kernel& lookup) {
                       lookup.setArg(7, slots.get());
                       return cl_uint{8};
                     });
}

}  // namespace clq::join_detail
