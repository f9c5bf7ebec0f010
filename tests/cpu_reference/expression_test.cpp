// Expression semantics of the CPU reference, one rule at a time, through
// SELECT <expression> without FROM (and over a small table for TEXT).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>

#include "common/errors.hpp"
#include "tests/cpu_reference/bound_builders.hpp"

namespace clq::cpu_reference_test {
namespace {

constexpr std::int64_t kMin = std::numeric_limits<std::int64_t>::min();
constexpr std::int64_t kMax = std::numeric_limits<std::int64_t>::max();

std::string Eval(const Expr& e) {
  return Describe(EvaluateConstant(e));
}

ValueType TypeOf(const Expr& e) {
  sql::BoundSelect select;
  AddOutput(select, e);
  return ExecuteOnCpu(select).columns.at(0).type;
}

void ExpectOverflow(const Expr& e) {
  try {
    EvaluateConstant(e);
    ADD_FAILURE() << "no overflow error";
  } catch (const InvalidInputError& error) {
    EXPECT_STREQ(error.what(), "integer overflow");
  }
}

Expr Add(Expr a, Expr b) {
  return Binary(BinaryOp::kAdd, std::move(a), std::move(b));
}
Expr Sub(Expr a, Expr b) {
  return Binary(BinaryOp::kSubtract, std::move(a), std::move(b));
}
Expr Mul(Expr a, Expr b) {
  return Binary(BinaryOp::kMultiply, std::move(a), std::move(b));
}
Expr Div(Expr a, Expr b) {
  return Binary(BinaryOp::kDivide, std::move(a), std::move(b));
}
Expr Mod(Expr a, Expr b) {
  return Binary(BinaryOp::kModulo, std::move(a), std::move(b));
}

TEST(ExpressionTest, IntegerArithmetic) {
  EXPECT_EQ(Eval(Add(Int(2), Int(3))), "5");
  EXPECT_EQ(Eval(Sub(Int(2), Int(3))), "-1");
  EXPECT_EQ(Eval(Mul(Int(-4), Int(3))), "-12");
  EXPECT_EQ(Eval(Add(Int(kMax), Int(0))), std::to_string(kMax));
  EXPECT_EQ(Eval(Sub(Int(kMin + 1), Int(1))), std::to_string(kMin));
  EXPECT_EQ(TypeOf(Add(Int(2), Int(3))), ValueType::kInteger);
}

TEST(ExpressionTest, IntegerOverflowIsAnError) {
  ExpectOverflow(Add(Int(kMax), Int(1)));
  ExpectOverflow(Sub(Int(kMin), Int(1)));
  ExpectOverflow(Mul(Int(kMax), Int(2)));
  ExpectOverflow(Mul(Int(kMin), Int(-1)));
  ExpectOverflow(Div(Int(kMin), Int(-1)));
  ExpectOverflow(Unary(UnaryOp::kNegate, Int(kMin)));
}

TEST(ExpressionTest, IntegerDivisionTruncatesAndModuloTakesTheDividendsSign) {
  EXPECT_EQ(Eval(Div(Int(7), Int(2))), "3");
  EXPECT_EQ(Eval(Div(Int(-7), Int(2))), "-3");
  EXPECT_EQ(Eval(Div(Int(7), Int(-2))), "-3");
  EXPECT_EQ(Eval(Mod(Int(-7), Int(3))), "-1");
  EXPECT_EQ(Eval(Mod(Int(7), Int(-3))), "1");
  EXPECT_EQ(Eval(Mod(Int(kMin), Int(-1))), "0");
  EXPECT_EQ(Eval(Div(Int(kMin), Int(1))), std::to_string(kMin));
}

TEST(ExpressionTest, DivisionByZeroIsNull) {
  EXPECT_EQ(Eval(Div(Int(1), Int(0))), "NULL");
  EXPECT_EQ(Eval(Mod(Int(1), Int(0))), "NULL");
  EXPECT_EQ(Eval(Div(Real(1.5), Real(0.0))), "NULL");
  EXPECT_EQ(Eval(Div(Real(1.5), Real(-0.0))), "NULL");
  EXPECT_EQ(Eval(Div(Real(1.5), Int(0))), "NULL");
  EXPECT_EQ(Eval(Mod(Real(5.5), Real(0.9))), "NULL");  // 0.9 casts to 0
  EXPECT_EQ(TypeOf(Div(Int(1), Int(0))), ValueType::kInteger);
}

TEST(ExpressionTest, RealModuloCastsOperandsToInteger) {
  EXPECT_EQ(Eval(Mod(Real(7.9), Real(3.2))), "1");
  EXPECT_EQ(TypeOf(Mod(Real(7.9), Real(3.2))), ValueType::kReal);
  EXPECT_EQ(Eval(Mod(Real(-7.5), Int(2))), "-1");
  EXPECT_EQ(Eval(Mod(Int(7), Real(-2.5))), "1");
  EXPECT_EQ(Eval(Mod(Real(1e300), Real(-1.0))), "0");
}

TEST(ExpressionTest, MixedArithmeticIsReal) {
  EXPECT_EQ(Eval(Add(Int(1), Real(0.5))), "1.5");
  EXPECT_EQ(Eval(Div(Int(1), Real(4))), "0.25");
  EXPECT_EQ(Eval(Mul(Real(2.5), Int(-2))), "-5");
  EXPECT_EQ(TypeOf(Mul(Real(2.5), Int(-2))), ValueType::kReal);
  // inf - inf is NaN, which SQLite reports as NULL.
  EXPECT_EQ(Eval(Sub(Mul(Real(1e308), Real(10)), Mul(Real(1e308), Real(10)))), "NULL");
}

TEST(ExpressionTest, NullOperandsGiveNull) {
  EXPECT_EQ(Eval(Add(Int(1), Null())), "NULL");
  EXPECT_EQ(Eval(Mul(Null(), Real(2))), "NULL");
  EXPECT_EQ(Eval(Unary(UnaryOp::kNegate, Null())), "NULL");
  EXPECT_EQ(Eval(Binary(BinaryOp::kLess, Null(), Int(1))), "NULL");
  EXPECT_EQ(TypeOf(Add(Int(1), Null())), ValueType::kNull);
}

TEST(ExpressionTest, Negate) {
  EXPECT_EQ(Eval(Unary(UnaryOp::kNegate, Int(5))), "-5");
  EXPECT_EQ(Eval(Unary(UnaryOp::kNegate, Int(kMax))), std::to_string(-kMax));
  EXPECT_EQ(Eval(Unary(UnaryOp::kNegate, Real(2.5))), "-2.5");
}

TEST(ExpressionTest, CastRealToIntegerTruncatesAndSaturates) {
  EXPECT_EQ(Eval(Cast(Real(3.9), ValueType::kInteger)), "3");
  EXPECT_EQ(Eval(Cast(Real(-3.9), ValueType::kInteger)), "-3");
  EXPECT_EQ(Eval(Cast(Real(1e300), ValueType::kInteger)), std::to_string(kMax));
  EXPECT_EQ(Eval(Cast(Real(-1e300), ValueType::kInteger)), std::to_string(kMin));
  EXPECT_EQ(Eval(Cast(Real(9223372036854775808.0), ValueType::kInteger)), std::to_string(kMax));
  EXPECT_EQ(Eval(Cast(Real(-9223372036854775808.0), ValueType::kInteger)), std::to_string(kMin));
  EXPECT_EQ(Eval(Cast(Real(std::numeric_limits<double>::infinity()), ValueType::kInteger)),
            std::to_string(kMax));
  EXPECT_EQ(Eval(Cast(Real(std::nan("")), ValueType::kInteger)), "0");
  EXPECT_EQ(Eval(Cast(Null(), ValueType::kInteger)), "NULL");
  EXPECT_EQ(TypeOf(Cast(Null(), ValueType::kInteger)), ValueType::kInteger);
  EXPECT_EQ(Eval(Cast(Int(7), ValueType::kInteger)), "7");
}

TEST(ExpressionTest, CastIntegerToReal) {
  EXPECT_EQ(Eval(Cast(Int(5), ValueType::kReal)), "5");
  EXPECT_EQ(TypeOf(Cast(Int(5), ValueType::kReal)), ValueType::kReal);
  EXPECT_EQ(Eval(Cast(Int(kMax), ValueType::kReal)), "9.2233720368547758e+18");
}

TEST(ExpressionTest, NumericComparisons) {
  EXPECT_EQ(Eval(Binary(BinaryOp::kLess, Int(1), Int(2))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kGreater, Int(1), Int(2))), "0");
  EXPECT_EQ(Eval(Binary(BinaryOp::kEqual, Int(1), Real(1.0))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kNotEqual, Int(1), Real(1.5))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kGreaterEqual, Real(2.0), Int(2))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kLessEqual, Int(kMin), Int(kMax))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kEqual, Null(), Null())), "NULL");
  EXPECT_EQ(TypeOf(Binary(BinaryOp::kEqual, Real(1), Real(1))), ValueType::kInteger);
}

TEST(ExpressionTest, TextComparesBytewise) {
  EXPECT_EQ(Eval(Binary(BinaryOp::kLess, Text("abc"), Text("abd"))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kLess, Text("ab"), Text("abc"))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kLess, Text(""), Text("a"))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kLess, Text("B"), Text("a"))), "1");
  // Bytes compare unsigned: 0xFF sorts after 'a'.
  EXPECT_EQ(Eval(Binary(BinaryOp::kGreater, Text("\xff"), Text("a"))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kEqual, Text("x"), Text("x"))), "1");
}

TEST(ExpressionTest, CharColumnsCompareWithoutTheirPadding) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("t", {CharColumn("s", 6, {"ab", "", "abc", "b"})}), "t"});
  const Expr s = ColumnRef(0, 0, ValueType::kText);
  AddOutput(select, Binary(BinaryOp::kEqual, s, Text("ab")));
  AddOutput(select, Binary(BinaryOp::kLess, s, Text("ab")));
  AddOutput(select, Binary(BinaryOp::kGreater, s, Text("ab")));
  AddOutput(select, s);
  const QueryResult r = ExecuteOnCpu(select);
  EXPECT_EQ(Render(r), "1,0,0,'ab';0,1,0,'';0,0,1,'abc';0,0,1,'b'");
  EXPECT_EQ(r.columns[3].text_width, 3u);
  EXPECT_TRUE(r.columns[3].nulls.empty());
}

TEST(ExpressionTest, TextAgainstNumberIsAnError) {
  EXPECT_THROW(EvaluateConstant(Binary(BinaryOp::kEqual, Text("1"), Int(1))), InvalidInputError);
  EXPECT_THROW(EvaluateConstant(Add(Text("1"), Int(1))), InvalidInputError);
}

// The three values as constants: false, true, NULL.
std::vector<Expr> TruthValues() {
  return {Int(0), Int(1), Null()};
}

TEST(ExpressionTest, AndTruthTable) {
  // Rows: left false, true, NULL; columns: right false, true, NULL.
  const char* expected[3][3] = {{"0", "0", "0"}, {"0", "1", "NULL"}, {"0", "NULL", "NULL"}};
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t b = 0; b < 3; ++b)
      EXPECT_EQ(Eval(Binary(BinaryOp::kAnd, TruthValues()[a], TruthValues()[b])), expected[a][b])
          << a << " AND " << b;
}

TEST(ExpressionTest, OrTruthTable) {
  const char* expected[3][3] = {{"0", "1", "NULL"}, {"1", "1", "1"}, {"NULL", "1", "NULL"}};
  for (std::size_t a = 0; a < 3; ++a)
    for (std::size_t b = 0; b < 3; ++b)
      EXPECT_EQ(Eval(Binary(BinaryOp::kOr, TruthValues()[a], TruthValues()[b])), expected[a][b])
          << a << " OR " << b;
}

TEST(ExpressionTest, NotTruthTable) {
  EXPECT_EQ(Eval(Unary(UnaryOp::kNot, Int(0))), "1");
  EXPECT_EQ(Eval(Unary(UnaryOp::kNot, Int(1))), "0");
  EXPECT_EQ(Eval(Unary(UnaryOp::kNot, Null())), "NULL");
}

TEST(ExpressionTest, TruthinessIsNonZero) {
  EXPECT_EQ(Eval(Unary(UnaryOp::kNot, Int(-7))), "0");
  EXPECT_EQ(Eval(Unary(UnaryOp::kNot, Real(0.5))), "0");
  EXPECT_EQ(Eval(Unary(UnaryOp::kNot, Real(0.0))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kAnd, Int(2), Real(-0.25))), "1");
  EXPECT_EQ(Eval(Binary(BinaryOp::kOr, Real(0.0), Int(0))), "0");
}

TEST(ExpressionTest, Between) {
  EXPECT_EQ(Eval(Between(Int(5), Int(1), Int(10))), "1");
  EXPECT_EQ(Eval(Between(Int(1), Int(1), Int(1))), "1");
  EXPECT_EQ(Eval(Between(Int(0), Int(1), Int(10))), "0");
  EXPECT_EQ(Eval(Between(Int(2), Real(1.5), Real(2.5))), "1");
  EXPECT_EQ(Eval(Between(Int(5), Int(6), Null())), "0");  // 5 >= 6 is false
  EXPECT_EQ(Eval(Between(Int(5), Int(1), Null())), "NULL");
  EXPECT_EQ(Eval(Between(Null(), Int(1), Int(2))), "NULL");
  EXPECT_EQ(Eval(Between(Text("b"), Text("a"), Text("c"))), "1");
}

TEST(ExpressionTest, NotBetween) {
  EXPECT_EQ(Eval(Between(Int(5), Int(1), Int(10), true)), "0");
  EXPECT_EQ(Eval(Between(Int(0), Int(1), Int(10), true)), "1");
  EXPECT_EQ(Eval(Between(Int(5), Int(6), Null(), true)), "1");
  EXPECT_EQ(Eval(Between(Int(5), Int(1), Null(), true)), "NULL");
}

TEST(ExpressionTest, InList) {
  EXPECT_EQ(Eval(InList(Int(2), {Int(1), Int(2), Int(3)})), "1");
  EXPECT_EQ(Eval(InList(Int(4), {Int(1), Int(2), Int(3)})), "0");
  EXPECT_EQ(Eval(InList(Int(1), {Int(1), Null()})), "1");
  EXPECT_EQ(Eval(InList(Int(4), {Int(1), Null()})), "NULL");
  EXPECT_EQ(Eval(InList(Null(), {Int(1)})), "NULL");
  EXPECT_EQ(Eval(InList(Int(2), {Real(2.0)})), "1");
  EXPECT_EQ(Eval(InList(Text("b"), {Text("a"), Text("b")})), "1");
  EXPECT_EQ(Eval(InList(Text("ab"), {Text("a"), Text("abc")})), "0");
}

TEST(ExpressionTest, NotInList) {
  EXPECT_EQ(Eval(InList(Int(4), {Int(1), Int(2)}, true)), "1");
  EXPECT_EQ(Eval(InList(Int(1), {Int(1), Int(2)}, true)), "0");
  EXPECT_EQ(Eval(InList(Int(4), {Int(1), Null()}, true)), "NULL");
  EXPECT_EQ(Eval(InList(Int(1), {Int(1), Null()}, true)), "0");
  EXPECT_EQ(Eval(InList(Null(), {Int(1)}, true)), "NULL");
}

TEST(ExpressionTest, IsNullIsNeverNull) {
  EXPECT_EQ(Eval(Unary(UnaryOp::kIsNull, Null())), "1");
  EXPECT_EQ(Eval(Unary(UnaryOp::kIsNull, Int(0))), "0");
  EXPECT_EQ(Eval(Unary(UnaryOp::kIsNull, Div(Int(1), Int(0)))), "1");
  EXPECT_EQ(Eval(Unary(UnaryOp::kIsNotNull, Null())), "0");
  EXPECT_EQ(Eval(Unary(UnaryOp::kIsNotNull, Real(0))), "1");
}

TEST(ExpressionTest, EvaluatesEveryRowOfATable) {
  sql::BoundSelect select;
  select.from.push_back(
      {MakeTable("t", {Int32Column("a", {1, -2, 3, 0}), Int64Column("b", {10, 20, kMax, 5}),
                       DoubleColumn("d", {0.5, -1.5, 2.0, 0.0})}),
       "t"});
  const Expr a = ColumnRef(0, 0, ValueType::kInteger);
  const Expr b = ColumnRef(0, 1, ValueType::kInteger);
  const Expr d = ColumnRef(0, 2, ValueType::kReal);
  AddOutput(select, Div(b, a));
  AddOutput(select, Add(a, d));
  AddOutput(select, Div(d, a));
  const QueryResult r = ExecuteOnCpu(select);
  EXPECT_EQ(Render(r),
            "10,1.5,0.5;-10,-3.5,0.75;3074457345618258602,5,0.66666666666666663;NULL,0,NULL");
  ASSERT_EQ(r.columns[0].nulls.size(), 4u);
  EXPECT_EQ(r.columns[1].nulls.size(), 0u);
}

TEST(ExpressionTest, OverflowInAnyRowIsAnError) {
  sql::BoundSelect select;
  select.from.push_back({MakeTable("t", {Int64Column("b", {1, kMax, 2})}), "t"});
  AddOutput(select, Add(ColumnRef(0, 0, ValueType::kInteger), Int(1)));
  EXPECT_THROW(ExecuteOnCpu(select), InvalidInputError);
}

}  // namespace
}  // namespace clq::cpu_reference_test
