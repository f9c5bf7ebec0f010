#include "operators/projection.hpp"

#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <functional>
#include <limits>

#include "common/errors.hpp"
#include "operators/expression_program.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class ProjectionTest : public DeviceTest {};

struct Expected {
  std::int64_t value = 0;
  bool null = false;
};

// Checks a device projection against `expected(row)` on every row.
void CheckInteger(Engine& engine, const TablePtr& table, const sql::Expr& expr,
                  const std::function<Expected(RowCount)>& expected) {
  const ProjectedValues got = ProjectOnDevice(engine, table, expr);
  ASSERT_EQ(got.values.size(), table->rows());
  for (RowCount i = 0; i < table->rows(); ++i) {
    const Expected want = expected(i);
    ASSERT_EQ(got.nulls[i] != 0, want.null) << "row " << i;
    if (!want.null) {
      ASSERT_EQ(got.values[i], want.value) << "row " << i;
    }
  }
}

void CheckReal(Engine& engine, const TablePtr& table, const sql::Expr& expr,
               const std::function<std::optional<double>(RowCount)>& expected) {
  const ProjectedValues got = ProjectOnDevice(engine, table, expr);
  ASSERT_EQ(got.values.size(), table->rows());
  for (RowCount i = 0; i < table->rows(); ++i) {
    const std::optional<double> want = expected(i);
    ASSERT_EQ(got.nulls[i] != 0, !want.has_value()) << "row " << i;
    if (want) {
      const double value = std::bit_cast<double>(got.values[i]);
      ASSERT_NEAR(value, *want, 1e-12 * std::max(1.0, std::fabs(*want))) << "row " << i;
    }
  }
}

TEST_P(ProjectionTest, SumOfColumnsAtEdgeSizes) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  const RowCount wg = e.tuning().work_group_size;
  for (RowCount rows :
       {RowCount{0}, RowCount{1}, wg - 1, wg, wg + 1, tile - 1, tile, tile + 1, 3 * tile + 5}) {
    TablePtr t = RandomTable(rows, 7 + static_cast<std::uint32_t>(rows), false);
    const auto a = t->column(0).int32s();
    const auto b = t->column(1).int64s();
    CheckInteger(e, t, Bin(Op::kAdd, IntCol(0), IntCol(1)), [&](RowCount i) {
      return Expected{a[i] + b[i], false};
    });
  }
}

TEST_P(ProjectionTest, IntegerArithmeticFollowsSqlite) {
  Engine& e = engine();
  TablePtr t = RandomTable(5000, 11, false);
  const auto a = t->column(0).int32s();
  const auto b = t->column(1).int64s();
  // Division truncates toward zero; % takes the dividend's sign; x/0 and x%0 are NULL.
  CheckInteger(e, t, Bin(Op::kDivide, IntCol(1), IntCol(0)), [&](RowCount i) {
    return a[i] == 0 ? Expected{0, true} : Expected{b[i] / a[i], false};
  });
  CheckInteger(e, t, Bin(Op::kModulo, IntCol(1), IntCol(0)), [&](RowCount i) {
    return a[i] == 0 ? Expected{0, true} : Expected{b[i] % a[i], false};
  });
  CheckInteger(e, t, Bin(Op::kSubtract, Int(7), Bin(Op::kMultiply, IntCol(0), Int(-3))),
               [&](RowCount i) {
                 return Expected{7 - a[i] * -3LL, false};
               });
  CheckInteger(e, t, Un(sql::UnaryOp::kNegate, IntCol(0)), [&](RowCount i) {
    return Expected{-static_cast<std::int64_t>(a[i]), false};
  });
  // Nested on both sides needs the stack: (a + 1) * (b - a) - (a % 7) / (b + 2)
  CheckInteger(
      e, t,
      Bin(Op::kSubtract,
          Bin(Op::kMultiply, Bin(Op::kAdd, IntCol(0), Int(1)),
              Bin(Op::kSubtract, IntCol(1), IntCol(0))),
          Bin(Op::kDivide, Bin(Op::kModulo, IntCol(0), Int(7)), Bin(Op::kAdd, IntCol(1), Int(2)))),
      [&](RowCount i) {
        const std::int64_t divisor = b[i] + 2;
        if (divisor == 0) return Expected{0, true};
        return Expected{(a[i] + 1LL) * (b[i] - a[i]) - (a[i] % 7) / divisor, false};
      });
}

TEST_P(ProjectionTest, ComparisonsLogicAndNulls) {
  Engine& e = engine();
  TablePtr t = RandomTable(3000, 13, false);
  const auto a = t->column(0).int32s();
  const auto b = t->column(1).int64s();
  CheckInteger(e, t, Bin(Op::kLess, IntCol(0), Int(10)), [&](RowCount i) {
    return Expected{a[i] < 10, false};
  });
  CheckInteger(e, t, Bin(Op::kGreaterEqual, Int(10), IntCol(0)), [&](RowCount i) {
    return Expected{10 >= a[i], false};
  });
  // (b / a > 0) AND (a <> 3): NULL when a = 0 unless a <> 3 is false (never here).
  CheckInteger(e, t,
               Bin(Op::kAnd, Bin(Op::kGreater, Bin(Op::kDivide, IntCol(1), IntCol(0)), Int(0)),
                   Bin(Op::kNotEqual, IntCol(0), Int(3))),
               [&](RowCount i) {
                 const bool right = a[i] != 3;
                 if (!right) return Expected{0, false};
                 if (a[i] == 0) return Expected{0, true};
                 return Expected{b[i] / a[i] > 0, false};
               });
  // NULL OR true is true; NULL OR false is NULL.
  CheckInteger(e, t,
               Bin(Op::kOr, Bin(Op::kEqual, Null(), Int(1)), Bin(Op::kLess, IntCol(0), Int(0))),
               [&](RowCount i) {
                 return a[i] < 0 ? Expected{1, false} : Expected{0, true};
               });
  CheckInteger(e, t, Un(sql::UnaryOp::kIsNull, Bin(Op::kModulo, IntCol(1), IntCol(0))),
               [&](RowCount i) {
                 return Expected{a[i] == 0, false};
               });
  CheckInteger(e, t, Un(sql::UnaryOp::kNot, Bin(Op::kEqual, IntCol(0), Int(5))), [&](RowCount i) {
    return Expected{a[i] != 5, false};
  });
  CheckInteger(e, t, Between(IntCol(0), Int(-10), Int(10)), [&](RowCount i) {
    return Expected{a[i] >= -10 && a[i] <= 10, false};
  });
  CheckInteger(e, t, Between(IntCol(0), Int(-10), Int(10), true), [&](RowCount i) {
    return Expected{!(a[i] >= -10 && a[i] <= 10), false};
  });
  CheckInteger(e, t, In(IntCol(0), {Int(1), Int(2), Int(3)}), [&](RowCount i) {
    return Expected{a[i] >= 1 && a[i] <= 3, false};
  });
  // x IN (1, NULL): true on a hit, else NULL.
  CheckInteger(e, t, In(IntCol(0), {Int(1), Null()}), [&](RowCount i) {
    return a[i] == 1 ? Expected{1, false} : Expected{0, true};
  });
  CheckInteger(e, t, In(IntCol(0), {Int(1), Null()}, true), [&](RowCount i) {
    return a[i] == 1 ? Expected{0, false} : Expected{0, true};
  });
  // IN with a non-constant item becomes a chain of equalities.
  CheckInteger(e, t, In(IntCol(0), {Bin(Op::kAdd, IntCol(0), Int(0)), Int(2)}), [&](RowCount) {
    return Expected{1, false};
  });
}

TEST_P(ProjectionTest, RealArithmetic) {
  CLQ_SKIP_REAL_WITHOUT_FP64(engine());
  Engine& e = engine();
  TablePtr t = RandomTable(3000, 17, false);
  const auto a = t->column(0).int32s();
  const auto c = t->column(2).doubles();
  // The thesis's float query: unique1 / (0.173 + onepercent)
  CheckReal(e, t, Bin(Op::kDivide, IntCol(0), Bin(Op::kAdd, Real(0.173), IntCol(0))),
            [&](RowCount i) -> std::optional<double> {
              const double d = 0.173 + a[i];
              if (d == 0.0) return std::nullopt;
              return a[i] / d;
            });
  CheckReal(e, t, Bin(Op::kDivide, RealCol(2), IntCol(0)),
            [&](RowCount i) -> std::optional<double> {
              if (a[i] == 0) return std::nullopt;
              return c[i] / a[i];
            });
  // REAL % casts both sides to INTEGER.
  CheckReal(e, t, Bin(Op::kModulo, RealCol(2), Int(3)), [&](RowCount i) -> std::optional<double> {
    return static_cast<double>(static_cast<std::int64_t>(c[i]) % 3);
  });
  CheckInteger(e, t, Cast(RealCol(2), sql::ValueType::kInteger), [&](RowCount i) {
    return Expected{static_cast<std::int64_t>(c[i]), false};
  });
  CheckInteger(e, t, Bin(Op::kLess, RealCol(2), IntCol(0)), [&](RowCount i) {
    return Expected{c[i] < a[i], false};
  });
}

TEST_P(ProjectionTest, TextComparisons) {
  Engine& e = engine();
  TablePtr t = RandomTable(2000, 19, false);
  const Column& s = t->column(3);
  for (const std::string literal : {"", "a", "ab", "abc", "bbbbbbbb", "ccccccccc", "b"}) {
    CheckInteger(e, t, Bin(Op::kLess, TextCol(3), Text(literal)), [&](RowCount i) {
      return Expected{s.StringAt(i) < literal, false};
    });
    CheckInteger(e, t, Bin(Op::kEqual, Text(literal), TextCol(3)), [&](RowCount i) {
      return Expected{s.StringAt(i) == literal, false};
    });
    CheckInteger(e, t, Bin(Op::kGreaterEqual, Text(literal), TextCol(3)), [&](RowCount i) {
      return Expected{literal >= s.StringAt(i), false};
    });
  }
  CheckInteger(e, t, In(TextCol(3), {Text("a"), Text("ab")}), [&](RowCount i) {
    return Expected{s.StringAt(i) == "a" || s.StringAt(i) == "ab", false};
  });
}

TEST_P(ProjectionTest, OverflowIsAnError) {
  Engine& e = engine();
  TablePtr t = RandomTable(100, 23, true);
  EXPECT_THROW(ProjectOnDevice(e, t, Bin(Op::kMultiply, IntCol(1), Int(4))), InvalidInputError);
  EXPECT_THROW(ProjectOnDevice(
                   e, t, Bin(Op::kAdd, IntCol(1), Int(std::numeric_limits<std::int64_t>::max()))),
               InvalidInputError);
  // The next query on the engine is unaffected.
  TablePtr calm = RandomTable(100, 23, false);
  EXPECT_NO_THROW(ProjectOnDevice(e, calm, Bin(Op::kAdd, IntCol(1), Int(1))));
}

TEST_P(ProjectionTest, IntegerEdgeValues) {
  Engine& e = engine();
  TablePtr t = RandomTable(2000, 29, true);
  const auto a = t->column(0).int32s();
  const auto b = t->column(1).int64s();
  // b / a for INT64_MIN / -1 overflows; avoid it by dividing a by b instead.
  CheckInteger(e, t, Bin(Op::kDivide, IntCol(0), IntCol(1)), [&](RowCount i) {
    if (b[i] == 0) return Expected{0, true};
    if (b[i] == -1) return Expected{-static_cast<std::int64_t>(a[i]), false};
    return Expected{a[i] / b[i], false};
  });
  CheckInteger(e, t, Bin(Op::kModulo, IntCol(1), IntCol(0)), [&](RowCount i) {
    if (a[i] == 0) return Expected{0, true};
    if (a[i] == -1) return Expected{0, false};
    return Expected{b[i] % a[i], false};
  });
}

TEST_P(ProjectionTest, AcrossTablets) {
  CLQ_SKIP_REAL_WITHOUT_FP64(engine());
  Engine& e = engine();
  const ScopedTabletRows small(e, 1000);
  TablePtr t = RandomTable(4321, 31, false);
  const auto a = t->column(0).int32s();
  const auto c = t->column(2).doubles();
  EXPECT_EQ(e.tables().Tablets(*t).size(), 5u);
  CheckReal(e, t, Bin(Op::kMultiply, RealCol(2), IntCol(0)),
            [&](RowCount i) -> std::optional<double> { return c[i] * a[i]; });
}

CLQ_INSTANTIATE_DEVICE_TESTS(ProjectionTest);

TEST(ExpressionProgramTest, LimitsAreClearErrors) {
  std::vector<VmInputColumn> columns(10, {ColumnType::Int32(), false});
  ExpressionProgram program(columns, IdentityMapper());
  sql::Expr wide = IntCol(0);
  for (std::size_t c = 1; c < 10; ++c)
    wide = Bin(Op::kAdd, wide, IntCol(c));
  EXPECT_THROW(program.AddValue(wide), DeviceLimitError);

  ExpressionProgram text_program({{ColumnType::Char(4), false}, {ColumnType::Char(4), false}},
                                 IdentityMapper());
  EXPECT_THROW(text_program.AddValue(Bin(Op::kEqual, TextCol(0), TextCol(1))), DeviceLimitError);
}

TEST(ExpressionProgramTest, ConjunctionsUseThePassFlagNotTheStack) {
  std::vector<VmInputColumn> columns(3, {ColumnType::Int32(), false});
  ExpressionProgram program(columns, IdentityMapper());
  // The thesis selection predicate.
  const sql::Expr predicate = Bin(Op::kAnd,
                                  Bin(Op::kAnd,
                                      Bin(Op::kAnd, Bin(Op::kGreater, IntCol(0), Int(1000)),
                                          Bin(Op::kLess, IntCol(0), Int(6000))),
                                      Bin(Op::kEqual, Bin(Op::kModulo, IntCol(1), Int(2)), Int(0))),
                                  Bin(Op::kEqual, IntCol(2), Int(0)));
  program.AddPredicate(predicate);
  const std::string listing = program.Disassemble();
  EXPECT_EQ(listing.find("PUSH"), std::string::npos) << listing;
  EXPECT_NE(listing.find("KEEP"), std::string::npos) << listing;
  // unique1 > 1000 AND unique1 < 6000 is one fused range test, run first;
  // two = 0 another fused test.
  std::size_t fused = 0;
  for (std::size_t at = listing.find("KEEP_CMP"); at != std::string::npos;
       at = listing.find("KEEP_CMP", at + 1))
    ++fused;
  EXPECT_EQ(fused, 2u) << listing;
  EXPECT_NE(listing.find("0: KEEP_CMP slot 0 in [1001, 5999]"), std::string::npos) << listing;
}

}  // namespace
}  // namespace clq
