// Joins of the CPU reference: hash joins on equalities (many-to-many, key
// extremes, key expressions, TEXT keys, NULL keys), joins of three tables,
// cross products and residual predicates.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <sstream>

#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "tests/cpu_reference/bound_builders.hpp"

namespace clq::cpu_reference_test {
namespace {

constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

Expr Eq(Expr a, Expr b) {
  return Binary(BinaryOp::kEqual, std::move(a), std::move(b));
}
Expr And(Expr a, Expr b) {
  return Binary(BinaryOp::kAnd, std::move(a), std::move(b));
}
Expr IntCol(std::size_t source, std::size_t index) {
  return ColumnRef(source, index, ValueType::kInteger);
}

// Rows of the result sorted, so that tests do not depend on join order.
std::string SortedRows(const QueryResult& r) {
  std::vector<std::string> rows;
  std::stringstream all(Render(r));
  for (std::string row; std::getline(all, row, ';');)
    rows.push_back(row);
  std::sort(rows.begin(), rows.end());
  std::string text;
  for (const std::string& row : rows) {
    if (!text.empty()) text += ';';
    text += row;
  }
  return text;
}

TEST(CpuJoinTest, ManyToManyWithDuplicatesOnBothSides) {
  sql::BoundSelect select;
  select.from.push_back(
      {MakeTable("a", {Int32Column("id", {0, 1, 2, 3, 4}), Int32Column("x", {1, 1, 2, 3, 1})}),
       "a"});
  select.from.push_back(
      {MakeTable("b", {Int32Column("id", {10, 11, 12, 13}), Int64Column("y", {1, 2, 1, 5})}), "b"});
  select.where = Eq(IntCol(0, 1), IntCol(1, 1));
  AddOutput(select, IntCol(0, 0));
  AddOutput(select, IntCol(1, 0));
  const QueryResult r = ExecuteOnCpu(select);
  EXPECT_EQ(r.rows, 7u);
  EXPECT_EQ(SortedRows(r), "0,10;0,12;1,10;1,12;2,11;4,10;4,12");
  // Probe order (a), then build order (b).
  EXPECT_EQ(Render(r), "0,10;0,12;1,10;1,12;2,11;4,10;4,12");
}

TEST(CpuJoinTest, KeysAtIntegerLimits) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {Int32Column("x", {kInt32Min, kInt32Max, 0, -1}),
                                         Int64Column("w", {kInt64Min, kInt64Max, 0, -1})}),
                         "a"});
  select.from.push_back({MakeTable("b", {Int64Column("y", {kInt32Max, kInt64Min, kInt32Min,
                                                           kInt64Max, kInt32Max, -1, 4294967295})}),
                         "b"});
  select.where = Eq(IntCol(0, 0), IntCol(1, 0));
  AddOutput(select, IntCol(0, 0));
  AddOutput(select, IntCol(1, 0));
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)),
            "-1,-1;-2147483648,-2147483648;2147483647,2147483647;2147483647,2147483647");

  select.where = Eq(IntCol(1, 0), IntCol(0, 1));
  select.outputs[0].expr = IntCol(0, 1);
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)),
            "-1,-1;-9223372036854775808,-9223372036854775808;"
            "9223372036854775807,9223372036854775807");
}

TEST(CpuJoinTest, KeyExpressions) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {Int32Column("x", {7, 8, 9, 17})}), "a"});
  select.from.push_back({MakeTable("b", {Int64Column("y", {0, 1, 10, 0})}), "b"});
  // a.x = b.y + 7, written both ways round.
  const Expr key = Binary(BinaryOp::kAdd, IntCol(1, 0), Int(7));
  AddOutput(select, IntCol(0, 0));
  AddOutput(select, IntCol(1, 0));
  select.where = Eq(IntCol(0, 0), key);
  const std::string expected = "17,10;7,0;7,0;8,1";
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)), expected);
  select.where = Eq(key, IntCol(0, 0));
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)), expected);
}

TEST(CpuJoinTest, TextKeysIgnorePadding) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {CharColumn("s", 4, {"ab", "", "abc", "x"})}), "a"});
  select.from.push_back({MakeTable("b", {CharColumn("t", 9, {"abc", "ab", "", "ab ", "ab"}),
                                         Int32Column("id", {0, 1, 2, 3, 4})}),
                         "b"});
  select.where = Eq(ColumnRef(0, 0, ValueType::kText), ColumnRef(1, 0, ValueType::kText));
  AddOutput(select, ColumnRef(0, 0, ValueType::kText));
  AddOutput(select, IntCol(1, 1));
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)), "'',2;'ab',1;'ab',4;'abc',0");
}

TEST(CpuJoinTest, NullKeysNeverMatch) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {Int32Column("x", {0, 1, 2})}), "a"});
  select.from.push_back({MakeTable("b", {Int32Column("y", {0, 1, 2})}), "b"});
  // 1 / x is NULL for x = 0 on both sides; 1 / 1 = 1 and 1 / 2 = 0.
  select.where = Eq(Binary(BinaryOp::kDivide, Int(1), IntCol(0, 0)),
                    Binary(BinaryOp::kDivide, Int(1), IntCol(1, 0)));
  AddOutput(select, IntCol(0, 0));
  AddOutput(select, IntCol(1, 0));
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)), "1,1;2,2");
}

TEST(CpuJoinTest, CrossProductWithResidualPredicate) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {Int32Column("x", {1, 2})}), "a"});
  select.from.push_back({MakeTable("b", {DoubleColumn("d", {0.5, 1.5, 2.5})}), "b"});
  AddOutput(select, IntCol(0, 0));
  AddOutput(select, ColumnRef(1, 0, ValueType::kReal));
  EXPECT_EQ(ExecuteOnCpu(select).rows, 6u);
  select.where = Binary(BinaryOp::kLess, IntCol(0, 0), ColumnRef(1, 0, ValueType::kReal));
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)), "1,1.5;1,2.5;2,2.5");
  // INTEGER = REAL is no hash key; it is evaluated on the cross product.
  select.where =
      Eq(Binary(BinaryOp::kMultiply, IntCol(0, 0), Real(0.75)), ColumnRef(1, 0, ValueType::kReal));
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)), "2,1.5");
}

TEST(CpuJoinTest, EmptySideGivesNoRows) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {Int32Column("x", {1, 2})}), "a"});
  select.from.push_back({MakeTable("b", {Int32Column("y", {})}), "b"});
  AddOutput(select, IntCol(0, 0));
  EXPECT_EQ(ExecuteOnCpu(select).rows, 0u);
  select.where = Eq(IntCol(0, 0), IntCol(1, 0));
  EXPECT_EQ(ExecuteOnCpu(select).rows, 0u);
}

// a(x), b(y, z), c(w): a.x = b.y AND b.z = c.w AND a.x + c.w > 3, listed
// with c before b so that the join must go a -> b -> c, not a x c.
TEST(CpuJoinTest, ThreeTables) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {Int32Column("x", {1, 2, 2, 3})}), "a"});
  select.from.push_back({MakeTable("c", {Int64Column("w", {10, 20, 20, 30})}), "c"});
  select.from.push_back(
      {MakeTable("b", {Int32Column("y", {2, 2, 1, 4}), Int64Column("z", {20, 10, 30, 10})}), "b"});
  select.where =
      And(And(Eq(IntCol(0, 0), IntCol(2, 0)), Eq(IntCol(2, 1), IntCol(1, 0))),
          Binary(BinaryOp::kGreater, Binary(BinaryOp::kAdd, IntCol(0, 0), IntCol(1, 0)), Int(3)));
  AddOutput(select, IntCol(0, 0));
  AddOutput(select, IntCol(2, 1));
  AddOutput(select, IntCol(1, 0));
  // a=1 -> b(1,30) -> c 30; a=2 (twice) -> b(2,20) -> c 20 (twice), b(2,10) -> c 10.
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)),
            "1,30,30;2,10,10;2,10,10;2,20,20;2,20,20;2,20,20;2,20,20");
}

TEST(CpuJoinTest, SelfJoinAndSeveralKeysBetweenTwoTables) {
  const TablePtr t =
      MakeTable("t", {Int32Column("k1", {1, 1, 2, 2}), CharColumn("k2", 2, {"a", "b", "a", "a"}),
                      Int32Column("id", {0, 1, 2, 3})});
  sql::BoundSelect select;
  select.from.push_back({t, "l"});
  select.from.push_back({t, "r"});
  select.where = And(Eq(IntCol(0, 0), IntCol(1, 0)),
                     Eq(ColumnRef(1, 1, ValueType::kText), ColumnRef(0, 1, ValueType::kText)));
  AddOutput(select, IntCol(0, 2));
  AddOutput(select, IntCol(1, 2));
  EXPECT_EQ(SortedRows(ExecuteOnCpu(select)), "0,0;1,1;2,2;2,3;3,2;3,3");
}

// The hash join agrees with the same predicate evaluated on the cross
// product (NOT (a <> b) is no join key).
TEST(CpuJoinTest, HashJoinMatchesCrossProduct) {
  std::vector<std::int64_t> xs, ys;
  for (std::int64_t i = 0; i < 60; ++i)
    xs.push_back((i * 7) % 13 - 6);
  for (std::int64_t i = 0; i < 45; ++i)
    ys.push_back((i * 5) % 11 - 5);
  const TablePtr a = MakeTable("a", {Int32Column("x", xs)});
  const TablePtr b = MakeTable("b", {Int64Column("y", ys)});
  auto run = [&](Expr where) {
    sql::BoundSelect select;
    select.from.push_back({a, "a"});
    select.from.push_back({b, "b"});
    select.where = std::move(where);
    AddOutput(select, IntCol(0, 0));
    AddOutput(select, IntCol(1, 0));
    return ExecuteOnCpu(select);
  };
  const QueryResult hashed = run(Eq(IntCol(0, 0), IntCol(1, 0)));
  const QueryResult nested =
      run(Unary(UnaryOp::kNot, Binary(BinaryOp::kNotEqual, IntCol(0, 0), IntCol(1, 0))));
  EXPECT_GT(hashed.rows, 100u);
  EXPECT_EQ(CompareResults(nested, hashed, {.ignore_row_order = true}), "");
}

TEST(CpuJoinTest, ProbeSideSpanningSeveralBatches) {
  const std::int64_t probe_rows = 10007, build_rows = 301;
  std::vector<std::int64_t> xs(probe_rows), ys(build_rows);
  for (std::int64_t i = 0; i < probe_rows; ++i)
    xs[i] = (i * 31) % 500;
  for (std::int64_t i = 0; i < build_rows; ++i)
    ys[i] = (i * 17) % 97 * 3;
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {Int32Column("x", xs)}), "a"});
  select.from.push_back({MakeTable("b", {Int64Column("y", ys)}), "b"});
  select.where = Eq(IntCol(0, 0), IntCol(1, 0));
  AddOutput(select, IntCol(0, 0));
  const QueryResult r = ExecuteOnCpu(select);
  // Probe order: the matches of each a row, a rows in table order.
  std::vector<std::int64_t> expected;
  for (std::int64_t x : xs)
    for (std::int64_t y : ys)
      if (x == y) expected.push_back(x);
  EXPECT_GT(expected.size(), 4096u);
  EXPECT_EQ(std::vector<std::int64_t>(r.columns[0].integers.begin(), r.columns[0].integers.end()),
            expected);
}

// Two tables of 3000 rows whose every row matches every other: 9 million
// joined rows.
sql::BoundSelect AllMatching(std::optional<Expr> where) {
  const std::vector<std::int64_t> ones(3000, 1);
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {Int32Column("x", ones)}), "a"});
  select.from.push_back({MakeTable("b", {Int64Column("y", ones)}), "b"});
  if (where) select.where = std::move(*where);
  AddOutput(select, IntCol(0, 0));
  AddOutput(select, IntCol(1, 0));
  return select;
}

// A cross product's rows are known up front: refused before anything is
// allocated, naming the rows.
TEST(CpuJoinTest, ACrossProductBeyondTheBudgetIsRefusedUpFront) {
  const sql::BoundSelect select = AllMatching(std::nullopt);
  try {
    ExecuteOnCpu(select, HeldHostMemory() + (1 << 20));
    FAIL() << "joined";
  } catch (const ResourceLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("the join's result (9000000 rows) needs"),
              std::string::npos)
        << error.what();
  }
}

// A hash join's matches are counted as they come: it stops once they pass
// the budget, long before the 9 million.
TEST(CpuJoinTest, AHashJoinBeyondTheBudgetStopsAsItsMatchesGrow) {
  const sql::BoundSelect select = AllMatching(Eq(IntCol(0, 0), IntCol(1, 0)));
  try {
    ExecuteOnCpu(select, HeldHostMemory() + (1 << 20));
    FAIL() << "joined";
  } catch (const ResourceLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("the join's matched rows (more than "),
              std::string::npos)
        << error.what();
  }
}

// Under a budget that holds them, the same joins run.
TEST(CpuJoinTest, JoinsWithinTheBudgetRun) {
  std::vector<std::int64_t> keys(3000);
  for (std::size_t i = 0; i < keys.size(); ++i)
    keys[i] = static_cast<std::int64_t>(i);
  sql::BoundSelect select;
  select.from.push_back({MakeTable("a", {Int32Column("x", keys)}), "a"});
  select.from.push_back({MakeTable("b", {Int64Column("y", keys)}), "b"});
  select.where = Eq(IntCol(0, 0), IntCol(1, 0));
  AddOutput(select, IntCol(0, 0));
  EXPECT_EQ(ExecuteOnCpu(select, HeldHostMemory() + (1 << 20)).rows, 3000u);
}

}  // namespace
}  // namespace clq::cpu_reference_test
