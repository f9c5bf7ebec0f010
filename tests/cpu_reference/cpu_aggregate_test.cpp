// GROUP BY, aggregates and HAVING of the CPU reference.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <string>

#include "common/errors.hpp"
#include "tests/cpu_reference/bound_builders.hpp"

namespace clq::cpu_reference_test {
namespace {

constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

// t(g INT32, x INT64, d DOUBLE, s CHAR(6), z INT32); 1 / z is NULL where z = 0.
TablePtr SampleTable() {
  return MakeTable(
      "t", {Int32Column("g", {2, 1, 2, 3, 1, 2, 1}), Int64Column("x", {5, -1, 7, 4, 3, 1, 10}),
            DoubleColumn("d", {0.5, 1.25, -2.0, 4.0, 0.25, 1.0, 8.0}),
            CharColumn("s", 6, {"pear", "fig", "apple", "kiwi", "date", "fig", "plum"}),
            Int32Column("z", {1, 0, 1, 0, 1, 1, 0})});
}

const Expr kG = ColumnRef(0, 0, ValueType::kInteger);
const Expr kX = ColumnRef(0, 1, ValueType::kInteger);
const Expr kD = ColumnRef(0, 2, ValueType::kReal);
const Expr kS = ColumnRef(0, 3, ValueType::kText);
const Expr kZ = ColumnRef(0, 4, ValueType::kInteger);
// x / z: x where z = 1, NULL where z = 0.
const Expr kXOrNull = Binary(BinaryOp::kDivide, kX, kZ);

sql::BoundSelect Aggregated() {
  sql::BoundSelect select;
  select.from.push_back({SampleTable(), "t"});
  select.aggregated = true;
  return select;
}

// Adds an aggregate and an output referring to it.
void AddAggregate(sql::BoundSelect& select, sql::Aggregate aggregate) {
  const ValueType type = aggregate.type;
  select.aggregates.push_back(std::move(aggregate));
  AddOutput(select, AggregateRef(select.aggregates.size() - 1, type));
}

void AddGroupKey(sql::BoundSelect& select, Expr key) {
  const ValueType type = key.type;
  select.group_keys.push_back(std::move(key));
  AddOutput(select, GroupRef(select.group_keys.size() - 1, type));
}

void AddAllFunctions(sql::BoundSelect& select, const Expr& integer_argument) {
  AddAggregate(select, MakeAggregate(AggregateFunction::kCountStar));
  AddAggregate(select, MakeAggregate(AggregateFunction::kCount, integer_argument));
  AddAggregate(select, MakeAggregate(AggregateFunction::kSum, integer_argument));
  AddAggregate(select, MakeAggregate(AggregateFunction::kAvg, integer_argument));
  AddAggregate(select, MakeAggregate(AggregateFunction::kMin, integer_argument));
  AddAggregate(select, MakeAggregate(AggregateFunction::kMax, integer_argument));
  AddAggregate(select, MakeAggregate(AggregateFunction::kMedian, integer_argument));
}

TEST(CpuAggregateTest, WithoutGroupBy) {
  sql::BoundSelect select = Aggregated();
  AddAllFunctions(select, kX);
  AddAggregate(select, MakeAggregate(AggregateFunction::kSum, kD));
  AddAggregate(select, MakeAggregate(AggregateFunction::kAvg, kD));
  const QueryResult r = ExecuteOnCpu(select);
  EXPECT_EQ(Render(r), "7,7,29,4.1428571428571432,-1,10,4,13,1.8571428571428572");
  EXPECT_EQ(r.columns[2].type, ValueType::kInteger);
  EXPECT_EQ(r.columns[3].type, ValueType::kReal);
  EXPECT_EQ(r.columns[7].type, ValueType::kReal);
}

TEST(CpuAggregateTest, NullArgumentsAreIgnored) {
  sql::BoundSelect select = Aggregated();
  AddAllFunctions(select, kXOrNull);  // 5, 7, 3, 1
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "7,4,16,4,1,7,3");
}

TEST(CpuAggregateTest, EmptyInputWithoutGroupByGivesOneRow) {
  sql::BoundSelect select = Aggregated();
  select.where = Int(0);
  AddAllFunctions(select, kX);
  AddAggregate(select, MakeAggregate(AggregateFunction::kMin, kS));
  const QueryResult r = ExecuteOnCpu(select);
  EXPECT_EQ(Render(r), "0,0,NULL,NULL,NULL,NULL,NULL,NULL");
  EXPECT_EQ(r.columns[2].type, ValueType::kInteger);
  EXPECT_EQ(r.columns[7].type, ValueType::kText);
}

TEST(CpuAggregateTest, AllNullInputWithoutGroupBy) {
  sql::BoundSelect select = Aggregated();
  select.where = Binary(BinaryOp::kEqual, kZ, Int(0));
  AddAllFunctions(select, kXOrNull);
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "3,0,NULL,NULL,NULL,NULL,NULL");
}

TEST(CpuAggregateTest, EmptyInputWithGroupByGivesNoRows) {
  sql::BoundSelect select = Aggregated();
  select.where = Int(0);
  AddGroupKey(select, kG);
  AddAllFunctions(select, kX);
  EXPECT_EQ(ExecuteOnCpu(select).rows, 0u);

  sql::BoundSelect empty_table;
  empty_table.from.push_back({MakeTable("e", {Int32Column("a", {})}), "e"});
  empty_table.aggregated = true;
  AddGroupKey(empty_table, ColumnRef(0, 0, ValueType::kInteger));
  AddAggregate(empty_table, MakeAggregate(AggregateFunction::kCountStar));
  EXPECT_EQ(ExecuteOnCpu(empty_table).rows, 0u);
}

TEST(CpuAggregateTest, GroupsInOrderOfTheirFirstRow) {
  sql::BoundSelect select = Aggregated();
  AddGroupKey(select, kG);
  AddAllFunctions(select, kX);
  EXPECT_EQ(Render(ExecuteOnCpu(select)),
            "2,3,3,13,4.333333333333333,1,7,5;"
            "1,3,3,12,4,-1,10,3;"
            "3,1,1,4,4,4,4,4");
}

TEST(CpuAggregateTest, SeveralKeysIncludingText) {
  sql::BoundSelect select = Aggregated();
  AddGroupKey(select, kS);
  AddGroupKey(select, Binary(BinaryOp::kModulo, kG, Int(2)));
  AddAggregate(select, MakeAggregate(AggregateFunction::kCountStar));
  AddAggregate(select, MakeAggregate(AggregateFunction::kMax, kD));
  select.order_by.push_back({OutputRef(0, ValueType::kText), false});
  select.order_by.push_back({OutputRef(1, ValueType::kInteger), false});
  EXPECT_EQ(Render(ExecuteOnCpu(select)),
            "'apple',0,1,-2;'date',1,1,0.25;'fig',0,1,1;'fig',1,1,1.25;'kiwi',1,1,4;"
            "'pear',0,1,0.5;'plum',1,1,8");
}

TEST(CpuAggregateTest, NullKeysGroupTogether) {
  sql::BoundSelect select = Aggregated();
  AddGroupKey(select, kXOrNull);
  AddAggregate(select, MakeAggregate(AggregateFunction::kCountStar));
  AddAggregate(select, MakeAggregate(AggregateFunction::kSum, kX));
  select.order_by.push_back({OutputRef(0, ValueType::kInteger), false});
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "NULL,3,13;1,1,1;3,1,3;5,1,5;7,1,7");
}

TEST(CpuAggregateTest, ZeroAndNegativeZeroAreOneGroup) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("t", {DoubleColumn("d", {0.0, -0.0, 1.0, -0.0})}), "t"});
  select.aggregated = true;
  AddGroupKey(select, ColumnRef(0, 0, ValueType::kReal));
  AddAggregate(select, MakeAggregate(AggregateFunction::kCountStar));
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "0,3;1,1");
}

TEST(CpuAggregateTest, MinMaxOfTextAndReal) {
  sql::BoundSelect select = Aggregated();
  AddAggregate(select, MakeAggregate(AggregateFunction::kMin, kS));
  AddAggregate(select, MakeAggregate(AggregateFunction::kMax, kS));
  AddAggregate(select, MakeAggregate(AggregateFunction::kMin, kD));
  AddAggregate(select, MakeAggregate(AggregateFunction::kMax, kD));
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "'apple','plum',-2,8");
}

TEST(CpuAggregateTest, SumOverflowIsAnError) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("t", {Int64Column("x", {kMax - 1, 1, 1, -5})}), "t"});
  select.aggregated = true;
  AddAggregate(select,
               MakeAggregate(AggregateFunction::kSum, ColumnRef(0, 0, ValueType::kInteger)));
  // The partial sum kMax - 1 + 1 + 1 leaves the range, the total does not:
  // the total decides, as on the devices (SQLite, adding in order, fails).
  EXPECT_EQ(Render(ExecuteOnCpu(select)), std::to_string(kMax - 4));
  select.where = Binary(BinaryOp::kGreater, ColumnRef(0, 0, ValueType::kInteger), Int(0));
  try {
    ExecuteOnCpu(select);
    ADD_FAILURE() << "no overflow error";
  } catch (const InvalidInputError& e) {
    EXPECT_STREQ(e.what(), "integer overflow");
  }
  select.where = Binary(BinaryOp::kLess, ColumnRef(0, 0, ValueType::kInteger), Int(kMax - 1));
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "-3");
  // AVG adds as doubles and does not overflow: 2^63 / 4.
  select.where.reset();
  select.aggregates[0] =
      MakeAggregate(AggregateFunction::kAvg, ColumnRef(0, 0, ValueType::kInteger));
  select.outputs[0].expr.type = ValueType::kReal;
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "2.305843009213694e+18");
}

TEST(CpuAggregateTest, AverageAddsIntegersAsDoublesInRowOrder) {
  // 2^53 + 1 rounds back to 2^53 in double, as in SQLite's rSum.
  sql::BoundSelect select;
  select.from.push_back({MakeTable("t", {Int64Column("x", {std::int64_t{1} << 53, 1, 1})}), "t"});
  select.aggregated = true;
  AddAggregate(select,
               MakeAggregate(AggregateFunction::kAvg, ColumnRef(0, 0, ValueType::kInteger)));
  AddAggregate(select,
               MakeAggregate(AggregateFunction::kSum, ColumnRef(0, 0, ValueType::kInteger)));
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "3002399751580330.5,9007199254740994");
}

TEST(CpuAggregateTest, MedianAndQuantile) {
  sql::BoundSelect select;
  select.from.push_back(
      {MakeTable("t", {Int32Column("g", {0, 0, 0, 0, 0, 1, 1, 1, 1, 2}),
                       Int64Column("x", {5, 1, 4, 2, 3, 40, 10, 30, 20, 7}),
                       DoubleColumn("d", {0.5, 0.1, 0.4, 0.2, 0.3, 4.0, 1.0, 3.0, 2.0, 0.7}),
                       CharColumn("s", 2, {"e", "a", "d", "b", "c", "z", "w", "y", "x", "q"})}),
       "t"});
  select.aggregated = true;
  const Expr x = ColumnRef(0, 1, ValueType::kInteger);
  AddGroupKey(select, ColumnRef(0, 0, ValueType::kInteger));
  AddAggregate(select, MakeAggregate(AggregateFunction::kMedian, x));
  AddAggregate(select, MakeAggregate(AggregateFunction::kQuantile, x, 0.0));
  AddAggregate(select, MakeAggregate(AggregateFunction::kQuantile, x, 1.0));
  AddAggregate(select, MakeAggregate(AggregateFunction::kQuantile, x, 0.75));
  AddAggregate(select,
               MakeAggregate(AggregateFunction::kMedian, ColumnRef(0, 2, ValueType::kReal)));
  AddAggregate(select,
               MakeAggregate(AggregateFunction::kMedian, ColumnRef(0, 3, ValueType::kText)));
  // Group 0: 1..5, rank floor(0.5 * 4) = 2 -> 3, floor(0.75 * 4) = 3 -> 4.
  // Group 1: 10..40, rank floor(1.5) = 1 -> 20, floor(2.25) = 2 -> 30.
  EXPECT_EQ(
      Render(ExecuteOnCpu(select)),
      "0,3,1,5,4,0.29999999999999999,'c';1,20,10,40,30,2,'x';2,7,7,7,7,0.69999999999999996,'q'");
}

TEST(CpuAggregateTest, MedianIgnoresNullsAndIsNullWithoutValues) {
  sql::BoundSelect select = Aggregated();
  AddGroupKey(select, kG);
  AddAggregate(select, MakeAggregate(AggregateFunction::kMedian, kXOrNull));
  AddAggregate(select, MakeAggregate(AggregateFunction::kQuantile, kXOrNull, 0.9));
  // g=2: 5, 7, 1 -> sorted 1, 5, 7; g=1: 3 only; g=3: none.
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "2,5,5;1,3,3;3,NULL,NULL");
}

TEST(CpuAggregateTest, HavingAndOutputExpressions) {
  sql::BoundSelect select = Aggregated();
  select.group_keys.push_back(kG);
  select.aggregates.push_back(MakeAggregate(AggregateFunction::kCountStar));
  select.aggregates.push_back(MakeAggregate(AggregateFunction::kSum, kX));
  const Expr g = GroupRef(0, ValueType::kInteger);
  const Expr count = AggregateRef(0, ValueType::kInteger);
  const Expr sum = AggregateRef(1, ValueType::kInteger);
  select.having = Binary(BinaryOp::kAnd, Binary(BinaryOp::kGreater, count, Int(1)),
                         Binary(BinaryOp::kNotEqual, g, Int(7)));
  AddOutput(select, g);
  AddOutput(select, Binary(BinaryOp::kAdd, Binary(BinaryOp::kMultiply, sum, Int(2)), g));
  AddOutput(select, Binary(BinaryOp::kDivide, sum, Cast(count, ValueType::kReal)));
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "2,28,4.333333333333333;1,25,4");
  select.having = Binary(BinaryOp::kGreater, sum, Int(100));
  EXPECT_EQ(ExecuteOnCpu(select).rows, 0u);
}

TEST(CpuAggregateTest, HavingWithoutGroupBy) {
  sql::BoundSelect select = Aggregated();
  select.aggregates.push_back(MakeAggregate(AggregateFunction::kCountStar));
  select.having = Binary(BinaryOp::kGreater, AggregateRef(0, ValueType::kInteger), Int(10));
  AddOutput(select, AggregateRef(0, ValueType::kInteger));
  EXPECT_EQ(ExecuteOnCpu(select).rows, 0u);
}

TEST(CpuAggregateTest, OrderByAggregateWithLimit) {
  sql::BoundSelect select = Aggregated();
  AddGroupKey(select, kG);
  AddAggregate(select, MakeAggregate(AggregateFunction::kSum, kD));
  select.order_by.push_back({OutputRef(1, ValueType::kReal), true});
  select.limit = 2;
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "1,9.5;3,4");
}

TEST(CpuAggregateTest, GroupsSpanningSeveralBatches) {
  // More rows than one batch; every group has rows in every batch.
  const std::int64_t n = 10007;
  std::vector<std::int64_t> g(n), x(n);
  for (std::int64_t i = 0; i < n; ++i) {
    g[i] = (i * 13) % 37;
    x[i] = (i * 7919) % 1000 - 500;
  }
  sql::BoundSelect select;
  select.from.push_back({MakeTable("t", {Int32Column("g", g), Int64Column("x", x)}), "t"});
  select.aggregated = true;
  const Expr x_ref = ColumnRef(0, 1, ValueType::kInteger);
  AddGroupKey(select, ColumnRef(0, 0, ValueType::kInteger));
  AddAllFunctions(select, x_ref);
  const QueryResult r = ExecuteOnCpu(select);
  ASSERT_EQ(r.rows, 37u);
  for (RowCount row = 0; row < r.rows; ++row) {
    const std::int64_t group = r.columns[0].integers[row];
    std::vector<std::int64_t> values;
    for (std::int64_t i = 0; i < n; ++i)
      if (g[i] == group) values.push_back(x[i]);
    std::int64_t sum = 0;
    for (std::int64_t v : values)
      sum += v;
    std::vector<std::int64_t> sorted = values;
    std::sort(sorted.begin(), sorted.end());
    EXPECT_EQ(r.columns[1].integers[row], static_cast<std::int64_t>(values.size()));
    EXPECT_EQ(r.columns[3].integers[row], sum);
    EXPECT_DOUBLE_EQ(r.columns[4].reals[row],
                     static_cast<double>(sum) / static_cast<double>(values.size()));
    EXPECT_EQ(r.columns[5].integers[row], sorted.front());
    EXPECT_EQ(r.columns[6].integers[row], sorted.back());
    EXPECT_EQ(r.columns[7].integers[row], sorted[(sorted.size() - 1) / 2]);
  }
  // Groups come in the order of their first row: g = 0, 13, 26, 2, ...
  EXPECT_EQ(r.columns[0].integers[0], 0);
  EXPECT_EQ(r.columns[0].integers[1], 13);
  EXPECT_EQ(r.columns[0].integers[3], 2);
}

TEST(CpuAggregateTest, OverAJoin) {
  sql::BoundSelect select = Aggregated();
  select.from.push_back(
      {MakeTable("n", {Int32Column("g", {1, 2, 2}), CharColumn("name", 3, {"one", "two", "two"})}),
       "n"});
  select.where = Binary(BinaryOp::kEqual, kG, ColumnRef(1, 0, ValueType::kInteger));
  AddGroupKey(select, ColumnRef(1, 1, ValueType::kText));
  AddAggregate(select, MakeAggregate(AggregateFunction::kCountStar));
  AddAggregate(select, MakeAggregate(AggregateFunction::kSum, kX));
  select.order_by.push_back({OutputRef(0, ValueType::kText), false});
  // g = 2 rows (5, 7, 1) each match two "two" rows.
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "'one',3,12;'two',6,26");
}

}  // namespace
}  // namespace clq::cpu_reference_test
