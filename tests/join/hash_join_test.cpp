#include "operators/hash_join.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <numeric>
#include <random>
#include <set>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class HashJoinTest : public DeviceTest {};

using Pair = std::pair<std::uint32_t, std::uint32_t>;  // (build position, probe position)

constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

struct Keys {
  ColumnType type = ColumnType::Int32();
  std::vector<std::int64_t> values;
  std::vector<std::uint8_t> nulls;  // empty: no NULLs
};

DeviceVector ToDevice(Engine& e, const Keys& keys) {
  DeviceVector v;
  if (keys.type.width == 4) {
    std::vector<std::int32_t> narrow(keys.values.begin(), keys.values.end());
    v = UploadValues(e, keys.type, narrow);
  } else {
    v = UploadValues(e, keys.type, keys.values);
  }
  if (!keys.nulls.empty()) {
    v.nulls = e.pool().Acquire(keys.nulls.size(), "test NULL map");
    e.Upload(v.nulls.get(), 0, keys.nulls.size(), keys.nulls.data(), "test NULL map");
  }
  return v;
}

// Independent CPU join: a hash multimap of the build side; pairs in probe
// order and, per probe row, ascending build position (the documented order).
std::vector<Pair> CpuJoin(const Keys& build, const Keys& probe) {
  std::unordered_multimap<std::int64_t, std::uint32_t> table;
  for (std::size_t i = 0; i < build.values.size(); ++i)
    if (build.nulls.empty() || build.nulls[i] == 0)
      table.emplace(build.values[i], static_cast<std::uint32_t>(i));
  std::vector<Pair> pairs;
  std::vector<std::uint32_t> rows;
  for (std::size_t j = 0; j < probe.values.size(); ++j) {
    if (!probe.nulls.empty() && probe.nulls[j] != 0) continue;
    rows.clear();
    auto [begin, end] = table.equal_range(probe.values[j]);
    for (auto it = begin; it != end; ++it)
      rows.push_back(it->second);
    std::sort(rows.begin(), rows.end());
    for (std::uint32_t r : rows)
      pairs.emplace_back(r, static_cast<std::uint32_t>(j));
  }
  return pairs;
}

struct Outcome {
  std::vector<Pair> pairs;
  JoinStats stats;
};

Outcome DeviceJoin(Engine& e, const Keys& build, const Keys& probe, const JoinOptions& options) {
  DeviceVector b = ToDevice(e, build);
  DeviceVector p = ToDevice(e, probe);
  QueryContext context(e);
  Outcome out;
  JoinResult result = HashJoin(context, View(b), View(p), options, &out.stats);
  EXPECT_EQ(result.size, result.build_positions.size);
  EXPECT_EQ(result.size, result.probe_positions.size);
  const auto bp = DownloadRowIds(e, result.build_positions);
  const auto pp = DownloadRowIds(e, result.probe_positions);
  for (std::size_t i = 0; i < bp.size(); ++i)
    out.pairs.emplace_back(bp[i], pp[i]);
  return out;
}

// Runs the join with the default method, with the direct table off (so that
// dense keys exercise the cuckoo table too) and with the chained table
// forced; checks the multiset of pairs, the order (probe ascending, then
// build ascending) and the stats. Returns the default run's stats.
JoinStats CheckJoin(Engine& e, const Keys& build, const Keys& probe, const std::string& what) {
  const std::vector<Pair> want = CpuJoin(build, probe);
  std::vector<Pair> want_sorted = want;
  std::sort(want_sorted.begin(), want_sorted.end());
  JoinOptions chained;
  chained.allow_direct = false;
  chained.allow_cuckoo = false;
  JoinOptions no_direct;
  no_direct.allow_direct = false;
  JoinStats first;
  bool is_default = true;
  for (const JoinOptions& options : {JoinOptions{}, no_direct, chained}) {
    Outcome got = DeviceJoin(e, build, probe, options);
    const std::string label = what + " method " + got.stats.method;
    std::vector<Pair> got_sorted = got.pairs;
    std::sort(got_sorted.begin(), got_sorted.end());
    EXPECT_EQ(got_sorted, want_sorted) << label;
    const bool ordered = std::is_sorted(got.pairs.begin(), got.pairs.end(), [](Pair a, Pair b) {
      return std::tie(a.second, a.first) < std::tie(b.second, b.first);
    });
    EXPECT_TRUE(ordered) << label;
    EXPECT_EQ(got.pairs, want) << label;
    EXPECT_EQ(got.stats.output_rows, want.size()) << label;
    EXPECT_EQ(got.stats.build_rows, build.values.size()) << label;
    EXPECT_EQ(got.stats.probe_rows, probe.values.size()) << label;
    if (!options.allow_cuckoo && !build.values.empty() && !probe.values.empty()) {
      EXPECT_EQ(got.stats.method, "chained") << label;
    }
    if (!options.allow_direct) {
      EXPECT_NE(got.stats.method, "direct") << label;
    }
    if (is_default) first = got.stats;
    is_default = false;
  }
  return first;
}

bool CuckooPossible(Engine& e) {
  return e.info().int64_atomics;
}

// `n` distinct keys from [lo, hi], shuffled.
std::vector<std::int64_t> DistinctKeys(std::size_t n, std::int64_t lo, std::int64_t hi,
                                       std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int64_t> pick(lo, hi);
  std::vector<std::int64_t> keys;
  std::unordered_map<std::int64_t, bool> seen;
  while (keys.size() < n) {
    const std::int64_t k = pick(rng);
    if (seen.emplace(k, true).second) keys.push_back(k);
  }
  return keys;
}

// Probe keys: `fraction` of them drawn from the build keys, the rest absent
// (negative, where the build keys are non-negative).
Keys ProbeOf(const Keys& build, std::size_t m, double fraction, std::uint64_t seed,
             ColumnType type = ColumnType::Int32()) {
  std::mt19937_64 rng(seed);
  std::bernoulli_distribution hit(fraction);
  Keys probe{type, {}, {}};
  for (std::size_t j = 0; j < m; ++j) {
    if (!build.values.empty() && hit(rng))
      probe.values.push_back(build.values[rng() % build.values.size()]);
    else
      probe.values.push_back(-1 - static_cast<std::int64_t>(rng() % 1000000));
  }
  return probe;
}

TEST_P(HashJoinTest, UniqueKeysZeroHalfAllMatching) {
  Engine& e = engine();
  const Keys build{ColumnType::Int32(), DistinctKeys(10000, 0, 1 << 30, 1), {}};
  for (double fraction : {0.0, 0.5, 1.0}) {
    const Keys probe = ProbeOf(build, 6000, fraction, 7);
    const JoinStats stats = CheckJoin(e, build, probe, "fraction " + std::to_string(fraction));
    EXPECT_EQ(stats.method, CuckooPossible(e) ? "cuckoo" : "chained") << stats.fallback_reason;
  }
}

TEST_P(HashJoinTest, EdgeSizes) {
  Engine& e = engine();
  const RowCount wg = e.tuning().work_group_size;
  const RowCount tile = e.tuning().tile_size();
  for (RowCount n :
       {RowCount{1}, wg - 1, wg, wg + 1, tile - 1, tile + 1, RowCount{1000}, RowCount{100000}}) {
    const Keys build{
        ColumnType::Int32(), DistinctKeys(n, 0, 4 * static_cast<std::int64_t>(n), n), {}};
    for (RowCount m : {RowCount{1}, wg + 1, n}) {
      const Keys probe = ProbeOf(build, m, 0.7, n + m);
      CheckJoin(e, build, probe, "build " + std::to_string(n) + " probe " + std::to_string(m));
    }
  }
}

TEST_P(HashJoinTest, EmptySides) {
  Engine& e = engine();
  const Keys some{ColumnType::Int32(), {1, 2, 3, 2}, {}};
  const Keys none{ColumnType::Int32(), {}, {}};
  EXPECT_EQ(CheckJoin(e, none, some, "empty build").method, "empty");
  EXPECT_EQ(CheckJoin(e, some, none, "empty probe").method, "empty");
  EXPECT_EQ(CheckJoin(e, none, none, "both empty").method, "empty");
  const Keys empty64{ColumnType::Int64(), {}, {}};
  EXPECT_EQ(CheckJoin(e, empty64, some, "empty INT64 build").method, "empty");
}

TEST_P(HashJoinTest, HeavyDuplicates) {
  Engine& e = engine();
  // Every build key equal: each matching probe row matches all build rows.
  Keys same{ColumnType::Int32(), std::vector<std::int64_t>(3000, 42), {}};
  Keys probe{ColumnType::Int32(), {}, {}};
  for (int j = 0; j < 200; ++j)
    probe.values.push_back(j % 2 == 0 ? 42 : j);
  JoinStats stats = CheckJoin(e, same, probe, "all equal");
  EXPECT_EQ(stats.method, "chained");
  if (CuckooPossible(e)) {
    EXPECT_EQ(stats.fallback_reason, "duplicate build keys");
  }
  EXPECT_EQ(stats.output_rows, 100u * 3000u);

  // Many-to-many over a small key domain, INT64.
  std::mt19937_64 rng(5);
  Keys build{ColumnType::Int64(), {}, {}};
  Keys many{ColumnType::Int64(), {}, {}};
  for (int i = 0; i < 2500; ++i)
    build.values.push_back(static_cast<std::int64_t>(rng() % 37));
  for (int j = 0; j < 1500; ++j)
    many.values.push_back(static_cast<std::int64_t>(rng() % 50));
  CheckJoin(e, build, many, "many-to-many");

  // Several buckets larger than a tile (sorted by a work-group each).
  Keys few{ColumnType::Int32(), {}, {}};
  for (int i = 0; i < 20000; ++i)
    few.values.push_back(static_cast<std::int64_t>(rng() % 5) * 1000);
  Keys few_probe{ColumnType::Int64(), {0, 4000, 1, 2000, 3000, 1000, 0, 7}, {}};
  CheckJoin(e, few, few_probe, "few large buckets");

  // One duplicate among many unique keys is enough to leave cuckoo.
  Keys almost{ColumnType::Int32(), DistinctKeys(5000, 0, 1 << 20, 9), {}};
  almost.values[4000] = almost.values[17];
  stats = CheckJoin(e, almost, ProbeOf(almost, 4000, 0.8, 3), "one duplicate");
  EXPECT_EQ(stats.method, "chained");
}

TEST_P(HashJoinTest, UnorderedMatchesOptionAndLargeBucket) {
  Engine& e = engine();
  // 100000 equal build keys (one bucket of 100000), interleaved with unique
  // ones; 40 matching probe rows give 4,000,000 pairs.
  Keys build{ColumnType::Int64(), {}, {}};
  for (std::int64_t i = 0; i < 150000; ++i)
    build.values.push_back(i % 3 == 2 ? i : -7);
  Keys probe{ColumnType::Int32(), {}, {}};
  for (std::int64_t j = 0; j < 200; ++j)
    probe.values.push_back(j % 5 == 0 ? -7 : 3 * j + 2);
  const std::vector<Pair> want = CpuJoin(build, probe);
  ASSERT_EQ(want.size(), 40u * 100000u + 160u);
  JoinOptions unordered;
  unordered.ordered_matches = false;
  const Outcome loose = DeviceJoin(e, build, probe, unordered);
  EXPECT_EQ(loose.stats.method, "chained");
  EXPECT_TRUE(std::is_sorted(loose.pairs.begin(), loose.pairs.end(),
                             [](Pair a, Pair b) { return a.second < b.second; }));
  std::vector<Pair> got = loose.pairs;
  std::sort(got.begin(), got.end());
  std::vector<Pair> want_sorted = want;
  std::sort(want_sorted.begin(), want_sorted.end());
  EXPECT_EQ(got, want_sorted);
  EXPECT_EQ(DeviceJoin(e, build, probe, JoinOptions{}).pairs, want);
}

TEST_P(HashJoinTest, ExtremeKeys) {
  Engine& e = engine();
  const Keys b32{ColumnType::Int32(), {kInt32Min, kInt32Max, 0, -1, 1, kInt32Min + 1}, {}};
  const Keys p32{
      ColumnType::Int32(), {kInt32Max, 5, kInt32Min, -1, kInt32Max, 0, kInt32Max - 1}, {}};
  EXPECT_EQ(CheckJoin(e, b32, p32, "INT32 extremes").method,
            CuckooPossible(e) ? "cuckoo" : "chained");

  // INT64 keys spanning more than 2^32: chained.
  const Keys b64{
      ColumnType::Int64(), {kInt64Min, kInt64Max, 0, -1, 1, kInt64Min + 1, 1LL << 40}, {}};
  const Keys p64{ColumnType::Int64(),
                 {kInt64Max, kInt64Min, 1LL << 40, 0, (1LL << 40) + 1, kInt64Max, -1},
                 {}};
  const JoinStats wide = CheckJoin(e, b64, p64, "INT64 extremes");
  EXPECT_EQ(wide.method, "chained");
  if (CuckooPossible(e)) {
    EXPECT_EQ(wide.fallback_reason, "build keys span more than 2^32 values");
  }

  // INT64 keys in a narrow range far from zero: cuckoo after subtracting the
  // minimum; probe keys outside the range (and the extremes) find nothing.
  const std::int64_t base = 1'000'000'000'000'000LL;
  Keys narrow{ColumnType::Int64(), {}, {}};
  for (std::int64_t k : DistinctKeys(3000, 0, 0xFFFFFFFFLL, 11))
    narrow.values.push_back(base + k);
  narrow.values.push_back(base);
  narrow.values.push_back(base + 0xFFFFFFFFLL);
  std::sort(narrow.values.begin(), narrow.values.end());
  narrow.values.erase(std::unique(narrow.values.begin(), narrow.values.end()), narrow.values.end());
  Keys probe = ProbeOf(narrow, 2000, 0.5, 4, ColumnType::Int64());
  for (std::int64_t k : std::initializer_list<std::int64_t>{base - 1, base, base + 0xFFFFFFFFLL,
                                                            base + 0x100000000LL, kInt64Min,
                                                            kInt64Max, base - 0x100000000LL})
    probe.values.push_back(k);
  EXPECT_EQ(CheckJoin(e, narrow, probe, "INT64 narrow range").method,
            CuckooPossible(e) ? "cuckoo" : "chained");

  // INT64 build at the very top and bottom of the range, span exactly 2^32 - 1.
  const Keys top{ColumnType::Int64(), {kInt64Max, kInt64Max - 0xFFFFFFFFLL, kInt64Max - 7}, {}};
  const Keys top_probe{
      ColumnType::Int64(), {kInt64Max - 7, kInt64Max, kInt64Min, kInt64Max - 0x100000000LL}, {}};
  EXPECT_EQ(CheckJoin(e, top, top_probe, "INT64 top").method,
            CuckooPossible(e) ? "cuckoo" : "chained");
  const Keys bottom{ColumnType::Int64(), {kInt64Min, kInt64Min + 0xFFFFFFFFLL, kInt64Min + 3}, {}};
  const Keys bottom_probe{
      ColumnType::Int64(), {kInt64Min + 3, kInt64Max, kInt64Min, kInt64Min + 0x100000000LL}, {}};
  CheckJoin(e, bottom, bottom_probe, "INT64 bottom");
}

TEST_P(HashJoinTest, MixedWidths) {
  Engine& e = engine();
  // INT32 build, INT64 probe: a probe key equal to a build key modulo 2^32
  // must not match.
  const Keys b32{ColumnType::Int32(), {5, -5, kInt32Max, kInt32Min, 0}, {}};
  const Keys p64{ColumnType::Int64(),
                 {5, 5 + (1LL << 32), -5, -5 - (1LL << 32), kInt32Max, kInt32Max + 1LL, kInt32Min,
                  kInt32Min - 1LL, 0, 1LL << 32, kInt64Min, kInt64Max},
                 {}};
  CheckJoin(e, b32, p64, "INT32 build, INT64 probe");
  // INT64 build, INT64 probe and INT32 probe.
  Keys b64{ColumnType::Int64(), {5, 5 + (1LL << 32), -5, kInt32Min, kInt32Max + 1LL, 0}, {}};
  const Keys p32{ColumnType::Int32(), {5, -5, kInt32Min, kInt32Max, 0, 7}, {}};
  CheckJoin(e, b64, p32, "INT64 build, INT32 probe");
  // Random mixed, larger.
  Keys big{ColumnType::Int32(), DistinctKeys(20000, -1000000, 1000000, 21), {}};
  Keys probe = ProbeOf(big, 30000, 0.5, 22, ColumnType::Int64());
  for (std::size_t j = 0; j < probe.values.size(); j += 3)
    probe.values[j] += (1LL << 32);
  CheckJoin(e, big, probe, "random mixed widths");
}

TEST_P(HashJoinTest, NullsNeverMatch) {
  Engine& e = engine();
  // NULL rows hold the value 0, which also occurs as a real key.
  Keys build{ColumnType::Int32(), {0, 1, 0, 2, 3, 0}, {0, 0, 1, 0, 1, 0}};
  Keys probe{ColumnType::Int64(), {0, 0, 3, 2, 1, 0}, {1, 0, 0, 0, 1, 0}};
  CheckJoin(e, build, probe, "small with NULLs");
  // Unique non-NULL keys but NULL rows repeat a key: still cuckoo-eligible.
  Keys unique{ColumnType::Int32(), DistinctKeys(5000, 0, 100000, 31), {}};
  unique.nulls.assign(unique.values.size(), 0);
  for (std::size_t i = 0; i < unique.values.size(); i += 7) {
    unique.nulls[i] = 1;
    unique.values[i] = unique.values[1];
  }
  Keys uprobe = ProbeOf(unique, 8000, 0.9, 32);
  uprobe.nulls.assign(uprobe.values.size(), 0);
  for (std::size_t j = 0; j < uprobe.values.size(); j += 5)
    uprobe.nulls[j] = 1;
  EXPECT_EQ(CheckJoin(e, unique, uprobe, "unique with NULLs").method,
            CuckooPossible(e) ? "cuckoo" : "chained");
  // Every build key NULL.
  Keys all_null{ColumnType::Int64(), {1, 2, 3}, {1, 1, 1}};
  CheckJoin(e, all_null, Keys{ColumnType::Int64(), {1, 2, 3}, {}}, "all NULL build");
}

// Keys base, base + 1, ..., base + n - 1 in a random order.
std::vector<std::int64_t> DenseKeys(std::size_t n, std::int64_t base, std::uint64_t seed) {
  std::vector<std::int64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = base + static_cast<std::int64_t>(i);
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64(seed));
  return keys;
}

TEST_P(HashJoinTest, DenseUniqueKeysUseTheDirectTable) {
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
    const JoinStats stats = CheckJoin(e, build, probe, "permutation of " + std::to_string(n));
    EXPECT_EQ(stats.method, "direct");
    EXPECT_EQ(stats.fallback_reason, "");
  }
  // Gaps: 1000 keys over a range of exactly 4000 values is direct, one more
  // value of range is not.
  Keys gaps{ColumnType::Int32(), DistinctKeys(998, 1, 3998, 3), {}};
  gaps.values.push_back(0);
  gaps.values.push_back(3999);
  Keys gaps_probe = ProbeOf(gaps, 3000, 0.5, 4);
  for (std::int64_t k = -2; k < 4003; k += 3)
    gaps_probe.values.push_back(k);  // absent keys inside the range: empty slots
  EXPECT_EQ(CheckJoin(e, gaps, gaps_probe, "range 4 per row").method, "direct");
  gaps.values.back() = 4000;
  const JoinStats sparse = CheckJoin(e, gaps, gaps_probe, "range over 4 per row");
  EXPECT_EQ(sparse.method, CuckooPossible(e) ? "cuckoo" : "chained");
  if (CuckooPossible(e)) {
    EXPECT_NE(sparse.fallback_reason.find("more than 4"), std::string::npos)
        << sparse.fallback_reason;
  }
}

// Matches in the first, a middle and the last tile of the probe only: the
// pair writer's empty tiles leave early, and the last tile's count comes from
// the total. Direct and cuckoo (or chained) tables.
TEST_P(HashJoinTest, SparseMatchesInFirstMiddleAndLastTiles) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const Keys dense{ColumnType::Int32(), DenseKeys(1000, 0, 11), {}};
  const Keys spread{ColumnType::Int32(), DistinctKeys(1000, 0, 1 << 30, 12), {}};
  for (const Keys* build : {&dense, &spread}) {
    for (RowCount m : {20 * tile - 1, 20 * tile, 20 * tile + 1}) {
      Keys probe{ColumnType::Int32(), std::vector<std::int64_t>(m, -5), {}};
      for (RowCount at : {RowCount{0}, tile - 1, 7 * tile, m - 1})
        probe.values[at] = build->values[at % build->values.size()];
      CheckJoin(e, *build, probe,
                std::string(build == &dense ? "direct" : "spread") + " probe " + std::to_string(m));
    }
  }
}

TEST_P(HashJoinTest, DirectTableInt64NullsAndDuplicates) {
  Engine& e = engine();
  // INT64 keys at the top of the range: key - min must not overflow.
  const Keys top{ColumnType::Int64(), DenseKeys(3000, kInt64Max - 2999, 5), {}};
  Keys top_probe = ProbeOf(top, 2000, 0.7, 6, ColumnType::Int64());
  for (std::int64_t k : std::initializer_list<std::int64_t>{kInt64Max, kInt64Max - 2999,
                                                            kInt64Max - 3000, kInt64Min, 0LL})
    top_probe.values.push_back(k);
  EXPECT_EQ(CheckJoin(e, top, top_probe, "INT64 top").method, "direct");
  const Keys bottom{ColumnType::Int64(), DenseKeys(3000, kInt64Min, 7), {}};
  Keys bottom_probe = ProbeOf(bottom, 2000, 0.7, 8, ColumnType::Int64());
  for (std::int64_t k : std::initializer_list<std::int64_t>{kInt64Min, kInt64Min + 2999,
                                                            kInt64Min + 3000, kInt64Max, -1LL})
    bottom_probe.values.push_back(k);
  EXPECT_EQ(CheckJoin(e, bottom, bottom_probe, "INT64 bottom").method, "direct");

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
  EXPECT_EQ(CheckJoin(e, nulls, nulls_probe, "dense with NULLs").method, "direct");

  // One repeated key in a dense range: the direct insert finds it and the
  // join goes to the chained table without trying cuckoo.
  Keys repeat{ColumnType::Int32(), DenseKeys(20000, 0, 11), {}};
  repeat.values[12345] = repeat.values[678];
  const JoinStats stats = CheckJoin(e, repeat, ProbeOf(repeat, 9000, 0.8, 12), "one duplicate");
  EXPECT_EQ(stats.method, "chained");
  EXPECT_EQ(stats.fallback_reason, "duplicate build keys");
  EXPECT_EQ(stats.rebuilds, 0u);
}

TEST_P(HashJoinTest, ForcedRebuildsThenFallback) {
  Engine& e = engine();
  if (!CuckooPossible(e)) GTEST_SKIP() << "no 64-bit atomics: the cuckoo path never runs";
  const Keys build{ColumnType::Int32(), DistinctKeys(20000, 0, 1 << 30, 41), {}};
  const Keys probe = ProbeOf(build, 10000, 0.6, 42);
  // A full table, one eviction and no stash cannot hold 20000 keys.
  JoinOptions options;
  options.max_evictions = 1;
  options.stash_size = 0;
  options.load_factor = 1.0;
  options.max_rebuilds = 2;
  const Outcome got = DeviceJoin(e, build, probe, options);
  EXPECT_EQ(got.stats.method, "chained");
  EXPECT_EQ(got.stats.rebuilds, 2u);
  EXPECT_EQ(got.stats.fallback_reason, "cuckoo build failed after 2 rebuilds");
  EXPECT_EQ(got.pairs, CpuJoin(build, probe));
  // The default settings build the same keys without a fallback.
  const Outcome fine = DeviceJoin(e, build, probe, JoinOptions{});
  EXPECT_EQ(fine.stats.method, "cuckoo");
  EXPECT_EQ(fine.pairs, got.pairs);
}

TEST_P(HashJoinTest, StashAndRebuildsStillCorrect) {
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

TEST_P(HashJoinTest, OutputOverTwoToTheThirtyTwoPairsThrows) {
  Engine& e = engine();
  // 66000 x 66000 equal keys: 4,356,000,000 pairs > 2^32 - 1.
  const Keys build{ColumnType::Int32(), std::vector<std::int64_t>(66000, 3), {}};
  DeviceVector b = ToDevice(e, build);
  QueryContext context(e);
  try {
    HashJoin(context, View(b), View(b));
    FAIL() << "expected DeviceLimitError";
  } catch (const DeviceLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("4356000000 pairs"), std::string::npos)
        << error.what();
  }
}

TEST_P(HashJoinTest, RejectsNonIntegerKeys) {
  Engine& e = engine();
  DeviceVector d = UploadValues(e, ColumnType::Double(), std::vector<double>{1.0, 2.0});
  QueryContext context(e);
  EXPECT_THROW(HashJoin(context, View(d), View(d)), InvalidInputError);
}

CLQ_INSTANTIATE_DEVICE_TESTS(HashJoinTest);

}  // namespace
}  // namespace clq
