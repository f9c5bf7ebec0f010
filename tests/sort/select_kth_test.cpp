#include <gtest/gtest.h>

#include <cmath>

#include "operators/sort.hpp"
#include "tests/sort/sort_test_util.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using sort_testing::HostColumn;
using sort_testing::RandomColumn;
using sort_testing::Upload;

class SelectKthTest : public testing::DeviceTest {};

TEST_P(SelectKthTest, MatchesSortedNonNullValues) {
  Engine& e = engine();
  QueryContext context(e);
  std::mt19937_64 rng(21);
  const RowCount tile = e.tuning().tile_size();
  for (RowCount rows :
       {RowCount{0}, RowCount{1}, RowCount{7}, tile - 1, tile + 1, RowCount{100000}}) {
    for (const ColumnType& type :
         {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Double()}) {
      for (double null_rate : {0.0, 0.3}) {
        const HostColumn c =
            RandomColumn(type, rows, static_cast<std::uint32_t>(rows / 2 + 3), null_rate, rng);
        std::vector<std::size_t> order;
        for (std::size_t r = 0; r < rows; ++r)
          if (!c.is_null(r)) order.push_back(r);
        std::stable_sort(order.begin(), order.end(),
                         [&](std::size_t a, std::size_t b) { return c.Compare(a, b) < 0; });
        const RowCount n = order.size();
        DeviceVector v = Upload(e, c, rows);
        std::vector<RowCount> ranks = {0, n / 2, n > 0 ? n - 1 : 0, n, n + 5};
        for (double q : {0.0, 0.25, 0.5, 0.9, 1.0}) {
          const std::optional<NumericValue> got = SelectQuantile(context, View(v), rows, q);
          ASSERT_EQ(got.has_value(), n > 0) << "quantile " << q << " rows " << rows;
          if (n == 0) continue;
          const std::size_t row =
              order[static_cast<std::size_t>(std::floor(q * static_cast<double>(n - 1)))];
          const double want = type.type == DataType::kDouble  ? c.f64[row]
                              : type.type == DataType::kInt32 ? static_cast<double>(c.i32[row])
                                                              : static_cast<double>(c.i64[row]);
          EXPECT_EQ(got->is_real ? got->real : static_cast<double>(got->integer), want)
              << "quantile " << q << " rows " << rows << " " << type.ToString();
        }
        for (RowCount k : ranks) {
          const std::optional<NumericValue> got = SelectKth(context, View(v), rows, k);
          const std::string what = type.ToString() + " rows " + std::to_string(rows) + " k " +
                                   std::to_string(k) + " of " + std::to_string(n);
          if (k >= n) {
            EXPECT_FALSE(got.has_value()) << what;
            continue;
          }
          ASSERT_TRUE(got.has_value()) << what;
          const std::size_t row = order[k];
          switch (type.type) {
            case DataType::kInt32:
              EXPECT_EQ(got->integer, c.i32[row]) << what;
              break;
            case DataType::kInt64:
              EXPECT_EQ(got->integer, c.i64[row]) << what;
              break;
            default:
              EXPECT_TRUE(got->is_real) << what;
              EXPECT_EQ(got->real, c.f64[row]) << what;  // -0.0 == 0.0
              break;
          }
        }
      }
    }
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(SelectKthTest);

}  // namespace
}  // namespace clq

namespace clq {
namespace {

class SelectKthEdgeTest : public testing::DeviceTest {};

// Every digit constant (one value), and no non-NULL value at all.
TEST_P(SelectKthEdgeTest, AllEqualAndAllNull) {
  Engine& e = engine();
  QueryContext context(e);
  const RowCount rows = e.tuning().tile_size() + 1;
  for (const ColumnType& type : {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Double()}) {
    HostColumn c;
    c.type = type;
    c.i32.assign(rows, -5);
    c.i64.assign(rows, -5);
    c.f64.assign(rows, -5.0);
    DeviceVector v = Upload(e, c, rows);
    for (RowCount k : {RowCount{0}, rows / 2, rows - 1}) {
      const std::optional<NumericValue> got = SelectKth(context, View(v), rows, k);
      ASSERT_TRUE(got.has_value()) << type.ToString();
      EXPECT_EQ(got->is_real ? got->real : static_cast<double>(got->integer), -5.0);
    }
    EXPECT_FALSE(SelectKth(context, View(v), rows, rows).has_value());
    c.nulls.assign(rows, 1);
    DeviceVector nulls = Upload(e, c, rows);
    EXPECT_FALSE(SelectKth(context, View(nulls), rows, 0).has_value()) << type.ToString();
    EXPECT_FALSE(SelectQuantile(context, View(nulls), rows, 0.5).has_value()) << type.ToString();
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(SelectKthEdgeTest);

}  // namespace
}  // namespace clq
