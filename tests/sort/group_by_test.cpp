#include "operators/group_by.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <map>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "tests/sort/sort_test_util.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using sort_testing::HostColumn;
using sort_testing::RandomColumn;
using sort_testing::Upload;

// Expected per-group result of one aggregate, computed on the host in row order.
struct HostAggregate {
  std::int64_t integer = 0;
  double real = 0;
  std::int64_t count = 0;
  double chunk = 0;               // SUM_R: the running sum of the current chunk of the group's rows
  std::vector<double> collected;  // QUANTILE: the non-NULL values
};

class GroupByTest : public testing::DeviceTest {
 protected:
  void Check(const std::vector<HostColumn>& keys, const HostColumn& argument, RowCount rows,
             const std::string& what) {
    Engine& e = engine();
    QueryContext context(e);
    std::vector<DeviceVector> device_keys;
    std::vector<VectorView> key_views;
    for (const HostColumn& k : keys)
      device_keys.push_back(Upload(e, k, rows));
    for (const DeviceVector& k : device_keys)
      key_views.push_back(View(k));
    DeviceVector arg = Upload(e, argument, rows);
    const bool integer_arg = argument.type.is_integer();
    std::vector<GroupAggregateSpec> specs = {{VM_AGG_COUNT, std::nullopt},
                                             {VM_AGG_COUNT, View(arg)},
                                             {VM_AGG_SUM_R, View(arg)},
                                             {VM_AGG_MIN_R, View(arg)},
                                             {VM_AGG_MAX_R, View(arg)}};
    specs.push_back({GROUP_AGG_QUANTILE, View(arg), 0.5});
    specs.push_back({GROUP_AGG_QUANTILE, View(arg), 0.9});
    if (integer_arg) {
      specs.push_back({VM_AGG_SUM_I, View(arg)});
      specs.push_back({VM_AGG_MIN_I, View(arg)});
      specs.push_back({VM_AGG_MAX_I, View(arg)});
    }
    const GroupByResult result = GroupBy(context, key_views, specs, rows);

    // Host: groups by first appearance (a map from a representative row).
    auto less = [&](std::size_t a, std::size_t b) {
      for (const HostColumn& k : keys) {
        const int c = k.Compare(a, b);
        if (c != 0) return c < 0;
      }
      return false;
    };
    std::map<std::size_t, std::size_t, decltype(less)> group_of(less);
    std::vector<std::size_t> first;
    std::vector<std::vector<HostAggregate>> want;
    std::vector<RowCount> group_rows;
    for (std::size_t r = 0; r < rows; ++r) {
      auto [it, inserted] = group_of.emplace(r, first.size());
      if (inserted) {
        first.push_back(r);
        want.emplace_back(specs.size());
        group_rows.push_back(0);
      }
      std::vector<HostAggregate>& g = want[it->second];
      // SUM_R adds chunks of kGroupByChunkRows rows, then the chunk sums.
      if (group_rows[it->second]++ % kGroupByChunkRows == 0) {
        for (HostAggregate& a : g) {
          a.real += a.chunk;
          a.chunk = 0;
        }
      }
      for (std::size_t s = 0; s < specs.size(); ++s) {
        HostAggregate& a = g[s];
        if (!specs[s].argument) {
          ++a.count;
          a.integer = a.count;
          continue;
        }
        if (argument.is_null(r)) continue;
        const double real =
            integer_arg
                ? static_cast<double>(argument.type.width == 4 ? argument.i32[r] : argument.i64[r])
                : argument.f64[r];
        const std::int64_t integer =
            integer_arg ? (argument.type.width == 4 ? argument.i32[r] : argument.i64[r]) : 0;
        if (specs[s].operation == GROUP_AGG_QUANTILE) {
          a.collected.push_back(real);  // exact: the test's integers fit a double
          ++a.count;
          continue;
        }
        switch (specs[s].operation) {
          case VM_AGG_COUNT:
            a.integer = a.count + 1;
            break;
          case VM_AGG_SUM_R:
            a.chunk += real;
            break;
          case VM_AGG_MIN_R:
            if (a.count == 0 || real < a.real) a.real = real;
            break;
          case VM_AGG_MAX_R:
            if (a.count == 0 || real > a.real) a.real = real;
            break;
          case VM_AGG_SUM_I:
            a.integer += integer;
            break;
          case VM_AGG_MIN_I:
            if (a.count == 0 || integer < a.integer) a.integer = integer;
            break;
          case VM_AGG_MAX_I:
            if (a.count == 0 || integer > a.integer) a.integer = integer;
            break;
        }
        ++a.count;
      }
    }
    for (auto& g : want) {
      for (std::size_t s = 0; s < specs.size(); ++s) {
        HostAggregate& a = g[s];
        a.real += a.chunk;
        if (specs[s].operation != GROUP_AGG_QUANTILE || a.collected.empty()) continue;
        std::sort(a.collected.begin(), a.collected.end());
        const double v = a.collected[static_cast<std::size_t>(
            std::floor(specs[s].quantile * static_cast<double>(a.collected.size() - 1)))];
        a.real = v;
        a.integer = static_cast<std::int64_t>(v);
      }
    }
    ASSERT_EQ(result.groups, first.size()) << what;
    const std::vector<std::uint32_t> got_first = DownloadRowIds(e, result.first_positions);
    ASSERT_EQ(got_first, std::vector<std::uint32_t>(first.begin(), first.end())) << what;
    ASSERT_EQ(result.aggregates.size(), specs.size());
    for (std::size_t s = 0; s < specs.size(); ++s) {
      const std::vector<std::int64_t> counts =
          DownloadValues<std::int64_t>(e, result.aggregates[s].counts);
      const std::vector<std::int64_t> values =
          DownloadValues<std::int64_t>(e, result.aggregates[s].values);
      const bool real = specs[s].operation == VM_AGG_SUM_R || specs[s].operation == VM_AGG_MIN_R ||
                        specs[s].operation == VM_AGG_MAX_R ||
                        (specs[s].operation == GROUP_AGG_QUANTILE && !integer_arg);
      for (std::size_t g = 0; g < first.size(); ++g) {
        const HostAggregate& w = want[g][s];
        ASSERT_EQ(counts[g], w.count) << what << " aggregate " << s << " group " << g;
        if (w.count == 0) continue;
        if (real) {
          // Same order of additions as the host loop: equal (inf + -inf is NaN on both).
          const double got = std::bit_cast<double>(values[g]);
          ASSERT_TRUE(got == w.real || (std::isnan(got) && std::isnan(w.real)))
              << what << " aggregate " << s << " group " << g;
        } else {
          ASSERT_EQ(values[g], w.integer) << what << " aggregate " << s << " group " << g;
        }
      }
    }
  }
};

TEST_P(GroupByTest, EveryKeyTypeAtEverySize) {
  std::mt19937_64 rng(31);
  const RowCount wg = engine().tuning().work_group_size;
  const RowCount tile = engine().tuning().tile_size();
  for (RowCount rows : {RowCount{0}, RowCount{1}, wg - 1, wg + 1, tile - 1, tile, tile + 1,
                        3 * tile + 5, RowCount{100000}}) {
    for (const ColumnType& type :
         {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Double(), ColumnType::Char(3)}) {
      const HostColumn key = RandomColumn(type, rows, 20, 0.1, rng);
      const HostColumn arg32 = RandomColumn(ColumnType::Int32(), rows, 1000, 0.2, rng);
      const HostColumn argd = RandomColumn(ColumnType::Double(), rows, 1000, 0.2, rng);
      Check({key}, arg32, rows, "key " + type.ToString() + " argument INT32");
      Check({key}, argd, rows, "key " + type.ToString() + " argument DOUBLE");
    }
  }
}

TEST_P(GroupByTest, SeveralKeysOneGroupAllDistinctAndAllNullArguments) {
  std::mt19937_64 rng(32);
  const RowCount rows = 2 * engine().tuning().tile_size() + 3;
  const HostColumn a = RandomColumn(ColumnType::Int64(), rows, 4, 0.2, rng);
  const HostColumn b = RandomColumn(ColumnType::Char(2), rows, 3, 0.2, rng);
  HostColumn arg = RandomColumn(ColumnType::Int64(), rows, 100, 0.0, rng);
  // Arguments small enough not to overflow; NULL wherever key a is NULL, so
  // those groups have no non-NULL argument.
  for (auto& v : arg.i64)
    v %= 1'000'000;
  arg.nulls = a.nulls;
  Check({a, b}, arg, rows, "two keys");
  Check({}, arg, rows, "no keys");
  HostColumn same = a;
  same.nulls.assign(rows, 1);
  Check({same}, arg, rows, "all NULL keys: one group");
  HostColumn distinct = RandomColumn(ColumnType::Int32(), rows, 1, 0.0, rng);
  for (RowCount r = 0; r < rows; ++r)
    distinct.i32[r] = static_cast<std::int32_t>(rows - r);
  Check({distinct}, arg, rows, "all distinct");
}

TEST_P(GroupByTest, IntegerSumOverflowThrows) {
  Engine& e = engine();
  QueryContext context(e);
  HostColumn key;
  key.type = ColumnType::Int32();
  key.i32 = {1, 1, 2};
  HostColumn arg;
  arg.type = ColumnType::Int64();
  arg.i64 = {std::numeric_limits<std::int64_t>::max(), 1, 5};
  DeviceVector k = Upload(e, key, 3);
  DeviceVector a = Upload(e, arg, 3);
  EXPECT_THROW(GroupBy(context, {View(k)}, {{VM_AGG_SUM_I, View(a)}}, 3), InvalidInputError);
  // The status is reset: the next query runs.
  EXPECT_EQ(GroupBy(context, {View(k)}, {{VM_AGG_MAX_I, View(a)}}, 3).groups, 2u);
}

CLQ_INSTANTIATE_DEVICE_TESTS(GroupByTest);

}  // namespace
}  // namespace clq
