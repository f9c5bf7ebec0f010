// GroupBy's exact arithmetic: integer SUM raises exactly when a group's total
// leaves int64 (whatever the order of additions), REAL SUM is the correctly
// rounded sum of the group's values, and both are the same bits on another
// work-group geometry and kernel path.
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdlib>
#include <random>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/group_by.hpp"
#include "tests/sort/group_by_reference.hpp"
#include "tests/sort/sort_test_util.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using sort_testing::HostColumn;
using sort_testing::Upload;

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();

const GroupByStrategy kStrategies[] = {GroupByStrategy::kDirect, GroupByStrategy::kHash,
                                       GroupByStrategy::kSort};

HostColumn Int32Column(std::vector<std::int32_t> values) {
  HostColumn c;
  c.type = ColumnType::Int32();
  c.i32 = std::move(values);
  return c;
}

// SUM (and, for REAL, MIN and MAX) per key on `strategy`, downloaded.
struct Sums {
  std::vector<std::uint64_t> sum, min, max;
  RowCount groups = 0;
};
Sums RunSums(Engine& e, const HostColumn& key, const HostColumn& arg, GroupByStrategy strategy,
             bool work_group_tables = true) {
  QueryContext context(e);
  const RowCount rows = key.i32.size();
  DeviceVector k = Upload(e, key, rows);
  DeviceVector a = Upload(e, arg, rows);
  const bool real = arg.type.type == DataType::kDouble;
  std::vector<GroupAggregateSpec> specs = {
      {static_cast<std::uint32_t>(real ? VM_AGG_SUM_R : VM_AGG_SUM_I), View(a)}};
  if (real) {
    specs.push_back({VM_AGG_MIN_R, View(a)});
    specs.push_back({VM_AGG_MAX_R, View(a)});
  }
  std::vector<GroupAggregateInfo> infos;
  for (const GroupAggregateSpec& s : specs)
    infos.push_back(AggregateInfoOf(s));
  GroupByOptions options;
  options.strategy = strategy;
  options.work_group_tables = work_group_tables;
  const GroupByPlan plan =
      PlanGroupBy(e.info(), e.tuning(), {KeyInfoOf(View(k), group_by_testing::RangeOf(key, rows))},
                  infos, rows, std::nullopt, options);
  const GroupByResult result = GroupBy(context, plan, {View(k)}, specs, rows);
  Sums sums;
  sums.groups = result.groups;
  sums.sum = DownloadValues<std::uint64_t>(e, result.aggregates[0].values);
  if (real) {
    sums.min = DownloadValues<std::uint64_t>(e, result.aggregates[1].values);
    sums.max = DownloadValues<std::uint64_t>(e, result.aggregates[2].values);
  }
  return sums;
}

class GroupByExactTest : public testing::DeviceTest {};

TEST_P(GroupByExactTest, IntegerSumRaisesExactlyWhenATotalLeavesInt64) {
  Engine& e = engine();
  // Many rows per group, so that work-groups and tables split every group:
  // running sums pass the int64 edge on the way while the totals land on it.
  const RowCount rows = 4 * e.tuning().tile_size() + 3;
  HostColumn key = Int32Column(std::vector<std::int32_t>(rows));
  HostColumn arg;
  arg.type = ColumnType::Int64();
  arg.i64.assign(rows, 0);
  // Group 0: kMax, kMax, -kMax, kMax, ... (running sums kMax, 2 kMax, ...);
  // group 1: kMin, -kMax, kMax, -kMax, ... (kMin, 2 kMin + 1, ...). The last
  // value of each makes the total exactly kMax and kMin (0, -kMax or kMax).
  for (RowCount r = 0; r < rows; ++r) {
    key.i32[r] = static_cast<std::int32_t>(r % 2);
    const RowCount i = r / 2;
    if (r % 2 == 0)
      arg.i64[r] = i == 0 || i % 2 == 1 ? kMax : -kMax;
    else
      arg.i64[r] = i == 0 ? kMin : i % 2 == 1 ? -kMax : kMax;
  }
  for (const std::int32_t g : {0, 1}) {
    group_by_testing::Wide total = 0;
    RowCount last = 0;
    for (RowCount r = 0; r < rows; ++r)
      if (key.i32[r] == g) {
        total += arg.i64[r];
        last = r;
      }
    total -= arg.i64[last];
    arg.i64[last] = static_cast<std::int64_t>(
        (g == 0 ? group_by_testing::Wide{kMax} : group_by_testing::Wide{kMin}) - total);
  }
  for (const GroupByStrategy strategy : kStrategies) {
    for (const bool tables : {true, false}) {
      const Sums at_edge = RunSums(e, key, arg, strategy, tables);
      ASSERT_EQ(at_edge.groups, 2u);
      EXPECT_EQ(static_cast<std::int64_t>(at_edge.sum[0]), kMax) << GroupByStrategyName(strategy);
      EXPECT_EQ(static_cast<std::int64_t>(at_edge.sum[1]), kMin) << GroupByStrategyName(strategy);
      // One more or one less: past the edge.
      HostColumn above = arg;
      for (RowCount r = 0; r < rows; ++r)
        if (key.i32[r] == 0 && arg.i64[r] < kMax) {
          ++above.i64[r];
          break;
        }
      EXPECT_THROW(RunSums(e, key, above, strategy, tables), InvalidInputError)
          << GroupByStrategyName(strategy);
      HostColumn below = arg;
      for (RowCount r = 0; r < rows; ++r)
        if (key.i32[r] == 1 && arg.i64[r] > kMin) {
          --below.i64[r];
          break;
        }
      EXPECT_THROW(RunSums(e, key, below, strategy, tables), InvalidInputError)
          << GroupByStrategyName(strategy);
    }
  }
  // The status is reset: the next query runs.
  EXPECT_EQ(RunSums(e, key, arg, GroupByStrategy::kHash).groups, 2u);
}

// Values whose sum depends on the order of additions in double arithmetic:
// cancelling large magnitudes, ties, and a spread of exponents.
HostColumn AdversarialReals(RowCount rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  HostColumn c;
  c.type = ColumnType::Double();
  for (RowCount r = 0; r < rows; ++r) {
    const std::uint64_t pick = rng() % 8;
    const double sign = rng() % 2 == 0 ? 1.0 : -1.0;
    switch (pick) {
      case 0:
        c.f64.push_back(sign * 1e16);
        break;
      case 1:
        c.f64.push_back(1.0);
        break;
      case 2:
        c.f64.push_back(sign * std::ldexp(1.0, 53));
        break;
      case 3:
        c.f64.push_back(sign * std::ldexp(static_cast<double>(rng() % 1000 + 1), -1074));
        break;
      case 4:
        c.f64.push_back(r % 3 == 0 ? -0.0 : 0.0);
        break;
      default:
        c.f64.push_back(sign * std::ldexp(static_cast<double>(rng() >> 11),
                                          static_cast<int>(rng() % 200) - 150));
        break;
    }
  }
  return c;
}

TEST_P(GroupByExactTest, RealSumIsTheCorrectlyRoundedSum) {
  Engine& e = engine();
  if (!e.info().fp64) GTEST_SKIP() << "REAL aggregates: the device lacks fp64";
  const RowCount rows = 3 * e.tuning().tile_size() + 17;
  HostColumn key = Int32Column(std::vector<std::int32_t>(rows));
  for (RowCount r = 0; r < rows; ++r)
    key.i32[r] = static_cast<std::int32_t>(r % 7);
  const HostColumn arg = AdversarialReals(rows, 41);
  const group_by_testing::Expected want = group_by_testing::Reference(
      {key}, {{VM_AGG_SUM_R, &arg}, {VM_AGG_MIN_R, &arg}, {VM_AGG_MAX_R, &arg}}, rows);
  for (const GroupByStrategy strategy : kStrategies) {
    for (const bool tables : {true, false}) {
      const Sums got = RunSums(e, key, arg, strategy, tables);
      ASSERT_EQ(got.groups, want.first.size());
      for (std::size_t g = 0; g < got.groups; ++g) {
        EXPECT_EQ(got.sum[g], want.values[0][g].bits)
            << GroupByStrategyName(strategy) << " group " << g << ": "
            << std::bit_cast<double>(got.sum[g]) << " vs "
            << std::bit_cast<double>(want.values[0][g].bits);
        EXPECT_EQ(got.min[g], want.values[1][g].bits) << GroupByStrategyName(strategy);
        EXPECT_EQ(got.max[g], want.values[2][g].bits) << GroupByStrategyName(strategy);
      }
    }
  }
  // Ties round to even, a sticky bit below rounds up.
  HostColumn tie_key = Int32Column({0, 0, 1, 1, 1, 2, 2});
  HostColumn ties;
  ties.type = ColumnType::Double();
  ties.f64 = {
      std::ldexp(1.0, 53), 1.0, std::ldexp(1.0, 53), 1.0, std::ldexp(1.0, -60), 1e308, 1e308};
  const Sums tied = RunSums(e, tie_key, ties, GroupByStrategy::kHash);
  EXPECT_EQ(std::bit_cast<double>(tied.sum[0]), std::ldexp(1.0, 53));
  EXPECT_EQ(std::bit_cast<double>(tied.sum[1]), std::ldexp(1.0, 53) + 2);
  EXPECT_EQ(std::bit_cast<double>(tied.sum[2]), std::numeric_limits<double>::infinity());
}

// The same data on a second engine of this device with the other kernel
// path and another geometry: the same bits.
TEST_P(GroupByExactTest, SameBitsOnAnotherGeometryAndKernelPath) {
  Engine& e = engine();
  if (!e.info().fp64) GTEST_SKIP() << "REAL aggregates: the device lacks fp64";
  const RowCount rows = 20000;
  HostColumn key = Int32Column(std::vector<std::int32_t>(rows));
  for (RowCount r = 0; r < rows; ++r)
    key.i32[r] = static_cast<std::int32_t>((r * 7) % 13);
  const HostColumn arg = AdversarialReals(rows, 42);
  std::vector<Sums> here;
  for (const GroupByStrategy strategy : kStrategies)
    here.push_back(RunSums(e, key, arg, strategy));

  // A second engine on the same device with another geometry, and on CPU
  // devices the other kernel path too (the CPU variants are for CPUs: GPU
  // compilers refuse their host-pointer prefetches). GPUs keep their items
  // per work-item: NVIDIA's compiler, unrolling every kernel's item loops
  // four times longer, ran past 100 s on the whole program.
  EngineOptions other = e.options();
  const bool cpu = e.info().kind == DeviceKind::kCpu;
  if (cpu) other.kernel_paths = e.tuning().cpu_paths ? KernelPaths::kGpu : KernelPaths::kCpu;
  other.work_group_size = std::max<std::uint32_t>(1, e.tuning().work_group_size / 2);
  other.items_per_thread = e.tuning().items_per_thread * (cpu ? 4 : 1);
  const std::vector<DeviceHandle> devices = DiscoverDevices();
  Engine second(devices.at(e.info().flat_index), other);
  ASSERT_EQ(second.tuning().work_group_size, other.work_group_size);
  for (std::size_t s = 0; s < std::size(kStrategies); ++s) {
    const Sums there = RunSums(second, key, arg, kStrategies[s]);
    ASSERT_EQ(there.groups, here[s].groups);
    EXPECT_EQ(there.sum, here[s].sum) << GroupByStrategyName(kStrategies[s]);
    EXPECT_EQ(there.min, here[s].min);
    EXPECT_EQ(there.max, here[s].max);
    EXPECT_EQ(there.sum, here[0].sum) << "strategies differ";
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(GroupByExactTest);

}  // namespace
}  // namespace clq
