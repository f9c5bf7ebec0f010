// CASE and LIKE on the expression machine (kernels_cl/vm_interpreter.cl:
// VM_CASE_*, VM_STR_LIKE) against the CPU reference, on partial tiles and on
// several: a branch an item does not take must not raise for it, whatever
// the other items of its work-item take, on the lean machine too (CASE is
// not a rare operation there; LIKE is).
#include <gtest/gtest.h>

#include <bit>
#include <cmath>
#include <limits>
#include <string>

#include "common/errors.hpp"
#include "operators/cpu_reference/expression_eval.hpp"
#include "tests/operators/operator_test_util.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class CaseLikeTest : public DeviceTest {};

// RandomTable's columns: a INT32, b INT64 (extremes included), c DOUBLE, s CHAR(8)
// of 'a'..'c'.
enum Column : std::size_t { kA, kB, kC, kS };

sql::Expr Case(std::vector<sql::Expr> children, sql::ValueType type) {
  sql::Expr e;
  e.kind = sql::Expr::Kind::kCase;
  e.type = type;
  e.children = std::move(children);
  return e;
}

sql::Expr Like(sql::Expr value, std::string pattern, bool negated = false) {
  sql::Expr e;
  e.kind = sql::Expr::Kind::kLike;
  e.type = sql::ValueType::kInteger;
  e.negated = negated;
  e.constant = sql::Value::Text(std::move(pattern));
  e.children.push_back(std::move(value));
  return e;
}

struct Shape {
  std::string text;
  sql::Expr expr;
  bool overflows;  // on the tables below, whose b holds INT64_MIN and MAX
};

std::vector<Shape> Shapes() {
  using sql::ValueType;
  const auto a = IntCol(kA), b = IntCol(kB), c = RealCol(kC), s = TextCol(kS);
  const sql::Expr b_positive = Bin(Op::kGreater, b, Int(0));
  const sql::Expr b_negative = Bin(Op::kLess, b, Int(0));
  return {
      {"CASE WHEN b > 0 THEN b - 1 WHEN b < 0 THEN b + 1 ELSE 7 END",
       Case({b_positive, Bin(Op::kSubtract, b, Int(1)), b_negative, Bin(Op::kAdd, b, Int(1)),
             Int(7)},
            ValueType::kInteger),
       false},
      {"CASE WHEN b < 0 THEN 0 ELSE b + 1 END (overflows at INT64_MAX)",
       Case({b_negative, Int(0), Bin(Op::kAdd, b, Int(1))}, ValueType::kInteger), true},
      {"CASE WHEN a > 0 THEN a END (no ELSE: NULL)",
       Case({Bin(Op::kGreater, a, Int(0)), a, Null()}, ValueType::kInteger), false},
      {"CASE WHEN a % 2 = 0 THEN c ELSE a END (REAL)",
       Case({Bin(Op::kEqual, Bin(Op::kModulo, a, Int(2)), Int(0)), c, a}, ValueType::kReal), false},
      {"CASE WHEN b = 0 THEN 1 ELSE 100 / b END",
       Case({Bin(Op::kEqual, b, Int(0)), Int(1), Bin(Op::kDivide, Int(100), b)},
            ValueType::kInteger),
       false},
      {"nested: CASE WHEN a > 0 THEN CASE WHEN b > 0 THEN b - 1 ELSE b + 1 END ELSE a * 2 END",
       Case({Bin(Op::kGreater, a, Int(0)),
             Case({b_positive, Bin(Op::kSubtract, b, Int(1)), Bin(Op::kAdd, b, Int(1))},
                  ValueType::kInteger),
             Bin(Op::kMultiply, a, Int(2))},
            ValueType::kInteger),
       false},
      {"CASE WHEN s LIKE '%ab%' THEN a WHEN s LIKE 'c_' THEN -1 END",
       Case({Like(s, "%ab%"), a, Like(s, "c_"), Int(-1), Null()}, ValueType::kInteger), false},
      {"s LIKE '%a%b%c'", Like(s, "%a%b%c"), false},
      {"s NOT LIKE '_%_'", Like(s, "_%_", true), false},
      {"s LIKE 'cccccccccc%'", Like(s, "cccccccccc%"), false},
      {"s LIKE '%'", Like(s, "%"), false},
  };
}

TEST_P(CaseLikeTest, ProjectionsAgreeWithTheReference) {
  Engine& e = engine();
  const RowCount tile = e.tuning().tile_size();
  for (const RowCount rows : {RowCount{1}, RowCount{2}, tile - 1, 2 * tile + 5}) {
    const TablePtr table = RandomTable(rows, 900 + static_cast<std::uint32_t>(rows));
    const auto b = table->column(kB).int64s();
    bool has_max = false;
    for (const std::int64_t v : b)
      has_max = has_max || v == std::numeric_limits<std::int64_t>::max();
    for (const Shape& shape : Shapes()) {
      if (!e.info().fp64 && HasReal(shape.expr)) continue;  // refused without fp64
      cpu_reference::ValueVector want;
      bool overflows = false;
      try {
        want = EvaluateOnCpu(table, shape.expr);
      } catch (const InvalidInputError&) {
        overflows = true;
      }
      EXPECT_EQ(overflows, shape.overflows && has_max) << shape.text << ": the reference";
      for (const bool lean : {true, false}) {
        QueryOptions options;
        options.lean_machine = lean;
        const std::string where =
            shape.text + ", rows " + std::to_string(rows) + ", lean " + std::to_string(lean);
        ProjectedValues got;
        try {
          got = ProjectOnDevice(e, table, shape.expr, options);
        } catch (const InvalidInputError&) {
          EXPECT_TRUE(overflows) << where << ": the device raised";
          continue;
        }
        ASSERT_FALSE(overflows) << where << ": the device did not raise";
        ASSERT_EQ(got.values.size(), rows) << where;
        for (RowCount i = 0; i < rows; ++i) {
          const std::string row = where + ", row " + std::to_string(i);
          ASSERT_EQ(got.nulls[i] != 0, want.IsNull(i)) << row;
          if (want.IsNull(i)) continue;
          if (want.type == sql::ValueType::kReal) {
            ASSERT_EQ(std::bit_cast<double>(got.values[i]), want.reals[i]) << row;
          } else {
            ASSERT_EQ(got.values[i], want.integers[i]) << row;
          }
        }
      }
    }
  }
}

// The new instructions show in the disassembly EXPLAIN prints.
TEST_P(CaseLikeTest, DisassemblyNamesTheInstructions) {
  const TablePtr table = RandomTable(8, 1);
  TableRelation relation(engine(), table);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  program.AddValue(Shapes()[6].expr);
  const std::string text = program.Disassemble();
  for (const char* name :
       {"CASE_BEGIN", "CASE_WHEN", "CASE_THEN", "CASE_END", "STR_LIKE slot 0 width 8 like '%ab%'",
        "STR_LIKE slot 0 width 8 like 'c_'"})
    EXPECT_NE(text.find(name), std::string::npos) << name << "\n" << text;
}

CLQ_INSTANTIATE_DEVICE_TESTS(CaseLikeTest);

}  // namespace
}  // namespace clq
