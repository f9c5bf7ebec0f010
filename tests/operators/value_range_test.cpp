// Range analysis (operators/value_range.hpp) and the machine's 32-bit and
// unchecked arithmetic it enables: values at the edges of the proven ranges
// must come out exactly as 64-bit C arithmetic computes them.
#include "operators/value_range.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <limits>
#include <random>

#include "operators/expression_program.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers
using sql::BinaryOp;

constexpr std::int64_t kInt32Max = std::numeric_limits<std::int32_t>::max();

std::optional<IntRange> RangeWith(const sql::Expr& e, IntRange column) {
  return IntegerRangeOf(e, [&](const sql::Expr&) { return column; });
}

TEST(ValueRangeTest, IntervalArithmetic) {
  const IntRange small{-10, 20};
  EXPECT_EQ(RangeWith(Bin(BinaryOp::kAdd, IntCol(0), Int(5)), small), (IntRange{-5, 25}));
  EXPECT_EQ(RangeWith(Bin(BinaryOp::kSubtract, Int(0), IntCol(0)), small), (IntRange{-20, 10}));
  EXPECT_EQ(RangeWith(Bin(BinaryOp::kMultiply, IntCol(0), IntCol(0)), small),
            (IntRange{-200, 400}));
  EXPECT_EQ(RangeWith(Bin(BinaryOp::kDivide, IntCol(0), Int(-3)), small), (IntRange{-6, 3}));
  EXPECT_EQ(RangeWith(Bin(BinaryOp::kModulo, IntCol(0), Int(7)), small), (IntRange{-6, 6}));
  EXPECT_EQ(RangeWith(Bin(BinaryOp::kModulo, IntCol(0), Int(7)), (IntRange{0, 3})),
            (IntRange{0, 3}));
  EXPECT_EQ(RangeWith(Bin(BinaryOp::kLess, IntCol(0), Int(7)), small), (IntRange{0, 1}));
  EXPECT_EQ(RangeWith(Un(sql::UnaryOp::kNegate, IntCol(0)), small), (IntRange{-20, 10}));
  // Results that could leave int64 are unknown.
  const IntRange huge{0, std::numeric_limits<std::int64_t>::max()};
  EXPECT_FALSE(RangeWith(Bin(BinaryOp::kAdd, IntCol(0), Int(1)), huge));
  EXPECT_FALSE(RangeWith(Bin(BinaryOp::kMultiply, IntCol(0), Int(2)), huge));
  EXPECT_FALSE(RangeWith(Bin(BinaryOp::kDivide, IntCol(0), Int(-1)),
                         (IntRange{std::numeric_limits<std::int64_t>::min(), 0})));
  // Unknown columns and REAL expressions stay unknown.
  EXPECT_FALSE(IntegerRangeOf(IntCol(0), [](const sql::Expr&) { return std::nullopt; }));
  EXPECT_FALSE(RangeWith(Bin(BinaryOp::kAdd, RealCol(0), Real(1)), small));
}

TEST(ValueRangeTest, DivisorsThatExcludeZero) {
  const auto with = [](IntRange column) {
    return [column](const sql::Expr&) -> std::optional<IntRange> { return column; };
  };
  const IntRange naturals{0, 100};
  const auto bounds = RealBoundsOf(Bin(BinaryOp::kAdd, Real(0.173), IntCol(0)), with(naturals));
  ASSERT_TRUE(bounds);
  EXPECT_DOUBLE_EQ(bounds->lo, 0.173);
  EXPECT_DOUBLE_EQ(bounds->hi, 100.173);
  // The thesis's MAX(unique1 / (0.173 + onepercent)) cannot divide by zero.
  EXPECT_TRUE(DivisorExcludesZero(Bin(BinaryOp::kAdd, Real(0.173), IntCol(0)), BinaryOp::kDivide,
                                  with(naturals)));
  EXPECT_TRUE(DivisorExcludesZero(Bin(BinaryOp::kAdd, IntCol(0), Int(1)), BinaryOp::kModulo,
                                  with(naturals)));
  EXPECT_TRUE(DivisorExcludesZero(Bin(BinaryOp::kSubtract, Real(-0.5), IntCol(0)),
                                  BinaryOp::kDivide, with(naturals)));
  // Zero inside the range, a REAL remainder whose divisor truncates to 0, unknown shapes.
  EXPECT_FALSE(DivisorExcludesZero(Bin(BinaryOp::kSubtract, IntCol(0), Int(3)), BinaryOp::kDivide,
                                   with(naturals)));
  EXPECT_FALSE(DivisorExcludesZero(Bin(BinaryOp::kAdd, Real(0.5), IntCol(0)), BinaryOp::kModulo,
                                   with(naturals)));
  EXPECT_TRUE(DivisorExcludesZero(Bin(BinaryOp::kAdd, Real(1.5), IntCol(0)), BinaryOp::kModulo,
                                  with(naturals)));
  EXPECT_FALSE(DivisorExcludesZero(RealCol(1), BinaryOp::kDivide, with(naturals)));
  EXPECT_FALSE(DivisorExcludesZero(Bin(BinaryOp::kMultiply, Real(2.0), IntCol(0)),
                                   BinaryOp::kDivide, with(IntRange{1, 5})));
}

// NaN (then NULL) is possible only where an operand may be infinite: a
// DOUBLE column, an infinite constant, a product or quotient that may pass
// DBL_MAX. Integers and finite constants keep REAL arithmetic NaN-free.
TEST(ValueRangeTest, WhereNaNCanArise) {
  const auto small = [](const sql::Expr&) -> std::optional<IntRange> { return IntRange{0, 9999}; };
  const auto huge = [&](const sql::Expr& e) { return Bin(BinaryOp::kMultiply, e, Real(1e308)); };
  // unique1 * 1e308 * 10: infinite for unique1 >= 2, never NaN itself.
  const sql::Expr infinite = Bin(BinaryOp::kMultiply, huge(IntCol(0)), Real(10));
  EXPECT_EQ(RealMagnitudeOf(infinite, small), std::numeric_limits<double>::infinity());
  EXPECT_FALSE(MayBeNaN(infinite, small));
  EXPECT_TRUE(MayBeNaN(Bin(BinaryOp::kSubtract, infinite, infinite), small));
  EXPECT_TRUE(MayBeNaN(Bin(BinaryOp::kMultiply, infinite, Real(0)), small));
  EXPECT_TRUE(MayBeNaN(Bin(BinaryOp::kMultiply, infinite, IntCol(1)), small));
  EXPECT_FALSE(MayBeNaN(Bin(BinaryOp::kMultiply, infinite, Real(2.5)), small));
  EXPECT_TRUE(MayBeNaN(Bin(BinaryOp::kDivide, infinite, infinite), small));
  EXPECT_FALSE(MayBeNaN(Bin(BinaryOp::kDivide, infinite, IntCol(1)), small));
  EXPECT_FALSE(MayBeNaN(Bin(BinaryOp::kAdd, infinite, Real(1)), small));
  EXPECT_TRUE(MayBeNaN(
      Bin(BinaryOp::kSubtract, Real(std::numeric_limits<double>::infinity()), RealCol(2)), small));
  EXPECT_FALSE(MayBeNaN(Bin(BinaryOp::kAdd, RealCol(2), Real(0.5)), small));
  // The thesis's REAL expressions: finite operands, no NaN.
  const sql::Expr quotient =
      Bin(BinaryOp::kDivide, IntCol(0), Bin(BinaryOp::kAdd, Real(0.173), IntCol(1)));
  EXPECT_LT(RealMagnitudeOf(quotient, small), 1e5);
  EXPECT_FALSE(MayBeNaN(quotient, small));
  // unique1 * 1e308 may pass DBL_MAX, so a difference of two may be NaN;
  // unique1 * 1e300 may not.
  EXPECT_TRUE(MayBeNaN(Bin(BinaryOp::kSubtract, huge(IntCol(0)), huge(IntCol(1))), small));
  const auto large = [&](const sql::Expr& e) { return Bin(BinaryOp::kMultiply, e, Real(1e300)); };
  EXPECT_FALSE(MayBeNaN(Bin(BinaryOp::kSubtract, large(IntCol(0)), large(IntCol(1))), small));
}

TEST(ValueRangeTest, WhereOverflowCanBeRaised) {
  const auto small = [](const sql::Expr&) -> std::optional<IntRange> { return IntRange{0, 9999}; };
  EXPECT_FALSE(MayOverflow(Bin(BinaryOp::kMultiply, IntCol(0), Int(2)), small));
  EXPECT_TRUE(MayOverflow(Bin(BinaryOp::kMultiply, IntCol(0), Int(4611686018427387904)), small));
  EXPECT_TRUE(
      MayOverflow(Bin(BinaryOp::kGreaterEqual,
                      Bin(BinaryOp::kMultiply, IntCol(0), Int(4611686018427387904)), Int(0)),
                  small));
  // A remainder never raises; REAL arithmetic never does.
  EXPECT_FALSE(MayOverflow(Bin(BinaryOp::kModulo, IntCol(0), IntCol(1)),
                           [](const sql::Expr&) { return std::nullopt; }));
  EXPECT_FALSE(MayOverflow(Bin(BinaryOp::kMultiply, IntCol(0), Real(1e308)), small));
}

// Columns: a INT32 over (INT32_MIN, INT32_MAX], m INT32 in [-46340, 46340]
// (m * m fits), p INT32 in [0, INT32_MAX].
TablePtr EdgeTable(RowCount rows) {
  Schema schema{{"a", ColumnType::Int32()}, {"m", ColumnType::Int32()}, {"p", ColumnType::Int32()}};
  TableBuilder builder("edges", schema, rows);
  std::mt19937_64 rng(11);
  auto* a = builder.column_values<std::int32_t>(0);
  auto* m = builder.column_values<std::int32_t>(1);
  auto* p = builder.column_values<std::int32_t>(2);
  const std::int32_t a_edges[] = {-2147483647, 2147483647, 0, -1, 1, -100, 100, -101, 101};
  const std::int32_t m_edges[] = {-46340, 46340, 0, -1, 1};
  for (RowCount i = 0; i < rows; ++i) {
    a[i] =
        i < 9 ? a_edges[i] : static_cast<std::int32_t>(rng() % (2 * kInt32Max) - (kInt32Max - 1));
    m[i] = i < 5 ? m_edges[i] : static_cast<std::int32_t>(rng() % 92681) - 46340;
    p[i] = i < 3 ? static_cast<std::int32_t>(i == 0 ? 0 : kInt32Max - (i - 1))
                 : static_cast<std::int32_t>(rng() % static_cast<std::uint64_t>(kInt32Max));
  }
  return builder.Finish();
}

class ValueRangeDeviceTest : public DeviceTest {};

void ExpectProjection(
    Engine& engine, const TablePtr& table, const sql::Expr& expr,
    const std::function<std::int64_t(std::int64_t a, std::int64_t m, std::int64_t p)>& want,
    bool expect_narrow) {
  TableRelation relation(engine, table);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  program.AddValue(expr);
  const std::string code = program.Disassemble();
  EXPECT_EQ(code.find("narrow") != std::string::npos, expect_narrow) << code;
  const ProjectedValues got = ProjectOnDevice(engine, table, expr);
  const auto a = table->column(0).int32s(), m = table->column(1).int32s(),
             p = table->column(2).int32s();
  ASSERT_EQ(got.values.size(), table->rows());
  for (RowCount i = 0; i < table->rows(); ++i)
    ASSERT_EQ(got.values[i], want(a[i], m[i], p[i])) << "row " << i << "\n" << code;
}

TEST_P(ValueRangeDeviceTest, NarrowArithmeticIsExact) {
  const TablePtr table = EdgeTable(5000);
  Engine& e = engine();
  for (const std::int64_t d : std::initializer_list<std::int64_t>{2, 3, 7, 10, 100, 641, 65537,
                                                                  kInt32Max, -3, -7, -kInt32Max}) {
    ExpectProjection(
        e, table, Bin(BinaryOp::kDivide, IntCol(0), Int(d)),
        [d](std::int64_t a, std::int64_t, std::int64_t) { return a / d; }, true);
    ExpectProjection(
        e, table, Bin(BinaryOp::kModulo, IntCol(0), Int(d)),
        [d](std::int64_t a, std::int64_t, std::int64_t) { return a % d; }, true);
  }
  ExpectProjection(
      e, table, Bin(BinaryOp::kMultiply, IntCol(1), IntCol(1)),
      [](std::int64_t, std::int64_t m, std::int64_t) { return m * m; }, true);
  ExpectProjection(
      e, table, Bin(BinaryOp::kSubtract, Bin(BinaryOp::kMultiply, IntCol(1), IntCol(1)), IntCol(1)),
      [](std::int64_t, std::int64_t m, std::int64_t) { return m * m - m; }, true);
  ExpectProjection(
      e, table, Bin(BinaryOp::kMultiply, Bin(BinaryOp::kDivide, IntCol(2), Int(100)), Int(3)),
      [](std::int64_t, std::int64_t, std::int64_t p) { return p / 100 * 3; }, true);
  // Ranges beyond 32 bits: unchecked 64-bit arithmetic, still exact.
  ExpectProjection(
      e, table, Bin(BinaryOp::kAdd, IntCol(0), IntCol(2)),
      [](std::int64_t a, std::int64_t, std::int64_t p) { return a + p; }, false);
  ExpectProjection(
      e, table, Bin(BinaryOp::kMultiply, IntCol(0), IntCol(2)),
      [](std::int64_t a, std::int64_t, std::int64_t p) { return a * p; }, false);
  ExpectProjection(
      e, table, Un(sql::UnaryOp::kNegate, Bin(BinaryOp::kSubtract, IntCol(0), IntCol(2))),
      [](std::int64_t a, std::int64_t, std::int64_t p) { return -(a - p); }, false);
}

// A division whose divisor's range excludes zero cannot be NULL, so it runs
// on the kernels without NULL tracking; one whose divisor can be zero keeps
// its NULLs.
TEST_P(ValueRangeDeviceTest, ProvenDivisorsDropNullTracking) {
  CLQ_SKIP_REAL_WITHOUT_FP64(engine());
  const TablePtr table = EdgeTable(3000);
  Engine& e = engine();
  TableRelation relation(e, table);
  const auto a = table->column(0).int32s(), m = table->column(1).int32s(),
             p = table->column(2).int32s();
  const sql::Expr safe =
      Bin(BinaryOp::kDivide, IntCol(0), Bin(BinaryOp::kAdd, Real(0.173), IntCol(2)));
  const sql::Expr risky =
      Bin(BinaryOp::kDivide, IntCol(0), Bin(BinaryOp::kSubtract, IntCol(1), Int(1)));
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const VmEntry safe_entry = program.entry(program.AddValue(safe));
  const VmEntry risky_entry = program.entry(program.AddValue(risky));
  EXPECT_FALSE(safe_entry.track_nulls);
  EXPECT_FALSE(safe_entry.may_be_null);
  EXPECT_TRUE(risky_entry.track_nulls);
  const ProjectedValues got_safe = ProjectOnDevice(e, table, safe);
  const ProjectedValues got_risky = ProjectOnDevice(e, table, risky);
  bool saw_null = false;
  for (RowCount i = 0; i < table->rows(); ++i) {
    const double want = static_cast<double>(a[i]) / (0.173 + static_cast<double>(p[i]));
    ASSERT_EQ(got_safe.values[i], std::bit_cast<std::int64_t>(want)) << "row " << i;
    const bool null = m[i] == 1;
    saw_null |= null;
    ASSERT_EQ(got_risky.nulls[i] != 0, null) << "row " << i;
    if (!null) {
      ASSERT_EQ(got_risky.values[i], a[i] / (static_cast<std::int64_t>(m[i]) - 1)) << "row " << i;
    }
  }
  EXPECT_TRUE(saw_null);
}

CLQ_INSTANTIATE_DEVICE_TESTS(ValueRangeDeviceTest);

}  // namespace
}  // namespace clq
