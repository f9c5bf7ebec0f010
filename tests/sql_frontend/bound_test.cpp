// bound.hpp's names and printing, and the small helpers around it
// (literals, structural equality, name suggestions).
#include "sql/bound.hpp"

#include <gtest/gtest.h>

#include <limits>

#include "sql/expr_equality.hpp"
#include "sql/name_suggestion.hpp"
#include "sql/sql_literal.hpp"

namespace clq::sql {
namespace {

Expr Column(std::size_t source, std::size_t index) {
  Expr expr;
  expr.kind = Expr::Kind::kColumnRef;
  expr.type = ValueType::kInteger;
  expr.source = source;
  expr.index = index;
  return expr;
}

Expr Constant(Value value) {
  Expr expr;
  expr.kind = Expr::Kind::kConstant;
  expr.type = value.type;
  expr.constant = std::move(value);
  return expr;
}

Expr Ref(Expr::Kind kind, std::size_t index) {
  Expr expr;
  expr.kind = kind;
  expr.index = index;
  return expr;
}

Expr Binary(BinaryOp op, Expr left, Expr right) {
  Expr expr;
  expr.kind = Expr::Kind::kBinary;
  expr.binary_op = op;
  expr.children.push_back(std::move(left));
  expr.children.push_back(std::move(right));
  return expr;
}

TEST(BoundTest, Names) {
  EXPECT_STREQ(ValueTypeName(ValueType::kNull), "NULL");
  EXPECT_STREQ(ValueTypeName(ValueType::kInteger), "INTEGER");
  EXPECT_STREQ(ValueTypeName(ValueType::kReal), "REAL");
  EXPECT_STREQ(ValueTypeName(ValueType::kText), "TEXT");
  EXPECT_EQ(ValueTypeOf(ColumnType::Int32()), ValueType::kInteger);
  EXPECT_EQ(ValueTypeOf(ColumnType::Int64()), ValueType::kInteger);
  EXPECT_EQ(ValueTypeOf(ColumnType::Double()), ValueType::kReal);
  EXPECT_EQ(ValueTypeOf(ColumnType::Char(52)), ValueType::kText);
  EXPECT_STREQ(UnaryOpName(UnaryOp::kNegate), "-");
  EXPECT_STREQ(UnaryOpName(UnaryOp::kNot), "NOT");
  EXPECT_STREQ(UnaryOpName(UnaryOp::kIsNull), "IS NULL");
  EXPECT_STREQ(UnaryOpName(UnaryOp::kIsNotNull), "IS NOT NULL");
  EXPECT_STREQ(UnaryOpName(UnaryOp::kExtractMonth), "MONTH");
  EXPECT_TRUE(IsExtract(UnaryOp::kExtractYear));
  EXPECT_FALSE(IsExtract(UnaryOp::kNegate));
  EXPECT_EQ(ExtractFromDays(UnaryOp::kExtractYear, -1), 1969);
  EXPECT_EQ(ExtractFromDays(UnaryOp::kExtractMonth, 11016), 2);  // 2000-02-29
  EXPECT_EQ(ExtractFromDays(UnaryOp::kExtractDay, 11016), 29);
  EXPECT_STREQ(BinaryOpName(BinaryOp::kModulo), "%");
  EXPECT_STREQ(BinaryOpName(BinaryOp::kNotEqual), "!=");
  EXPECT_STREQ(BinaryOpName(BinaryOp::kGreaterEqual), ">=");
  EXPECT_STREQ(BinaryOpName(BinaryOp::kOr), "OR");
  EXPECT_STREQ(AggregateName(AggregateFunction::kCountStar), "COUNT");
  EXPECT_STREQ(AggregateName(AggregateFunction::kCount), "COUNT");
  EXPECT_STREQ(AggregateName(AggregateFunction::kQuantile), "QUANTILE");
}

TEST(BoundTest, ToString) {
  EXPECT_EQ(Binary(BinaryOp::kAdd, Column(0, 3), Constant(Value::Integer(1))).ToString(),
            "(#0.3 + 1)");
  EXPECT_EQ(Ref(Expr::Kind::kGroupRef, 2).ToString(), "#g2");
  EXPECT_EQ(Ref(Expr::Kind::kAggregateRef, 0).ToString(), "#a0");
  EXPECT_EQ(Ref(Expr::Kind::kOutputRef, 7).ToString(), "#o7");
  EXPECT_EQ(Constant(Value::Text("it's")).ToString(), "'it''s'");
  EXPECT_EQ(Constant(Value::Null()).ToString(), "NULL");
  EXPECT_EQ(Constant(Value::Real(2)).ToString(), "2.0");
  EXPECT_EQ(Constant(Value::Real(0.173)).ToString(), "0.173");
  EXPECT_EQ(Constant(Value::Real(1e300)).ToString(), "1e+300");
  EXPECT_EQ(Constant(Value::Real(std::numeric_limits<double>::infinity())).ToString(), "Inf");
  EXPECT_EQ(Constant(Value::Integer(std::numeric_limits<std::int64_t>::min())).ToString(),
            "-9223372036854775808");
}

TEST(BoundTest, StructuralEquality) {
  const Expr a = Binary(BinaryOp::kAdd, Column(0, 1), Constant(Value::Integer(1)));
  Expr same = a;
  same.position = 99;  // positions do not matter
  same.children[0].position = 42;
  EXPECT_TRUE(StructurallyEqual(a, same));
  EXPECT_FALSE(
      StructurallyEqual(a, Binary(BinaryOp::kSubtract, Column(0, 1), Constant(Value::Integer(1)))));
  EXPECT_FALSE(
      StructurallyEqual(a, Binary(BinaryOp::kAdd, Column(1, 1), Constant(Value::Integer(1)))));
  EXPECT_FALSE(
      StructurallyEqual(a, Binary(BinaryOp::kAdd, Column(0, 1), Constant(Value::Real(1)))));
  EXPECT_FALSE(StructurallyEqual(Constant(Value::Real(0.0)), Constant(Value::Real(-0.0))));
  EXPECT_TRUE(StructurallyEqual(Constant(Value::Text("x")), Constant(Value::Text("x"))));
  EXPECT_FALSE(StructurallyEqual(Ref(Expr::Kind::kGroupRef, 0), Ref(Expr::Kind::kGroupRef, 1)));

  Aggregate sum;
  sum.function = AggregateFunction::kSum;
  sum.argument = a;
  Aggregate other = sum;
  EXPECT_TRUE(StructurallyEqual(sum, other));
  other.argument = Column(0, 1);
  EXPECT_FALSE(StructurallyEqual(sum, other));
  Aggregate q1;
  q1.function = AggregateFunction::kQuantile;
  q1.argument = Column(0, 1);
  q1.quantile = 0.9;
  Aggregate q2 = q1;
  q2.quantile = 0.1;
  EXPECT_FALSE(StructurallyEqual(q1, q2));

  EXPECT_TRUE(ContainsKind(a, Expr::Kind::kColumnRef));
  EXPECT_FALSE(ContainsKind(a, Expr::Kind::kAggregateRef));
}

TEST(BoundTest, NameSuggestions) {
  EXPECT_EQ(EditDistance("kitten", "sitting"), 3u);
  EXPECT_EQ(EditDistance("UNIQUE1", "unique1"), 0u);
  EXPECT_EQ(EditDistance("", "abc"), 3u);
  const std::vector<std::string> tables = {"tenktup1", "tenktup2", "onektup", "bprime"};
  EXPECT_EQ(ClosestName("tenktup3", tables), "tenktup1");
  EXPECT_EQ(ClosestName("onektp", tables), "onektup");
  EXPECT_EQ(ClosestName("bprim", tables), "bprime");
  EXPECT_EQ(ClosestName("employees", tables), std::nullopt);
  EXPECT_EQ(ClosestName("x", {"y"}), std::nullopt);  // one letter is no evidence
  EXPECT_EQ(DidYouMean("tenktupp1", tables), "; did you mean 'tenktup1'?");
  EXPECT_EQ(DidYouMean("zzz", tables), "");
  EXPECT_EQ(DidYouMean("uniqe1", std::vector<NameCandidate>{{"unique1", "t1.unique1"}}),
            "; did you mean 't1.unique1'?");
}

TEST(BoundTest, SqlLiterals) {
  EXPECT_EQ(SqlLiteral(Value::Integer(-5)), "-5");
  EXPECT_EQ(SqlLiteral(Value::Text("")), "''");
  EXPECT_EQ(FormatReal(0.1), "0.1");
  EXPECT_EQ(FormatReal(-3), "-3.0");
  EXPECT_EQ(FormatReal(std::numeric_limits<double>::quiet_NaN()), "NaN");
  EXPECT_EQ(FormatReal(-std::numeric_limits<double>::infinity()), "-Inf");
}

}  // namespace
}  // namespace clq::sql
