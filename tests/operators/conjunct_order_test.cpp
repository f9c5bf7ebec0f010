// Range tests in a WHERE (ExpressionProgram::OrderConjuncts): the `column
// <op> constant` conjuncts of one integer column merge into one
// VM_KEEP_CMP_RANGE, and range tests run first, the most selective first by
// the column statistics. Each predicate states how many fused tests it must
// compile to and which slot's test must run first; its selected rows are
// checked against the CPU reference on both machines and at edge sizes.
#include <gtest/gtest.h>

#include <limits>
#include <optional>
#include <string>

#include "common/errors.hpp"
#include "operators/expression_program.hpp"
#include "operators/selection.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class ConjunctOrderTest : public DeviceTest {};

// RandomTable's columns: a INT32 in [-1000, 1000] with INT32's extremes and
// -1, 0, 1 sprinkled in; b INT64 likewise (multiples of 1000003); c DOUBLE.
enum Column : std::size_t { kA, kB, kC };

struct Case {
  std::string text;
  sql::Expr expr;
  std::size_t fused;  // KEEP_CMP instructions the predicate must compile to
  // Text of the first KEEP_CMP's listing (checked from a tile of rows on:
  // the order of two columns' tests follows their statistics).
  std::string first_test;
  // Whether the predicate runs on the 32-bit machine (ExpressionProgram::
  // IsNarrow); nullopt where that depends on the table's statistics.
  std::optional<bool> narrow = false;
};

std::vector<Case> Cases() {
  const auto a = IntCol(kA), b = IntCol(kB), c = RealCol(kC);
  const auto And = [](sql::Expr x, sql::Expr y) { return Bin(Op::kAnd, x, y); };
  constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
  constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();
  return {
      {"a > -500 AND a < 500 AND b <> 0",
       And(And(Bin(Op::kGreater, a, Int(-500)), Bin(Op::kLess, a, Int(500))),
           Bin(Op::kNotEqual, b, Int(0))),
       2, "slot 0 in [-499, 499]"},
      {"a >= 10 AND a <= 10",
       And(Bin(Op::kGreaterEqual, a, Int(10)), Bin(Op::kLessEqual, a, Int(10))), 1, "in [10, 10]",
       true},
      {"a > 500 AND a < 100 (no row)",
       And(Bin(Op::kGreater, a, Int(500)), Bin(Op::kLess, a, Int(100))), 1, "in [1, 0]", true},
      {"a > -3000000000 AND a < 3000000000 (bounds past INT32, clamped)",
       And(Bin(Op::kGreater, a, Int(-3000000000LL)), Bin(Op::kLess, a, Int(3000000000LL))), 1,
       "in [-2147483648, 2147483647]", true},
      {"b >= 0 AND a = 3 (a's test is the more selective)",
       And(Bin(Op::kGreaterEqual, b, Int(0)), Bin(Op::kEqual, a, Int(3))), 2, "slot 1 = const 3"},
      {"b BETWEEN -1e9 AND 1e9 AND b <> 7",
       And(Between(b, Int(-1000000000), Int(1000000000)), Bin(Op::kNotEqual, b, Int(7))), 2,
       "slot 0 in [-1000000000, 1000000000]"},
      {"b > INT64_MAX AND b < 5 (no row)",
       And(Bin(Op::kGreater, b, Int(kMax)), Bin(Op::kLess, b, Int(5))), 1, "in [1, 0]"},
      {"b >= INT64_MIN AND b <= INT64_MAX (every row)",
       And(Bin(Op::kGreaterEqual, b, Int(kMin)), Bin(Op::kLessEqual, b, Int(kMax))), 1,
       "in [-9223372036854775808, 9223372036854775807]"},
      {"a % 2 = 0 AND a > 0 AND a < 100 (the range test moves first)",
       And(And(Bin(Op::kEqual, Bin(Op::kModulo, a, Int(2)), Int(0)), Bin(Op::kGreater, a, Int(0))),
           Bin(Op::kLess, a, Int(100))),
       1, "slot 0 in [1, 99]", std::nullopt},
      {"a > 5 AND c < 3.0 AND a < 900 (REAL comparison not fused)",
       And(And(Bin(Op::kGreater, a, Int(5)), Bin(Op::kLess, c, Real(3.0))),
           Bin(Op::kLess, a, Int(900))),
       1, "slot 0 in [6, 899]"},
      {"-500 < a AND 500 > a AND 0 <> b (constants on the left)",
       And(And(Bin(Op::kLess, Int(-500), a), Bin(Op::kGreater, Int(500), a)),
           Bin(Op::kNotEqual, Int(0), b)),
       2, "slot 0 in [-499, 499]"},
      {"3 = a AND 0 <= b", And(Bin(Op::kEqual, Int(3), a), Bin(Op::kLessEqual, Int(0), b)), 2,
       "slot 0 = const 3"},
      {"a < 3000000000 AND a <> 5 (a lone bound past INT32, clamped)",
       And(Bin(Op::kLess, a, Int(3000000000LL)), Bin(Op::kNotEqual, a, Int(5))), 2,
       "slot 0 in [-2147483648, 2147483647]", true},
      {"a > -3000000000 AND a % 2 = 0",
       And(Bin(Op::kGreater, a, Int(-3000000000LL)),
           Bin(Op::kEqual, Bin(Op::kModulo, a, Int(2)), Int(0))),
       1, "slot 0 in [-2147483648, 2147483647]", std::nullopt},
      {"a BETWEEN -20 AND 20 AND a <> 0 AND b < 0",
       And(And(Between(a, Int(-20), Int(20)), Bin(Op::kNotEqual, a, Int(0))),
           Bin(Op::kLess, b, Int(0))),
       3, "slot 0 in [-20, 20]"},
      // A WHERE of one conjunct against a constant past int32 is compiled
      // as a conjunct too, so that it is clamped onto the 32-bit machine.
      {"a < 3000000000 (alone)", Bin(Op::kLess, a, Int(3000000000LL)), 1,
       "slot 0 in [-2147483648, 2147483647]", true},
      {"a >= -3000000000 (alone)", Bin(Op::kGreaterEqual, a, Int(-3000000000LL)), 1,
       "slot 0 in [-2147483648, 2147483647]", true},
      {"a = 3000000000 (alone, no row)", Bin(Op::kEqual, a, Int(3000000000LL)), 1, "in [1, 0]",
       true},
      {"3000000000 > a (alone, constant on the left)", Bin(Op::kGreater, Int(3000000000LL), a), 1,
       "slot 0 in [-2147483648, 2147483647]", true},
      // An INT32 column is unequal to a constant past int32 in every
      // non-NULL row: a range test of every value.
      {"a <> 3000000000 (alone)", Bin(Op::kNotEqual, a, Int(3000000000LL)), 1,
       "slot 0 in [-2147483648, 2147483647]", true},
      {"a <> -3000000000 AND a < 10",
       And(Bin(Op::kNotEqual, a, Int(-3000000000LL)), Bin(Op::kLess, a, Int(10))), 1,
       "slot 0 in [-2147483648, 9]", true},
      {"a <> 3000000000 AND a <> 5",
       And(Bin(Op::kNotEqual, a, Int(3000000000LL)), Bin(Op::kNotEqual, a, Int(5))), 2,
       "slot 0 in [-2147483648, 2147483647]", true},
      {"a < 5 (alone, in int32: unchanged)", Bin(Op::kLess, a, Int(5)), 0, "", true},
      {"b <> 3000000000 (INT64: unchanged)", Bin(Op::kNotEqual, b, Int(3000000000LL)), 0, "",
       false},
  };
}

std::size_t CountFused(const std::string& listing) {
  std::size_t fused = 0;
  for (std::size_t at = listing.find("KEEP_CMP"); at != std::string::npos;
       at = listing.find("KEEP_CMP", at + 1))
    ++fused;
  return fused;
}

TEST_P(ConjunctOrderTest, MergedRangeTestsSelectTheReferenceRows) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  for (const RowCount rows : {RowCount{0}, RowCount{1}, tile - 1, tile + 1, 2 * tile + 5}) {
    const TablePtr table = RandomTable(rows, 7 + static_cast<std::uint32_t>(rows));
    for (const Case& c : Cases()) {
      if (!e.info().fp64 && HasReal(c.expr)) continue;  // refused without fp64
      const cpu_reference::ValueVector truth = EvaluateOnCpu(table, c.expr);
      std::vector<std::uint32_t> want;
      for (RowCount i = 0; i < rows; ++i)
        if (!truth.IsNull(i) && truth.integers[i] != 0)
          want.push_back(static_cast<std::uint32_t>(i));
      for (const bool narrow : {true, false}) {
        QueryOptions options;
        options.narrow_machine = narrow;
        TableRelation relation(e, table);
        ExpressionProgram program(relation.columns(), IdentityMapper());
        const std::size_t predicate = program.AddPredicate(c.expr);
        const std::string listing = program.Disassemble();
        EXPECT_EQ(CountFused(listing), c.fused) << c.text << "\n" << listing;
        if (c.narrow) {
          EXPECT_EQ(program.IsNarrow(predicate), *c.narrow) << c.text << "\n" << listing;
        }
        const std::size_t first = listing.find("KEEP_CMP");
        ASSERT_EQ(first == std::string::npos, c.fused == 0) << c.text << "\n" << listing;
        const std::string first_line =
            c.fused == 0 ? "" : listing.substr(first, listing.find('\n', first) - first);
        // The order follows the columns' statistics, which a table of a
        // thousand random rows pins down (tiles of tests at small
        // geometries, such as Oclgrind's, hold far fewer).
        if (rows + 1 >= 1024 && c.fused != 0) {
          EXPECT_NE(first_line.find(c.first_test), std::string::npos)
              << c.text << ": the first test should be " << c.first_test << "\n"
              << listing;
        }
        QueryContext context(e, options);
        DeviceProgram device_program(e, program, options);
        const RowIds ids = Select(context, relation, device_program, predicate);
        context.CheckStatus();
        EXPECT_EQ(DownloadRowIds(e, ids), want)
            << c.text << ", rows " << rows << ", 32-bit allowed " << narrow << "\n"
            << listing;
      }
    }
  }
}

// Overflow is raised only by rows still live, and the CPU reference applies
// conjuncts in query order: with a conjunct that can overflow, no range test
// may move ahead of it (row 0 below overflows b * 4 and is rejected by the
// range test on a, which must not run first and hide the error).
TEST_P(ConjunctOrderTest, AConjunctThatCanOverflowKeepsTheQueryOrder) {
  Engine& e = engine();
  const RowCount rows = e.tuning().tile_size() + 3;
  const sql::Expr predicate =
      Bin(Op::kAnd,
          Bin(Op::kAnd, Bin(Op::kGreater, Bin(Op::kMultiply, IntCol(kB), Int(4)), Int(0)),
              Bin(Op::kGreater, IntCol(kA), Int(-500))),
          Bin(Op::kLess, IntCol(kA), Int(500)));
  for (const bool overflow_row : {true, false}) {
    Schema schema{
        {"a", ColumnType::Int32()}, {"b", ColumnType::Int64()}, {"c", ColumnType::Double()}};
    TableBuilder builder("t", schema, rows);
    std::vector<std::uint32_t> want;
    for (RowCount i = 0; i < rows; ++i) {
      const bool big = i == 0 && overflow_row;
      builder.column_values<std::int32_t>(kA)[i] = big ? 5000 : static_cast<std::int32_t>(i % 900);
      builder.column_values<std::int64_t>(kB)[i] =
          big ? std::numeric_limits<std::int64_t>::max() / 2 : static_cast<std::int64_t>(i % 7) - 3;
      builder.column_values<double>(kC)[i] = 0;
      if (!big && i % 900 < 500 && static_cast<std::int64_t>(i % 7) - 3 > 0)
        want.push_back(static_cast<std::uint32_t>(i));
    }
    const TablePtr table = builder.Finish();
    TableRelation relation(e, table);
    ExpressionProgram program(relation.columns(), IdentityMapper());
    const std::size_t entry = program.AddPredicate(predicate);
    const std::string listing = program.Disassemble();
    // With the overflow row, b * 4 is checked (it can raise) and nothing may
    // move; without it the statistics prove b * 4 safe and the range test
    // runs first.
    EXPECT_EQ(listing.find("in [") == std::string::npos, overflow_row) << listing;
    QueryContext context(e);
    DeviceProgram device_program(e, program);
    if (overflow_row) {
      EXPECT_THROW(
          {
            const RowIds ids = Select(context, relation, device_program, entry);
            context.CheckStatus();
          },
          InvalidInputError)
          << listing;
    } else {
      const RowIds ids = Select(context, relation, device_program, entry);
      context.CheckStatus();
      EXPECT_EQ(DownloadRowIds(e, ids), want) << listing;
    }
  }
}

// Two entries with the same merged range share its pair of constants (the
// constant table holds at most 1024 for KEEP_CMP); each still selects its rows.
TEST_P(ConjunctOrderTest, EqualRangesShareTheirConstants) {
  Engine& e = engine();
  const RowCount rows = e.tuning().tile_size() + 9;
  const TablePtr table = RandomTable(rows, 99);
  const sql::Expr range =
      Bin(Op::kAnd, Bin(Op::kGreater, IntCol(kA), Int(-100)), Bin(Op::kLess, IntCol(kA), Int(100)));
  const sql::Expr same = Bin(Op::kAnd, Bin(Op::kGreaterEqual, IntCol(kA), Int(-99)),
                             Bin(Op::kLessEqual, IntCol(kA), Int(99)));
  TableRelation relation(e, table);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const std::size_t first = program.AddPredicate(range);
  const std::size_t constants = program.constants().size();
  const std::size_t second = program.AddPredicate(same);
  EXPECT_EQ(program.constants().size(), constants) << program.Disassemble();
  const cpu_reference::ValueVector truth = EvaluateOnCpu(table, range);
  std::vector<std::uint32_t> want;
  for (RowCount i = 0; i < rows; ++i)
    if (!truth.IsNull(i) && truth.integers[i] != 0) want.push_back(static_cast<std::uint32_t>(i));
  ASSERT_FALSE(want.empty());
  DeviceProgram device_program(e, program);
  for (const std::size_t entry : {first, second}) {
    QueryContext context(e);
    const RowIds ids = Select(context, relation, device_program, entry);
    context.CheckStatus();
    EXPECT_EQ(DownloadRowIds(e, ids), want) << "entry " << entry << "\n" << program.Disassemble();
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(ConjunctOrderTest);

}  // namespace
}  // namespace clq
