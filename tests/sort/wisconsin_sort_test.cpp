// The sort and group-by operators on tenktup1 columns resident on the device,
// against the Wisconsin benchmark's closed forms (DeWitt 1993).
#include <gtest/gtest.h>

#include <cstring>

#include "kernels_cl/vm_shared.h"
#include "operators/gather.hpp"
#include "operators/group_by.hpp"
#include "operators/relation.hpp"
#include "operators/sort.hpp"
#include "tests/support/device_fixture.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

constexpr std::size_t kUnique1 = 0, kOnePercent = 6, kUnique3 = 10, kStringu1 = 13;
constexpr RowCount kRows = 10000;

class WisconsinSortTest : public testing::DeviceTest {
 protected:
  VectorView Column(TableRelation& relation, std::size_t column) {
    EXPECT_EQ(relation.tablets().size(), 1u);
    return {relation.values(column, 0), cl::Buffer(), relation.column(column).type, kRows};
  }
};

TEST_P(WisconsinSortTest, OrderByUnique1AndStringu1) {
  Engine& e = engine();
  QueryContext context(e);
  TableRelation relation(e, GenerateWisconsinTable("tenktup1", kRows));
  const RowIds by_unique1 = SortPermutation(context, {{Column(relation, kUnique1), false}}, kRows);
  const std::vector<std::int32_t> unique1 =
      DownloadValues<std::int32_t>(e, GatherColumn(e, relation, kUnique1, by_unique1));
  for (RowCount i = 0; i < kRows; ++i)
    ASSERT_EQ(unique1[i], static_cast<std::int32_t>(i));

  const RowIds by_string = SortPermutation(context, {{Column(relation, kStringu1), true}}, kRows);
  const DeviceVector strings = GatherColumn(e, relation, kStringu1, by_string);
  const std::vector<char> bytes = DownloadValues<char>(e, strings);
  const std::uint32_t width = strings.type.width;
  for (RowCount i = 1; i < kRows; ++i)
    ASSERT_GT(std::memcmp(&bytes[(i - 1) * width], &bytes[i * width], width), 0) << i;
}

// SUM(unique3) GROUP BY onePercent is 495000 + 100g and MIN(unique3) is g.
TEST_P(WisconsinSortTest, GroupByOnePercent) {
  Engine& e = engine();
  QueryContext context(e);
  TableRelation relation(e, GenerateWisconsinTable("tenktup1", kRows));
  const VectorView unique3 = Column(relation, kUnique3);
  const GroupByResult result = GroupBy(context, {Column(relation, kOnePercent)},
                                       {{VM_AGG_MIN_I, unique3},
                                        {VM_AGG_SUM_I, unique3},
                                        {VM_AGG_COUNT, std::nullopt},
                                        {GROUP_AGG_QUANTILE, unique3, 0.5}},
                                       kRows);
  ASSERT_EQ(result.groups, 100u);
  const std::vector<std::int64_t> min =
      DownloadValues<std::int64_t>(e, result.aggregates[0].values);
  const std::vector<std::int64_t> sum =
      DownloadValues<std::int64_t>(e, result.aggregates[1].values);
  const std::vector<std::int64_t> count =
      DownloadValues<std::int64_t>(e, result.aggregates[2].values);
  const std::vector<std::int64_t> median =
      DownloadValues<std::int64_t>(e, result.aggregates[3].values);
  const std::vector<std::int32_t> one_percent = DownloadValues<std::int32_t>(
      e, GatherColumn(e, relation, kOnePercent, result.first_positions));
  const std::vector<std::uint32_t> first = DownloadRowIds(e, result.first_positions);
  for (std::size_t g = 0; g < 100; ++g) {
    if (g > 0) {
      EXPECT_LT(first[g - 1], first[g]);
    }
    EXPECT_EQ(min[g], one_percent[g]);
    EXPECT_EQ(sum[g], 495000 + 100 * one_percent[g]);
    EXPECT_EQ(count[g], 100);
    // unique3 in the group: g, g + 100, ..., g + 9900; rank floor(0.5 * 99) = 49.
    EXPECT_EQ(median[g], one_percent[g] + 4900);
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(WisconsinSortTest);

}  // namespace
}  // namespace clq
