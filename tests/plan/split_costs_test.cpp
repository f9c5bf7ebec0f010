// The cost model of a query given several devices (plan/split_costs.hpp):
// shares that let the devices finish together, devices whose fixed cost
// passes that time left out, and the choice between one device alone and a
// split. Pure arithmetic: the devices here are costs, not engines
// (tests/plan/device_split_test.cpp runs what the model chooses).
#include "plan/split_costs.hpp"

#include <gtest/gtest.h>

#include <numeric>
#include <random>
#include <vector>

namespace clq {
namespace {

std::uint32_t Units(const std::vector<std::uint32_t>& shares) {
  return std::accumulate(shares.begin(), shares.end(), std::uint32_t{0});
}

TEST(SplitCostsTest, EqualDevicesShareEvenly) {
  const std::vector<DeviceCost> costs = {{1e-3, 1e-9}, {1e-3, 1e-9}};
  EXPECT_EQ(BalancedShares(costs, 1000000), (std::vector<std::uint32_t>{512, 512}));
  const std::vector<DeviceCost> three = {{0, 2e-9}, {0, 2e-9}, {0, 2e-9}};
  const std::vector<std::uint32_t> shares = BalancedShares(three, 3000);
  EXPECT_EQ(Units(shares), kShareUnits);
  for (const std::uint32_t share : shares)
    EXPECT_NEAR(share, kShareUnits / 3.0, 1.0);
}

// Without fixed costs, shares go by speed: a device four times slower per
// row takes a fifth.
TEST(SplitCostsTest, SharesFollowTheDevicesSpeeds) {
  const std::vector<DeviceCost> costs = {{0, 1e-9}, {0, 4e-9}};
  EXPECT_EQ(BalancedShares(costs, 1 << 20), (std::vector<std::uint32_t>{819, 205}));
  // Both finish at the same time.
  const double first = costs[0].Seconds((1 << 20) * 819.0 / 1024);
  const double second = costs[1].Seconds((1 << 20) * 205.0 / 1024);
  EXPECT_NEAR(first, second, 0.01 * first);
}

// A fixed cost the others finish within leaves a device out; the devices
// left in still finish together.
TEST(SplitCostsTest, ADeviceWhoseFixedCostPassesTheFinishGetsNoShare) {
  const std::vector<DeviceCost> costs = {{5e-3, 1e-9}, {1e-5, 1e-8}, {1e-5, 1e-8}};
  const std::vector<std::uint32_t> shares = BalancedShares(costs, 100000);
  EXPECT_EQ(shares[0], 0u);
  EXPECT_EQ(shares[1], 512u);
  EXPECT_EQ(shares[2], 512u);
  // With more rows the finish passes its fixed cost, and it takes most.
  const std::vector<std::uint32_t> more = BalancedShares(costs, 100000000);
  EXPECT_GT(more[0], 800u);
  EXPECT_GT(more[1], 0u);
  EXPECT_EQ(Units(more), kShareUnits);
}

TEST(SplitCostsTest, NoRowsGoToTheDeviceOfLeastFixedCost) {
  EXPECT_EQ(BalancedShares({{2e-3, 1e-9}, {1e-4, 1e-6}}, 0),
            (std::vector<std::uint32_t>{0, kShareUnits}));
}

// Whatever the costs, the shares give every unit and the model's split is
// no slower than its devices' times alone.
TEST(SplitCostsTest, SharesAlwaysAddUpAndBalance) {
  std::mt19937_64 random(20261207);
  std::uniform_real_distribution<double> fixed(0, 2e-3), per_row(1e-10, 1e-7);
  std::uniform_int_distribution<std::size_t> devices(1, 8);
  std::uniform_int_distribution<RowCount> rows(0, 100000000);
  for (int trial = 0; trial < 1000; ++trial) {
    std::vector<DeviceCost> costs(devices(random));
    for (DeviceCost& cost : costs)
      cost = {fixed(random), per_row(random)};
    const RowCount n = rows(random);
    const std::vector<std::uint32_t> shares = BalancedShares(costs, n);
    ASSERT_EQ(Units(shares), kShareUnits) << trial;
    double fastest_alone = costs[0].Seconds(static_cast<double>(n));
    for (const DeviceCost& cost : costs)
      fastest_alone = std::min(fastest_alone, cost.Seconds(static_cast<double>(n)));
    // Shares round to 1/1024, each by half a unit at most, and the largest
    // takes what rounding left over: within that many units' rows.
    double unit = 0;
    for (const DeviceCost& cost : costs)
      unit = std::max(unit, cost.seconds_per_row * static_cast<double>(n) / kShareUnits);
    const double slack = (static_cast<double>(costs.size()) / 2 + 1) * unit;
    EXPECT_LE(SplitSeconds(costs, shares, n), fastest_alone + slack + 1e-12) << trial;
  }
}

// The cost model: a small query runs alone where launches and
// transfers cost least (a CPU beside a GPU that must upload the table), a
// large one splits, and one that does not merge runs on the device that
// finishes it first.
TEST(SplitCostsTest, ASmallQueryRunsAloneWhereItCostsLeast) {
  const DeviceCost gpu{1e-3, 1e-10};  // launches and an upload; fast per row
  const DeviceCost cpu{5e-5, 1e-8};
  const DevicePlacement small = PlaceQuery({gpu, cpu}, {gpu, cpu}, 10000, true, 1e-5);
  EXPECT_EQ(small.devices, (std::vector<std::size_t>{1}));
  EXPECT_TRUE(small.shares.empty());
  EXPECT_NEAR(small.alone_seconds[1], 5e-5 + 1e-4 + 1e-5, 1e-12);  // device 1 is planned anew

  const DevicePlacement large = PlaceQuery({gpu, cpu}, {gpu, cpu}, 1000000000, true, 1e-5);
  EXPECT_EQ(large.devices, (std::vector<std::size_t>{0, 1}));
  ASSERT_EQ(large.shares.size(), 2u);
  EXPECT_GT(large.shares[0], 1000u);  // about 100:1
  EXPECT_LT(large.split_seconds, large.alone_seconds[0]);

  const DevicePlacement unsplit = PlaceQuery({gpu, cpu}, {gpu, cpu}, 1000000000, false, 1e-5);
  EXPECT_EQ(unsplit.devices, (std::vector<std::size_t>{0}));
  EXPECT_EQ(unsplit.split_seconds, 0);
}

// Every device of a split plans its part: where that costs more than the
// split saves, the query runs alone.
// A split whose slices a device must upload first costs that upload: two
// GPUs, the first holding the whole table, the second nothing.
TEST(SplitCostsTest, UploadingANewSliceCanOutweighTheSplit) {
  const std::vector<DeviceCost> alone = {{1e-4, 1e-10}, {1e-4, 1e-10 + 1e-9}};
  const std::vector<DeviceCost> resident = {{1e-4, 1e-10}, {1e-4, 1e-10}};
  const std::vector<DeviceCost> uploading = {{1e-4, 1e-10 + 1e-9}, {1e-4, 1e-10 + 1e-9}};
  EXPECT_EQ(PlaceQuery(alone, uploading, 100000000, true, 1e-5).devices,
            (std::vector<std::size_t>{0}));
  const DevicePlacement split = PlaceQuery(alone, resident, 100000000, true, 1e-5);
  EXPECT_EQ(split.devices, (std::vector<std::size_t>{0, 1}));
  EXPECT_EQ(split.shares, (std::vector<std::uint32_t>{512, 512}));
}

TEST(SplitCostsTest, PlanningEachPartCanOutweighTheSplit) {
  const std::vector<DeviceCost> costs = {{1e-4, 1e-9}, {1e-4, 1e-9}};
  EXPECT_EQ(PlaceQuery(costs, costs, 1000000, true, 0).devices, (std::vector<std::size_t>{0, 1}));
  const DevicePlacement placement = PlaceQuery(costs, costs, 1000000, true, 1e-3);
  EXPECT_EQ(placement.devices, (std::vector<std::size_t>{0}));
  EXPECT_NE(placement.Describe().find("alone on device 0 1.1 ms, on device 1 2.1 ms; split"),
            std::string::npos)
      << placement.Describe();
  DevicePlacement kept = placement;
  kept.kept = true;
  EXPECT_NE(kept.Describe().find("; the earlier runs' placement kept"), std::string::npos)
      << kept.Describe();
}

}  // namespace
}  // namespace clq
