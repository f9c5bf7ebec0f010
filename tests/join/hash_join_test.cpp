#include "operators/hash_join.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <numeric>
#include <optional>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <unordered_map>
#include <utility>
#include <vector>

#include "kernels_cl/join_shared.h"
#include "runtime/device_tuning.hpp"
#include "runtime/errors.hpp"
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

// The configurations every join runs under: the device's plan, then each
// method alone (the chained table behind it) with both kernel variants of
// the direct table, so that the CPU and the GPU kernels run on any device.
struct Config {
  std::string name;
  JoinOptions options;
};

std::vector<Config> Configs() {
  const auto only = [](std::vector<JoinMethod> methods, std::optional<bool> cpu = {}) {
    JoinOptions options;
    options.methods = std::move(methods);
    options.cpu_kernels = cpu;
    return options;
  };
  return {{"default", JoinOptions{}},
          {"direct/gpu", only({JoinMethod::kDirect}, false)},
          {"direct/cpu", only({JoinMethod::kDirect}, true)},
          {"dense", only({JoinMethod::kDense})},
          {"cuckoo/gpu", only({JoinMethod::kCuckoo}, false)},
          {"cuckoo/cpu", only({JoinMethod::kCuckoo}, true)},
          {"chained", only({JoinMethod::kChained})}};
}

// Runs the join under every configuration; checks the pairs (exactly, so in
// the documented order: probe ascending, then build ascending) and the
// stats, and the chained table without ordered matches (the multiset, probe
// order). Returns each configuration's stats by name.
std::map<std::string, JoinStats> CheckJoin(Engine& e, const Keys& build, const Keys& probe,
                                           const std::string& what) {
  const std::vector<Pair> want = CpuJoin(build, probe);
  std::map<std::string, JoinStats> stats;
  for (const Config& config : Configs()) {
    Outcome got = DeviceJoin(e, build, probe, config.options);
    const std::string label = what + " [" + config.name + "] method " + got.stats.method;
    EXPECT_EQ(got.pairs.size(), want.size()) << label;
    EXPECT_EQ(got.pairs, want) << label;
    EXPECT_EQ(got.stats.output_rows, want.size()) << label;
    EXPECT_EQ(got.stats.build_rows, build.values.size()) << label;
    EXPECT_EQ(got.stats.probe_rows, probe.values.size()) << label;
    if (!build.values.empty() && !probe.values.empty() && config.name != "default") {
      const std::string forced = config.name.substr(0, config.name.find('/'));
      EXPECT_TRUE(got.stats.method == forced || got.stats.method == "chained") << label;
    }
    stats[config.name] = got.stats;
  }
  JoinOptions unordered;
  unordered.methods = {JoinMethod::kChained};
  unordered.ordered_matches = false;
  const Outcome loose = DeviceJoin(e, build, probe, unordered);
  std::vector<Pair> got_sorted = loose.pairs, want_sorted = want;
  std::sort(got_sorted.begin(), got_sorted.end());
  std::sort(want_sorted.begin(), want_sorted.end());
  EXPECT_EQ(got_sorted, want_sorted) << what << " [chained, unordered]";
  EXPECT_TRUE(std::is_sorted(loose.pairs.begin(), loose.pairs.end(),
                             [](Pair a, Pair b) { return a.second < b.second; }))
      << what << " [chained, unordered]";
  return stats;
}

// The device's own plan for keys of these types.
JoinPlan DevicePlan(Engine& e) {
  return PlanJoin(e.info(), JoinInputs{ColumnType::Int32(), ColumnType::Int32(), 1, 1});
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
    const JoinStats stats =
        CheckJoin(e, build, probe, "fraction " + std::to_string(fraction))["default"];
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
  const Keys empty64{ColumnType::Int64(), {}, {}};
  for (const auto& [build, probe, what] :
       {std::tuple{&none, &some, "empty build"}, std::tuple{&some, &none, "empty probe"},
        std::tuple{&none, &none, "both empty"}, std::tuple{&empty64, &some, "empty INT64 build"}}) {
    for (const auto& [config, stats] : CheckJoin(e, *build, *probe, what))
      EXPECT_EQ(stats.method, "empty") << what << " [" << config << "]";
  }
}

TEST_P(HashJoinTest, HeavyDuplicates) {
  Engine& e = engine();
  const bool cpu = DevicePlan(e).cpu_kernels;
  // Every build key equal: each matching probe row matches all build rows.
  Keys same{ColumnType::Int32(), std::vector<std::int64_t>(3000, 42), {}};
  Keys probe{ColumnType::Int32(), {}, {}};
  for (int j = 0; j < 200; ++j)
    probe.values.push_back(j % 2 == 0 ? 42 : j);
  auto stats = CheckJoin(e, same, probe, "all equal");
  EXPECT_EQ(stats["default"].method, cpu ? "dense" : "chained");
  EXPECT_EQ(stats["default"].fallback_reason, "direct: duplicate build keys");
  EXPECT_EQ(stats["default"].output_rows, 100u * 3000u);
  EXPECT_EQ(stats["dense"].method, "dense");
  EXPECT_EQ(stats["direct/cpu"].fallback_reason, "direct: duplicate build keys");
  EXPECT_EQ(stats["direct/gpu"].fallback_reason, "direct: duplicate build keys");
  if (CuckooPossible(e)) {
    EXPECT_EQ(stats["cuckoo/cpu"].fallback_reason, "cuckoo: duplicate build keys");
    EXPECT_EQ(stats["cuckoo/gpu"].fallback_reason, "cuckoo: duplicate build keys");
  }

  // Many-to-many over a small key domain, INT64.
  std::mt19937_64 rng(5);
  Keys build{ColumnType::Int64(), {}, {}};
  Keys many{ColumnType::Int64(), {}, {}};
  for (int i = 0; i < 2500; ++i)
    build.values.push_back(static_cast<std::int64_t>(rng() % 37));
  for (int j = 0; j < 1500; ++j)
    many.values.push_back(static_cast<std::int64_t>(rng() % 50));
  EXPECT_EQ(CheckJoin(e, build, many, "many-to-many")["default"].method, cpu ? "dense" : "chained");

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
  EXPECT_EQ(stats["default"].method, "chained");
  if (CuckooPossible(e)) {
    EXPECT_NE(stats["default"].fallback_reason.find("cuckoo: duplicate build keys"),
              std::string::npos)
        << stats["default"].fallback_reason;
  }
}

// Skew: one key with many duplicates beside unique keys, so that one bucket
// (dense, chained) holds most build rows and the others one each; the build
// spans several dense chunks, whose order a probe row's matches must keep.
TEST_P(HashJoinTest, SkewedKeysAndUnequalBuckets) {
  Engine& e = engine();
  Keys build{ColumnType::Int32(), {}, {}};
  for (std::int64_t i = 0; i < 300000; ++i)
    build.values.push_back(i % 101 == 0 ? static_cast<std::int64_t>(i / 101 % 3000) : 77);
  Keys probe{ColumnType::Int64(), {}, {}};
  for (std::int64_t j = 0; j < 5000; ++j)
    probe.values.push_back(j % 997 == 3 ? 77 : j % 3100 - 50);
  const auto stats = CheckJoin(e, build, probe, "one heavy key");
  EXPECT_EQ(stats.at("dense").method, "dense");
  // The same heavy key on both sides, INT64 build with NULLs.
  Keys both{ColumnType::Int64(), std::vector<std::int64_t>(5000, -3), {}};
  both.nulls.assign(both.values.size(), 0);
  for (std::size_t i = 0; i < both.values.size(); i += 2) {
    both.values[i] = static_cast<std::int64_t>(i);
    both.nulls[i] = i % 4 == 0 ? 1 : 0;
  }
  Keys heavy_probe{ColumnType::Int32(), std::vector<std::int64_t>(300, -3), {}};
  heavy_probe.values[7] = 6;
  heavy_probe.values[299] = 8;
  CheckJoin(e, both, heavy_probe, "heavy key both sides");
}

// The dense multimap's ranges: keys of JOIN_DENSE_MAX_BUCKETS values are
// counted in local memory, one more value in global memory (one chunk), and
// past the direct table's values per build row it does not fit; INT64 keys
// at the ends of the range.
TEST_P(HashJoinTest, DenseMultimapRange) {
  Engine& e = engine();
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
  unordered.methods = {JoinMethod::kChained};
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
  for (const Config& config : Configs())
    EXPECT_EQ(DeviceJoin(e, build, probe, config.options).pairs, want) << config.name;
}

TEST_P(HashJoinTest, ExtremeKeys) {
  Engine& e = engine();
  const Keys b32{ColumnType::Int32(), {kInt32Min, kInt32Max, 0, -1, 1, kInt32Min + 1}, {}};
  const Keys p32{
      ColumnType::Int32(), {kInt32Max, 5, kInt32Min, -1, kInt32Max, 0, kInt32Max - 1}, {}};
  EXPECT_EQ(CheckJoin(e, b32, p32, "INT32 extremes")["default"].method,
            CuckooPossible(e) ? "cuckoo" : "chained");

  // INT64 keys spanning more than 2^32: chained.
  const Keys b64{
      ColumnType::Int64(), {kInt64Min, kInt64Max, 0, -1, 1, kInt64Min + 1, 1LL << 40}, {}};
  const Keys p64{ColumnType::Int64(),
                 {kInt64Max, kInt64Min, 1LL << 40, 0, (1LL << 40) + 1, kInt64Max, -1},
                 {}};
  const JoinStats wide = CheckJoin(e, b64, p64, "INT64 extremes")["default"];
  EXPECT_EQ(wide.method, "chained");
  if (CuckooPossible(e)) {
    EXPECT_NE(wide.fallback_reason.find("cuckoo: build keys span more than 2^32 values"),
              std::string::npos)
        << wide.fallback_reason;
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
  EXPECT_EQ(CheckJoin(e, narrow, probe, "INT64 narrow range")["default"].method,
            CuckooPossible(e) ? "cuckoo" : "chained");

  // INT64 build at the very top and bottom of the range, span exactly 2^32 - 1.
  const Keys top{ColumnType::Int64(), {kInt64Max, kInt64Max - 0xFFFFFFFFLL, kInt64Max - 7}, {}};
  const Keys top_probe{
      ColumnType::Int64(), {kInt64Max - 7, kInt64Max, kInt64Min, kInt64Max - 0x100000000LL}, {}};
  EXPECT_EQ(CheckJoin(e, top, top_probe, "INT64 top")["default"].method,
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
  // Small domains (dense multimap), INT32 build and INT64 probe keys that
  // equal a build key modulo 2^32.
  Keys small{ColumnType::Int32(), {}, {}};
  for (int i = 0; i < 3000; ++i)
    small.values.push_back(i % 50 - 25);
  Keys small_probe{ColumnType::Int64(), {}, {}};
  for (std::int64_t j = 0; j < 400; ++j)
    small_probe.values.push_back(j % 2 == 0 ? j % 60 - 30 : (j % 60 - 30) + (1LL << 32));
  CheckJoin(e, small, small_probe, "small domain, mixed widths");
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
  const auto stats = CheckJoin(e, unique, uprobe, "unique with NULLs");
  EXPECT_EQ(stats.at("cuckoo/cpu").method, CuckooPossible(e) ? "cuckoo" : "chained");
  EXPECT_EQ(stats.at("cuckoo/gpu").method, CuckooPossible(e) ? "cuckoo" : "chained");
  EXPECT_EQ(stats.at("default").method, CuckooPossible(e) ? "cuckoo" : "chained");
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
        PlanJoin(e.info(), {ColumnType::Int32(), ColumnType::Int32(), 1, 1}, options)
            .options.direct_slots_per_row;
    EXPECT_EQ(per_row, cpu ? 16.0 : 4.0);
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
  }
}

// Matches in the first, a middle and the last tile of the probe only: the
// pair writers' empty tiles leave early, and the last tile's count comes
// from the total. Every table.
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
    const bool dense = config == std::string("default") && DevicePlan(e).cpu_kernels;
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

TEST_P(HashJoinTest, ForcedRebuildsThenFallback) {
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

TEST_P(HashJoinTest, OutputOverTwoToTheThirtyTwoPairsThrows) {
  Engine& e = engine();
  // 66000 x 66000 equal keys: 4,356,000,000 pairs > 2^32 - 1, whichever
  // table counts them.
  const Keys build{ColumnType::Int32(), std::vector<std::int64_t>(66000, 3), {}};
  DeviceVector b = ToDevice(e, build);
  QueryContext context(e);
  for (const Config& config : Configs()) {
    try {
      HashJoin(context, View(b), View(b), config.options);
      ADD_FAILURE() << "expected DeviceLimitError [" << config.name << "]";
    } catch (const DeviceLimitError& error) {
      EXPECT_NE(std::string(error.what()).find("4356000000 pairs"), std::string::npos)
          << error.what() << " [" << config.name << "]";
    }
  }
}

TEST_P(HashJoinTest, PlanListsMethodsAndKernels) {
  Engine& e = engine();
  const JoinInputs inputs{ColumnType::Int32(), ColumnType::Int64(), 1000, 5000};
  JoinOptions cpu, gpu;
  cpu.cpu_kernels = true;
  gpu.cpu_kernels = false;
  const JoinPlan cpu_plan = PlanJoin(e.info(), inputs, cpu);
  const JoinPlan gpu_plan = PlanJoin(e.info(), inputs, gpu);
  const auto names = [](const JoinPlan& plan) {
    std::vector<std::string> out;
    for (JoinMethod m : plan.methods)
      out.push_back(JoinMethodName(m));
    return out;
  };
  using Names = std::vector<std::string>;
  const bool cuckoo = CuckooPossible(e);
  const Names want_cpu =
      cuckoo ? Names{"direct", "dense", "cuckoo", "chained"} : Names{"direct", "dense", "chained"};
  const Names want_gpu = cuckoo ? Names{"direct", "cuckoo", "chained"} : Names{"direct", "chained"};
  EXPECT_EQ(names(cpu_plan), want_cpu);
  EXPECT_EQ(names(gpu_plan), want_gpu);
  EXPECT_EQ(names(DevicePlan(e)), UseCpuKernelPaths(e.info()) ? names(cpu_plan) : names(gpu_plan));
  const auto has = [](const JoinPlan& plan, const std::string& kernel) {
    const std::vector<std::string> kernels = plan.Kernels();
    return std::find(kernels.begin(), kernels.end(), kernel) != kernels.end();
  };
  EXPECT_TRUE(has(cpu_plan, "join_direct_probe_write"));
  EXPECT_TRUE(has(cpu_plan, "join_dense_probe_write"));
  EXPECT_FALSE(has(cpu_plan, "join_direct_insert"));
  EXPECT_TRUE(has(gpu_plan, "join_direct_insert"));
  EXPECT_FALSE(has(gpu_plan, "join_dense_count"));
  EXPECT_TRUE(has(gpu_plan, "hash_join_chain_probe_write"));
  EXPECT_EQ(has(cpu_plan, "join_cuckoo_probe_filtered"), cuckoo);
  EXPECT_FALSE(has(gpu_plan, "join_cuckoo_probe_filtered"));
  for (const JoinPlan* plan : {&cpu_plan, &gpu_plan})
    for (const std::string& kernel : plan->Kernels())
      EXPECT_NO_THROW(e.kernel(kernel)) << kernel;
  EXPECT_EQ(cpu_plan.Describe().substr(0, 49), "direct (cpu kernels, at most 16 slots per build r");
  EXPECT_TRUE(PlanJoin(e.info(), {ColumnType::Int32(), ColumnType::Int32(), 0, 9}).empty);
  EXPECT_TRUE(
      PlanJoin(e.info(), {ColumnType::Int32(), ColumnType::Int32(), 0, 9}).Kernels().empty());
  EXPECT_THROW(PlanJoin(e.info(), {ColumnType::Double(), ColumnType::Int32(), 1, 1}),
               InvalidInputError);
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
