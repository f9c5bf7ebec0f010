// The direct scan for `column <op> constant` and BETWEEN must select exactly
// the rows the general evaluator selects; NOT (NOT p) forces the general
// path for the same predicate p.
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "tests/cpu_reference/bound_builders.hpp"

namespace clq::cpu_reference_test {
namespace {

constexpr std::int64_t kInt32Min = std::numeric_limits<std::int32_t>::min();
constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();
constexpr std::int64_t kInt64Min = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kInt64Max = std::numeric_limits<std::int64_t>::max();

TablePtr EdgeTable() {
  const double inf = std::numeric_limits<double>::infinity();
  return MakeTable(
      "edges",
      {Int32Column("i32", {kInt32Min, -1, 0, 1, 7, kInt32Max, 7, -7, 2, 3}),
       Int64Column("i64",
                   {kInt64Min, -1, 0, 1, 7, kInt64Max, kInt32Max, kInt32Min, 9007199254740993, -2}),
       DoubleColumn("d", {-inf, -1.5, -0.0, 0.0, 0.5, 7.0, inf, std::nan(""), 1e300, 2.25}),
       CharColumn("s", 4, {"", "a", "ab", "abc", "b", "B", "abcd", "ab", "\xff", "a b"})});
}

std::vector<Expr> Constants(ValueType column_type) {
  if (column_type == ValueType::kText)
    return {Text(""), Text("a"), Text("ab"), Text("abcd"), Text("abcde"), Text("b"), Text("\xff")};
  return {Int(kInt64Min),
          Int(kInt32Min),
          Int(-1),
          Int(0),
          Int(1),
          Int(7),
          Int(kInt32Max),
          Int(kInt64Max),
          Real(-0.0),
          Real(0.5),
          Real(7.0),
          Real(-1.5),
          Real(9007199254740992.0),
          Real(std::numeric_limits<double>::infinity()),
          Real(std::nan(""))};
}

std::string Selected(const TablePtr& table, Expr predicate) {
  sql::BoundSelect select;
  select.from.push_back({table, "t"});
  select.where = std::move(predicate);
  // Every column, so that the selected rows are recognisable.
  for (std::size_t c = 0; c < table->columns().size(); ++c) {
    const ColumnType type = table->column(c).type();
    AddOutput(select, ColumnRef(0, c,
                                type.type == DataType::kChar ? ValueType::kText
                                : type.is_integer()          ? ValueType::kInteger
                                                             : ValueType::kReal));
  }
  return Render(ExecuteOnCpu(select));
}

Expr General(Expr e) {
  return Unary(UnaryOp::kNot, Unary(UnaryOp::kNot, std::move(e)));
}

TEST(CpuSimpleFilterTest, ComparisonsMatchTheGeneralEvaluator) {
  const TablePtr table = EdgeTable();
  const std::vector<BinaryOp> ops = {BinaryOp::kEqual,   BinaryOp::kNotEqual,
                                     BinaryOp::kLess,    BinaryOp::kLessEqual,
                                     BinaryOp::kGreater, BinaryOp::kGreaterEqual};
  const std::vector<ValueType> types = {ValueType::kInteger, ValueType::kInteger, ValueType::kReal,
                                        ValueType::kText};
  std::size_t checked = 0;
  for (std::size_t c = 0; c < types.size(); ++c) {
    const Expr column = ColumnRef(0, c, types[c]);
    for (const Expr& constant : Constants(types[c])) {
      for (BinaryOp op : ops) {
        const Expr right = Binary(op, column, constant);
        const Expr left = Binary(op, constant, column);
        EXPECT_EQ(Selected(table, right), Selected(table, General(right)))
            << "column " << c << " op " << static_cast<int>(op) << " "
            << Describe(constant.constant);
        EXPECT_EQ(Selected(table, left), Selected(table, General(left)))
            << "constant op column " << c << " op " << static_cast<int>(op);
        checked += 2;
      }
    }
  }
  EXPECT_GT(checked, 400u);
}

TEST(CpuSimpleFilterTest, BetweenMatchesTheGeneralEvaluator) {
  const TablePtr table = EdgeTable();
  const std::vector<ValueType> types = {ValueType::kInteger, ValueType::kInteger, ValueType::kReal,
                                        ValueType::kText};
  for (std::size_t c = 0; c < types.size(); ++c) {
    const Expr column = ColumnRef(0, c, types[c]);
    const std::vector<Expr> constants = Constants(types[c]);
    for (const Expr& low : constants) {
      for (const Expr& high : constants) {
        for (bool negated : {false, true}) {
          const Expr between = Between(column, low, high, negated);
          EXPECT_EQ(Selected(table, between), Selected(table, General(between)))
              << "column " << c << " " << Describe(low.constant) << " .. "
              << Describe(high.constant) << (negated ? " negated" : "");
        }
      }
    }
  }
}

TEST(CpuSimpleFilterTest, SelectsTheExpectedRows) {
  const TablePtr table = EdgeTable();
  sql::BoundSelect select;
  select.from.push_back({table, "t"});
  select.where = Between(ColumnRef(0, 0, ValueType::kInteger), Int(0), Int(7));
  AddOutput(select, ColumnRef(0, 0, ValueType::kInteger));
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "0;1;7;7;2;3");
  select.where = Binary(BinaryOp::kGreaterEqual, ColumnRef(0, 3, ValueType::kText), Text("ab"));
  select.outputs[0].expr = ColumnRef(0, 3, ValueType::kText);
  EXPECT_EQ(Render(ExecuteOnCpu(select)), "'ab';'abc';'b';'abcd';'ab';'\xff'");
}

}  // namespace
}  // namespace clq::cpu_reference_test
