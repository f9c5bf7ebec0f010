#include "operators/aggregation.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <limits>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class AggregationTest : public DeviceTest {};

struct Run {
  std::vector<AggregateValue> values;
};

// The REAL aggregates of a check, or on a device without fp64 (where the
// planner refuses REAL) COUNT(*) in their places.
AggregateSpec RealOrCount(const Engine& e, std::uint32_t operation, std::size_t value) {
  if (!e.info().fp64) return {VM_AGG_COUNT, std::nullopt};
  return {operation, value};
}

// COUNT(*), SUM(a), MIN(b), MAX(b), SUM(c), MIN(c), MAX(c), COUNT(b / a) over rows where
// `predicate` (REAL c only on devices with fp64).
std::vector<AggregateValue> RunAggregates(Engine& e, const TablePtr& t,
                                          const std::optional<sql::Expr>& predicate,
                                          const QueryOptions& options = {}) {
  TableRelation relation(e, t);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  std::optional<std::size_t> pred;
  if (predicate) pred = program.AddPredicate(*predicate);
  const std::size_t a = program.AddValue(IntCol(0));
  const std::size_t b = program.AddValue(IntCol(1));
  const std::size_t c = e.info().fp64 ? program.AddValue(RealCol(2)) : 0;
  const std::size_t ratio = program.AddValue(Bin(Op::kDivide, IntCol(1), IntCol(0)));
  QueryContext context(e, options);
  DeviceProgram device_program(e, program);
  return Aggregate(context, relation, device_program, pred,
                   {{VM_AGG_COUNT, std::nullopt},
                    {VM_AGG_SUM_I, a},
                    {VM_AGG_MIN_I, b},
                    {VM_AGG_MAX_I, b},
                    RealOrCount(e, VM_AGG_SUM_R, c),
                    RealOrCount(e, VM_AGG_MIN_R, c),
                    RealOrCount(e, VM_AGG_MAX_R, c),
                    {VM_AGG_COUNT, ratio}});
}

void CheckAgainstCpu(Engine& e, const TablePtr& t, std::int32_t threshold,
                     const QueryOptions& options = {}) {
  const auto a = t->column(0).int32s();
  const auto b = t->column(1).int64s();
  const auto c = t->column(2).doubles();
  std::int64_t count = 0, sum_a = 0, count_ratio = 0;
  std::int64_t min_b = std::numeric_limits<std::int64_t>::max();
  std::int64_t max_b = std::numeric_limits<std::int64_t>::min();
  double sum_c = 0, min_c = 1e300, max_c = -1e300;
  for (RowCount i = 0; i < t->rows(); ++i) {
    if (!(a[i] < threshold)) continue;
    ++count;
    sum_a += a[i];
    min_b = std::min(min_b, b[i]);
    max_b = std::max(max_b, b[i]);
    sum_c += c[i];
    min_c = std::min(min_c, c[i]);
    max_c = std::max(max_c, c[i]);
    count_ratio += a[i] != 0;
  }
  const auto got = RunAggregates(e, t, Bin(Op::kLess, IntCol(0), Int(threshold)), options);
  ASSERT_EQ(got.size(), 8u);
  EXPECT_EQ(got[0].count, static_cast<std::uint64_t>(count));
  EXPECT_EQ(got[1].count, static_cast<std::uint64_t>(count));
  if (count > 0) {
    EXPECT_EQ(got[1].bits, sum_a);
    EXPECT_EQ(got[2].bits, min_b);
    EXPECT_EQ(got[3].bits, max_b);
    if (e.info().fp64) {
      EXPECT_NEAR(got[4].real(), sum_c, 1e-9 * std::max(1.0, std::fabs(sum_c)));
      EXPECT_EQ(got[5].real(), min_c);
      EXPECT_EQ(got[6].real(), max_c);
    }
  }
  EXPECT_EQ(got[7].count, static_cast<std::uint64_t>(count_ratio));
}

TEST_P(AggregationTest, EdgeSizesAndSelectivities) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const RowCount wg = e.tuning().work_group_size;
  for (RowCount rows :
       {RowCount{0}, RowCount{1}, wg - 1, wg + 1, tile - 1, tile, tile + 1, tile * 7 + 3}) {
    TablePtr t = RandomTable(rows, 300 + static_cast<std::uint32_t>(rows), false);
    for (std::int32_t threshold : {-5000, 0, 5000})
      CheckAgainstCpu(e, t, threshold);
  }
}

TEST_P(AggregationTest, ManyGroupsNeedSeveralMergeRounds) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  QueryOptions options;
  options.aggregate_tiles = 1;  // one partial per tile: the most merging
  TablePtr t = RandomTable(std::min<RowCount>(tile * tile + 5, 3'000'000), 41, false);
  CheckAgainstCpu(e, t, 100, options);
}

// Work-groups folding several tiles before their reduction: group counts
// that do not divide the tiles, a last group past the rows, a partial tile.
TEST_P(AggregationTest, SeveralTilesPerWorkGroup) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  for (const std::uint32_t per_group : {2u, 3u, 16u, 64u}) {
    QueryOptions options;
    options.aggregate_tiles = per_group;
    for (const RowCount rows : {tile - 1, tile * 3, tile * 7 + 3, tile * 70 + 1}) {
      TablePtr t = RandomTable(rows, 500 + static_cast<std::uint32_t>(rows + per_group), false);
      for (std::int32_t threshold : {-5000, 0})
        CheckAgainstCpu(e, t, threshold, options);
    }
  }
}

TEST_P(AggregationTest, AcrossTablets) {
  Engine& e = engine();
  const ScopedTabletRows small(e, 1234);
  TablePtr t = RandomTable(20'000, 43, false);
  CheckAgainstCpu(e, t, 250);
}

TEST_P(AggregationTest, EmptyInputGivesZeroCounts) {
  Engine& e = engine();
  TablePtr t = RandomTable(0, 1, false);
  const auto got = RunAggregates(e, t, std::nullopt);
  for (const AggregateValue& v : got)
    EXPECT_EQ(v.count, 0u);
}

TEST_P(AggregationTest, SumOverflowIsAnError) {
  Engine& e = engine();
  Schema schema{{"x", ColumnType::Int64()}};
  TableBuilder builder("big", schema, 3000);
  for (RowCount i = 0; i < 3000; ++i)
    builder.column_values<std::int64_t>(0)[i] = std::numeric_limits<std::int64_t>::max() / 1000;
  TablePtr t = builder.Finish();
  TableRelation relation(e, t);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const std::size_t x = program.AddValue(IntCol(0));
  QueryContext context(e);
  DeviceProgram device_program(e, program);
  EXPECT_THROW(Aggregate(context, relation, device_program, std::nullopt, {{VM_AGG_SUM_I, x}}),
               InvalidInputError);
}

// Integer SUM decides overflow on the exact total, not on the order the device
// adds in: rows alternate +M and -M (M = 1.5 * 2^62), so every prefix sum in
// row order is 0 or M, but two +M rows added together overflow, as a GPU
// work-item's strided rows or a group's partials would. Same answer on every
// geometry and tiles-per-group, and the same as the CPU reference.
TEST_P(AggregationTest, SumOverflowDoesNotDependOnTheOrderOfAdditions) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  constexpr std::int64_t kM = (std::int64_t{1} << 62) + (std::int64_t{1} << 61);
  for (const std::uint32_t per_group : {1u, 3u}) {
    QueryOptions options;
    options.aggregate_tiles = per_group;
    for (const RowCount rows : {RowCount{3}, tile + 1, 5 * tile + 2}) {
      Schema schema{{"x", ColumnType::Int64()}};
      TableBuilder builder("alternating", schema, rows);
      for (RowCount i = 0; i < rows; ++i)
        builder.column_values<std::int64_t>(0)[i] = i % 2 == 0 ? kM : -kM;
      TablePtr t = builder.Finish();
      TableRelation relation(e, t);
      ExpressionProgram program(relation.columns(), IdentityMapper());
      const std::size_t x = program.AddValue(IntCol(0));
      const std::size_t keep = program.AddPredicate(Bin(Op::kGreater, IntCol(0), Int(-kM - 1)));
      QueryContext context(e, options);
      DeviceProgram device_program(e, program);
      for (const std::optional<std::size_t> where :
           {std::optional<std::size_t>{}, std::optional<std::size_t>{keep}}) {
        const auto got = Aggregate(context, relation, device_program, where,
                                   {{VM_AGG_SUM_I, x}, {VM_AGG_COUNT, x}});
        EXPECT_EQ(got[0].bits, rows % 2 == 1 ? kM : 0)
            << "rows " << rows << " per group " << per_group;
        EXPECT_EQ(got[0].count, rows);
        EXPECT_EQ(got[1].count, rows);
      }
    }
  }
}

// Aggregates of bare columns without WHERE run on vm_aggregate_columns (no
// interpreter); the answers must equal the host's and the general kernel's
// bit for bit (REAL sums included: same summation order).
TEST_P(AggregationTest, BareColumnsTakeTheColumnKernel) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const RowCount wg = e.tuning().work_group_size;
  for (const std::uint32_t per_group : {0u, 3u, 64u}) {  // 0: the size-based choice
    QueryOptions options;
    options.aggregate_tiles = per_group;
    for (RowCount rows :
         {RowCount{0}, RowCount{1}, wg - 1, wg + 1, tile - 1, tile + 1, tile * 5 + 3}) {
      TablePtr t = RandomTable(rows, 900 + static_cast<std::uint32_t>(rows), true);
      TableRelation relation(e, t);
      ExpressionProgram program(relation.columns(), IdentityMapper());
      const std::size_t a = program.AddValue(IntCol(0));
      const std::size_t b = program.AddValue(IntCol(1));
      const bool real = e.info().fp64;
      const std::size_t c = real ? program.AddValue(RealCol(2)) : 0;
      const std::size_t a_real =
          real ? program.AddValue(Cast(IntCol(0), sql::ValueType::kReal)) : 0;
      QueryContext context(e, options);
      DeviceProgram device_program(e, program);
      const std::vector<AggregateSpec> specs = {{VM_AGG_COUNT, std::nullopt},
                                                {VM_AGG_SUM_I, a},
                                                {VM_AGG_MIN_I, b},
                                                {VM_AGG_MAX_I, b},
                                                RealOrCount(e, VM_AGG_SUM_R, c),
                                                RealOrCount(e, VM_AGG_MIN_R, c),
                                                RealOrCount(e, VM_AGG_MAX_R, c),
                                                RealOrCount(e, VM_AGG_SUM_R, a_real)};
      e.profiler().Start();
      const auto got = Aggregate(context, relation, device_program, std::nullopt, specs);
      bool column_kernel = false;
      for (const StageTiming& stage : e.profiler().Stop())
        column_kernel |= stage.name == "aggregate columns";
      EXPECT_EQ(column_kernel, rows > 0) << "rows " << rows;
      const auto va = t->column(0).int32s();
      const auto vb = t->column(1).int64s();
      const auto vc = t->column(2).doubles();
      std::int64_t sum_a = 0, min_b = std::numeric_limits<std::int64_t>::max(),
                   max_b = std::numeric_limits<std::int64_t>::min();
      double min_c = 1e300, max_c = -1e300;
      for (RowCount i = 0; i < rows; ++i) {
        sum_a += va[i];
        min_b = std::min(min_b, vb[i]);
        max_b = std::max(max_b, vb[i]);
        min_c = std::min(min_c, vc[i]);
        max_c = std::max(max_c, vc[i]);
      }
      ASSERT_EQ(got.size(), specs.size());
      for (const AggregateValue& v : got)
        EXPECT_EQ(v.count, rows) << "rows " << rows;
      if (rows == 0) continue;
      EXPECT_EQ(got[1].bits, sum_a);
      EXPECT_EQ(got[2].bits, min_b);
      EXPECT_EQ(got[3].bits, max_b);
      if (!real) continue;
      EXPECT_EQ(got[5].real(), min_c);
      EXPECT_EQ(got[6].real(), max_c);
      EXPECT_NEAR(got[7].real(), static_cast<double>(sum_a),
                  1e-6 * std::max(1.0, std::fabs(static_cast<double>(sum_a))));
      // A WHERE that is always true forces the general kernel: same bits.
      ExpressionProgram general(relation.columns(), IdentityMapper());
      const std::size_t keep = general.AddPredicate(Bin(Op::kEqual, Int(1), Int(1)));
      const std::size_t gc = general.AddValue(RealCol(2));
      DeviceProgram general_program(e, general);
      const auto reference =
          Aggregate(context, relation, general_program, keep, {{VM_AGG_SUM_R, gc}});
      EXPECT_EQ(got[4].bits, reference[0].bits) << "rows " << rows;
    }
  }
}

// Rows the WHERE filter rejects are not evaluated for the aggregate's
// argument, so their overflow is no error (as in SQLite); work-items with no
// passing row skip the argument entirely. The first half fails the filter
// everywhere; in the second half every 29th row is huge (x * 4 overflows)
// and fails it too.
TEST_P(AggregationTest, FilteredOutRowsRaiseNoOverflow) {
  Engine& e = engine();
  const RowCount rows = 5 * e.tuning().tile_size() + 9;
  Schema schema{{"x", ColumnType::Int64()}};
  TableBuilder builder("mixed", schema, rows);
  std::int64_t want_sum = 0;
  std::uint64_t want_count = 0;
  for (RowCount i = 0; i < rows; ++i) {
    std::int64_t v = static_cast<std::int64_t>(i % 1000);
    if (i < rows / 2) v += 1000;
    if (i % 29 == 3) v = std::numeric_limits<std::int64_t>::max() / 3;
    builder.column_values<std::int64_t>(0)[i] = v;
    if (v < 1000) {
      want_sum += v * 4;
      want_count += 1;
    }
  }
  TablePtr t = builder.Finish();
  TableRelation relation(e, t);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const std::size_t keep = program.AddPredicate(Bin(Op::kLess, IntCol(0), Int(1000)));
  const std::size_t times4 = program.AddValue(Bin(Op::kMultiply, IntCol(0), Int(4)));
  QueryContext context(e);
  DeviceProgram device_program(e, program);
  const auto got = Aggregate(context, relation, device_program, keep,
                             {{VM_AGG_SUM_I, times4}, {VM_AGG_COUNT, std::nullopt}});
  context.CheckStatus();
  EXPECT_EQ(got[0].bits, want_sum);
  EXPECT_EQ(got[0].count, want_count);
  EXPECT_EQ(got[1].count, want_count);
  // Without the filter the huge rows are evaluated and overflow.
  EXPECT_THROW(
      {
        Aggregate(context, relation, device_program, std::nullopt, {{VM_AGG_SUM_I, times4}});
        context.CheckStatus();
      },
      InvalidInputError);
}

CLQ_INSTANTIATE_DEVICE_TESTS(AggregationTest);

}  // namespace
}  // namespace clq
