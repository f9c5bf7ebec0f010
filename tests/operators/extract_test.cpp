// EXTRACT(YEAR|MONTH|DAY FROM days) on the expression machine (VM_EXTRACT,
// kernels_cl/vm.cl) on every day from 1600-01-01 to 2400-12-31 against a
// calendar walked a day at a time, on the ends of the INT32 days DATE stores
// and random days against common/calendar's CivilFromDays (itself checked
// by the round trip through DaysFromCivil), with NULLs, on the 32-bit and
// 64-bit machines, lean and full; and on days past int32 (the 64-bit
// machine's rare path) through the calendar's period of 400 years.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <map>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "common/calendar.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/expression_program.hpp"
#include "operators/value_range.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class ExtractTest : public DeviceTest {};

// d: INT32 days; n: d with every 7th row NULL; w: INT64, d moved by
// kShiftEras eras of 400 years (past int32) on even rows and back on odd ones.
enum Column : std::size_t { kD, kN, kW };
constexpr std::int64_t kEra = 146097;  // days in 400 years
constexpr std::int64_t kShiftEras = 20000;

constexpr sql::UnaryOp kFields[] = {sql::UnaryOp::kExtractYear, sql::UnaryOp::kExtractMonth,
                                    sql::UnaryOp::kExtractDay};

bool IsLeap(std::int64_t y) {
  return (y % 4 == 0 && y % 100 != 0) || y % 400 == 0;
}

struct Days {
  std::vector<std::int32_t> days;
  std::vector<CivilDate> want;  // the date of each day
};

// Every day of [1600-01-01, 2400-12-31] with its date from a walk through
// the calendar (no division anywhere); then the ends of INT32, the days
// around 1970-01-01 and 0000-03-01, and random days, with their dates from
// CivilFromDays. `stride` > 1 keeps every stride-th of them, and still
// every year's end and leap-day boundaries and the outermost days of each
// run: for simulators (Oclgrind), whose tiles are small and whose every
// instruction is costly.
Days MakeDays(std::size_t stride) {
  Days out;
  static constexpr int kMonthDays[] = {31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31};
  CivilDate date{1600, 1, 1};
  std::int64_t day = DaysFromCivil(date);
  EXPECT_EQ(day, -135140);
  std::size_t walked = 0;
  while (date.year <= 2400) {
    const bool boundary =
        (date.month == 2 && date.day >= 28) || (date.month == 3 && date.day == 1) ||
        (date.month == 12 && date.day == 31) || (date.month == 1 && date.day == 1);
    if (walked++ % stride == 0 || boundary) {
      out.days.push_back(static_cast<std::int32_t>(day));
      out.want.push_back(date);
    }
    ++day;
    const int length = date.month == 2 && IsLeap(date.year) ? 29 : kMonthDays[date.month - 1];
    if (++date.day > length) {
      date.day = 1;
      if (++date.month > 12) {
        date.month = 1;
        ++date.year;
      }
    }
  }
  EXPECT_EQ(walked, 292560u);  // 801 years, 195 of them leap
  EXPECT_EQ(out.days.back(), DaysFromCivil({2400, 12, 31}));
  std::vector<std::int64_t> more;
  constexpr std::int64_t kMin = std::numeric_limits<std::int32_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int32_t>::max();
  for (std::int64_t i = 0; i < 800; ++i) {
    if (i >= 20 && i < 780 && i % static_cast<std::int64_t>(stride) != 0) continue;
    more.push_back(kMin + i);
    more.push_back(kMax - i);
    more.push_back(i - 400);                    // around 1970-01-01
    more.push_back(-719468 + i - 400);          // around 0000-03-01
    more.push_back(-719528 + i - 400);          // around 0000-01-01
    more.push_back(-146097 * 14699 + i - 400);  // an era's start far before 0
  }
  std::mt19937_64 rng(20261201);
  for (std::size_t i = 0; i < 50000; ++i) {
    const std::int64_t random = static_cast<std::int32_t>(rng());
    if (i % stride == 0) more.push_back(random);
  }
  for (const std::int64_t d : more) {
    const CivilDate civil = CivilFromDays(d);
    EXPECT_EQ(DaysFromCivil(civil), d) << "the reference at day " << d;
    EXPECT_TRUE(civil.month >= 1 && civil.month <= 12 && civil.day >= 1 && civil.day <= 31) << d;
    out.days.push_back(static_cast<std::int32_t>(d));
    out.want.push_back(civil);
  }
  return out;
}

// The days for `engine`: all of them where a tile holds 256 rows or more
// (every hardware device's tuning), every 128th (and the boundaries) on a
// simulator's small tiles, where each work-item is simulated and checked:
// the machine's EXTRACT is one instruction whatever the day, and the
// hardware devices check every day.
const Days& TheDays(const Engine& engine) {
  const std::size_t stride = engine.tuning().tile_size() >= 256 ? 1 : 128;
  static std::map<std::size_t, Days> made;
  auto it = made.find(stride);
  if (it == made.end()) it = made.emplace(stride, MakeDays(stride)).first;
  return it->second;
}

TablePtr MakeTable(const Days& days) {
  const RowCount rows = days.days.size();
  Schema schema{
      {"d", ColumnType::Int32()}, {"n", ColumnType::Int32(), true}, {"w", ColumnType::Int64()}};
  TableBuilder builder("t", schema, rows);
  auto* d = builder.column_values<std::int32_t>(kD);
  auto* n = builder.column_values<std::int32_t>(kN);
  auto* w = builder.column_values<std::int64_t>(kW);
  for (RowCount i = 0; i < rows; ++i) {
    d[i] = days.days[i];
    n[i] = days.days[i];
    if (i % 7 == 3) builder.SetNull(kN, i);
    w[i] = days.days[i] + (i % 2 == 0 ? kShiftEras : -kShiftEras) * kEra;
  }
  return builder.Finish();
}

std::int64_t Field(sql::UnaryOp field, const CivilDate& date) {
  return field == sql::UnaryOp::kExtractYear    ? date.year
         : field == sql::UnaryOp::kExtractMonth ? date.month
                                                : date.day;
}

sql::Expr Extract(sql::UnaryOp field, sql::Expr days) {
  return Un(field, std::move(days));
}

TEST_P(ExtractTest, EveryDayAgreesWithTheCalendar) {
  Engine& e = engine();
  const Days& days = TheDays(e);
  const TablePtr table = MakeTable(days);
  const RowCount rows = table->rows();
  for (const sql::UnaryOp field : kFields) {
    for (const Column column : {kD, kN, kW}) {
      for (const bool narrow : {true, false}) {
        for (const bool lean : {true, false}) {
          QueryOptions options;
          options.narrow_machine = narrow;
          options.lean_machine = lean;
          const sql::Expr expr = Extract(field, IntCol(column));
          const std::string where = expr.ToString() + " narrow " + std::to_string(narrow) +
                                    " lean " + std::to_string(lean);
          const ProjectedValues got = ProjectOnDevice(e, table, expr, options);
          ASSERT_EQ(got.values.size(), rows) << where;
          std::size_t wrong = 0;
          for (RowCount i = 0; i < rows; ++i) {
            const bool null = column == kN && i % 7 == 3;
            std::int64_t want = Field(field, days.want[i]);
            if (column == kW && field == sql::UnaryOp::kExtractYear)
              want += (i % 2 == 0 ? 400 : -400) * kShiftEras;
            const bool ok = null ? got.nulls[i] != 0 : (got.nulls[i] == 0 && got.values[i] == want);
            if (!ok && ++wrong <= 5)
              ADD_FAILURE() << where << ": day " << days.days[i] << " (row " << i << ") gave "
                            << got.values[i] << (got.nulls[i] != 0 ? " NULL" : "") << ", want "
                            << (null ? std::string("NULL") : std::to_string(want));
          }
          EXPECT_EQ(wrong, 0u) << where;
        }
      }
    }
  }
}

// Arithmetic over EXTRACT, as TPC-H's GROUP BY keys use it, on the 32-bit
// machine (the full one: EXTRACT is a rare operation): YEAR * 100 + MONTH.
TEST_P(ExtractTest, ArithmeticOverFieldsStaysNarrow) {
  Engine& e = engine();
  const Days& days = TheDays(e);
  const TablePtr table = MakeTable(days);
  const sql::Expr expr =
      Bin(Op::kAdd, Bin(Op::kMultiply, Extract(sql::UnaryOp::kExtractYear, IntCol(kN)), Int(100)),
          Extract(sql::UnaryOp::kExtractMonth, IntCol(kN)));
  TableRelation relation(e, table);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const std::size_t entry = program.AddValue(expr);
  EXPECT_TRUE(program.IsNarrow(entry)) << program.Disassemble();
  EXPECT_TRUE(program.UsesRareOperations(entry)) << program.Disassemble();
  const ProjectedValues got = ProjectOnDevice(e, table, expr);
  const cpu_reference::ValueVector want = EvaluateOnCpu(table, expr);
  ASSERT_EQ(got.values.size(), table->rows());
  for (RowCount i = 0; i < table->rows(); ++i) {
    ASSERT_EQ(got.nulls[i] != 0, want.IsNull(i)) << i;
    if (!want.IsNull(i)) {
      ASSERT_EQ(got.values[i], want.integers[i]) << i;
      ASSERT_EQ(got.values[i], days.want[i].year * 100 + days.want[i].month) << i;
    }
  }
}

// The instruction, its machine and its bounds: 32-bit where the days fit
// int32, the 64-bit path past it, the full machine (not lean) either way;
// YEAR within the years of the operand's days.
TEST_P(ExtractTest, CompilesToOneInstruction) {
  const TablePtr table = MakeTable(TheDays(engine()));
  TableRelation relation(engine(), table);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const std::size_t year = program.AddValue(Extract(sql::UnaryOp::kExtractYear, IntCol(kD)));
  const std::size_t day = program.AddValue(Extract(sql::UnaryOp::kExtractDay, IntCol(kN)));
  const std::size_t wide = program.AddValue(Extract(sql::UnaryOp::kExtractMonth, IntCol(kW)));
  const std::string text = program.Disassemble();
  EXPECT_NE(text.find("0: LOAD slot 0\n1: EXTRACT YEAR narrow\n"), std::string::npos) << text;
  EXPECT_NE(text.find("EXTRACT DAY narrow\n"), std::string::npos) << text;
  EXPECT_NE(text.find("EXTRACT MONTH\n"), std::string::npos) << text;
  EXPECT_EQ(program.entry(year).end - program.entry(year).begin, 2u);
  EXPECT_TRUE(program.IsNarrow(year));
  EXPECT_TRUE(program.UsesRareOperations(year));  // the lean machines leave EXTRACT out
  EXPECT_TRUE(program.IsNarrow(day));
  EXPECT_TRUE(program.entry(day).may_be_null);
  EXPECT_FALSE(program.IsNarrow(wide));
  EXPECT_TRUE(program.UsesRareOperations(wide));
  // The table holds INT32's ends: the years of its first and last days.
  EXPECT_EQ(program.entry(year).range,
            (IntRange{CivilFromDays(std::numeric_limits<std::int32_t>::min()).year,
                      CivilFromDays(std::numeric_limits<std::int32_t>::max()).year}));
  EXPECT_EQ(program.entry(day).range, (IntRange{1, 31}));
  EXPECT_EQ(program.entry(wide).range, (IntRange{1, 12}));
}

TEST(ExtractRangeTest, YearsOfTheDaysBounds) {
  const auto range = [](sql::UnaryOp field, std::optional<IntRange> days) {
    sql::Expr column = IntCol(0);
    return IntegerRangeOf(Un(field, column), [&](const sql::Expr&) { return days; });
  };
  // 1992-01-01 .. 1998-12-31, as TPC-H's dates.
  EXPECT_EQ(range(sql::UnaryOp::kExtractYear, IntRange{8035, 10591}), (IntRange{1992, 1998}));
  EXPECT_EQ(range(sql::UnaryOp::kExtractYear, IntRange{-1, 0}), (IntRange{1969, 1970}));
  EXPECT_EQ(range(sql::UnaryOp::kExtractMonth, IntRange{8035, 10591}), (IntRange{1, 12}));
  EXPECT_EQ(range(sql::UnaryOp::kExtractDay, std::nullopt), (IntRange{1, 31}));
  // Unknown days may be any int64: the years stay bounds of those, not int32's.
  const std::optional<IntRange> any = range(sql::UnaryOp::kExtractYear, std::nullopt);
  ASSERT_TRUE(any.has_value());
  EXPECT_FALSE(any->FitsInt32());
  EXPECT_EQ(any->min, CivilFromDays(std::numeric_limits<std::int64_t>::min()).year);
  EXPECT_EQ(any->max, CivilFromDays(std::numeric_limits<std::int64_t>::max()).year);
}

TEST(ExtractRangeTest, CivilFromDaysAtTheEndsOfInt64) {
  // The years of the ends of int64 through the 400-year period: the days
  // past a whole number of eras are those of 1970-01-01 + r.
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  for (const std::int64_t d : {kMax, kMax - 1, kMin, kMin + 1, kMax - 200000, kMin + 200000}) {
    const std::int64_t eras = d / kEra;
    const CivilDate base = CivilFromDays(d - eras * kEra);
    const CivilDate date = CivilFromDays(d);
    EXPECT_EQ(date.year, base.year + 400 * eras) << d;
    EXPECT_EQ(date.month, base.month) << d;
    EXPECT_EQ(date.day, base.day) << d;
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(ExtractTest);

}  // namespace
}  // namespace clq
