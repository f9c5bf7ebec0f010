#include "operators/hash_join.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
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

// HashJoin under every method and kernel variant: sizes, duplicates, skew,
// extreme keys, mixed widths, NULLs, limits, the plan.
class HashJoinTest : public DeviceTest {};

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
  if (e.info().loop_iteration_limit != 0) {
    // Such a device refuses a key repeated past its loops' reach rather than
    // end them early.
    EXPECT_THROW(CheckJoin(e, same, probe, "all equal"), DeviceLimitError);
    GTEST_SKIP() << e.info().name << " caps a work-item's loop iterations: keys repeated this "
                 << "often are refused there";
  }
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
  // The CPU plan's rank table joins the repeat through the dense multimap
  // over its ranks; the GPU plan's cuckoo table finds it and leaves.
  EXPECT_EQ(stats["default"].method, cpu ? "rank" : "chained");
  EXPECT_EQ(stats["rank"].method, DevicePlan(e).rank_repeats_densely ? "rank" : "chained");
  if (!cpu && CuckooPossible(e)) {
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
  CLQ_SKIP_WHERE_LOOPS_ARE_CAPPED(e);
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

TEST_P(HashJoinTest, UnorderedMatchesOptionAndLargeBucket) {
  Engine& e = engine();
  CLQ_SKIP_WHERE_LOOPS_ARE_CAPPED(e);
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
  EXPECT_EQ(stats.at("rank").method, "rank");
  EXPECT_EQ(stats.at("default").method,
            DevicePlan(e).cpu_kernels ? "rank" : (CuckooPossible(e) ? "cuckoo" : "chained"));
  // Every build key NULL.
  Keys all_null{ColumnType::Int64(), {1, 2, 3}, {1, 1, 1}};
  CheckJoin(e, all_null, Keys{ColumnType::Int64(), {1, 2, 3}, {}}, "all NULL build");
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

TEST_P(HashJoinTest, OutputOverTwoToTheThirtyTwoPairsThrows) {
  Engine& e = engine();
  CLQ_SKIP_WHERE_LOOPS_ARE_CAPPED(e);
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
  CLQ_SKIP_WHERE_LOOPS_ARE_CAPPED(e);
  const JoinInputs inputs{ColumnType::Int32(), ColumnType::Int64(), 1000, 5000};
  JoinOptions cpu, gpu;
  cpu.cpu_kernels = true;
  gpu.cpu_kernels = false;
  const JoinPlan cpu_plan = PlanJoin(e.info(), e.tuning(), inputs, cpu);
  const JoinPlan gpu_plan = PlanJoin(e.info(), e.tuning(), inputs, gpu);
  const auto names = [](const JoinPlan& plan) {
    std::vector<std::string> out;
    for (JoinMethod m : plan.methods)
      out.push_back(JoinMethodName(m));
    return out;
  };
  using Names = std::vector<std::string>;
  const bool cuckoo = CuckooPossible(e);
  const Names want_cpu = cuckoo ? Names{"direct", "rank", "dense", "cuckoo", "chained"}
                                : Names{"direct", "rank", "dense", "chained"};
  const Names want_gpu = cuckoo ? Names{"direct", "cuckoo", "chained"} : Names{"direct", "chained"};
  EXPECT_EQ(names(cpu_plan), want_cpu);
  EXPECT_EQ(names(gpu_plan), want_gpu);
  EXPECT_EQ(names(DevicePlan(e)), e.tuning().cpu_paths ? names(cpu_plan) : names(gpu_plan));
  const auto has = [](const JoinPlan& plan, const std::string& kernel) {
    return plan.Kernels().Contains(kernel);
  };
  EXPECT_TRUE(has(cpu_plan, "join_direct_probe_write"));
  EXPECT_TRUE(has(cpu_plan, "join_dense_probe_write"));
  EXPECT_TRUE(has(cpu_plan, "join_rank_probe_write"));
  EXPECT_FALSE(has(gpu_plan, "join_rank_mark"));
  EXPECT_FALSE(has(cpu_plan, "join_direct_insert"));
  EXPECT_TRUE(has(gpu_plan, "join_direct_insert"));
  EXPECT_FALSE(has(gpu_plan, "join_dense_count"));
  EXPECT_TRUE(has(gpu_plan, "hash_join_chain_probe_write"));
  EXPECT_EQ(has(cpu_plan, "join_cuckoo_probe_filtered"), cuckoo);
  EXPECT_FALSE(has(gpu_plan, "join_cuckoo_probe_filtered"));
  for (const JoinPlan* plan : {&cpu_plan, &gpu_plan}) {
    const KernelSet kernels = plan->Kernels();
    for (const std::vector<std::string>* list : {&kernels.always(), &kernels.when_needed()})
      for (const std::string& kernel : *list)
        EXPECT_NO_THROW(e.kernel(kernel)) << kernel;
  }
  // The first method's kernels always launch; the fallbacks' only when needed.
  const KernelSet gpu_kernels = gpu_plan.Kernels();
  const auto in = [](const std::vector<std::string>& list, const char* name) {
    return std::find(list.begin(), list.end(), name) != list.end();
  };
  EXPECT_TRUE(in(gpu_kernels.always(), "join_direct_insert"));
  EXPECT_TRUE(in(gpu_kernels.when_needed(), "hash_join_chain_probe_write"));
  EXPECT_EQ(cpu_plan.Describe().substr(0, 49), "direct (cpu kernels, at most 16 slots per build r");
  EXPECT_TRUE(
      PlanJoin(e.info(), e.tuning(), {ColumnType::Int32(), ColumnType::Int32(), 0, 9}).empty);
  EXPECT_TRUE(PlanJoin(e.info(), e.tuning(), {ColumnType::Int32(), ColumnType::Int32(), 0, 9})
                  .Kernels()
                  .empty());
  EXPECT_THROW(PlanJoin(e.info(), e.tuning(), {ColumnType::Double(), ColumnType::Int32(), 1, 1}),
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
