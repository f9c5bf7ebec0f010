// REAL division on devices must be IEEE's correctly rounded quotient, bit for
// bit the CPU reference's, whatever division code the device's compiler
// emits (or a kernel writes by hand: a reciprocal refinement tried for GPUs
// was checked with this test, see docs/BENCHMARKS.md). Operands cover every
// binade of double, subnormals, signed zeros, the largest finite values and
// quotients that overflow or underflow, through the interpreter's four
// division paths (divisor proven non-zero or not, operands in either order).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <cstdint>
#include <limits>
#include <random>
#include <string>

#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class RealDivisionTest : public DeviceTest {};

enum Column : std::size_t { kX, kY, kI };

// A double with a random 52-bit fraction, sign and binary exponent in
// [min_exponent, max_exponent]; now and then an edge value.
double RandomDouble(std::mt19937_64& rng, int min_exponent, int max_exponent) {
  static const double kEdges[] = {0.0,
                                  -0.0,
                                  1.0,
                                  -1.0,
                                  std::numeric_limits<double>::max(),
                                  -std::numeric_limits<double>::max(),
                                  std::numeric_limits<double>::min(),
                                  std::numeric_limits<double>::denorm_min(),
                                  -std::numeric_limits<double>::denorm_min(),
                                  0x1p-969,
                                  0x1p-120,
                                  0x1p120,
                                  0x1p1000,
                                  3.0,
                                  0.1};
  if (rng() % 16 == 0) return kEdges[rng() % std::size(kEdges)];
  std::uniform_int_distribution<int> exponent(min_exponent, max_exponent);
  const double fraction = 1.0 + static_cast<double>(rng() >> 12) * 0x1p-52;
  const double value = std::ldexp(fraction, exponent(rng));
  return (rng() & 1) ? -value : value;
}

// x and y: doubles over every binade (some rows), or within a few binades of
// 1 (the common case, where GPUs take the fast path); i: INT32 with 0 and
// INT32_MAX.
TablePtr DivisionTable(RowCount rows, std::uint32_t seed) {
  Schema schema{
      {"x", ColumnType::Double()}, {"y", ColumnType::Double()}, {"i", ColumnType::Int32()}};
  TableBuilder builder("t", schema, rows);
  std::mt19937_64 rng(seed);
  for (RowCount r = 0; r < rows; ++r) {
    const bool wide = rng() % 4 == 0;
    builder.column_values<double>(kX)[r] =
        wide ? RandomDouble(rng, -1074, 1023) : RandomDouble(rng, -30, 30);
    builder.column_values<double>(kY)[r] =
        wide ? RandomDouble(rng, -1074, 1023) : RandomDouble(rng, -30, 30);
    const std::uint64_t pick = rng() % 8;
    builder.column_values<std::int32_t>(kI)[r] = pick == 0 ? 0
                                                 : pick == 1
                                                     ? std::numeric_limits<std::int32_t>::max()
                                                     : static_cast<std::int32_t>(rng() % 1000000);
  }
  return builder.Finish();
}

TEST_P(RealDivisionTest, QuotientsAreBitForBitTheReferences) {
  CLQ_SKIP_REAL_WITHOUT_FP64(engine());
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const auto x = RealCol(kX), y = RealCol(kY), i = IntCol(kI);
  const sql::Expr shifted = Bin(Op::kAdd, i, Real(0.5));  // proven >= 0.5: no NULL
  const struct {
    std::string text;
    sql::Expr expr;
  } cases[] = {
      {"x / y", Bin(Op::kDivide, x, y)},
      {"x / (i + 0.5)", Bin(Op::kDivide, x, shifted)},
      {"(i + 0.5) / x", Bin(Op::kDivide, shifted, x)},
      {"y / (x + 0.25)", Bin(Op::kDivide, y, Bin(Op::kAdd, x, Real(0.25)))},
      // By a constant (CPUs keep it a scalar operand): a division, not a
      // product with its reciprocal.
      {"x / 3.0", Bin(Op::kDivide, x, Real(3.0))},
      {"i / 3.0", Bin(Op::kDivide, i, Real(3.0))},
  };
  for (const RowCount rows : {RowCount{1}, tile - 1, 20 * tile + 3}) {
    const TablePtr table = DivisionTable(rows, 11 + static_cast<std::uint32_t>(rows));
    for (const auto& c : cases) {
      const cpu_reference::ValueVector want = EvaluateOnCpu(table, c.expr);
      const ProjectedValues got = ProjectOnDevice(e, table, c.expr);
      std::size_t wrong = 0;
      for (RowCount r = 0; r < rows; ++r) {
        const bool want_null = want.IsNull(r);
        const bool got_null = !got.nulls.empty() && got.nulls[r] != 0;
        const std::int64_t want_bits = std::bit_cast<std::int64_t>(want.reals[r]);
        if (want_null != got_null || (!want_null && want_bits != got.values[r])) {
          if (++wrong <= 5)
            ADD_FAILURE() << c.text << ", row " << r << " of " << rows
                          << ": x = " << table->column(kX).doubles()[r]
                          << ", y = " << table->column(kY).doubles()[r]
                          << ", i = " << table->column(kI).int32s()[r] << ": want "
                          << (want_null ? std::string("NULL") : std::to_string(want.reals[r]))
                          << " (bits " << want_bits << "), got "
                          << (got_null ? std::string("NULL") : std::to_string(got.values[r]));
        }
      }
      EXPECT_EQ(wrong, 0u) << c.text << " at " << rows << " rows";
    }
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(RealDivisionTest);

}  // namespace
}  // namespace clq
