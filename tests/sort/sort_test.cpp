#include "operators/sort.hpp"
#include "operators/top_k.hpp"

#include <gtest/gtest.h>

#include <numeric>

#include "tests/sort/sort_test_util.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using sort_testing::HostColumn;
using sort_testing::RandomColumn;
using sort_testing::Upload;

class SortTest : public testing::DeviceTest {
 protected:
  // TopK under the plan the executor makes.
  RowIds DefaultTopK(QueryContext& context, const std::vector<SortKey>& keys, RowCount rows,
                     RowCount k) {
    const TopKPlan plan = PlanTopK(engine().info(), engine().tuning(), TopKKeysOf(keys), rows, k);
    return TopK(context, plan, keys, rows).positions;
  }

  // Sizes around the engine's work-group and tile, and one large.
  std::vector<RowCount> Sizes() {
    const RowCount wg = engine().tuning().work_group_size;
    const RowCount tile = engine().tuning().tile_size();
    return {0, 1, 2, wg - 1, wg, wg + 1, tile - 1, tile, tile + 1, 3 * tile + 5, 100000};
  }

  // Sorts on the device and against std::stable_sort; expects equal results.
  void Check(const std::vector<HostColumn>& columns, const std::vector<bool>& descending,
             RowCount rows, const std::string& what) {
    Engine& e = engine();
    QueryContext context(e);
    std::vector<DeviceVector> device;
    std::vector<SortKey> keys;
    for (const HostColumn& c : columns)
      device.push_back(Upload(e, c, rows));
    for (std::size_t i = 0; i < columns.size(); ++i)
      keys.push_back({View(device[i]), descending[i]});
    const std::vector<std::uint32_t> got = DownloadRowIds(e, SortPermutation(context, keys, rows));
    std::vector<std::uint32_t> want(rows);
    std::iota(want.begin(), want.end(), 0u);
    std::stable_sort(want.begin(), want.end(), [&](std::uint32_t a, std::uint32_t b) {
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const int c = columns[i].Compare(a, b);
        if (c != 0) return descending[i] ? c > 0 : c < 0;
      }
      return false;
    });
    ASSERT_EQ(got, want) << what << " rows " << rows;
    // Small k takes top_k_groups, large k the full sort.
    for (RowCount k : {RowCount{1}, RowCount{7}, rows / 10 + 1, rows / 3 + 1}) {
      const std::vector<std::uint32_t> top = DownloadRowIds(e, DefaultTopK(context, keys, rows, k));
      ASSERT_EQ(top, std::vector<std::uint32_t>(want.begin(), want.begin() + std::min(k, rows)))
          << what << " top " << k << " of " << rows;
    }
  }
};

TEST_P(SortTest, EveryTypeAscendingAndDescendingAtEverySize) {
  std::mt19937_64 rng(11);
  const ColumnType types[] = {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Double(),
                              ColumnType::Char(3), ColumnType::Char(11)};
  for (RowCount rows : Sizes()) {
    for (const ColumnType& type : types) {
      for (double null_rate : {0.0, 0.2}) {
        const HostColumn c = RandomColumn(type, rows, 1000, null_rate, rng);
        for (bool desc : {false, true})
          Check({c}, {desc}, rows,
                type.ToString() + (desc ? " DESC" : " ASC") + (null_rate > 0 ? " with NULLs" : ""));
      }
    }
  }
}

TEST_P(SortTest, SeveralKeysMixedDirections) {
  std::mt19937_64 rng(12);
  for (RowCount rows : Sizes()) {
    const HostColumn a = RandomColumn(ColumnType::Char(17), rows, 6, 0.1, rng);
    const HostColumn b = RandomColumn(ColumnType::Double(), rows, 5, 0.1, rng);
    const HostColumn c = RandomColumn(ColumnType::Int64(), rows, 50, 0.0, rng);
    Check({a, b, c}, {false, true, false}, rows, "CHAR(17) ASC, DOUBLE DESC, INT64 ASC");
    Check({c, a}, {true, true}, rows, "INT64 DESC, CHAR(17) DESC");
  }
}

// Keys already in order (ascending or descending, with runs of equal keys)
// need no pass; one pair out of order anywhere, at a work-group's or a
// tile's edge too, must still be sorted.
TEST_P(SortTest, SortedAndNearlySortedKeys) {
  std::mt19937_64 rng(14);
  const RowCount wg = engine().tuning().work_group_size;
  const RowCount tile = engine().tuning().tile_size();
  for (RowCount rows : Sizes()) {
    for (const ColumnType& type :
         {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Double()}) {
      HostColumn c = RandomColumn(type, rows, 1000, 0.0, rng);
      const auto set = [&](RowCount r, std::int64_t v) {
        if (type.type == DataType::kInt32) c.i32[r] = static_cast<std::int32_t>(v);
        if (type.type == DataType::kInt64) c.i64[r] = v * 1000000007LL;
        if (type.type == DataType::kDouble) c.f64[r] = static_cast<double>(v) - 0.5;
      };
      for (RowCount r = 0; r < rows; ++r)
        set(r, static_cast<std::int64_t>(r / 3) - 7);  // ascending, runs of three
      for (bool desc : {false, true})
        Check({c}, {desc}, rows, "ascending " + type.ToString() + (desc ? " DESC" : " ASC"));
      for (RowCount at : {RowCount{0}, wg - 1, tile - 1, tile, rows / 2, rows - 2}) {
        if (rows < 2 || at + 1 >= rows) continue;
        const HostColumn sorted = c;
        set(at, static_cast<std::int64_t>(rows));  // above every later key
        for (bool desc : {false, true})
          Check({c}, {desc}, rows,
                "one descent at " + std::to_string(at) + " " + type.ToString() +
                    (desc ? " DESC" : " ASC"));
        c = sorted;
      }
      for (RowCount r = 0; r < rows; ++r)
        set(r, static_cast<std::int64_t>((rows - r) / 2));  // descending, runs of two
      for (bool desc : {false, true})
        Check({c}, {desc}, rows, "descending " + type.ToString() + (desc ? " DESC" : " ASC"));
      for (RowCount at : {RowCount{0}, wg - 1, tile - 1, tile, rows / 2, rows - 2}) {
        if (rows < 2 || at + 1 >= rows) continue;
        const HostColumn sorted = c;
        set(at, -static_cast<std::int64_t>(rows) - 1);  // below every later key
        for (bool desc : {false, true})
          Check({c}, {desc}, rows,
                "one ascent at " + std::to_string(at) + " " + type.ToString() +
                    (desc ? " DESC" : " ASC"));
        c = sorted;
      }
    }
  }
}

TEST_P(SortTest, AllEqualKeysKeepPositionOrder) {
  std::mt19937_64 rng(13);
  const RowCount rows = 3 * engine().tuning().tile_size() + 7;
  for (const ColumnType& type : {ColumnType::Int32(), ColumnType::Double(), ColumnType::Char(4)}) {
    const HostColumn c = RandomColumn(type, rows, 0, 0.0, rng);  // one value... and extremes
    HostColumn same = c;
    for (RowCount r = 0; r < rows; ++r) {  // make every row equal to row 0
      if (type.type == DataType::kInt32) same.i32[r] = same.i32[0];
      if (type.type == DataType::kDouble) same.f64[r] = (r % 2 == 0) ? 0.0 : -0.0;  // ties
      if (type.type == DataType::kChar)
        std::copy_n(&same.chars[0], type.width, &same.chars[r * type.width]);
    }
    Check({same}, {false}, rows, "equal " + type.ToString());
    Check({same}, {true}, rows, "equal DESC " + type.ToString());
  }
}

TEST_P(SortTest, TopKWithManyNullsAndTies) {
  std::mt19937_64 rng(15);
  const RowCount rows = 5 * engine().tuning().tile_size() + 3;
  for (const ColumnType& type : {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Double()}) {
    for (double null_rate : {0.0, 0.5, 0.95}) {
      const HostColumn few = RandomColumn(type, rows, 3, null_rate, rng);  // many ties
      const HostColumn other = RandomColumn(ColumnType::Int32(), rows, 100, 0.1, rng);
      for (bool desc : {false, true}) {
        Check({few}, {desc}, rows, type.ToString() + " few values");
        Check({few, other}, {desc, !desc}, rows, type.ToString() + " few values, second key");
      }
    }
  }
}

TEST_P(SortTest, TopKBeyondRows) {
  Engine& e = engine();
  QueryContext context(e);
  std::mt19937_64 rng(14);
  const HostColumn c = RandomColumn(ColumnType::Int32(), 100, 10, 0.0, rng);
  DeviceVector v = Upload(e, c, 100);
  EXPECT_EQ(DefaultTopK(context, {{View(v), false}}, 100, 1000).size, 100u);
  EXPECT_EQ(DefaultTopK(context, {{View(v), false}}, 100, 0).size, 0u);
  EXPECT_EQ(DefaultTopK(context, {{View(v), false}}, 0, 5).size, 0u);
}

CLQ_INSTANTIATE_DEVICE_TESTS(SortTest);

}  // namespace
}  // namespace clq
