// Predicates made only of tests of INT32 columns (or of their remainders by
// constants) against constants: the host turns them into conjunct
// descriptors (ExpressionProgram, VmEntry::int_conjuncts) and
// vm_filter_conjuncts runs them without the interpreter. The descriptors are
// checked as text; every other shape must keep the interpreter; the kernel,
// forced on every device, must select the host's rows at edge sizes and
// across tablets.
#include <gtest/gtest.h>

#include <cstdlib>
#include <functional>
#include <limits>
#include <random>
#include <string>
#include <utility>
#include <vector>

#include "kernels_cl/vm_shared.h"
#include "operators/expression_program.hpp"
#include "operators/selection.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

constexpr std::int32_t kInt32Max = std::numeric_limits<std::int32_t>::max();

// Columns of the host-only program: x, y, z INT32 with statistics (x holds
// INT32_MAX and INT32_MIN + 1, so |x| < 2^31 and its remainders run on the
// 32-bit magic), n INT32 with NULLs, w INT64, u INT32 without statistics.
enum Column : std::size_t { kX, kY, kZ, kN, kW, kU };

std::vector<VmInputColumn> HostColumns() {
  const auto range = [](std::int64_t lo, std::int64_t hi) {
    return [lo, hi]() -> std::optional<IntRange> { return IntRange{lo, hi}; };
  };
  return {
      VmInputColumn(ColumnType::Int32(), false, range(-kInt32Max, kInt32Max)),
      VmInputColumn(ColumnType::Int32(), false, range(-1000, 1000)),
      VmInputColumn(ColumnType::Int32(), false, range(0, 9)),
      VmInputColumn(ColumnType::Int32(), true, range(0, 9)),
      VmInputColumn(ColumnType::Int64(), false, range(-1000, 1000)),
      VmInputColumn(ColumnType::Int32(), false),
  };
}

sql::Expr And(sql::Expr a, sql::Expr b) {
  return Bin(Op::kAnd, std::move(a), std::move(b));
}

// The predicate's conjunct descriptors as text, "column op [lo, hi]" joined
// by "; ", with the column named by its index; "" when it has none.
std::string DescribeConjuncts(const ExpressionProgram& program, std::size_t entry_index) {
  const VmEntry& entry = program.entry(entry_index);
  std::string text;
  for (std::uint32_t c = 0; c < entry.int_conjuncts; ++c) {
    const cl_long* d = program.constants().data() + entry.int_conjuncts_at + c * VM_CONJUNCT_LONGS;
    const std::uint32_t slot = static_cast<std::uint32_t>(d[0]) & 0xFF;
    const std::uint32_t flags = (static_cast<std::uint32_t>(d[0]) >> 8) & 0xFF;
    text += text.empty() ? "" : "; ";
    text += "col " + std::to_string(program.slots()[slot].column);
    if (flags & VM_CONJUNCT_MOD) text += " % " + std::to_string(d[4]);
    text += (flags & VM_CONJUNCT_NEGATE) ? " not in [" : " in [";
    text += std::to_string(d[1]) + ", " + std::to_string(d[2]) + "]";
  }
  return text;
}

TEST(ConjunctDescriptors, ShapesTheKernelRuns) {
  const auto x = IntCol(kX), y = IntCol(kY), z = IntCol(kZ);
  const std::vector<std::pair<sql::Expr, std::string>> cases = {
      {And(And(And(Bin(Op::kGreater, x, Int(-10)), Bin(Op::kLess, x, Int(10))),
               Bin(Op::kEqual, Bin(Op::kModulo, y, Int(2)), Int(0))),
           Bin(Op::kEqual, z, Int(0))),
       "col 0 in [-9, 9]; col 2 in [0, 0]; col 1 % 2 in [0, 0]"},
      {Bin(Op::kNotEqual, z, Int(4)), "col 2 not in [4, 4]"},
      {Bin(Op::kGreater, Int(3), z), "col 2 in [-2147483648, 2]"},
      {Bin(Op::kLessEqual, Int(-3), Bin(Op::kModulo, y, Int(4))), "col 1 % 4 in [-3, 2147483647]"},
      {And(Bin(Op::kGreater, Bin(Op::kModulo, x, Int(-7)), Int(2)),
           Bin(Op::kNotEqual, Bin(Op::kModulo, y, Int(3)), Int(-1))),
       "col 0 % -7 in [3, 2147483647]; col 1 % 3 not in [-1, -1]"},
      // Constants past int32: clamped, an empty range as [1, 0].
      {And(Bin(Op::kEqual, x, Int(3'000'000'000)), Bin(Op::kEqual, z, Int(1))),
       "col 0 in [1, 0]; col 2 in [1, 1]"},
      {And(Bin(Op::kLess, y, Int(5'000'000'000)), Bin(Op::kEqual, z, Int(1))),
       "col 2 in [1, 1]; col 1 in [-2147483648, 2147483647]"},
  };
  for (const auto& [predicate, want] : cases) {
    ExpressionProgram program(HostColumns(), IdentityMapper());
    const std::size_t entry = program.AddPredicate(predicate);
    EXPECT_EQ(DescribeConjuncts(program, entry), want) << program.Disassemble();
  }
}

TEST(ConjunctDescriptors, OtherShapesKeepTheInterpreter) {
  const auto x = IntCol(kX), z = IntCol(kZ);
  const std::vector<std::pair<std::string, sql::Expr>> cases = {
      {"NULLs", And(Bin(Op::kEqual, IntCol(kN), Int(1)), Bin(Op::kEqual, z, Int(1)))},
      {"INT64", And(Bin(Op::kEqual, IntCol(kW), Int(1)), Bin(Op::kEqual, z, Int(1)))},
      {"remainder not on 32 bits", Bin(Op::kEqual, Bin(Op::kModulo, IntCol(kU), Int(2)), Int(0))},
      {"sum", Bin(Op::kGreater, Bin(Op::kAdd, x, z), Int(0))},
      {"OR", Bin(Op::kOr, Bin(Op::kEqual, x, Int(1)), Bin(Op::kEqual, z, Int(1)))},
      {"quotient", Bin(Op::kEqual, Bin(Op::kDivide, x, Int(3)), Int(1))},
      {"remainder by zero", Bin(Op::kEqual, Bin(Op::kModulo, x, Int(0)), Int(0))},
      {"REAL", And(Bin(Op::kEqual, z, Int(1)), Bin(Op::kLess, x, Real(2.5)))},
      {"two columns", Bin(Op::kLess, x, z)},
      {"constants only", Bin(Op::kEqual, Int(1), Int(1))},
  };
  for (const auto& [name, predicate] : cases) {
    ExpressionProgram program(HostColumns(), IdentityMapper());
    const std::size_t entry = program.AddPredicate(predicate);
    EXPECT_EQ(program.entry(entry).int_conjuncts, 0u) << name << "\n" << program.Disassemble();
  }
}

class ConjunctFilterTest : public DeviceTest {
 protected:
  // vm_filter_conjuncts forced on every device (by default GPUs only).
  static QueryOptions ConjunctsOn() {
    QueryOptions options;
    options.conjunct_filter = Choice::kOn;
    return options;
  }
};

// x in [-50, 50] with INT32_MAX and INT32_MIN + 1 sprinkled in, y in
// [-1000, 1000], z in [0, 9].
TablePtr Int32Table(RowCount rows, std::uint32_t seed) {
  Schema schema{{"x", ColumnType::Int32()}, {"y", ColumnType::Int32()}, {"z", ColumnType::Int32()}};
  TableBuilder builder("t", schema, rows);
  std::mt19937 rng(seed);
  auto* x = builder.column_values<std::int32_t>(0);
  auto* y = builder.column_values<std::int32_t>(1);
  auto* z = builder.column_values<std::int32_t>(2);
  for (RowCount i = 0; i < rows; ++i) {
    const std::uint32_t pick = rng() % 16;
    x[i] = pick == 0   ? kInt32Max
           : pick == 1 ? -kInt32Max
                       : static_cast<std::int32_t>(rng() % 101) - 50;
    y[i] = static_cast<std::int32_t>(rng() % 2001) - 1000;
    z[i] = static_cast<std::int32_t>(rng() % 10);
  }
  return builder.Finish();
}

TEST_P(ConjunctFilterTest, AgreesWithTheHost) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const RowCount wg = e.tuning().work_group_size;
  const QueryOptions options = ConjunctsOn();
  const auto x = IntCol(0), y = IntCol(1), z = IntCol(2);
  for (RowCount rows : {RowCount{0}, RowCount{1}, RowCount{33}, wg - 1, wg + 1, tile - 1, tile,
                        tile + 1, 7 * tile + 5}) {
    TablePtr t = Int32Table(rows, 11 + static_cast<std::uint32_t>(rows));
    const auto xs = t->column(0).int32s();
    const auto ys = t->column(1).int32s();
    const auto zs = t->column(2).int32s();
    const std::vector<std::pair<sql::Expr, std::function<bool(RowCount)>>> cases = {
        {And(And(And(Bin(Op::kGreater, x, Int(-10)), Bin(Op::kLess, x, Int(10))),
                 Bin(Op::kEqual, Bin(Op::kModulo, y, Int(2)), Int(0))),
             Bin(Op::kEqual, z, Int(0))),
         [&](RowCount i) { return xs[i] > -10 && xs[i] < 10 && ys[i] % 2 == 0 && zs[i] == 0; }},
        {And(Bin(Op::kNotEqual, Bin(Op::kModulo, y, Int(7)), Int(3)),
             Bin(Op::kNotEqual, x, Int(5))),
         [&](RowCount i) { return ys[i] % 7 != 3 && xs[i] != 5; }},
        {And(Bin(Op::kGreaterEqual, Bin(Op::kModulo, y, Int(-5)), Int(2)),
             Bin(Op::kGreater, Int(3), z)),
         [&](RowCount i) { return ys[i] % -5 >= 2 && 3 > zs[i]; }},
        {And(Bin(Op::kLessEqual, Int(-3), Bin(Op::kModulo, y, Int(4))),
             Bin(Op::kGreaterEqual, x, Int(-20))),
         [&](RowCount i) { return -3 <= ys[i] % 4 && xs[i] >= -20; }},
        {And(Bin(Op::kEqual, Bin(Op::kModulo, x, Int(3)), Int(-2)), Bin(Op::kLess, z, Int(5))),
         [&](RowCount i) { return xs[i] % 3 == -2 && zs[i] < 5; }},
        {And(Bin(Op::kGreaterEqual, x, Int(kInt32Max)), Bin(Op::kGreater, y, Int(-5'000'000'000))),
         [&](RowCount i) { return xs[i] == kInt32Max; }},
        {And(Bin(Op::kEqual, x, Int(3'000'000'000)), Bin(Op::kEqual, z, Int(1))),
         [](RowCount) { return false; }},
        {And(Bin(Op::kNotEqual, x, Int(3'000'000'000)), Bin(Op::kEqual, z, Int(1))),
         [&](RowCount i) { return zs[i] == 1; }},
        {Bin(Op::kEqual, Bin(Op::kModulo, y, Int(3)), Int(1)),
         [&](RowCount i) { return ys[i] % 3 == 1; }},
        {Bin(Op::kLess, x, Int(0)), [&](RowCount i) { return xs[i] < 0; }},
    };
    for (std::size_t c = 0; c < cases.size(); ++c) {
      const auto& [predicate, keep] = cases[c];
      const ScopedTabletRows thirds(e, std::max<RowCount>(rows / 3, 1));
      TableRelation relation(e, t);
      ExpressionProgram program(relation.columns(), IdentityMapper());
      const std::size_t entry = program.AddPredicate(predicate);
      ASSERT_GT(program.entry(entry).int_conjuncts, 0u) << "case " << c << "\n"
                                                        << program.Disassemble();
      ASSERT_TRUE(RunsConjunctFilter(e, options, program.entry(entry)));
      QueryContext context(e, options);
      DeviceProgram device_program(e, program, options);
      const auto got = DownloadRowIds(e, Select(context, relation, device_program, entry));
      const RowCount counted = CountWhere(context, relation, device_program, entry);
      std::vector<std::uint32_t> want;
      for (RowCount i = 0; i < rows; ++i)
        if (keep(i)) want.push_back(static_cast<std::uint32_t>(i));
      EXPECT_EQ(got, want) << "case " << c << ", rows " << rows;
      EXPECT_EQ(counted, want.size()) << "case " << c << ", rows " << rows;
    }
  }
}

// Two predicates of one program with the same conjuncts share their
// descriptors (as equal constants are shared); each still selects its rows,
// and so does a third whose descriptors come after them.
TEST_P(ConjunctFilterTest, SharedDescriptorsSelectTheirRows) {
  Engine& e = engine();
  const QueryOptions options = ConjunctsOn();
  const TablePtr t = Int32Table(3 * e.tuning().tile_size() + 7, 5);
  const auto xs = t->column(0).int32s();
  const auto ys = t->column(1).int32s();
  const auto zs = t->column(2).int32s();
  const auto x = IntCol(0), y = IntCol(1), z = IntCol(2);
  const auto thesis_like = [&] {
    return And(
        And(Bin(Op::kGreater, x, Int(-30)), Bin(Op::kEqual, Bin(Op::kModulo, y, Int(2)), Int(0))),
        Bin(Op::kLess, z, Int(4)));
  };
  TableRelation relation(e, t);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const std::size_t first = program.AddPredicate(thesis_like());
  const std::size_t second = program.AddPredicate(thesis_like());
  const std::size_t third = program.AddPredicate(Bin(Op::kNotEqual, z, Int(3)));
  ASSERT_GT(program.entry(second).int_conjuncts, 0u);
  EXPECT_EQ(program.entry(second).int_conjuncts_at, program.entry(first).int_conjuncts_at);
  QueryContext context(e, options);
  DeviceProgram device_program(e, program, options);
  std::vector<std::uint32_t> want_thesis, want_third;
  for (RowCount i = 0; i < t->rows(); ++i) {
    if (xs[i] > -30 && ys[i] % 2 == 0 && zs[i] < 4)
      want_thesis.push_back(static_cast<std::uint32_t>(i));
    if (zs[i] != 3) want_third.push_back(static_cast<std::uint32_t>(i));
  }
  for (const std::size_t entry : {first, second})
    EXPECT_EQ(DownloadRowIds(e, Select(context, relation, device_program, entry)), want_thesis);
  EXPECT_EQ(DownloadRowIds(e, Select(context, relation, device_program, third)), want_third);
}

CLQ_INSTANTIATE_DEVICE_TESTS(ConjunctFilterTest);

}  // namespace
}  // namespace clq
