#include "operators/group_by.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <random>

#include "common/errors.hpp"
#include "kernels_cl/group_by_shared.h"
#include "kernels_cl/vm_shared.h"
#include "tests/sort/group_by_reference.hpp"
#include "tests/sort/sort_test_util.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using group_by_testing::Expected;
using group_by_testing::HostSpec;
using sort_testing::HostColumn;
using sort_testing::RandomColumn;
using sort_testing::Upload;

bool IsRealAggregate(std::uint32_t operation) {
  return operation == VM_AGG_SUM_R || operation == VM_AGG_MIN_R || operation == VM_AGG_MAX_R;
}

// How a check plans its GroupBy.
struct Variant {
  const char* name;
  GroupByOptions options;
  bool key_ranges = true;  // the plan knows the integer keys' ranges (kDirect possible)
};

std::vector<Variant> Variants() {
  std::vector<Variant> v;
  v.push_back({"direct", {GroupByStrategy::kDirect, {}, {}, {}}});
  v.push_back({"direct, no work-group tables", {GroupByStrategy::kDirect, false, {}, {}}});
  v.push_back({"hash", {GroupByStrategy::kHash, {}, {}, {}}, false});
  v.push_back({"hash, no work-group tables", {GroupByStrategy::kHash, false, {}, {}}, false});
  v.push_back({"hash, 16-slot work-group tables", {GroupByStrategy::kHash, {}, {}, 16}, false});
  v.push_back({"hash, 64-slot table", {GroupByStrategy::kHash, {}, 64, {}}, false});
  v.push_back({"sort", {GroupByStrategy::kSort, {}, {}, {}}});
  v.push_back(
      {"sort, groups folded one per work-item", {GroupByStrategy::kSort, {}, {}, {}, true}});
  return v;
}

class GroupByTest : public testing::DeviceTest {
 protected:
  // Runs GroupBy on `keys` with `specs` planned as `variant` and compares
  // every group and aggregate with the reference, bit for bit. Devices
  // without fp64 run no REAL aggregate (the planner refuses REAL there):
  // those specs are left out.
  GroupByResult Check(const std::vector<HostColumn>& keys, const std::vector<HostSpec>& all_specs,
                      RowCount rows, const Variant& variant, const std::string& what) {
    Engine& e = engine();
    QueryContext context(e);
    std::vector<HostSpec> specs;
    for (const HostSpec& s : all_specs)
      if (e.info().fp64 || !IsRealAggregate(s.operation)) specs.push_back(s);
    std::vector<DeviceVector> device_keys;
    std::vector<VectorView> key_views;
    std::vector<GroupKeyInfo> key_infos;
    for (const HostColumn& k : keys)
      device_keys.push_back(Upload(e, k, rows));
    for (std::size_t k = 0; k < keys.size(); ++k) {
      key_views.push_back(View(device_keys[k]));
      key_infos.push_back(KeyInfoOf(key_views.back(), variant.key_ranges
                                                          ? group_by_testing::RangeOf(keys[k], rows)
                                                          : std::nullopt));
    }
    std::vector<DeviceVector> arguments;
    std::vector<GroupAggregateSpec> device_specs;
    for (const HostSpec& s : specs) {
      GroupAggregateSpec spec;
      spec.operation = s.operation;
      spec.quantile = s.quantile;
      if (s.argument != nullptr) {
        arguments.push_back(Upload(e, *s.argument, rows));
        spec.argument = View(arguments.back());
      }
      device_specs.push_back(spec);
    }
    // Views taken after every upload: arguments may have moved.
    for (std::size_t i = 0, a = 0; i < specs.size(); ++i)
      if (specs[i].argument != nullptr) device_specs[i].argument = View(arguments[a++]);
    std::vector<GroupAggregateInfo> infos;
    for (const GroupAggregateSpec& spec : device_specs)
      infos.push_back(AggregateInfoOf(spec));
    const GroupByPlan plan =
        PlanGroupBy(e.info(), e.tuning(), key_infos, infos, rows, std::nullopt, variant.options);
    const std::string label = what + " [" + variant.name + ": " + plan.Describe() + "]";
    EXPECT_FALSE(plan.Kernels().empty());

    const Expected want = group_by_testing::Reference(keys, specs, rows);
    if (want.overflow) {
      EXPECT_THROW(GroupBy(context, plan, key_views, device_specs, rows), InvalidInputError)
          << label;
      return {};
    }
    GroupByResult result = GroupBy(context, plan, key_views, device_specs, rows);
    Compare(result, want, specs, label);
    return result;
  }

  void Compare(const GroupByResult& result, const Expected& want,
               const std::vector<HostSpec>& specs, const std::string& label) {
    Engine& e = engine();
    ASSERT_EQ(result.groups, want.first.size()) << label;
    ASSERT_EQ(DownloadRowIds(e, result.first_positions), want.first) << label;
    for (std::size_t s = 0; s < specs.size(); ++s) {
      const std::vector<std::int64_t> counts =
          DownloadValues<std::int64_t>(e, result.aggregates[s].counts);
      const std::vector<std::uint64_t> values =
          DownloadValues<std::uint64_t>(e, result.aggregates[s].values);
      for (std::size_t g = 0; g < want.first.size(); ++g) {
        const group_by_testing::ExpectedValue& w = want.values[s][g];
        ASSERT_EQ(counts[g], w.count) << label << " aggregate " << s << " group " << g;
        if (w.count == 0) continue;
        if (specs[s].operation == GROUP_AGG_QUANTILE &&
            specs[s].argument->type.type == DataType::kDouble) {
          // Numerically: the sort keeps -0.0 and 0.0 in either order.
          ASSERT_EQ(std::bit_cast<double>(values[g]), std::bit_cast<double>(w.bits))
              << label << " aggregate " << s << " group " << g;
          continue;
        }
        ASSERT_EQ(values[g], w.bits)
            << label << " aggregate " << s << " group " << g << " want "
            << std::bit_cast<double>(w.bits) << " got " << std::bit_cast<double>(values[g]);
      }
    }
  }

  void CheckAllVariants(const std::vector<HostColumn>& keys, const std::vector<HostSpec>& specs,
                        RowCount rows, const std::string& what) {
    for (const Variant& variant : Variants())
      Check(keys, specs, rows, variant, what);
  }
};

// COUNT(*), COUNT, SUM, MIN and MAX of `arg` (REAL, and integer ones for an
// integer argument).
std::vector<HostSpec> AllAggregates(const HostColumn& arg) {
  std::vector<HostSpec> specs = {{VM_AGG_COUNT, nullptr},
                                 {VM_AGG_COUNT, &arg},
                                 {VM_AGG_SUM_R, &arg},
                                 {VM_AGG_MIN_R, &arg},
                                 {VM_AGG_MAX_R, &arg}};
  if (arg.type.is_integer()) {
    specs.push_back({VM_AGG_SUM_I, &arg});
    specs.push_back({VM_AGG_MIN_I, &arg});
    specs.push_back({VM_AGG_MAX_I, &arg});
  }
  return specs;
}

// Arguments whose integer sums stay inside int64.
HostColumn SmallIntegers(ColumnType type, RowCount rows, double null_rate, std::mt19937_64& rng) {
  HostColumn c = RandomColumn(type, rows, 1000, null_rate, rng);
  for (auto& v : c.i64)
    v %= 1'000'000'007;
  return c;
}

TEST_P(GroupByTest, EveryKeyTypeAtEverySize) {
  std::mt19937_64 rng(31);
  const RowCount wg = engine().tuning().work_group_size;
  const RowCount tile = engine().tuning().tile_size();
  for (RowCount rows : {RowCount{0}, RowCount{1}, wg - 1, wg + 1, tile - 1, tile, tile + 1,
                        3 * tile + 5, RowCount{70000}}) {
    for (const ColumnType& type :
         {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Double(), ColumnType::Char(3)}) {
      const HostColumn key = RandomColumn(type, rows, 20, 0.1, rng);
      const HostColumn arg32 = SmallIntegers(ColumnType::Int32(), rows, 0.2, rng);
      const HostColumn arg64 = SmallIntegers(ColumnType::Int64(), rows, 0.0, rng);
      const HostColumn argd = RandomColumn(ColumnType::Double(), rows, 1000, 0.2, rng);
      const std::string what = "rows " + std::to_string(rows) + " key " + type.ToString();
      CheckAllVariants({key}, AllAggregates(arg32), rows, what + " argument INT32");
      CheckAllVariants({key}, AllAggregates(arg64), rows, what + " argument INT64");
      CheckAllVariants({key}, AllAggregates(argd), rows, what + " argument DOUBLE");
      CheckAllVariants({key}, {}, rows, what + " DISTINCT");
    }
  }
}

TEST_P(GroupByTest, OneGroupEveryRowItsOwnGroupAndSkew) {
  std::mt19937_64 rng(32);
  const RowCount rows = 5 * engine().tuning().tile_size() + 7;
  const HostColumn arg = SmallIntegers(ColumnType::Int64(), rows, 0.1, rng);
  HostColumn one;
  one.type = ColumnType::Int32();
  one.i32.assign(rows, 42);
  CheckAllVariants({one}, AllAggregates(arg), rows, "one group");
  CheckAllVariants({}, AllAggregates(arg), rows, "no keys");
  HostColumn own = one;
  for (RowCount r = 0; r < rows; ++r)
    own.i32[r] = static_cast<std::int32_t>((r * 7919) % rows) - 1000;
  CheckAllVariants({own}, AllAggregates(arg), rows, "every row its own group");
  // One group of most rows, the others tiny.
  HostColumn skew = one;
  for (RowCount r = 0; r < rows; ++r)
    skew.i32[r] = r % 8 == 0 ? static_cast<std::int32_t>(r) : 7;
  CheckAllVariants({skew}, AllAggregates(arg), rows, "skewed");
}

// More aggregates than one fold pass takes (HGB_MAX_ARGS): the later passes
// fold into work-group tables too, and must reach the device-wide table.
TEST_P(GroupByTest, AggregatesOverSeveralPasses) {
  std::mt19937_64 rng(33);
  const RowCount rows = 3 * engine().tuning().tile_size() + 5;
  const HostColumn first = SmallIntegers(ColumnType::Int64(), rows, 0.1, rng);
  const HostColumn second = SmallIntegers(ColumnType::Int32(), rows, 0.0, rng);
  std::vector<HostSpec> specs = AllAggregates(first);
  for (const HostSpec& spec : AllAggregates(second))
    specs.push_back(spec);
  ASSERT_GT(specs.size(), std::size_t{HGB_MAX_ARGS + 1});
  HostColumn few;
  few.type = ColumnType::Int32();
  for (RowCount r = 0; r < rows; ++r)
    few.i32.push_back(static_cast<std::int32_t>((r * 31) % 10));
  CheckAllVariants({few}, specs, rows, "10 groups, several passes");
  HostColumn many = few;
  for (RowCount r = 0; r < rows; ++r)
    many.i32[r] = static_cast<std::int32_t>((r * 7919) % (rows / 3)) * 1000;
  CheckAllVariants({many}, specs, rows, "many groups, several passes");
}

TEST_P(GroupByTest, NullsExtremesZerosAndSeveralKeys) {
  std::mt19937_64 rng(33);
  const RowCount rows = 2 * engine().tuning().tile_size() + 3;
  const HostColumn arg = RandomColumn(ColumnType::Double(), rows, 50, 0.2, rng);
  // INT64 extremes, -1 and 0 as keys.
  HostColumn extremes;
  extremes.type = ColumnType::Int64();
  const std::int64_t values[] = {std::numeric_limits<std::int64_t>::min(),
                                 std::numeric_limits<std::int64_t>::max(), -1, 0};
  for (RowCount r = 0; r < rows; ++r)
    extremes.i64.push_back(values[(r * 13) % 4]);
  CheckAllVariants({extremes}, AllAggregates(arg), rows, "INT64 extremes");
  // DOUBLE keys where -0.0 and 0.0 are one group, NULLs another.
  HostColumn zeros;
  zeros.type = ColumnType::Double();
  for (RowCount r = 0; r < rows; ++r)
    zeros.f64.push_back(r % 3 == 0 ? -0.0 : r % 3 == 1 ? 0.0 : 1.5);
  zeros.nulls.assign(rows, 0);
  for (RowCount r = 0; r < rows; r += 5)
    zeros.nulls[r] = 1;
  CheckAllVariants({zeros}, AllAggregates(arg), rows, "DOUBLE -0.0 and 0.0");
  // Every key NULL: one group; several keys of every type.
  HostColumn all_null = RandomColumn(ColumnType::Int32(), rows, 4, 0.0, rng);
  all_null.nulls.assign(rows, 1);
  CheckAllVariants({all_null}, AllAggregates(arg), rows, "all NULL keys");
  const HostColumn a = RandomColumn(ColumnType::Int64(), rows, 4, 0.2, rng);
  const HostColumn b = RandomColumn(ColumnType::Char(2), rows, 3, 0.2, rng);
  const HostColumn c = RandomColumn(ColumnType::Int32(), rows, 5, 0.1, rng);
  const HostColumn d = RandomColumn(ColumnType::Double(), rows, 2, 0.1, rng);
  CheckAllVariants({a, b}, AllAggregates(arg), rows, "two keys");
  CheckAllVariants({c, a, d, b}, AllAggregates(arg), rows, "four keys");
  CheckAllVariants({c, a, d, b, c}, {{VM_AGG_COUNT, nullptr}}, rows, "five keys (sort)");
  HostColumn all_null_arg = arg;
  all_null_arg.nulls.assign(rows, 1);
  CheckAllVariants({c}, AllAggregates(all_null_arg), rows, "all NULL arguments");
}

// Group counts at, just under and past a work-group table's slots.
TEST_P(GroupByTest, GroupsAroundTheWorkGroupTable) {
  std::mt19937_64 rng(34);
  const RowCount rows = 3 * engine().tuning().tile_size() + 11;
  const HostColumn arg = SmallIntegers(ColumnType::Int32(), rows, 0.1, rng);
  for (const std::uint32_t slots : {64u, 256u}) {
    for (const std::uint32_t groups : {slots - 1, slots, slots + 1, 2 * slots}) {
      HostColumn key;
      key.type = ColumnType::Int32();
      for (RowCount r = 0; r < rows; ++r)
        key.i32.push_back(static_cast<std::int32_t>((r * 31) % groups));
      const std::string what =
          std::to_string(groups) + " groups, " + std::to_string(slots) + "-slot work-group tables";
      Check({key}, AllAggregates(arg), rows, {"direct", {GroupByStrategy::kDirect, {}, {}, slots}},
            what);
      Check({key}, AllAggregates(arg), rows,
            {"hash", {GroupByStrategy::kHash, {}, {}, slots}, false}, what);
    }
  }
}

TEST_P(GroupByTest, QuantileSortsAndTheRestMatches) {
  std::mt19937_64 rng(35);
  const RowCount rows = 3 * engine().tuning().tile_size() + 1;
  const HostColumn key = RandomColumn(ColumnType::Int32(), rows, 30, 0.1, rng);
  for (const ColumnType& type : {ColumnType::Int32(), ColumnType::Double()}) {
    const HostColumn arg = RandomColumn(type, rows, 1000, 0.2, rng);
    std::vector<HostSpec> specs = AllAggregates(arg);
    specs.push_back({GROUP_AGG_QUANTILE, &arg, 0.5});
    specs.push_back({GROUP_AGG_QUANTILE, &arg, 0.9});
    const GroupByResult result =
        Check({key}, specs, rows, {"default", {}}, "QUANTILE of " + type.ToString());
    EXPECT_EQ(result.strategy, GroupByStrategy::kSort);
  }
}

// The sorted fold (devices without 64-bit atomics or with capped loops)
// over groups that run across chunks of sorted rows and records, up to
// three levels of merges: one group, every row its own, runs of a chunk's
// length and a little more or less, and one row per chunk boundary.
TEST_P(GroupByTest, SortedFoldAcrossChunksAndLevels) {
  std::mt19937_64 rng(37);
  const Variant folded{"sorted fold", {GroupByStrategy::kSort, {}, {}, {}, true}};
  for (const RowCount rows :
       {RowCount{1}, RowCount{255}, RowCount{256}, RowCount{257}, RowCount{70001}}) {
    const HostColumn arg = SmallIntegers(ColumnType::Int64(), rows, 0.1, rng);
    for (const std::uint32_t run : {0u, 1u, 255u, 256u, 257u, 33000u}) {
      HostColumn key;
      key.type = ColumnType::Int32();
      for (RowCount r = 0; r < rows; ++r)
        key.i32.push_back(run == 0 ? 7 : static_cast<std::int32_t>((r / run) * 3 % 1000003));
      Check({key}, AllAggregates(arg), rows, folded,
            std::to_string(rows) + " rows, runs of " + std::to_string(run));
    }
  }
}

// A plan whose key range is wrong (the range analysis is trusted, but a
// wrong bound must not write outside the table) and a hash table too small
// for the groups: both fall back and say so.
TEST_P(GroupByTest, DataForcedFallbacksAreReported) {
  if (!engine().info().int64_atomics || engine().info().loop_iteration_limit != 0)
    GTEST_SKIP() << "GROUP BY always sorts on this device (no 64-bit atomics, or capped loops): "
                    "no table to fall back from";
  std::mt19937_64 rng(36);
  const RowCount rows = 2 * engine().tuning().tile_size() + 9;
  const HostColumn arg = SmallIntegers(ColumnType::Int64(), rows, 0.0, rng);
  HostColumn key;
  key.type = ColumnType::Int32();
  for (RowCount r = 0; r < rows; ++r)
    key.i32.push_back(static_cast<std::int32_t>(r % 500));
  Engine& e = engine();
  QueryContext context(e);
  DeviceVector k = Upload(e, key, rows);
  DeviceVector a = Upload(e, arg, rows);
  const std::vector<GroupAggregateSpec> specs = {{VM_AGG_SUM_I, View(a)}};
  const GroupByPlan wrong = PlanGroupBy(e.info(), e.tuning(), {KeyInfoOf(View(k), IntRange{0, 99})},
                                        {AggregateInfoOf(specs[0])}, rows, std::nullopt);
  ASSERT_EQ(wrong.strategy, GroupByStrategy::kDirect);
  const GroupByResult ranged = GroupBy(context, wrong, {View(k)}, specs, rows);
  EXPECT_EQ(ranged.groups, 500u);
  EXPECT_EQ(ranged.strategy, GroupByStrategy::kSort);
  EXPECT_NE(ranged.fallback.find("range"), std::string::npos) << ranged.fallback;
  GroupByOptions small;
  small.hash_slots = 64;
  const GroupByPlan tiny = PlanGroupBy(e.info(), e.tuning(), {KeyInfoOf(View(k))},
                                       {AggregateInfoOf(specs[0])}, rows, std::nullopt, small);
  ASSERT_EQ(tiny.strategy, GroupByStrategy::kHash);
  const GroupByResult grown = GroupBy(context, tiny, {View(k)}, specs, rows);
  EXPECT_EQ(grown.groups, 500u);
  EXPECT_EQ(grown.strategy, GroupByStrategy::kHash);
  EXPECT_NE(grown.fallback.find("overflowed"), std::string::npos) << grown.fallback;
  Check({key}, {{VM_AGG_SUM_I, &arg}}, rows, {"tiny hash", small, false}, "grown table");
}

// Every row its own group, in a hash table first sized for 64: the table
// that replaces a full one is sized from the groups it took per row folded
// (at most 64 times larger each time), so the groups fit after at most two
// rebuilds where growing 4x at a time took four.
TEST_P(GroupByTest, AFullTableIsRebuiltForTheGroupsItsRowsSuggest) {
  if (!engine().info().int64_atomics || engine().info().loop_iteration_limit != 0)
    GTEST_SKIP() << "GROUP BY always sorts on this device (no 64-bit atomics, or capped loops)";
  std::mt19937_64 rng(37);
  const RowCount rows = 8 * engine().tuning().tile_size() + 5;
  const HostColumn arg = SmallIntegers(ColumnType::Int64(), rows, 0.0, rng);
  HostColumn key;
  key.type = ColumnType::Int64();
  for (RowCount r = 0; r < rows; ++r)
    key.i64.push_back(static_cast<std::int64_t>(rng()));  // distinct with near certainty
  Engine& e = engine();
  QueryContext context(e);
  DeviceVector k = Upload(e, key, rows);
  DeviceVector a = Upload(e, arg, rows);
  const std::vector<GroupAggregateSpec> specs = {{VM_AGG_SUM_I, View(a)}};
  GroupByOptions small;
  small.hash_slots = 64;
  const GroupByPlan plan = PlanGroupBy(e.info(), e.tuning(), {KeyInfoOf(View(k))},
                                       {AggregateInfoOf(specs[0])}, rows, std::nullopt, small);
  ASSERT_EQ(plan.strategy, GroupByStrategy::kHash);
  const GroupByResult grown = GroupBy(context, plan, {View(k)}, specs, rows);
  EXPECT_EQ(grown.groups, rows);
  EXPECT_EQ(grown.strategy, GroupByStrategy::kHash) << grown.fallback;
  const bool at_most_two = grown.fallback.find("(rebuild 1)") != std::string::npos ||
                           grown.fallback.find("(rebuild 2)") != std::string::npos;
  EXPECT_TRUE(at_most_two) << grown.fallback;
  Check({key}, {{VM_AGG_SUM_I, &arg}}, rows, {"tiny hash", small, false}, "rows their own groups");
}

CLQ_INSTANTIATE_DEVICE_TESTS(GroupByTest);

}  // namespace
}  // namespace clq
