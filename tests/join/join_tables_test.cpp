// The join's tables one by one: the dense multimap's ranges, the direct
// table's limits and duplicate detection, cuckoo rebuilds and its stash.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <vector>

#include "common/errors.hpp"
#include "kernels_cl/join_shared.h"
#include "operators/hash_join.hpp"
#include "runtime/device_tuning.hpp"
#include "tests/join/join_test_support.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using namespace clq::testing;    // NOLINT: test helpers
using namespace clq::join_test;  // NOLINT: test helpers

class JoinTablesTest : public DeviceTest {};

// The dense multimap's ranges: keys of JOIN_DENSE_MAX_BUCKETS values are
// counted in local memory, one more value in global memory (one chunk), and
// past the direct table's values per build row it does not fit; INT64 keys
// at the ends of the range.
TEST_P(JoinTablesTest, DenseMultimapRange) {
  Engine& e = engine();
  CLQ_SKIP_WHERE_LOOPS_ARE_CAPPED(e);
  const std::int64_t span = JOIN_DENSE_MAX_BUCKETS - 1;
  for (const std::int64_t base : {std::int64_t{-17}, kInt64Min, kInt64Max - span}) {
    Keys build{ColumnType::Int64(), {base, base + span}, {}};
    std::mt19937_64 rng(static_cast<std::uint64_t>(base));
    for (int i = 0; i < 6000; ++i)
      build.values.push_back(base + static_cast<std::int64_t>(rng() % (span + 1)));
    Keys probe = ProbeOf(build, 7000, 0.9, 2, ColumnType::Int64());
    for (std::int64_t k : {base, base + span, kInt64Min, kInt64Max, base + span / 2})
      probe.values.push_back(k);
    probe.values.push_back(base > kInt64Min ? base - 1 : kInt64Max - 1);
    probe.values.push_back(base + span < kInt64Max ? base + span + 1 : kInt64Min + 1);
    auto stats = CheckJoin(e, build, probe, "dense span " + std::to_string(base));
    EXPECT_EQ(stats["dense"].method, "dense");
    // One value more: below the minimum at the top of the range, else above
    // the maximum. Global memory.
    if (base == kInt64Max - span) {
      build.values[0] = base - 1;
    } else {
      build.values[1] = base + span + 1;
    }
    stats = CheckJoin(e, build, probe, "dense span + 1 " + std::to_string(base));
    EXPECT_EQ(stats["dense"].method, "dense") << base;
    // A few keys spread far: more values per build row than the direct
    // table's.
    const std::int64_t low = base == kInt64Max - span ? base - 5000 : base;
    Keys sparse{ColumnType::Int64(), {low, low + span + 50, low + span + 50, low + 7}, {}};
    stats = CheckJoin(e, sparse, probe, "dense sparse " + std::to_string(base));
    EXPECT_EQ(stats["dense"].method, "chained") << base;
    EXPECT_NE(stats["dense"].fallback_reason.find("per build row"), std::string::npos)
        << stats["dense"].fallback_reason;
  }
  // Many values in global memory: repeated keys, NULLs, several buckets
  // larger than a tile, an INT32 build probed with INT64 keys.
  Keys wide{ColumnType::Int32(), {}, {}};
  std::mt19937_64 rng(9);
  for (int i = 0; i < 40000; ++i)
    wide.values.push_back(i % 4 == 0 ? static_cast<std::int64_t>(rng() % 5) * 9000
                                     : static_cast<std::int64_t>(rng() % 50000) - 20000);
  wide.nulls.assign(wide.values.size(), 0);
  for (std::size_t i = 0; i < wide.values.size(); i += 11)
    wide.nulls[i] = 1;
  Keys wide_probe = ProbeOf(wide, 9000, 0.8, 4, ColumnType::Int64());
  wide_probe.values.push_back(0);
  wide_probe.values.push_back(9000 + (1LL << 32));
  const auto stats = CheckJoin(e, wide, wide_probe, "dense wide");
  EXPECT_EQ(stats.at("dense").method, "dense");
  EXPECT_EQ(stats.at("default").method, DevicePlan(e).cpu_kernels ? "dense" : "chained");
}

TEST_P(JoinTablesTest, DenseUniqueKeysUseTheDirectTable) {
  Engine& e = engine();
  const RowCount wg = e.tuning().work_group_size;
  const RowCount tile = e.tuning().tile_size();
  for (RowCount n : {RowCount{1}, wg - 1, wg + 1, tile - 1, tile + 1, RowCount{50000}}) {
    // A permutation (Wisconsin's unique1), probed with keys below, inside
    // and above its range.
    const Keys build{ColumnType::Int32(), DenseKeys(n, -7, n), {}};
    Keys probe = ProbeOf(build, n + 3, 0.8, n + 1);
    probe.values.push_back(-8);
    probe.values.push_back(-7 + static_cast<std::int64_t>(n));
    probe.values.push_back(-7 + static_cast<std::int64_t>(n) - 1);
    auto stats = CheckJoin(e, build, probe, "permutation of " + std::to_string(n));
    for (const char* config : {"default", "direct/cpu", "direct/gpu"}) {
      EXPECT_EQ(stats[config].method, "direct") << config;
      EXPECT_EQ(stats[config].fallback_reason, "") << config;
    }
  }
  // Gaps: 1000 keys over a range of exactly `per_row` * 1000 values is
  // direct, one more value of range is not; the same for the other plan's
  // limit.
  for (const bool cpu : {false, true}) {
    JoinOptions options;
    options.cpu_kernels = cpu;
    const double per_row =
        PlanJoin(e.info(), e.tuning(), {ColumnType::Int32(), ColumnType::Int32(), 1, 1}, options)
            .options.direct_slots_per_row;
    EXPECT_EQ(per_row, 16.0);
    const auto range = static_cast<std::int64_t>(per_row * 1000);
    Keys gaps{ColumnType::Int32(), DistinctKeys(998, 1, range - 2, 3), {}};
    gaps.values.push_back(0);
    gaps.values.push_back(range - 1);
    Keys gaps_probe = ProbeOf(gaps, 3000, 0.5, 4);
    for (std::int64_t k = -2; k < range + 3; k += 3)
      gaps_probe.values.push_back(k);  // absent keys inside the range: empty slots
    const std::string what = cpu ? "cpu" : "gpu";
    EXPECT_EQ(DeviceJoin(e, gaps, gaps_probe, options).stats.method, "direct") << what;
    EXPECT_EQ(DeviceJoin(e, gaps, gaps_probe, options).pairs, CpuJoin(gaps, gaps_probe)) << what;
    gaps.values.back() = range;
    const Outcome sparse = DeviceJoin(e, gaps, gaps_probe, options);
    EXPECT_EQ(sparse.pairs, CpuJoin(gaps, gaps_probe)) << what;
    EXPECT_NE(sparse.stats.method, "direct") << what;
    EXPECT_NE(sparse.stats.fallback_reason.find("more than " + std::to_string(int(per_row))),
              std::string::npos)
        << sparse.stats.fallback_reason;
    // The CPU kernels also take a range of up to one slot per probe row: the
    // same sparse keys probed by as many rows as the range has values.
    Keys long_probe = gaps_probe;
    while (long_probe.values.size() < static_cast<std::size_t>(range + 1))
      long_probe.values.push_back(
          static_cast<std::int64_t>(long_probe.values.size() * 7 % (range + 5)));
    const Outcome by_probe = DeviceJoin(e, gaps, long_probe, options);
    EXPECT_EQ(by_probe.pairs, CpuJoin(gaps, long_probe)) << what;
    if (cpu) {
      EXPECT_EQ(by_probe.stats.method, "direct") << by_probe.stats.fallback_reason;
    } else {
      EXPECT_NE(by_probe.stats.method, "direct");
    }
  }
}

// Unique keys too sparse for the direct table: the CPU plan's rank table
// (a bitmap, a rank per 32-bit word, the rows in key order). Keys at word
// and tile edges, INT64 ends, NULLs, clustered probes (a fact table sorted
// by the key), and the limits of 256 values per build row or 16 per probe
// row.
TEST_P(JoinTablesTest, SparseUniqueKeysUseTheRankTable) {
  Engine& e = engine();
  const bool cpu_plan = DevicePlan(e).cpu_kernels;
  const RowCount tile = e.tuning().tile_size();
  for (const RowCount n : {RowCount{1}, RowCount{31}, RowCount{33}, tile + 1, RowCount{20000}}) {
    for (const std::int64_t base : {std::int64_t{-5}, kInt64Min, kInt64Max - 3000000}) {
      const std::int64_t range = 100 * static_cast<std::int64_t>(n) + 63;
      Keys build{ColumnType::Int64(), DistinctKeys(n, base, base + range, n + 7), {}};
      build.values.push_back(base);  // the range's first slot (bit 0 of word 0)
      build.values.push_back(base + range + 1);
      std::sort(build.values.begin(), build.values.end());
      build.values.erase(std::unique(build.values.begin(), build.values.end()), build.values.end());
      std::shuffle(build.values.begin(), build.values.end(), std::mt19937_64(n));
      // Probes: random hits and misses, then keys in order, as a clustered
      // fact table's: the range's first 40000 values and its neighbours
      // below, and its last 300 values and those above.
      Keys probe = ProbeOf(build, 3 * n, 0.5, n + 11, ColumnType::Int64());
      for (std::int64_t k = base == kInt64Min ? base : base - 2;
           k <= base + std::min<std::int64_t>(range, 40000); ++k)
        probe.values.push_back(k);
      for (std::int64_t k = base + std::max<std::int64_t>(0, range - 300); k <= base + range + 3;
           ++k)
        probe.values.push_back(k);
      const std::string what = "rank n=" + std::to_string(n) + " base=" + std::to_string(base);
      auto stats = CheckJoin(e, build, probe, what);
      EXPECT_EQ(stats["rank"].method, "rank") << what << ": " << stats["rank"].fallback_reason;
      // The CPU plan's direct table takes a range of one value per probe row.
      if (cpu_plan && n > 1) {
        const bool direct = static_cast<std::size_t>(range) + 2 <= probe.values.size();
        EXPECT_EQ(stats["default"].method, direct ? "direct" : "rank")
            << what << ": " << stats["default"].fallback_reason;
      }
    }
  }
  // NULL rows repeat a key without setting its bit; NULL probes never match.
  Keys nulls{ColumnType::Int32(), DistinctKeys(3000, 0, 500000, 41), {}};
  nulls.nulls.assign(nulls.values.size(), 0);
  for (std::size_t i = 0; i < nulls.values.size(); i += 5) {
    nulls.nulls[i] = 1;
    nulls.values[i] = nulls.values[2];
  }
  Keys nulls_probe = ProbeOf(nulls, 9000, 0.7, 42);
  nulls_probe.nulls.assign(nulls_probe.values.size(), 0);
  for (std::size_t j = 0; j < nulls_probe.values.size(); j += 3)
    nulls_probe.nulls[j] = 1;
  EXPECT_EQ(CheckJoin(e, nulls, nulls_probe, "rank with NULLs")["rank"].method, "rank");

  // Limits: 1000 keys over exactly 256 values each is a rank table, one value
  // more is not, until the probe has a sixteenth of the range in rows.
  JoinOptions only_rank;
  only_rank.methods = {JoinMethod::kRank};
  const std::int64_t range = 256 * 1000;
  Keys gaps{ColumnType::Int32(), DistinctKeys(998, 1, range - 2, 43), {}};
  gaps.values.push_back(0);
  gaps.values.push_back(range - 1);
  const Keys gaps_probe = ProbeOf(gaps, 3000, 0.5, 44);
  Outcome fits = DeviceJoin(e, gaps, gaps_probe, only_rank);
  EXPECT_EQ(fits.stats.method, "rank") << fits.stats.fallback_reason;
  EXPECT_EQ(fits.pairs, CpuJoin(gaps, gaps_probe));
  gaps.values.back() = range;
  const Outcome wide = DeviceJoin(e, gaps, gaps_probe, only_rank);
  EXPECT_EQ(wide.stats.method, "chained");
  EXPECT_NE(wide.stats.fallback_reason.find("rank: build keys span 256000 + 1 values"),
            std::string::npos)
      << wide.stats.fallback_reason;
  EXPECT_EQ(wide.pairs, CpuJoin(gaps, gaps_probe));
  Keys long_probe = gaps_probe;
  while (long_probe.values.size() * 16 < static_cast<std::size_t>(range + 1))
    long_probe.values.push_back(static_cast<std::int64_t>(long_probe.values.size() * 13 % range));
  const Outcome by_probe = DeviceJoin(e, gaps, long_probe, only_rank);
  EXPECT_EQ(by_probe.stats.method, "rank") << by_probe.stats.fallback_reason;
  EXPECT_EQ(by_probe.pairs, CpuJoin(gaps, long_probe));
}

// Repeated keys too sparse for the direct table and the dense multimap: the
// rank table maps both sides' keys to the ranks of their slots and the
// dense multimap joins those (TPC-H Q12's filtered lineitem building on
// its order keys): skewed buckets, buckets past a tile, NULLs, INT64 ends,
// a probe in key order.
TEST_P(JoinTablesTest, SparseRepeatedKeysJoinThroughTheirRanks) {
  Engine& e = engine();
  CLQ_SKIP_WHERE_LOOPS_ARE_CAPPED(e);
  const bool cpu_plan = DevicePlan(e).cpu_kernels;
  const RowCount tile = e.tuning().tile_size();
  std::mt19937_64 rng(51);
  for (const std::int64_t base : {std::int64_t{-1000}, kInt64Min, kInt64Max - 4000000}) {
    const std::vector<std::int64_t> distinct = DistinctKeys(3000, base, base + 1499999, 52);
    Keys build{ColumnType::Int64(), {}, {}};
    for (std::size_t d = 0; d < distinct.size(); ++d) {
      // 1 to 4 rows per key, one key past a tile, the first a hundred times.
      const std::size_t copies = d == 7 ? tile + 3 : (d == 0 ? 100 : 1 + rng() % 4);
      for (std::size_t c = 0; c < copies; ++c)
        build.values.push_back(distinct[d]);
    }
    std::shuffle(build.values.begin(), build.values.end(), rng);
    build.nulls.assign(build.values.size(), 0);
    for (std::size_t i = 5; i < build.values.size(); i += 13)
      build.nulls[i] = 1;
    Keys probe = ProbeOf(build, 20000, 0.6, 53, ColumnType::Int64());
    std::vector<std::int64_t> ordered(distinct.begin(), distinct.begin() + 500);
    std::sort(ordered.begin(), ordered.end());
    for (const std::int64_t k : ordered) {
      probe.values.push_back(k);
      probe.values.push_back(k);
      if (k != kInt64Max) probe.values.push_back(k + 1);
    }
    probe.nulls.assign(probe.values.size(), 0);
    for (std::size_t j = 0; j < probe.values.size(); j += 9)
      probe.nulls[j] = 1;
    const std::string what = "repeated rank base=" + std::to_string(base);
    auto stats = CheckJoin(e, build, probe, what);
    EXPECT_EQ(stats["rank"].method, "rank") << what << ": " << stats["rank"].fallback_reason;
    if (cpu_plan) {
      EXPECT_EQ(stats["default"].method, "rank")
          << what << ": " << stats["default"].fallback_reason;
    }
  }
}

TEST_P(JoinTablesTest, DirectTableInt64NullsAndDuplicates) {
  Engine& e = engine();
  // INT64 keys at the top of the range: key - min must not overflow.
  const Keys top{ColumnType::Int64(), DenseKeys(3000, kInt64Max - 2999, 5), {}};
  Keys top_probe = ProbeOf(top, 2000, 0.7, 6, ColumnType::Int64());
  for (std::int64_t k : std::initializer_list<std::int64_t>{kInt64Max, kInt64Max - 2999,
                                                            kInt64Max - 3000, kInt64Min, 0LL})
    top_probe.values.push_back(k);
  EXPECT_EQ(CheckJoin(e, top, top_probe, "INT64 top")["direct/cpu"].method, "direct");
  const Keys bottom{ColumnType::Int64(), DenseKeys(3000, kInt64Min, 7), {}};
  Keys bottom_probe = ProbeOf(bottom, 2000, 0.7, 8, ColumnType::Int64());
  for (std::int64_t k : std::initializer_list<std::int64_t>{kInt64Min, kInt64Min + 2999,
                                                            kInt64Min + 3000, kInt64Max, -1LL})
    bottom_probe.values.push_back(k);
  EXPECT_EQ(CheckJoin(e, bottom, bottom_probe, "INT64 bottom")["direct/gpu"].method, "direct");

  // NULL rows repeat a key but never claim its slot; an INT32 probe of an
  // INT64 build.
  Keys nulls{ColumnType::Int64(), DenseKeys(4000, 100, 9), {}};
  nulls.nulls.assign(nulls.values.size(), 0);
  for (std::size_t i = 0; i < nulls.values.size(); i += 3) {
    nulls.nulls[i] = 1;
    nulls.values[i] = nulls.values[1];
  }
  Keys nulls_probe = ProbeOf(nulls, 5000, 0.9, 10);
  nulls_probe.nulls.assign(nulls_probe.values.size(), 0);
  for (std::size_t j = 0; j < nulls_probe.values.size(); j += 4)
    nulls_probe.nulls[j] = 1;
  auto stats = CheckJoin(e, nulls, nulls_probe, "dense with NULLs");
  EXPECT_EQ(stats["direct/cpu"].method, "direct");
  EXPECT_EQ(stats["direct/gpu"].method, "direct");

  // One repeated key in a dense range: either direct build finds it (the CPU
  // one by counting the filled slots) and the join goes on without trying
  // cuckoo: to the dense multimap in a CPU plan, else the chained table.
  Keys repeat{ColumnType::Int32(), DenseKeys(20000, 0, 11), {}};
  repeat.values[12345] = repeat.values[678];
  stats = CheckJoin(e, repeat, ProbeOf(repeat, 9000, 0.8, 12), "one duplicate");
  for (const char* config : {"default", "direct/cpu", "direct/gpu"}) {
    const bool dense = config == std::string("default") && DevicePlan(e).cpu_kernels &&
                       e.info().loop_iteration_limit == 0;  // no dense multimap there
    EXPECT_EQ(stats[config].method, dense ? "dense" : "chained") << config;
    EXPECT_EQ(stats[config].fallback_reason.find("direct: duplicate build keys"), 0u)
        << config << ": " << stats[config].fallback_reason;
    EXPECT_EQ(stats[config].rebuilds, 0u) << config;
  }
  // A repeated key whose rows leave another slot free, with a NULL row
  // holding the free slot's key: the filled slots (2) fall short of the
  // stored rows (3).
  Keys hole{ColumnType::Int32(), {0, 2, 2, 1}, {0, 0, 0, 1}};
  stats = CheckJoin(e, hole, Keys{ColumnType::Int32(), {0, 1, 2, 3}, {}}, "duplicate and hole");
  EXPECT_EQ(stats["direct/cpu"].method, "chained");
  EXPECT_EQ(stats["direct/cpu"].fallback_reason, "direct: duplicate build keys");
}

TEST_P(JoinTablesTest, ForcedRebuildsThenFallback) {
  Engine& e = engine();
  if (!CuckooPossible(e)) GTEST_SKIP() << "no 64-bit atomics: the cuckoo path never runs";
  const Keys build{ColumnType::Int32(), DistinctKeys(20000, 0, 1 << 30, 41), {}};
  const Keys probe = ProbeOf(build, 10000, 0.6, 42);
  // A full table, one eviction and no stash cannot hold 20000 keys.
  for (const bool cpu : {false, true}) {
    JoinOptions options;
    options.methods = {JoinMethod::kCuckoo};
    options.cpu_kernels = cpu;
    options.max_evictions = 1;
    options.stash_size = 0;
    options.load_factor = 1.0;
    options.max_rebuilds = 2;
    const Outcome got = DeviceJoin(e, build, probe, options);
    EXPECT_EQ(got.stats.method, "chained") << cpu;
    EXPECT_EQ(got.stats.rebuilds, 2u) << cpu;
    EXPECT_EQ(got.stats.fallback_reason, "cuckoo: cuckoo build failed after 2 rebuilds") << cpu;
    EXPECT_EQ(got.pairs, CpuJoin(build, probe)) << cpu;
    // The default settings build the same keys without a fallback.
    JoinOptions fine_options;
    fine_options.cpu_kernels = cpu;
    const Outcome fine = DeviceJoin(e, build, probe, fine_options);
    EXPECT_EQ(fine.stats.method, "cuckoo") << cpu;
    EXPECT_EQ(fine.pairs, got.pairs) << cpu;
  }
}

TEST_P(JoinTablesTest, StashAndRebuildsStillCorrect) {
  Engine& e = engine();
  if (!CuckooPossible(e)) GTEST_SKIP() << "no 64-bit atomics: the cuckoo path never runs";
  // Short chains at high loads lean on the stash and on rebuilds (which of
  // them succeed depends on the interleaving of the inserts); whatever the
  // method, the answer must be exact. The easiest setting must stay cuckoo,
  // the hardest must fall back.
  const Keys build{ColumnType::Int32(), DistinctKeys(3000, -(1 << 30), 1 << 30, 51), {}};
  const Keys probe = ProbeOf(build, 3000, 0.5, 52);
  const std::vector<Pair> want = CpuJoin(build, probe);
  std::set<std::string> methods;
  for (double load : {0.5, 0.85, 0.9, 0.95}) {
    for (unsigned evictions : {1u, 2u, 8u, 64u}) {
      JoinOptions options;
      options.methods = {JoinMethod::kCuckoo};
      options.cpu_kernels = evictions % 2 == 0;  // both probes, stash lookups included
      options.max_evictions = evictions;
      options.load_factor = load;
      options.stash_size = 31;
      options.max_rebuilds = 3;
      const Outcome got = DeviceJoin(e, build, probe, options);
      EXPECT_EQ(got.pairs, want) << load << " " << evictions << " " << got.stats.method;
      EXPECT_LE(got.stats.rebuilds, 3u);
      if (got.stats.method == "chained") {
        EXPECT_EQ(got.stats.rebuilds, 3u);
      }
      if (load == 0.5 && evictions == 64) {
        EXPECT_EQ(got.stats.method, "cuckoo");
      }
      methods.insert(got.stats.method);
    }
  }
  EXPECT_EQ(methods, (std::set<std::string>{"chained", "cuckoo"}));
}

CLQ_INSTANTIATE_DEVICE_TESTS(JoinTablesTest);

}  // namespace
}  // namespace clq
