// Helpers of the join tests (hash_join_test.cpp, join_tables_test.cpp): key
// vectors, an independent CPU join, the configurations every join runs
// under and the check of a join against the CPU one.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <unordered_map>
#include <utility>
#include <vector>

#include "operators/hash_join.hpp"
#include "runtime/engine.hpp"

namespace clq::join_test {

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

inline DeviceVector ToDevice(Engine& e, const Keys& keys) {
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
inline std::vector<Pair> CpuJoin(const Keys& build, const Keys& probe) {
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

inline Outcome DeviceJoin(Engine& e, const Keys& build, const Keys& probe,
                          const JoinOptions& options) {
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

inline std::vector<Config> Configs() {
  const auto only = [](std::vector<JoinMethod> methods, std::optional<bool> cpu = {}) {
    JoinOptions options;
    options.methods = std::move(methods);
    options.cpu_kernels = cpu;
    return options;
  };
  return {{"default", JoinOptions{}},
          {"direct/gpu", only({JoinMethod::kDirect}, false)},
          {"direct/cpu", only({JoinMethod::kDirect}, true)},
          {"rank", only({JoinMethod::kRank})},
          {"dense", only({JoinMethod::kDense})},
          {"cuckoo/gpu", only({JoinMethod::kCuckoo}, false)},
          {"cuckoo/cpu", only({JoinMethod::kCuckoo}, true)},
          {"chained", only({JoinMethod::kChained})}};
}

// Runs the join under every configuration; checks the pairs (exactly, so in
// the documented order: probe ascending, then build ascending) and the
// stats, and the chained table without ordered matches (the multiset, probe
// order). Returns each configuration's stats by name.
inline std::map<std::string, JoinStats> CheckJoin(Engine& e, const Keys& build, const Keys& probe,
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
inline JoinPlan DevicePlan(Engine& e) {
  return PlanJoin(e.info(), e.tuning(), JoinInputs{ColumnType::Int32(), ColumnType::Int32(), 1, 1});
}

inline bool CuckooPossible(Engine& e) {
  return e.info().int64_atomics;
}

// Devices that cap a work-item's loop iterations (llvmpipe) refuse build
// keys repeated more than a few times and leave out the dense multimap
// (operators/join_chained.cpp, PlanJoin): tests of those skip there.
#define CLQ_SKIP_WHERE_LOOPS_ARE_CAPPED(e)                                                    \
  if ((e).info().loop_iteration_limit != 0)                                                   \
  GTEST_SKIP() << (e).info().name << " caps a work-item's loop iterations: it refuses joins " \
               << "of keys repeated more than a few hundred times and has no dense multimap"

// `n` distinct keys from [lo, hi], shuffled.
inline std::vector<std::int64_t> DistinctKeys(std::size_t n, std::int64_t lo, std::int64_t hi,
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
inline Keys ProbeOf(const Keys& build, std::size_t m, double fraction, std::uint64_t seed,
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

// Keys base, base + 1, ..., base + n - 1 in a random order.
inline std::vector<std::int64_t> DenseKeys(std::size_t n, std::int64_t base, std::uint64_t seed) {
  std::vector<std::int64_t> keys(n);
  for (std::size_t i = 0; i < n; ++i)
    keys[i] = base + static_cast<std::int64_t>(i);
  std::shuffle(keys.begin(), keys.end(), std::mt19937_64(seed));
  return keys;
}

}  // namespace clq::join_test
