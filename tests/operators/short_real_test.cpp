// Aggregates over short REAL arithmetic (ExpressionProgram::IsShortReal) run
// in vm_aggregate_short_real without the interpreter: which shapes qualify,
// and the kernel, forced on every device, against the interpreter (same
// bits) and the CPU at edge sizes, across tablets and with several tiles
// per work-group.
#include <gtest/gtest.h>

#include <cmath>
#include <cstdlib>
#include <limits>
#include <random>
#include <set>
#include <string>
#include <tuple>
#include <utility>
#include <vector>

#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

sql::Expr AsReal(const sql::Expr& e) {
  return Cast(e, sql::ValueType::kReal);
}

// x INT32 in [-1000, 1000], y INT32 in [0, 99] (as onepercent), w INT64, n
// INT32 with NULLs, u INT32 in [-5, 5] (a divisor that can be zero).
std::vector<VmInputColumn> HostColumns() {
  const auto range = [](std::int64_t lo, std::int64_t hi) {
    return [lo, hi]() -> std::optional<IntRange> { return IntRange{lo, hi}; };
  };
  return {
      VmInputColumn(ColumnType::Int32(), false, range(-1000, 1000)),
      VmInputColumn(ColumnType::Int32(), false, range(0, 99)),
      VmInputColumn(ColumnType::Int64(), false, range(-1000, 1000)),
      VmInputColumn(ColumnType::Int32(), true, range(0, 9)),
      VmInputColumn(ColumnType::Int32(), false, range(-5, 5)),
  };
}

TEST(ShortRealShapes, WhichArgumentsQualify) {
  const auto x = IntCol(0), y = IntCol(1), w = IntCol(2), n = IntCol(3), u = IntCol(4);
  const std::vector<std::pair<std::string, std::pair<sql::Expr, bool>>> cases = {
      {"x / (0.173 + y)", {Bin(Op::kDivide, x, Bin(Op::kAdd, Real(0.173), y)), true}},
      {"(0.5 - y) * x", {Bin(Op::kMultiply, Bin(Op::kSubtract, Real(0.5), y), x), true}},
      {"x * 0.1 / 7.0", {Bin(Op::kDivide, Bin(Op::kMultiply, x, Real(0.1)), Real(7.0)), true}},
      {"x * 0.5 - y (a product then a difference: an FMA on some devices)",
       {Bin(Op::kSubtract, Bin(Op::kMultiply, x, Real(0.5)), y), false}},
      {"x * 0.1 + 1.5 (a product then a sum)",
       {Bin(Op::kAdd, Bin(Op::kMultiply, x, Real(0.1)), Real(1.5)), false}},
      {"2.5 - x", {Bin(Op::kSubtract, Real(2.5), x), true}},
      {"x / 3.0", {Bin(Op::kDivide, x, Real(3.0)), true}},
      {"CAST(x AS REAL)", {AsReal(x), true}},
      {"x / u (u can be 0: NULL)", {Bin(Op::kDivide, x, AsReal(u)), false}},
      {"w * 0.5 (INT64)", {Bin(Op::kMultiply, w, Real(0.5)), false}},
      {"n * 0.5 (NULLs)", {Bin(Op::kMultiply, n, Real(0.5)), false}},
      {"x + y (INTEGER)", {Bin(Op::kAdd, x, y), false}},
      {"x * 0.5 + y * 0.5 (stack)",
       {Bin(Op::kAdd, Bin(Op::kMultiply, x, Real(0.5)), Bin(Op::kMultiply, y, Real(0.5))), false}},
      {"(x - 1.5) * y (columns in the first and last leaves)",
       {Bin(Op::kMultiply, Bin(Op::kSubtract, x, Real(1.5)), y), true}},
      {"x * y / 3.0 (columns in the first two leaves)",
       {Bin(Op::kDivide, Bin(Op::kMultiply, AsReal(x), y), Real(3.0)), true}},
      {"1.5 - x / 3.0 (a reversed difference)",
       {Bin(Op::kSubtract, Real(1.5), Bin(Op::kDivide, x, Real(3.0))), true}},
      {"x - y + x (three column leaves)",
       {Bin(Op::kAdd, Bin(Op::kSubtract, AsReal(x), y), x), false}},
      {"x * 0.5 + y + 1.5 + x (four leaves)",
       {Bin(Op::kAdd, Bin(Op::kAdd, Bin(Op::kAdd, Bin(Op::kMultiply, x, Real(0.5)), y), Real(1.5)),
            x),
        false}},
  };
  for (const auto& [name, c] : cases) {
    ExpressionProgram program(HostColumns(), IdentityMapper());
    const std::size_t entry = program.AddValue(c.first);
    EXPECT_EQ(program.IsShortReal(entry), c.second) << name << "\n" << program.Disassemble();
  }
}

class ShortRealTest : public DeviceTest {};

// x INT32 in [-1000, 1000], y INT32 in [0, 99].
TablePtr XyTable(RowCount rows, std::uint32_t seed) {
  Schema schema{{"x", ColumnType::Int32()}, {"y", ColumnType::Int32()}};
  TableBuilder builder("t", schema, rows);
  std::mt19937 rng(seed);
  auto* x = builder.column_values<std::int32_t>(0);
  auto* y = builder.column_values<std::int32_t>(1);
  for (RowCount i = 0; i < rows; ++i) {
    x[i] = static_cast<std::int32_t>(rng() % 2001) - 1000;
    y[i] = static_cast<std::int32_t>(rng() % 100);
  }
  return builder.Finish();
}

struct Outcome {
  std::vector<AggregateValue> values;
  bool short_kernel = false;  // the pass ran in vm_aggregate_short_real
};

TEST_P(ShortRealTest, AgreesWithTheInterpreterAndTheCpu) {
  CLQ_SKIP_REAL_WITHOUT_FP64(engine());
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const RowCount wg = e.tuning().work_group_size;
  const auto x = IntCol(0), y = IntCol(1);
  for (const std::uint32_t per_group : {0u, 3u}) {  // 0: the size-based choice
    // Three tablets, then one tablet of several groups (a group's first tile
    // and the load ahead across tiles of one group).
    for (const auto& [rows, split] :
         std::vector<std::pair<RowCount, bool>>{{0, true},
                                                {1, true},
                                                {wg - 1, true},
                                                {wg + 1, true},
                                                {tile - 1, true},
                                                {tile + 1, true},
                                                {tile * 5 + 3, true},
                                                {tile * 8 + 3, false}}) {
      const TablePtr t = XyTable(rows, 40 + static_cast<std::uint32_t>(rows));
      const ScopedTabletRows tablets(
          e, split ? std::max<RowCount>(rows / 3, 1) : e.options().tablet_rows);
      const auto run = [&](Choice short_real) {
        QueryOptions options;
        options.aggregate_tiles = per_group;
        options.short_real = short_real;
        TableRelation relation(e, t);
        ExpressionProgram program(relation.columns(), IdentityMapper());
        const std::size_t ratio =
            program.AddValue(Bin(Op::kDivide, x, Bin(Op::kAdd, Real(0.173), y)));
        const std::size_t affine =
            program.AddValue(Bin(Op::kMultiply, Bin(Op::kSubtract, Real(0.5), y), x));
        const std::size_t flipped = program.AddValue(Bin(Op::kSubtract, Real(2.5), x));
        const std::size_t third = program.AddValue(Bin(Op::kDivide, x, Real(3.0)));
        const std::size_t scaled =
            program.AddValue(Bin(Op::kDivide, Bin(Op::kMultiply, x, Real(0.1)), Real(7.0)));
        // Columns in the first and last leaves, then in the first two.
        const std::size_t shifted =
            program.AddValue(Bin(Op::kMultiply, Bin(Op::kSubtract, x, Real(1.5)), y));
        const std::size_t product =
            program.AddValue(Bin(Op::kDivide, Bin(Op::kMultiply, AsReal(x), y), Real(3.0)));
        // LOAD x; DIV_R 3.0; SUB_R 1.5 reversed.
        const std::size_t rest =
            program.AddValue(Bin(Op::kSubtract, Real(1.5), Bin(Op::kDivide, x, Real(3.0))));
        for (const std::size_t entry :
             {ratio, affine, flipped, third, scaled, shifted, product, rest})
          EXPECT_TRUE(program.IsShortReal(entry)) << program.Disassemble();
        QueryContext context(e, options);
        DeviceProgram device_program(e, program, options);
        e.profiler().Start();
        Outcome outcome;
        outcome.values = Aggregate(context, relation, device_program, std::nullopt,
                                   {{VM_AGG_MAX_R, ratio},
                                    {VM_AGG_MIN_R, ratio},
                                    {VM_AGG_SUM_R, affine},
                                    {VM_AGG_MAX_R, flipped},
                                    {VM_AGG_MIN_R, third},
                                    {VM_AGG_SUM_R, third},
                                    {VM_AGG_COUNT, std::nullopt},
                                    {VM_AGG_MIN_R, scaled},
                                    {VM_AGG_MAX_R, scaled},
                                    {VM_AGG_MIN_R, shifted},
                                    {VM_AGG_MAX_R, product},
                                    {VM_AGG_MAX_R, rest}});
        for (const StageTiming& stage : e.profiler().Stop())
          outcome.short_kernel |= stage.name == "aggregate (short REAL)";
        return outcome;
      };
      const Outcome fast = run(Choice::kOn);
      const Outcome general = run(Choice::kOff);
      EXPECT_EQ(fast.short_kernel, rows > 0) << "rows " << rows;
      EXPECT_FALSE(general.short_kernel);
      ASSERT_EQ(fast.values.size(), general.values.size());
      for (std::size_t a = 0; a < fast.values.size(); ++a) {
        EXPECT_EQ(fast.values[a].bits, general.values[a].bits)
            << "aggregate " << a << ", rows " << rows;
        EXPECT_EQ(fast.values[a].count, rows) << "aggregate " << a;
      }
      if (rows == 0) continue;
      const auto xs = t->column(0).int32s();
      const auto ys = t->column(1).int32s();
      double max_ratio = -INFINITY, min_ratio = INFINITY, sum_affine = 0, max_flipped = -INFINITY,
             min_third = INFINITY, sum_third = 0, min_scaled = INFINITY, max_scaled = -INFINITY,
             min_shifted = INFINITY, max_product = -INFINITY, max_rest = -INFINITY;
      for (RowCount i = 0; i < rows; ++i) {
        const double r = xs[i] / (0.173 + ys[i]);
        max_ratio = std::max(max_ratio, r);
        min_ratio = std::min(min_ratio, r);
        sum_affine += (0.5 - ys[i]) * xs[i];
        max_flipped = std::max(max_flipped, 2.5 - xs[i]);
        min_third = std::min(min_third, xs[i] / 3.0);
        sum_third += xs[i] / 3.0;
        min_scaled = std::min(min_scaled, xs[i] * 0.1 / 7.0);
        max_scaled = std::max(max_scaled, xs[i] * 0.1 / 7.0);
        min_shifted = std::min(min_shifted, (xs[i] - 1.5) * ys[i]);
        max_product = std::max(max_product, static_cast<double>(xs[i]) * ys[i] / 3.0);
        max_rest = std::max(max_rest, 1.5 - xs[i] / 3.0);
      }
      EXPECT_EQ(fast.values[0].real(), max_ratio) << "rows " << rows;
      EXPECT_EQ(fast.values[1].real(), min_ratio) << "rows " << rows;
      EXPECT_NEAR(fast.values[2].real(), sum_affine, 1e-9 * std::max(1.0, std::fabs(sum_affine)));
      EXPECT_EQ(fast.values[3].real(), max_flipped) << "rows " << rows;
      EXPECT_EQ(fast.values[4].real(), min_third) << "rows " << rows;
      EXPECT_NEAR(fast.values[5].real(), sum_third, 1e-9 * std::max(1.0, std::fabs(sum_third)));
      EXPECT_EQ(static_cast<RowCount>(fast.values[6].count), rows);
      EXPECT_EQ(fast.values[7].real(), min_scaled) << "rows " << rows;
      EXPECT_EQ(fast.values[8].real(), max_scaled) << "rows " << rows;
      EXPECT_EQ(fast.values[9].real(), min_shifted) << "rows " << rows;
      EXPECT_EQ(fast.values[10].real(), max_product) << "rows " << rows;
      EXPECT_EQ(fast.values[11].real(), max_rest) << "rows " << rows;
    }
  }
}

// Every pair of operations the kernel compiles a loop for (GPUs) or selects
// per item (CPUs), with either operand order and leaves in every position:
// random arguments over x, y, z (z in [1, 50], a divisor) and constants,
// among them 0.0 (signed zeros), and 1e308 (infinities, and NaN from inf *
// 0), each under SUM, MIN, MAX and COUNT, the kernel against the interpreter
// bit for bit.
TEST_P(ShortRealTest, EveryPairOfOperationsMatchesTheInterpreter) {
  CLQ_SKIP_REAL_WITHOUT_FP64(engine());
  Engine& e = engine();
  const RowCount rows = e.tuning().tile_size() * 2 + 37;
  Schema schema{{"x", ColumnType::Int32()}, {"y", ColumnType::Int32()}, {"z", ColumnType::Int32()}};
  TableBuilder builder("t", schema, rows);
  std::mt19937 rng(7);
  for (RowCount i = 0; i < rows; ++i) {
    builder.column_values<std::int32_t>(0)[i] = static_cast<std::int32_t>(rng() % 2001) - 1000;
    builder.column_values<std::int32_t>(1)[i] = static_cast<std::int32_t>(rng() % 100);
    builder.column_values<std::int32_t>(2)[i] = 1 + static_cast<std::int32_t>(rng() % 50);
  }
  const TablePtr t = builder.Finish();
  const std::vector<sql::Expr> columns = {AsReal(IntCol(0)), AsReal(IntCol(1)), AsReal(IntCol(2))};
  const std::vector<sql::Expr> constants = {Real(0.0), Real(0.5), Real(-1.25), Real(1e308)};
  const std::vector<Op> operations = {Op::kAdd, Op::kSubtract, Op::kMultiply, Op::kDivide};
  // A leaf: a column half the time, else a constant.
  const auto leaf = [&](bool column) {
    return column ? columns[rng() % columns.size()] : constants[rng() % constants.size()];
  };
  std::vector<sql::Expr> arguments = {columns[0], columns[2]};
  for (std::size_t op1 = 0; op1 < operations.size(); ++op1) {
    for (std::size_t op2 = 0; op2 <= operations.size(); ++op2) {  // op2 == 4: no second step
      for (const bool reversed : {false, true}) {
        for (int sample = 0; sample < 6; ++sample) {
          const bool first_column = rng() % 2 == 0;
          // Two constants in the first step would be folded on the host.
          const sql::Expr inner =
              Bin(operations[op1], leaf(first_column), leaf(!first_column || rng() % 2 == 0));
          if (op2 == operations.size()) {
            arguments.push_back(inner);
            continue;
          }
          const sql::Expr last = leaf(rng() % 2 == 0);
          arguments.push_back(reversed ? Bin(operations[op2], last, inner)
                                       : Bin(operations[op2], inner, last));
        }
      }
    }
  }
  TableRelation relation(e, t);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  std::vector<AggregateSpec> specs;
  std::set<std::pair<std::uint32_t, std::uint32_t>> pairs;          // (op1, op2), 0: none
  std::set<std::tuple<std::uint32_t, std::uint32_t, bool>> orders;  // (step, op, reversed)
  for (const sql::Expr& argument : arguments) {
    const std::size_t entry = program.AddValue(argument);
    if (!program.IsShortReal(entry)) continue;  // divisions that may be by 0, for one
    const VmEntry& code = program.entry(entry);
    std::uint32_t step_ops[3] = {0, 0, 0};
    for (std::uint32_t pc = code.begin + 1; pc < code.end; ++pc) {
      const std::uint32_t word0 = program.code()[pc].s[0];
      step_ops[pc - code.begin] = word0 & 0xFF;
      orders.emplace(pc - code.begin, word0 & 0xFF, ((word0 >> 8) & VM_OPND_REVERSED) != 0);
    }
    pairs.emplace(step_ops[1], step_ops[2]);
    for (const std::uint32_t op : {VM_AGG_SUM_R, VM_AGG_MIN_R, VM_AGG_MAX_R, VM_AGG_COUNT})
      specs.push_back({op, entry});
  }
  // Every pair but a product followed by a sum or difference (kept in the
  // interpreter), and - and / reversed and not in both steps.
  EXPECT_EQ(pairs.size(), 1u + 4u + 16u - 2u) << program.Disassemble();
  for (const std::uint32_t step : {1u, 2u})
    for (const std::uint32_t op : {VM_SUB_R, VM_DIV_R})
      for (const bool reversed : {false, true})
        EXPECT_TRUE(orders.contains({step, op, reversed}))
            << "step " << step << ", op " << op << ", reversed " << reversed;
  const auto run = [&](Choice short_real, bool* short_kernel) {
    QueryOptions options;
    options.short_real = short_real;
    DeviceProgram device_program(e, program, options);
    QueryContext context(e, options);
    e.profiler().Start();
    std::vector<AggregateValue> values;
    for (const std::vector<AggregateSpec>& pass : InPasses(specs, VM_MAX_AGGREGATES)) {
      const std::vector<AggregateValue> some =
          Aggregate(context, relation, device_program, std::nullopt, pass);
      values.insert(values.end(), some.begin(), some.end());
    }
    for (const StageTiming& stage : e.profiler().Stop())
      *short_kernel |= stage.name == "aggregate (short REAL)";
    return values;
  };
  bool fast_ran = false, general_ran = false;
  const std::vector<AggregateValue> fast = run(Choice::kOn, &fast_ran);
  const std::vector<AggregateValue> general = run(Choice::kOff, &general_ran);
  EXPECT_TRUE(fast_ran);
  EXPECT_FALSE(general_ran);
  ASSERT_EQ(fast.size(), specs.size());
  ASSERT_EQ(general.size(), specs.size());
  for (std::size_t a = 0; a < specs.size(); ++a) {
    EXPECT_EQ(fast[a].bits, general[a].bits)
        << "aggregate " << specs[a].operation << " of\n"
        << program.Disassemble() << "entry " << *specs[a].entry;
    EXPECT_EQ(fast[a].count, general[a].count);
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(ShortRealTest);

}  // namespace
}  // namespace clq
