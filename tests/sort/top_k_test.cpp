#include "operators/top_k.hpp"

#include <gtest/gtest.h>

#include <cstdio>
#include <limits>
#include <numeric>

#include "tests/sort/sort_test_util.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using sort_testing::HostColumn;
using sort_testing::RandomColumn;
using sort_testing::Upload;

class TopKTest : public testing::DeviceTest {
 protected:
  RowCount Tile() { return engine().tuning().tile_size(); }

  // The plan's default largest k for the per-group path over `rows` rows.
  RowCount GroupLimit(RowCount rows) {
    return PlanTopK(engine().info(), engine().tuning(), {TopKKey{}}, rows, 1).max_group_k;
  }

  // The stable order of rows 0..rows-1 by `columns`, on the CPU.
  static std::vector<std::uint32_t> Reference(const std::vector<HostColumn>& columns,
                                              const std::vector<bool>& descending, RowCount rows) {
    std::vector<std::uint32_t> order(rows);
    std::iota(order.begin(), order.end(), 0u);
    std::stable_sort(order.begin(), order.end(), [&](std::uint32_t a, std::uint32_t b) {
      for (std::size_t i = 0; i < columns.size(); ++i) {
        const int c = columns[i].Compare(a, b);
        if (c != 0) return descending[i] ? c > 0 : c < 0;
      }
      return false;
    });
    return order;
  }

  // TopK of every k in `ks` under the default plan, a plan of many small
  // groups (several merge passes), one of a single group (the longest
  // stream) and one whose per-group limit is k itself,
  // with the plan made for `plan_rows` rows (at least rows); each against
  // the CPU's stable sort. `expect` checks the default plan's strategy.
  void Check(const std::vector<HostColumn>& columns, const std::vector<bool>& descending,
             RowCount rows, const std::vector<RowCount>& ks, const std::string& what,
             std::optional<TopKStrategy> expect = std::nullopt, RowCount plan_rows = 0) {
    Engine& e = engine();
    QueryContext context(e);
    std::vector<DeviceVector> device;
    std::vector<SortKey> keys;
    for (const HostColumn& c : columns)
      device.push_back(Upload(e, c, rows));
    for (std::size_t i = 0; i < columns.size(); ++i)
      keys.push_back({View(device[i]), descending[i]});
    const std::vector<std::uint32_t> want = Reference(columns, descending, rows);
    plan_rows = std::max(plan_rows, rows);
    for (RowCount k : ks) {
      const std::vector<std::uint32_t> first(want.begin(), want.begin() + std::min(k, rows));
      TopKOptions many;
      many.max_groups = 1000;
      TopKOptions one;
      one.max_groups = 1;
      TopKOptions at_limit;
      at_limit.max_group_k = k;
      for (const auto& [options, name] :
           {std::pair{TopKOptions{}, "default"}, std::pair{many, "many groups"},
            std::pair{one, "one group"}, std::pair{at_limit, "limit k"}}) {
        const TopKPlan plan =
            PlanTopK(e.info(), e.tuning(), TopKKeysOf(keys), plan_rows, k, options);
        if (expect && name == std::string("default") && k < plan_rows && k <= plan.max_group_k) {
          EXPECT_EQ(static_cast<int>(plan.strategy), static_cast<int>(*expect))
              << what << " k " << k << ": " << plan.Describe();
        }
        const TopKResult result = TopK(context, plan, keys, rows);
        ASSERT_EQ(result.positions.size, first.size());
        ASSERT_EQ(DownloadRowIds(e, result.positions), first)
            << what << ", top " << k << " of " << rows << ", " << name << ": " << plan.Describe();
      }
    }
  }
};

TEST_P(TopKTest, EmptyInputAndZeroK) {
  std::mt19937_64 rng(1);
  const HostColumn c = RandomColumn(ColumnType::Int32(), 0, 10, 0.0, rng);
  Check({c}, {false}, 0, {1, 5}, "empty", std::nullopt, 100);
  const HostColumn d = RandomColumn(ColumnType::Int32(), 50, 10, 0.0, rng);
  Check({d}, {false}, 50, {0}, "k = 0");
}

TEST_P(TopKTest, OneRowAndKAtAndPastRows) {
  std::mt19937_64 rng(2);
  for (RowCount rows : {RowCount{1}, RowCount{2}, Tile() - 1, 3 * Tile() + 5}) {
    const HostColumn c = RandomColumn(ColumnType::Int32(), rows, 50, 0.0, rng);
    // Planned for more rows than arrive: k = rows and k > rows take the
    // per-group path.
    Check({c}, {true}, rows, {1, rows, rows + 1, rows + 100}, "k around rows",
          TopKStrategy::kGroups, rows + 1000);
  }
}

TEST_P(TopKTest, EveryTypeBothDirections) {
  std::mt19937_64 rng(3);
  const ColumnType types[] = {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Double(),
                              ColumnType::Char(3), ColumnType::Char(8), ColumnType::Char(11)};
  for (RowCount rows : {Tile() + 1, 3 * Tile() + 5, RowCount{100000}}) {
    for (const ColumnType& type : types) {
      for (double null_rate : {0.0, 0.2}) {
        const HostColumn c = RandomColumn(type, rows, 1000, null_rate, rng);
        for (bool desc : {false, true}) {
          // Exact images: one INT32, INT64 or CHAR(<= 8) key, with a NULL
          // bit where it fits; DOUBLE's NULL takes an unused image.
          const bool exact = (type.type == DataType::kInt32) || (type.type == DataType::kDouble) ||
                             (null_rate == 0 && type.width <= 8) ||
                             (type.type == DataType::kChar && type.width < 8);
          Check({c}, {desc}, rows, {1, 10, 100, 1000},
                type.ToString() + (desc ? " DESC" : " ASC") + (null_rate > 0 ? " NULLs" : ""),
                exact ? TopKStrategy::kGroups : TopKStrategy::kGroupsThenTies);
        }
      }
    }
  }
}

TEST_P(TopKTest, DoubleZerosInfinitiesAndIntegerExtremes) {
  const RowCount rows = 2 * Tile() + 7;
  HostColumn d;
  d.type = ColumnType::Double();
  HostColumn i;
  i.type = ColumnType::Int64();
  const double specials[] = {
      -0.0, 0.0, std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
      1.5,  -1.5};
  const std::int64_t extremes[] = {std::numeric_limits<std::int64_t>::min(),
                                   std::numeric_limits<std::int64_t>::max(), -1, 0, 1};
  for (RowCount r = 0; r < rows; ++r) {
    d.f64.push_back(specials[(r * 7) % 6]);
    i.i64.push_back(extremes[(r * 3) % 5]);
  }
  for (bool desc : {false, true}) {
    Check({d}, {desc}, rows, {1, 3, 50, rows - 1}, "DOUBLE specials", TopKStrategy::kGroups);
    Check({i}, {desc}, rows, {1, 3, 50, rows - 1}, "INT64 extremes", TopKStrategy::kGroups);
  }
  d.nulls.assign(rows, 0);
  i.nulls.assign(rows, 0);
  for (RowCount r = 0; r < rows; r += 5)
    d.nulls[r] = i.nulls[r] = 1;
  for (bool desc : {false, true}) {
    Check({d}, {desc}, rows, {1, 3, 50, rows - 1}, "DOUBLE specials, NULLs", TopKStrategy::kGroups);
    Check({i}, {desc}, rows, {1, 3, 50, rows - 1}, "INT64 extremes, NULLs",
          TopKStrategy::kGroupsThenTies);
  }
}

TEST_P(TopKTest, AllEqualKeysKeepPositionOrder) {
  const RowCount rows = 5 * Tile() + 3;
  for (const ColumnType& type : {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Char(12)}) {
    std::mt19937_64 rng(4);
    HostColumn same = RandomColumn(type, rows, 0, 0.0, rng);
    for (RowCount r = 0; r < rows; ++r) {
      if (type.type == DataType::kInt32) same.i32[r] = 42;
      if (type.type == DataType::kInt64) same.i64[r] = -7;
      if (type.type == DataType::kChar) std::fill_n(&same.chars[r * type.width], type.width, 'x');
    }
    for (bool desc : {false, true})
      Check({same}, {desc}, rows, {1, 10, 1000, rows}, "equal " + type.ToString());
  }
}

TEST_P(TopKTest, ManyNullsAscendingAndDescending) {
  std::mt19937_64 rng(5);
  const RowCount rows = 4 * Tile() + 9;
  for (const ColumnType& type : {ColumnType::Int32(), ColumnType::Double(), ColumnType::Char(4)}) {
    for (double null_rate : {0.5, 0.99}) {
      const HostColumn c = RandomColumn(type, rows, 20, null_rate, rng);
      for (bool desc : {false, true})
        Check({c}, {desc}, rows, {1, 10, 200}, type.ToString() + " many NULLs");
    }
  }
}

TEST_P(TopKTest, SeveralKeysMixedDirections) {
  std::mt19937_64 rng(6);
  for (RowCount rows : {3 * Tile() + 5, RowCount{50000}}) {
    const HostColumn a = RandomColumn(ColumnType::Int32(), rows, 4, 0.0, rng);
    const HostColumn b = RandomColumn(ColumnType::Int32(), rows, 1000, 0.0, rng);
    const HostColumn an = RandomColumn(ColumnType::Int32(), rows, 4, 0.1, rng);
    const HostColumn s = RandomColumn(ColumnType::Char(17), rows, 6, 0.1, rng);
    const HostColumn d = RandomColumn(ColumnType::Double(), rows, 5, 0.1, rng);
    const HostColumn i = RandomColumn(ColumnType::Int64(), rows, 50, 0.0, rng);
    const std::vector<RowCount> ks = {1, 10, 100, 777};
    // Two INT32 keys fill the image exactly; a third key, a NULL bit or a
    // wider key leaves a prefix.
    Check({a, b}, {false, true}, rows, ks, "INT32 ASC, INT32 DESC", TopKStrategy::kGroups);
    Check({a, b}, {true, false}, rows, ks, "INT32 DESC, INT32 ASC", TopKStrategy::kGroups);
    Check({an, b}, {true, true}, rows, ks, "nullable INT32, INT32", TopKStrategy::kGroupsThenTies);
    Check({a, b, i}, {false, false, true}, rows, ks, "three keys", TopKStrategy::kGroupsThenTies);
    Check({s, d, i}, {false, true, false}, rows, ks, "CHAR(17) ASC, DOUBLE DESC, INT64 ASC",
          TopKStrategy::kGroupsThenTies);
    Check({i, s}, {true, true}, rows, ks, "INT64 DESC, CHAR(17) DESC",
          TopKStrategy::kGroupsThenTies);
    Check({d, a}, {false, true}, rows, ks, "DOUBLE, INT32");
  }
}

TEST_P(TopKTest, OrderedInputBothWays) {
  // Ascending and descending input: a group's last rows are its best (or
  // its first are).
  const RowCount rows = 200000;
  HostColumn up;
  up.type = ColumnType::Int32();
  for (RowCount r = 0; r < rows; ++r)
    up.i32.push_back(static_cast<std::int32_t>(r / 3));
  HostColumn down = up;
  std::reverse(down.i32.begin(), down.i32.end());
  for (bool desc : {false, true}) {
    Check({up}, {desc}, rows, {1, 10, 1000}, "ascending input", TopKStrategy::kGroups);
    Check({down}, {desc}, rows, {1, 10, 1000}, "descending input", TopKStrategy::kGroups);
  }
}

TEST_P(TopKTest, PrefixImagesPassOverTiesOnlyWhenAGroupDroppedOne) {
  Engine& e = engine();
  QueryContext context(e);
  const RowCount rows = 3 * Tile() + 17;
  // CHAR(12): the image holds the first 8 bytes. Distinct prefixes: the
  // selection holds every row at or below the limit. One prefix for all:
  // the suffixes decide, and only a pass over every row finds them.
  HostColumn distinct, shared;
  distinct.type = shared.type = ColumnType::Char(12);
  std::mt19937_64 rng(8);
  for (RowCount r = 0; r < rows; ++r) {
    char text[13];
    const auto v = static_cast<unsigned>(rng() % 100000000);
    std::snprintf(text, sizeof(text), "%08u%04u", v, static_cast<unsigned>(r % 10000));
    distinct.chars.insert(distinct.chars.end(), text, text + 12);
    std::snprintf(text, sizeof(text), "prefix__%04u", static_cast<unsigned>(v % 10000));
    shared.chars.insert(shared.chars.end(), text, text + 12);
  }
  for (bool desc : {false, true}) {
    for (const auto& [column, ties] : {std::pair{&distinct, false}, std::pair{&shared, true}}) {
      DeviceVector v = Upload(e, *column, rows);
      const std::vector<SortKey> keys = {{View(v), desc}};
      const std::vector<std::uint32_t> want = Reference({*column}, {desc}, rows);
      for (RowCount k : {RowCount{1}, RowCount{10}, RowCount{300}}) {
        const TopKPlan plan = PlanTopK(e.info(), e.tuning(), TopKKeysOf(keys), rows, k);
        if (k > plan.max_group_k) continue;  // devices with capped loops: a smaller limit
        ASSERT_EQ(plan.strategy, TopKStrategy::kGroupsThenTies);
        const TopKResult result = TopK(context, plan, keys, rows);
        EXPECT_EQ(result.tie_rows, ties ? rows : 0) << "k " << k << (desc ? " DESC" : "");
        ASSERT_EQ(DownloadRowIds(e, result.positions),
                  std::vector<std::uint32_t>(want.begin(), want.begin() + k))
            << "k " << k << (ties ? ", shared prefix" : ", distinct prefixes")
            << (desc ? " DESC" : "");
      }
    }
  }
}

TEST_P(TopKTest, PrefixTieDroppedInsideOneGroup) {
  // Two rows share the best prefix; the later one, which a group meets
  // after the earlier one set its threshold, sorts first by its suffix.
  Engine& e = engine();
  QueryContext context(e);
  const RowCount rows = 3 * Tile() + 17;
  for (bool desc : {false, true}) {
    HostColumn c;
    c.type = ColumnType::Char(12);
    std::mt19937_64 rng(9);
    for (RowCount r = 0; r < rows; ++r) {
      char text[13];
      std::snprintf(text, sizeof(text), "%08u%04u",
                    static_cast<unsigned>(10000000 + rng() % 80000000), 5000u);
      if (r == rows / 4 || r == 3 * rows / 4) {
        const bool later = r == 3 * rows / 4;
        std::snprintf(text, sizeof(text), "%s%s", desc ? "~~~~~~~~" : "        ",
                      later == desc ? "9999" : "0000");
      }
      c.chars.insert(c.chars.end(), text, text + 12);
    }
    DeviceVector v = Upload(e, c, rows);
    const std::vector<SortKey> keys = {{View(v), desc}};
    const std::vector<std::uint32_t> want = Reference({c}, {desc}, rows);
    ASSERT_EQ(want[0], 3 * rows / 4);
    TopKOptions one_group;
    one_group.max_groups = 1;
    for (RowCount k : {RowCount{1}, RowCount{2}, RowCount{5}}) {
      const TopKPlan plan = PlanTopK(e.info(), e.tuning(), TopKKeysOf(keys), rows, k, one_group);
      const TopKResult result = TopK(context, plan, keys, rows);
      ASSERT_EQ(DownloadRowIds(e, result.positions),
                std::vector<std::uint32_t>(want.begin(), want.begin() + k))
          << "k " << k << (desc ? " DESC" : "");
    }
  }
}

TEST_P(TopKTest, KAtAndPastTheGroupLimit) {
  std::mt19937_64 rng(7);
  const RowCount rows = 20000 + 3 * Tile() + 11;
  const RowCount limit = GroupLimit(rows);
  ASSERT_LT(limit + 1, rows);
  const HostColumn c = RandomColumn(ColumnType::Int64(), rows, 100000, 0.0, rng);
  const HostColumn few = RandomColumn(ColumnType::Int32(), rows, 3, 0.0, rng);
  Engine& e = engine();
  const std::vector<TopKKey> keys = {{ColumnType::Int64(), false, true}};
  EXPECT_EQ(PlanTopK(e.info(), e.tuning(), keys, rows, limit).strategy, TopKStrategy::kGroups);
  EXPECT_EQ(PlanTopK(e.info(), e.tuning(), keys, rows, limit + 1).strategy, TopKStrategy::kSort);
  Check({c}, {true}, rows, {limit - 1, limit, limit + 1}, "INT64 DESC at the limit");
  Check({few}, {false}, rows, {limit, limit + 1}, "ties at the limit");
}

TEST_P(TopKTest, PlanDescribesItsKernels) {
  Engine& e = engine();
  const TopKPlan groups =
      PlanTopK(e.info(), e.tuning(), {{ColumnType::Int32(), false, true}}, 10'000'000, 10);
  EXPECT_EQ(groups.strategy, TopKStrategy::kGroups);
  EXPECT_EQ(groups.Kernels(e, true).ToString(), "top_k_groups");
  EXPECT_NE(groups.Describe().find("32-bit image"), std::string::npos) << groups.Describe();
  const TopKPlan ties =
      PlanTopK(e.info(), e.tuning(), {{ColumnType::Char(20), true, false}}, 10'000'000, 10);
  EXPECT_EQ(ties.strategy, TopKStrategy::kGroupsThenTies);
  const KernelSet kernels = ties.Kernels(e, true);
  for (const char* name : {"top_k_groups", "top_k_ties", "selection_scatter", "sort_scatter_nulls"})
    EXPECT_TRUE(kernels.Contains(name)) << name;
  const TopKPlan sort =
      PlanTopK(e.info(), e.tuning(), {{ColumnType::Int32(), false, false}}, 1000, 1000);
  EXPECT_EQ(sort.strategy, TopKStrategy::kSort);
  for (const KernelSet& set : {sort.Kernels(e, true), kernels}) {
    for (const std::string& name : set.always())
      e.kernel(name);  // every name exists
    for (const std::string& name : set.when_needed())
      e.kernel(name);
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(TopKTest);

}  // namespace
}  // namespace clq
