// The lean expression machine (kernels_cl/vm_interpreter.cl, VM_LEAN=1):
// the interpreter without its rare operations. Each expression states
// whether it uses one (ExpressionProgram::UsesRareOperations), so that a
// change in the compiler or the range analysis cannot silently move programs
// between machines; every result is checked against the CPU reference with
// the lean machine allowed and forbidden, and a rare operation forced onto
// the lean machine must be an error, never a wrong answer.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <numeric>
#include <string>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class LeanMachineTest : public DeviceTest {
 protected:
  static QueryOptions Lean(bool allowed) {
    QueryOptions options;
    options.lean_machine = allowed;
    return options;
  }
};

// RandomTable's columns: a INT32, b INT64, c DOUBLE, s CHAR(8).
enum Column : std::size_t { kA, kB, kC, kS };

// RandomTable with the extremes of a and b in rows 0 and 1 (so that the
// range analysis must check b's arithmetic at every size) and c = -0.5 in row
// 1 (a zero divisor for a / (c + 0.5)).
TablePtr LeanTable(RowCount rows, std::uint32_t seed) {
  const TablePtr random = RandomTable(rows, seed);
  TableBuilder builder("t", random->schema(), rows);
  for (RowCount i = 0; i < rows; ++i) {
    builder.column_values<std::int32_t>(kA)[i] = random->column(kA).int32s()[i];
    builder.column_values<std::int64_t>(kB)[i] = random->column(kB).int64s()[i];
    builder.column_values<double>(kC)[i] = random->column(kC).doubles()[i];
    builder.SetString(kS, i, std::string(random->column(kS).StringAt(i)));
  }
  if (rows >= 2) {
    builder.column_values<std::int32_t>(kA)[0] = std::numeric_limits<std::int32_t>::min();
    builder.column_values<std::int32_t>(kA)[1] = std::numeric_limits<std::int32_t>::max();
    builder.column_values<std::int64_t>(kB)[0] = std::numeric_limits<std::int64_t>::min();
    builder.column_values<std::int64_t>(kB)[1] = std::numeric_limits<std::int64_t>::max();
    builder.column_values<double>(kC)[1] = -0.5;
  }
  return builder.Finish();
}

struct Case {
  std::string text;
  sql::Expr expr;
  bool rare;  // must use an operation the lean machine lacks
};

std::vector<Case> Cases() {
  const auto a = IntCol(kA), b = IntCol(kB), c = RealCol(kC), s = TextCol(kS);
  return {
      {"c * 2.5 + a", Bin(Op::kAdd, Bin(Op::kMultiply, c, Real(2.5)), a), false},
      {"a / (c + 0.5)", Bin(Op::kDivide, a, Bin(Op::kAdd, c, Real(0.5))), false},
      {"-c - b", Bin(Op::kSubtract, Un(sql::UnaryOp::kNegate, c), b), false},
      {"a + 7 (int64, cannot overflow)", Bin(Op::kAdd, a, Int(7)), false},
      {"b % 3", Bin(Op::kModulo, b, Int(3)), false},
      {"a > 5 AND c < 3.0",
       Bin(Op::kAnd, Bin(Op::kGreater, a, Int(5)), Bin(Op::kLess, c, Real(3.0))), false},
      {"b + 7 (checked)", Bin(Op::kAdd, b, Int(7)), true},
      {"b * a (checked)", Bin(Op::kMultiply, b, a), true},
      {"-b (checked)", Un(sql::UnaryOp::kNegate, b), true},
      {"b / a", Bin(Op::kDivide, b, a), true},
      {"a % (a - 3)", Bin(Op::kModulo, a, Bin(Op::kSubtract, a, Int(3))), true},
      {"c % 2", Bin(Op::kModulo, c, Int(2)), true},
      {"a IN (1, 2, 3)", In(a, {Int(1), Int(2), Int(3)}), true},
      {"s < 'b'", Bin(Op::kLess, s, Text("b")), true},
  };
}

bool RanLean(const std::vector<StageTiming>& stages) {
  return std::any_of(stages.begin(), stages.end(), [](const StageTiming& s) {
    return s.name.find("lean)") != std::string::npos;
  });
}

// REAL results may differ from the reference in the last bits only where a
// compiler contracts a multiply and an add; allow 1e-12 relative.
void ExpectReal(double got, double want, const std::string& where) {
  EXPECT_NEAR(got, want, 1e-12 * std::max(1.0, std::fabs(want))) << where;
}

TEST_P(LeanMachineTest, ProjectionsAgreeWithTheReferenceOnBothMachines) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  for (const RowCount rows : {RowCount{2}, tile - 1, 2 * tile + 5}) {
    const TablePtr table = LeanTable(rows, 500 + static_cast<std::uint32_t>(rows));
    TableRelation relation(e, table);
    for (const Case& c : Cases()) {
      if (!e.info().fp64 && HasReal(c.expr)) continue;  // refused without fp64
      ExpressionProgram program(relation.columns(), IdentityMapper());
      const std::size_t entry = program.AddValue(c.expr);
      ASSERT_EQ(program.UsesRareOperations(entry), c.rare) << c.text << "\n"
                                                           << program.Disassemble();
      cpu_reference::ValueVector want;
      bool overflows = false;  // then the device must raise it too
      try {
        want = EvaluateOnCpu(table, c.expr);
      } catch (const InvalidInputError&) {
        overflows = true;
      }
      for (const bool allow : {true, false}) {
        const std::string where =
            c.text + ", rows " + std::to_string(rows) + ", lean allowed " + std::to_string(allow);
        e.profiler().Start();
        ProjectedValues got;
        try {
          got = ProjectOnDevice(e, table, c.expr, Lean(allow));
        } catch (const InvalidInputError&) {
          EXPECT_TRUE(overflows) << where;
          (void)e.profiler().Stop();
          continue;
        }
        ASSERT_FALSE(overflows) << where;
        EXPECT_EQ(RanLean(e.profiler().Stop()), allow && !c.rare) << where;
        ASSERT_EQ(got.values.size(), rows) << where;
        for (RowCount i = 0; i < rows; ++i) {
          const std::string row = where + ", row " + std::to_string(i);
          ASSERT_EQ(got.nulls[i] != 0, want.IsNull(i)) << row;
          if (want.IsNull(i)) continue;
          if (want.type == sql::ValueType::kReal) {
            ExpectReal(std::bit_cast<double>(got.values[i]), want.reals[i], row);
          } else {
            ASSERT_EQ(got.values[i], want.integers[i]) << row;
          }
        }
      }
    }
  }
}

// WHERE a < threshold, then SUM / MIN / MAX of a REAL expression and of an
// INT64 one, and COUNT(*): the lean machine's folds, on partial tiles, with
// one and with three tiles per work-group.
TEST_P(LeanMachineTest, FilteredAggregatesAgreeOnBothMachines) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const RowCount wg = e.tuning().work_group_size;
  const sql::Expr real_value = Bin(Op::kDivide, IntCol(kA), Bin(Op::kAdd, RealCol(kC), Real(0.5)));
  const sql::Expr int_value = Bin(Op::kModulo, IntCol(kB), Int(1000));
  for (const RowCount rows : {RowCount{1}, wg - 1, tile + 1, 3 * tile + 17}) {
    const TablePtr table = LeanTable(rows, 700 + static_cast<std::uint32_t>(rows));
    TableRelation relation(e, table);
    const cpu_reference::ValueVector reals = EvaluateOnCpu(table, real_value);
    const cpu_reference::ValueVector ints = EvaluateOnCpu(table, int_value);
    const auto a = table->column(kA).int32s();
    for (const std::int32_t threshold : {-2000, 0, 400}) {
      double sum_r = 0, min_r = INFINITY, max_r = -INFINITY;
      std::int64_t sum_i = 0, count = 0;
      std::int64_t min_i = std::numeric_limits<std::int64_t>::max();
      std::int64_t max_i = std::numeric_limits<std::int64_t>::min();
      for (RowCount i = 0; i < rows; ++i) {
        if (!(a[i] < threshold)) continue;
        ++count;
        sum_r += reals.reals[i];
        min_r = std::min(min_r, reals.reals[i]);
        max_r = std::max(max_r, reals.reals[i]);
        sum_i += ints.integers[i];
        min_i = std::min(min_i, ints.integers[i]);
        max_i = std::max(max_i, ints.integers[i]);
      }
      for (const bool allow : {true, false}) {
        QueryOptions options = Lean(allow);
        options.aggregate_tiles = allow ? 3u : 1u;
        const std::string where = "rows " + std::to_string(rows) + ", a < " +
                                  std::to_string(threshold) + ", lean allowed " +
                                  std::to_string(allow);
        ExpressionProgram program(relation.columns(), IdentityMapper());
        const std::size_t pred = program.AddPredicate(Bin(Op::kLess, IntCol(kA), Int(threshold)));
        // REAL only on devices with fp64 (COUNT(*) in its places elsewhere).
        const bool real = e.info().fp64;
        const std::size_t r = real ? program.AddValue(real_value) : 0;
        const std::size_t v = program.AddValue(int_value);
        ASSERT_FALSE(program.UsesRareOperations(pred) || (real && program.UsesRareOperations(r)) ||
                     program.UsesRareOperations(v))
            << program.Disassemble();
        QueryContext context(e, options);
        DeviceProgram device_program(e, program, options);
        e.profiler().Start();
        const auto got = Aggregate(context, relation, device_program, pred,
                                   {real ? AggregateSpec{VM_AGG_SUM_R, r} : AggregateSpec{},
                                    real ? AggregateSpec{VM_AGG_MIN_R, r} : AggregateSpec{},
                                    real ? AggregateSpec{VM_AGG_MAX_R, r} : AggregateSpec{},
                                    {VM_AGG_SUM_I, v},
                                    {VM_AGG_MIN_I, v},
                                    {VM_AGG_MAX_I, v},
                                    {VM_AGG_COUNT, std::nullopt}});
        context.CheckStatus();
        EXPECT_EQ(RanLean(e.profiler().Stop()), allow) << where;
        ASSERT_EQ(got.size(), 7u);
        EXPECT_EQ(got[6].count, static_cast<std::uint64_t>(count)) << where;
        if (count == 0) continue;
        if (real) {
          ExpectReal(got[0].real(), sum_r, where + ", SUM real");
          EXPECT_EQ(got[1].real(), min_r) << where;
          EXPECT_EQ(got[2].real(), max_r) << where;
        }
        EXPECT_EQ(got[3].bits, sum_i) << where;
        EXPECT_EQ(got[4].bits, min_i) << where;
        EXPECT_EQ(got[5].bits, max_i) << where;
      }
    }
  }
}

TEST_P(LeanMachineTest, RareOperationsForcedOntoTheLeanMachineAreAnError) {
  Engine& e = engine();
  const TablePtr table = LeanTable(e.tuning().tile_size() + 3, 11);
  QueryOptions forced;
  forced.force_lean_machine = true;
  for (const Case& c : Cases()) {
    if (!c.rare) continue;
    EXPECT_THROW(ProjectOnDevice(e, table, c.expr, forced), InternalError) << c.text;
  }
  // And through an aggregate with a WHERE of its own.
  TableRelation relation(e, table);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const std::size_t pred = program.AddPredicate(In(IntCol(kA), {Int(1), Int(2)}));
  QueryContext context(e, forced);
  DeviceProgram device_program(e, program, forced);
  EXPECT_THROW(
      {
        (void)Aggregate(context, relation, device_program, pred, {{VM_AGG_COUNT, std::nullopt}});
        context.CheckStatus();
      },
      InternalError);
  EXPECT_NO_THROW(ProjectOnDevice(e, table, Cases().back().expr));
}

CLQ_INSTANTIATE_DEVICE_TESTS(LeanMachineTest);

}  // namespace
}  // namespace clq
