// Cuckoo hash join (Alcantara et al. 2009/2011; kernels join_cuckoo_* in
// kernels_cl/join_cuckoo.cl). Build: words key32 << 32 | row32 inserted by
// 64-bit atomic exchange, four hash functions, an eviction chain of at most
// max_evictions, a stash probed linearly. A flag word, read after the insert
// and again after a check pass (every build row looks itself up), tells
// success, failure (rebuild with new seeds, at most max_rebuilds times) or
// duplicate keys (give up: the caller falls back to the chained table). The
// insert raises the duplicate flag itself when a word meets its own key, and
// every work-item stops once a flag is up: without that, duplicate keys made
// eviction chains run to their limit (3.3 s instead of 94 ms for a 1M-row
// build with each key four times, PoCL).
// Probe: ProbeUnique (one lookup per probe row; at most one match each); on
// CPUs through a Bloom filter of the build keys (kernels_cl/join_cuckoo.cl
// says why).
#include <algorithm>
#include <bit>
#include <cmath>

#include "operators/join_internal.hpp"

namespace clq::join_detail {
namespace {

constexpr cl_uint kFailed = 1;  // HASH_JOIN_FAILED

std::uint64_t SplitMix64(std::uint64_t x) {
  x += 0x9E3779B97F4A7C15ull;
  x = (x ^ (x >> 30)) * 0xBF58476D1CE4E5B9ull;
  x = (x ^ (x >> 27)) * 0x94D049BB133111EBull;
  return x ^ (x >> 31);
}

// Deterministic seeds per attempt, so a run is reproducible.
cl_uint4 SeedsFor(unsigned attempt) {
  const std::uint64_t a = SplitMix64(2 * attempt + 1), b = SplitMix64(2 * attempt + 2);
  cl_uint4 seeds;
  seeds.s[0] = static_cast<cl_uint>(a);
  seeds.s[1] = static_cast<cl_uint>(a >> 32);
  seeds.s[2] = static_cast<cl_uint>(b);
  seeds.s[3] = static_cast<cl_uint>(b >> 32);
  return seeds;
}

struct CuckooTable {
  DeviceBuffer words;
  DeviceBuffer stash;
  cl_uint capacity = 0;
  cl_uint stash_size = 0;
  cl_uint4 seeds{};
};

}  // namespace

std::optional<JoinResult> CuckooJoin(Engine& engine, const VectorView& build,
                                     const VectorView& probe, const KeyRange& range,
                                     const JoinOptions& options, bool cpu_kernels,
                                     std::uint64_t output_budget, unsigned& rebuilds,
                                     std::string& reason) {
  const RowCount n = build.size;
  CuckooTable table;
  const double load = std::clamp(options.load_factor, 0.1, 1.0);
  table.capacity =
      static_cast<cl_uint>(std::max<double>(64.0, std::ceil(static_cast<double>(n) / load)));
  table.stash_size = options.stash_size;
  // Alcantara et al.: chains of about 7 log2(n) suffice at these loads.
  const cl_uint max_evictions =
      options.max_evictions != 0
          ? options.max_evictions
          : std::max<cl_uint>(16, 7 * static_cast<cl_uint>(std::bit_width(n)));
  table.words =
      engine.pool().Acquire(std::uint64_t{table.capacity} * sizeof(cl_ulong), "join cuckoo table");
  table.stash = engine.pool().Acquire(std::max<cl_uint>(table.stash_size, 1) * sizeof(cl_ulong),
                                      "join cuckoo stash");
  DeviceBuffer flags = engine.pool().Acquire(sizeof(cl_uint), "join cuckoo flags");
  const std::uint64_t build_tiles = engine.TilesFor(n);
  cl::Kernel& insert = engine.kernel("join_cuckoo_insert");
  cl::Kernel& check = engine.kernel("join_cuckoo_check");
  bool built = false;
  for (unsigned attempt = 0; attempt <= options.max_rebuilds; ++attempt) {
    if (attempt > 0) ++rebuilds;
    table.seeds = SeedsFor(attempt);
    engine.Fill(table.words.get(), 0xFFFFFFFFu, 0, std::uint64_t{table.capacity} * sizeof(cl_ulong),
                "join build");
    engine.Fill(table.stash.get(), 0xFFFFFFFFu, 0, table.stash.capacity(), "join build");
    engine.Fill(flags.get(), 0, 0, sizeof(cl_uint), "join build");
    BindKeys(insert, 0, build);
    insert.setArg(5, static_cast<cl_long>(range.min));
    insert.setArg(6, table.words.get());
    insert.setArg(7, table.capacity);
    insert.setArg(8, table.seeds);
    insert.setArg(9, max_evictions);
    insert.setArg(10, table.stash.get());
    insert.setArg(11, table.stash_size);
    insert.setArg(12, flags.get());
    engine.Launch(insert, build_tiles, "join build insert (cuckoo)");
    cl_uint flag = 0;
    engine.Download(flags.get(), 0, sizeof(flag), &flag, "join build flags");
    if ((flag & kDuplicateFlag) == 0 && (flag & kFailed) == 0) {
      // The insert sees duplicates only when they meet; the check finds all.
      BindKeys(check, 0, build);
      check.setArg(5, static_cast<cl_long>(range.min));
      check.setArg(6, table.words.get());
      check.setArg(7, table.capacity);
      check.setArg(8, table.seeds);
      check.setArg(9, table.stash.get());
      check.setArg(10, table.stash_size);
      check.setArg(11, flags.get());
      engine.Launch(check, build_tiles, "join build check (cuckoo)");
      engine.Download(flags.get(), 0, sizeof(flag), &flag, "join build flags");
    }
    if ((flag & kDuplicateFlag) != 0) {
      reason = kDuplicateKeysReason;
      return std::nullopt;
    }
    if ((flag & kFailed) == 0) {
      built = true;
      break;
    }
  }
  if (!built) {
    reason = "cuckoo build failed after " + std::to_string(options.max_rebuilds) + " rebuilds";
    return std::nullopt;
  }

  const auto bind_table = [&](cl::Kernel& lookup) {
    lookup.setArg(7, table.words.get());
    lookup.setArg(8, table.capacity);
    lookup.setArg(9, table.seeds);
    lookup.setArg(10, table.stash.get());
    lookup.setArg(11, table.stash_size);
    return cl_uint{12};
  };
  if (!cpu_kernels) {
    return ProbeUnique(engine, probe, range, "join_cuckoo_probe", "join probe count (cuckoo)",
                       output_budget, bind_table);
  }
  // The filter: 8 bits per build key, in a power of two of 32-bit words.
  const std::uint64_t words = std::bit_ceil(std::max<std::uint64_t>(n / 4, 1));
  DeviceBuffer filter = engine.pool().Acquire(words * sizeof(cl_uint), "join cuckoo filter");
  engine.Fill(filter.get(), 0, 0, words * sizeof(cl_uint), "join build");
  cl::Kernel& set = engine.kernel("join_cuckoo_filter");
  BindKeys(set, 0, build);
  set.setArg(5, static_cast<cl_long>(range.min));
  set.setArg(6, filter.get());
  set.setArg(7, static_cast<cl_uint>(words - 1));
  engine.Launch(set, build_tiles, "join build filter (cuckoo)");
  return ProbeUnique(engine, probe, range, "join_cuckoo_probe_filtered",
                     "join probe count (cuckoo)", output_budget, [&](cl::Kernel& lookup) {
                       const cl_uint next = bind_table(lookup);
                       lookup.setArg(next, filter.get());
                       lookup.setArg(next + 1, static_cast<cl_uint>(words - 1));
                       return next + 2;
                     });
}

}  // namespace clq::join_detail
