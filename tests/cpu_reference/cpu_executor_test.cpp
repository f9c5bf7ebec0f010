// Projection, selection, DISTINCT, ORDER BY, LIMIT/OFFSET and result layout
// of the CPU reference.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "tests/cpu_reference/bound_builders.hpp"

namespace clq::cpu_reference_test {
namespace {

// t(id INT32, k INT64, d DOUBLE, s CHAR(8)), 6 rows with ties in k and s.
TablePtr SampleTable() {
  return MakeTable("t",
                   {Int32Column("id", {0, 1, 2, 3, 4, 5}), Int64Column("k", {3, 1, 3, 2, 1, 3}),
                    DoubleColumn("d", {0.5, -1.0, 2.25, 0.0, 8.0, -3.5}),
                    CharColumn("s", 8, {"pear", "apple", "fig", "apple", "", "pear"})});
}

const Expr kId = ColumnRef(0, 0, ValueType::kInteger);
const Expr kK = ColumnRef(0, 1, ValueType::kInteger);
const Expr kD = ColumnRef(0, 2, ValueType::kReal);
const Expr kS = ColumnRef(0, 3, ValueType::kText);

sql::BoundSelect FromSample() {
  sql::BoundSelect select;
  select.from.push_back({SampleTable(), "t"});
  return select;
}

TEST(CpuExecutorTest, ProjectionKeepsTableOrderAndNames) {
  sql::BoundSelect select = FromSample();
  AddOutput(select, kId, "id");
  AddOutput(select, kS, "s");
  AddOutput(select, Binary(BinaryOp::kMultiply, kK, Int(10)), "k10");
  const QueryResult r = ExecuteOnCpu(select);
  EXPECT_EQ(r.rows, 6u);
  ASSERT_EQ(r.columns.size(), 3u);
  EXPECT_EQ(r.columns[0].name, "id");
  EXPECT_EQ(r.columns[2].name, "k10");
  EXPECT_EQ(r.columns[1].type, ValueType::kText);
  EXPECT_EQ(r.columns[1].text_width, 5u);  // "apple"
  EXPECT_EQ(r.columns[1].text.size(), 30u);
  EXPECT_EQ(Render(r), "0,'pear',30;1,'apple',10;2,'fig',30;3,'apple',20;4,'',10;5,'pear',30");
}

TEST(CpuExecutorTest, EmptyTable) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("e", {Int32Column("a", {}), CharColumn("s", 4, {})}), "e"});
  AddOutput(select, ColumnRef(0, 0, ValueType::kInteger));
  AddOutput(select, ColumnRef(0, 1, ValueType::kText));
  const QueryResult r = ExecuteOnCpu(select);
  EXPECT_EQ(r.rows, 0u);
  EXPECT_EQ(r.columns[0].rows(), 0u);
  EXPECT_EQ(r.columns[1].rows(), 0u);
  EXPECT_GE(r.columns[1].text_width, 1u);
}

TEST(CpuExecutorTest, SelectionKeepsOnlyTrueRows) {
  sql::BoundSelect select = FromSample();
  // k % 2 is 1 (true) or 0; d / (k - 1) is NULL for k = 1: NULL rows are dropped.
  select.where =
      Binary(BinaryOp::kOr, Binary(BinaryOp::kEqual, kS, Text("fig")),
             Binary(BinaryOp::kAnd, Binary(BinaryOp::kModulo, kK, Int(2)),
                    Binary(BinaryOp::kGreater,
                           Binary(BinaryOp::kDivide, kD, Binary(BinaryOp::kSubtract, kK, Int(1))),
                           Real(-10))));
  AddOutput(select, kId);
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "0;2;5");
}

TEST(CpuExecutorTest, AllAndNoRowsSelected) {
  sql::BoundSelect all = FromSample();
  all.where = Int(1);
  AddOutput(all, kId);
  EXPECT_EQ(ExecuteOnCpu(all).rows, 6u);

  sql::BoundSelect none = FromSample();
  none.where = Null();
  AddOutput(none, kId);
  EXPECT_EQ(ExecuteOnCpu(none).rows, 0u);

  sql::BoundSelect real_true = FromSample();
  real_true.where = kD;  // non-zero REAL is true
  AddOutput(real_true, kId);
  EXPECT_EQ(Render(ExecuteOnCpu(real_true)), "0;1;2;4;5");
}

TEST(CpuExecutorTest, SelectionAcrossSeveralBatches) {
  // More rows than one filter batch, and a count that is no multiple of it.
  std::vector<std::int64_t> values(50001);
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<std::int64_t>(i);
  sql::BoundSelect select;
  select.from.push_back({MakeTable("big", {Int32Column("v", values)}), "big"});
  const Expr v = ColumnRef(0, 0, ValueType::kInteger);
  select.where =
      Binary(BinaryOp::kAnd, Binary(BinaryOp::kEqual, Binary(BinaryOp::kModulo, v, Int(7)), Int(3)),
             Binary(BinaryOp::kGreaterEqual, v, Int(16380)));
  AddOutput(select, v);
  const QueryResult r = ExecuteOnCpu(select);
  std::vector<std::int64_t> expected;
  for (std::int64_t i = 16380; i <= 50000; ++i)
    if (i % 7 == 3) expected.push_back(i);
  EXPECT_EQ(std::vector<std::int64_t>(r.columns[0].integers.begin(), r.columns[0].integers.end()),
            expected);
}

TEST(CpuExecutorTest, NullColumnsAndNullMaps) {
  sql::BoundSelect select = FromSample();
  AddOutput(select, Null());
  AddOutput(select, Binary(BinaryOp::kDivide, Int(6), Binary(BinaryOp::kSubtract, kK, Int(1))));
  const QueryResult r = ExecuteOnCpu(select);
  EXPECT_EQ(r.columns[0].type, ValueType::kNull);
  EXPECT_EQ(r.columns[0].nulls, std::vector<std::uint8_t>(6, 1));
  EXPECT_EQ(r.columns[0].rows(), 6u);
  EXPECT_EQ(r.columns[1].type, ValueType::kInteger);
  EXPECT_EQ(r.columns[1].nulls, (std::vector<std::uint8_t>{0, 1, 0, 0, 1, 0}));
  EXPECT_EQ(Render(r), "NULL,3;NULL,NULL;NULL,3;NULL,6;NULL,NULL;NULL,3");
}

TEST(CpuExecutorTest, OrderByIsStable) {
  sql::BoundSelect select = FromSample();
  AddOutput(select, kK);
  AddOutput(select, kId);
  select.order_by.push_back({OutputRef(0, ValueType::kInteger), false});
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "1,1;1,4;2,3;3,0;3,2;3,5");
  select.order_by[0].descending = true;
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "3,0;3,2;3,5;2,3;1,1;1,4");
}

TEST(CpuExecutorTest, OrderByTextAndSeveralKeys) {
  sql::BoundSelect select = FromSample();
  AddOutput(select, kS);
  AddOutput(select, kD);
  select.order_by.push_back({OutputRef(0, ValueType::kText), false});
  select.order_by.push_back({OutputRef(1, ValueType::kReal), true});
  EXPECT_EQ(Render(ExecuteOnCpu(select)),
            "'',8;'apple',0;'apple',-1;'fig',2.25;'pear',0.5;'pear',-3.5");
}

TEST(CpuExecutorTest, OrderByPutsNullFirstAscendingAndLastDescending) {
  sql::BoundSelect select = FromSample();
  // 6 / (k - 1): NULL for ids 1 and 4.
  AddOutput(select, Binary(BinaryOp::kDivide, Int(6), Binary(BinaryOp::kSubtract, kK, Int(1))));
  AddOutput(select, kId);
  select.order_by.push_back({OutputRef(0, ValueType::kInteger), false});
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "NULL,1;NULL,4;3,0;3,2;3,5;6,3");
  select.order_by[0].descending = true;
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "6,3;3,0;3,2;3,5;NULL,1;NULL,4");
}

// One INTEGER or REAL key takes a shortcut; a second, constant key forces
// the general comparator, which must give the same order.
TEST(CpuExecutorTest, SingleKeySortMatchesTheGeneralSort) {
  std::vector<std::int64_t> ids, values, divisors;
  std::vector<double> reals;
  for (std::int64_t i = 0; i < 500; ++i) {
    ids.push_back(i);
    values.push_back((i * 37) % 11 - 5);
    divisors.push_back(i % 7 == 0 ? 0 : 1);
    reals.push_back(static_cast<double>((i * 53) % 13) / 4 - 1);
  }
  sql::BoundSelect base;
  base.from.push_back({MakeTable("t", {Int32Column("id", ids), Int64Column("v", values),
                                       Int32Column("z", divisors), DoubleColumn("r", reals)}),
                       "t"});
  const Expr z = ColumnRef(0, 2, ValueType::kInteger);
  // v / z and r / z: NULL where z = 0.
  const std::vector<Expr> keys = {
      Binary(BinaryOp::kDivide, ColumnRef(0, 1, ValueType::kInteger), z),
      Binary(BinaryOp::kDivide, ColumnRef(0, 3, ValueType::kReal), z)};
  for (const Expr& key : keys) {
    for (bool descending : {false, true}) {
      sql::BoundSelect one = base;
      AddOutput(one, key);
      AddOutput(one, ColumnRef(0, 0, ValueType::kInteger));
      AddOutput(one, Int(1));
      one.order_by.push_back({OutputRef(0, key.type), descending});
      sql::BoundSelect two = one;
      two.order_by.push_back({OutputRef(2, ValueType::kInteger), false});
      const QueryResult a = ExecuteOnCpu(one);
      EXPECT_EQ(Render(a), Render(ExecuteOnCpu(two)));
      EXPECT_EQ(a.columns[0].IsNull(0), !descending);
    }
  }
}

TEST(CpuExecutorTest, HiddenOrderByOutputsAreDropped) {
  sql::BoundSelect select = FromSample();
  AddOutput(select, kS);
  AddOutput(select, kD);
  select.visible_outputs = 1;
  select.order_by.push_back({OutputRef(1, ValueType::kReal), false});
  const QueryResult r = ExecuteOnCpu(select);
  ASSERT_EQ(r.columns.size(), 1u);
  EXPECT_EQ(Render(r), "'pear';'apple';'apple';'pear';'fig';''");
}

TEST(CpuExecutorTest, DistinctKeepsFirstOccurrences) {
  sql::BoundSelect select = FromSample();
  select.distinct = true;
  AddOutput(select, kS);
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "'pear';'apple';'fig';''");

  sql::BoundSelect pairs = FromSample();
  pairs.distinct = true;
  AddOutput(pairs, kK);
  AddOutput(pairs, kS);
  pairs.order_by.push_back({OutputRef(0, ValueType::kInteger), true});
  EXPECT_EQ(Render(ExecuteOnCpu(pairs)), "3,'pear';3,'fig';2,'apple';1,'apple';1,''");
}

TEST(CpuExecutorTest, DistinctTreatsNullsAsEqualAndZerosAsEqual) {
  sql::BoundSelect select;
  select.from.push_back(
      {MakeTable("t", {DoubleColumn("d", {0.0, -0.0, 1.0, 0.0}), Int32Column("z", {0, 0, 1, 0})}),
       "t"});
  select.distinct = true;
  const Expr z = ColumnRef(0, 1, ValueType::kInteger);
  AddOutput(select, ColumnRef(0, 0, ValueType::kReal));
  AddOutput(select, Binary(BinaryOp::kDivide, Int(1), z));
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "0,NULL;1,1");
}

TEST(CpuExecutorTest, LimitAndOffset) {
  auto run = [](std::optional<std::uint64_t> limit, std::uint64_t offset) {
    sql::BoundSelect select = FromSample();
    AddOutput(select, kId);
    select.order_by.push_back({OutputRef(0, ValueType::kInteger), true});
    select.limit = limit;
    select.offset = offset;
    return Render(ExecuteOnCpu(select));
  };
  EXPECT_EQ(run(2, 0), "5;4");
  EXPECT_EQ(run(2, 3), "2;1");
  EXPECT_EQ(run(10, 4), "1;0");
  EXPECT_EQ(run(std::nullopt, 4), "1;0");
  EXPECT_EQ(run(3, 6), "");
  EXPECT_EQ(run(3, 100), "");
  EXPECT_EQ(run(0, 0), "");
  EXPECT_EQ(run(std::numeric_limits<std::uint64_t>::max(), 1), "4;3;2;1;0");
}

TEST(CpuExecutorTest, NoFromClause) {
  sql::BoundSelect select;
  AddOutput(select, Int(1));
  AddOutput(select, Text("x"));
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "1,'x'");
  select.where = Int(0);
  EXPECT_EQ(ExecuteOnCpu(select).rows, 0u);
}

TEST(CpuExecutorTest, BrokenContractIsAnInternalError) {
  sql::BoundSelect select = FromSample();
  AddOutput(select, ColumnRef(1, 0, ValueType::kInteger));  // no source 1
  EXPECT_THROW(ExecuteOnCpu(select), InternalError);

  sql::BoundSelect wrong_type = FromSample();
  AddOutput(wrong_type, ColumnRef(0, 3, ValueType::kInteger));  // s is TEXT
  EXPECT_THROW(ExecuteOnCpu(wrong_type), InternalError);
}

}  // namespace
}  // namespace clq::cpu_reference_test
