// The 32-bit expression machine (kernels_cl/vm_interpreter.cl, VM_NARROW=1)
// against the CPU reference and against the 64-bit machine: projection,
// selection and filtered aggregation of the same programs, with the 32-bit
// machine allowed and then forbidden (QueryOptions::narrow_machine), on
// edge sizes. Each expression also states whether the range analysis must
// make it narrow, so that a change there cannot silently move programs from
// one machine to the other.
#include <gtest/gtest.h>

#include <algorithm>
#include <limits>
#include <numeric>
#include <random>
#include <string>
#include <tuple>

#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "operators/expression_program.hpp"
#include "operators/selection.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class NarrowMachineTest : public DeviceTest {
 protected:
  static QueryOptions Narrow(bool allowed) {
    QueryOptions options;
    options.narrow_machine = allowed;
    return options;
  }
};

// x in [-1000, 1000], y in [-50000, 50000], z in [-3, 3] (0 and -1 often:
// division by zero and by -1), w over all of INT32 with its extremes.
enum Column : std::size_t { kX, kY, kZ, kW };

TablePtr MakeTable(RowCount rows, std::uint32_t seed) {
  Schema schema{{"x", ColumnType::Int32()},
                {"y", ColumnType::Int32()},
                {"z", ColumnType::Int32()},
                {"w", ColumnType::Int32()}};
  TableBuilder builder("t", schema, rows);
  std::mt19937_64 rng(seed);
  auto uniform = [&](std::int64_t low, std::int64_t high) {
    return static_cast<std::int32_t>(
        low + static_cast<std::int64_t>(rng() % static_cast<std::uint64_t>(high - low + 1)));
  };
  constexpr std::int32_t kMin = std::numeric_limits<std::int32_t>::min();
  constexpr std::int32_t kMax = std::numeric_limits<std::int32_t>::max();
  for (RowCount i = 0; i < rows; ++i) {
    // The first rows hold every column's extremes, so that the statistics
    // the range analysis reads are the bounds above whatever the size.
    const std::size_t edge = i % 2;
    const bool at_edge = i < 2;
    builder.column_values<std::int32_t>(kX)[i] =
        at_edge ? (edge ? 1000 : -1000) : uniform(-1000, 1000);
    builder.column_values<std::int32_t>(kY)[i] =
        at_edge ? (edge ? 50000 : -50000) : uniform(-50000, 50000);
    builder.column_values<std::int32_t>(kZ)[i] = at_edge ? (edge ? 3 : -3) : uniform(-3, 3);
    builder.column_values<std::int32_t>(kW)[i] =
        at_edge ? (edge ? kMax : kMin) : (rng() % 8 == 0 ? kMin + 1 : uniform(kMin, kMax));
  }
  return builder.Finish();
}

struct Case {
  std::string text;
  sql::Expr expr;
  bool narrow;  // the range analysis must make it a 32-bit program
};

std::vector<Case> ValueCases() {
  const auto x = IntCol(kX), y = IntCol(kY), z = IntCol(kZ), w = IntCol(kW);
  const auto neg = [](sql::Expr e) { return Un(sql::UnaryOp::kNegate, std::move(e)); };
  return {
      {"x + y", Bin(Op::kAdd, x, y), true},
      {"x * y - x", Bin(Op::kSubtract, Bin(Op::kMultiply, x, y), x), true},
      {"100 - x * y (reversed)", Bin(Op::kSubtract, Int(100), Bin(Op::kMultiply, x, y)), true},
      {"y / z", Bin(Op::kDivide, y, z), true},
      {"y % z", Bin(Op::kModulo, y, z), true},
      {"1000 / (z + 1) (reversed)", Bin(Op::kDivide, Int(1000), Bin(Op::kAdd, z, Int(1))), true},
      {"y / -1", Bin(Op::kDivide, y, Int(-1)), true},
      {"y % -1", Bin(Op::kModulo, y, Int(-1)), true},
      {"-(x * y)", neg(Bin(Op::kMultiply, x, y)), true},
      {"(x * y) / 7", Bin(Op::kDivide, Bin(Op::kMultiply, x, y), Int(7)), true},
      {"(x * y) % -7", Bin(Op::kModulo, Bin(Op::kMultiply, x, y), Int(-7)), true},
      {"(x + z) * (x - z) (stack)",
       Bin(Op::kMultiply, Bin(Op::kAdd, x, z), Bin(Op::kSubtract, x, z)), true},
      {"(w > 5 AND x < 3) OR z IN (1, 5000000000)",
       Bin(Op::kOr, Bin(Op::kAnd, Bin(Op::kGreater, w, Int(5)), Bin(Op::kLess, x, Int(3))),
           In(z, {Int(1), Int(5000000000LL)})),
       true},
      {"NOT (x > y) AND y / z IS NULL",
       Bin(Op::kAnd, Un(sql::UnaryOp::kNot, Bin(Op::kGreater, x, y)),
           Un(sql::UnaryOp::kIsNull, Bin(Op::kDivide, y, z))),
       true},
      {"w / z", Bin(Op::kDivide, w, z), false},  // INT32_MIN / -1
      {"x * y * x", Bin(Op::kMultiply, Bin(Op::kMultiply, x, y), x), false},
      {"w + 1", Bin(Op::kAdd, w, Int(1)), false},
      {"x < 3000000000", Bin(Op::kLess, x, Int(3000000000LL)), false},
      {"-w", neg(w), false},
  };
}

// Whether a stage on the 32-bit machine ran ("... (32-bit)" or "... (32-bit, lean)").
bool RanNarrow(const std::vector<StageTiming>& stages) {
  return std::any_of(stages.begin(), stages.end(), [](const StageTiming& s) {
    return s.name.find("(32-bit") != std::string::npos;
  });
}

TEST_P(NarrowMachineTest, ProjectionsAgreeWithTheReferenceOnBothMachines) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  for (const RowCount rows : {RowCount{2}, tile - 1, tile + 1, 3 * tile + 17}) {
    const TablePtr table = MakeTable(rows, 40 + static_cast<std::uint32_t>(rows));
    TableRelation relation(e, table);
    for (const Case& c : ValueCases()) {
      ExpressionProgram program(relation.columns(), IdentityMapper());
      const std::size_t entry = program.AddValue(c.expr);
      EXPECT_EQ(program.IsNarrow(entry), c.narrow) << c.text << "\n" << program.Disassemble();
      const cpu_reference::ValueVector want = EvaluateOnCpu(table, c.expr);
      for (const bool allow : {true, false}) {
        e.profiler().Start();
        const ProjectedValues got = ProjectOnDevice(e, table, c.expr, Narrow(allow));
        EXPECT_EQ(RanNarrow(e.profiler().Stop()), allow && c.narrow) << c.text;
        ASSERT_EQ(got.values.size(), rows);
        for (RowCount i = 0; i < rows; ++i) {
          ASSERT_EQ(got.nulls[i] != 0, want.IsNull(i))
              << c.text << ", row " << i << ", 32-bit allowed " << allow;
          if (!want.IsNull(i)) {
            ASSERT_EQ(got.values[i], want.integers[i])
                << c.text << ", row " << i << ", 32-bit allowed " << allow << "\n"
                << program.Disassemble();
          }
        }
      }
    }
  }
}

TEST_P(NarrowMachineTest, SelectionsAndAggregatesAgreeOnBothMachines) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const RowCount wg = e.tuning().work_group_size;
  // Predicates (a true, non-NULL value keeps the row) and one argument of
  // SUM, MIN, MAX and COUNT each.
  const auto x = IntCol(kX), y = IntCol(kY), z = IntCol(kZ);
  const std::vector<sql::Expr> predicates = {
      Bin(Op::kAnd, Bin(Op::kGreater, x, Int(-300)),
          Bin(Op::kEqual, Bin(Op::kModulo, y, Int(2)), Int(0))),
      Bin(Op::kNotEqual, Bin(Op::kDivide, y, z), Int(0)),  // NULL where z = 0
      Bin(Op::kGreater, x, Int(5000)),                     // no row passes
  };
  const sql::Expr argument = Bin(Op::kDivide, Bin(Op::kMultiply, x, y), z);
  for (const RowCount rows : {RowCount{2}, wg + 1, tile + 1, 3 * tile + 17}) {
    const TablePtr table = MakeTable(rows, 70 + static_cast<std::uint32_t>(rows));
    TableRelation relation(e, table);
    const cpu_reference::ValueVector arg = EvaluateOnCpu(table, argument);
    for (std::size_t p = 0; p < predicates.size(); ++p) {
      const cpu_reference::ValueVector keep = EvaluateOnCpu(table, predicates[p]);
      std::vector<std::uint32_t> want_rows;
      std::int64_t sum = 0, count = 0;
      std::int64_t low = std::numeric_limits<std::int64_t>::max();
      std::int64_t high = std::numeric_limits<std::int64_t>::min();
      for (RowCount i = 0; i < rows; ++i) {
        if (keep.IsNull(i) || keep.integers[i] == 0) continue;
        want_rows.push_back(static_cast<std::uint32_t>(i));
        if (arg.IsNull(i)) continue;
        sum += arg.integers[i];
        low = std::min(low, arg.integers[i]);
        high = std::max(high, arg.integers[i]);
        ++count;
      }
      for (const bool allow : {true, false}) {
        // Work-groups of one and of three tiles.
        QueryOptions options = Narrow(allow);
        options.aggregate_tiles = allow ? 3u : 1u;
        const std::string where = "predicate " + std::to_string(p) + ", rows " +
                                  std::to_string(rows) + ", 32-bit allowed " +
                                  std::to_string(allow);
        ExpressionProgram program(relation.columns(), IdentityMapper());
        const std::size_t pred = program.AddPredicate(predicates[p]);
        const std::size_t value = program.AddValue(argument);
        ASSERT_TRUE(program.IsNarrow(pred) && program.IsNarrow(value)) << program.Disassemble();
        QueryContext context(e, options);
        DeviceProgram device_program(e, program, options);
        e.profiler().Start();
        const RowIds ids = Select(context, relation, device_program, pred);
        const auto got_rows = DownloadRowIds(e, ids);
        const auto got = Aggregate(context, relation, device_program, pred,
                                   {{VM_AGG_SUM_I, value},
                                    {VM_AGG_MIN_I, value},
                                    {VM_AGG_MAX_I, value},
                                    {VM_AGG_COUNT, value},
                                    {VM_AGG_COUNT, std::nullopt}});
        EXPECT_EQ(RanNarrow(e.profiler().Stop()), allow) << where;
        EXPECT_EQ(got_rows, want_rows) << where;
        ASSERT_EQ(got.size(), 5u);
        EXPECT_EQ(got[3].count, static_cast<std::uint64_t>(count)) << where;
        EXPECT_EQ(got[4].count, want_rows.size()) << where;
        if (count > 0) {
          EXPECT_EQ(got[0].bits, sum) << where;
          EXPECT_EQ(got[1].bits, low) << where;
          EXPECT_EQ(got[2].bits, high) << where;
        }
      }
    }
  }
}

// Conjuncts `column <op> constant` compile to fused KEEP_CMPs; over a
// nullable column (here y / z, NULL where z = 0, projected into a vector; rows
// 0 and 1 are 16666, the bound of the <=) a
// NULL row must fail them, on both machines and at every size.
TEST_P(NarrowMachineTest, FusedConjunctsOverNullableColumns) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const auto y = IntCol(kY), z = IntCol(kZ);
  const sql::Expr ratio = Bin(Op::kDivide, y, z);
  for (const RowCount rows : {RowCount{2}, tile - 1, 2 * tile + 5}) {
    const TablePtr table = MakeTable(rows, 90 + static_cast<std::uint32_t>(rows));
    const cpu_reference::ValueVector v = EvaluateOnCpu(table, ratio);
    std::vector<std::uint32_t> want;
    for (RowCount i = 0; i < rows; ++i)
      if (!v.IsNull(i) && v.integers[i] > -20000 && v.integers[i] <= 16666 && v.integers[i] != 7)
        want.push_back(static_cast<std::uint32_t>(i));
    for (const bool allow : {true, false}) {
      const QueryOptions options = Narrow(allow);
      TableRelation base(e, table);
      ExpressionProgram projection(base.columns(), IdentityMapper());
      const std::size_t ratio_entry = projection.AddValue(ratio);
      QueryContext context(e, options);
      DeviceProgram device_projection(e, projection, options);
      VectorRelation vectors;
      vectors.Add("v", Project(context, base, device_projection, ratio_entry));
      ASSERT_TRUE(vectors.column(0).nullable);
      ExpressionProgram program(vectors.columns(), IdentityMapper());
      const sql::Expr v0 = IntCol(0);
      const std::size_t pred = program.AddPredicate(Bin(
          Op::kAnd,
          Bin(Op::kAnd, Bin(Op::kGreater, v0, Int(-20000)), Bin(Op::kLessEqual, v0, Int(16666))),
          Bin(Op::kNotEqual, v0, Int(7))));
      const std::string listing = program.Disassemble();
      std::size_t fused = 0;
      for (std::size_t at = listing.find("KEEP_CMP"); at != std::string::npos;
           at = listing.find("KEEP_CMP", at + 1))
        ++fused;
      EXPECT_EQ(fused, 2u) << listing;  // the > and <= merged into one range test
      EXPECT_NE(listing.find("nullable"), std::string::npos) << listing;
      DeviceProgram device_program(e, program, options);
      const RowIds ids = Select(context, vectors, device_program, pred);
      EXPECT_EQ(DownloadRowIds(e, ids), want)
          << "rows " << rows << ", 32-bit allowed " << allow << "\n"
          << listing;
      // A lone test against a constant past int32 becomes a range test of
      // the INT32 vector, clamped; a NULL row must still fail it.
      std::vector<std::uint32_t> non_null;
      for (RowCount i = 0; i < rows; ++i)
        if (!v.IsNull(i)) non_null.push_back(static_cast<std::uint32_t>(i));
      ASSERT_EQ(vectors.column(0).type.type, DataType::kInt32);
      for (const auto& [text, expr, expected] :
           {std::tuple{"v <> 3000000000", Bin(Op::kNotEqual, v0, Int(3000000000LL)), non_null},
            std::tuple{"v < 3000000000", Bin(Op::kLess, v0, Int(3000000000LL)), non_null},
            std::tuple{"v = -3000000000", Bin(Op::kEqual, v0, Int(-3000000000LL)),
                       std::vector<std::uint32_t>{}}}) {
        ExpressionProgram lone(vectors.columns(), IdentityMapper());
        const std::size_t entry = lone.AddPredicate(expr);
        EXPECT_EQ(lone.IsNarrow(entry), true) << text << "\n" << lone.Disassemble();
        DeviceProgram device_lone(e, lone, options);
        const RowIds lone_ids = Select(context, vectors, device_lone, entry);
        EXPECT_EQ(DownloadRowIds(e, lone_ids), expected)
            << text << ", rows " << rows << ", 32-bit allowed " << allow << "\n"
            << lone.Disassemble();
      }
    }
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(NarrowMachineTest);

}  // namespace
}  // namespace clq
