#include "sql/binder.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <limits>

#include "tests/sql_frontend/bind_helpers.hpp"

namespace clq::sql {
namespace {

using clq::testing::BindSql;
using clq::testing::OutputNames;
using clq::testing::OutputStrings;
using clq::testing::OutputTypes;
using clq::testing::ToyCatalog;
using clq::testing::WisconsinCatalog;
using VT = ValueType;

TEST(BinderTest, ColumnAndExpressionTypes) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(
      *catalog,
      "SELECT a, b, c, s, a + b, a + c, a / b, a % c, c % 2, -a, -c, a = b, s = 'x', a AND c, "
      "NOT c, a BETWEEN 1 AND 2.5, s IN ('a', 'b'), s IS NULL, CAST(c AS INTEGER), "
      "CAST(a AS REAL), NULL, NULL + 1, -NULL, 'lit', 1.5, a = NULL, s < NULL FROM t1");
  EXPECT_EQ(OutputTypes(bound.select),
            (std::vector<VT>{VT::kInteger, VT::kInteger, VT::kReal,    VT::kText,    VT::kInteger,
                             VT::kReal,    VT::kInteger, VT::kReal,    VT::kReal,    VT::kInteger,
                             VT::kReal,    VT::kInteger, VT::kInteger, VT::kInteger, VT::kInteger,
                             VT::kInteger, VT::kInteger, VT::kInteger, VT::kInteger, VT::kReal,
                             VT::kNull,    VT::kNull,    VT::kNull,    VT::kText,    VT::kReal,
                             VT::kInteger, VT::kInteger}));
  EXPECT_FALSE(bound.select.aggregated);
  EXPECT_EQ(bound.select.visible_outputs, bound.select.outputs.size());
}

TEST(BinderTest, ExpressionStructure) {
  auto catalog = ToyCatalog();
  const BoundStatement bound =
      BindSql(*catalog,
              "SELECT a + b * 2, s = 'it''s', a NOT BETWEEN 1 AND b, a IN (1, b), c IS NOT NULL, "
              "NOT a, CAST(a AS REAL), -a FROM t1");
  EXPECT_EQ(OutputStrings(bound.select),
            (std::vector<std::string>{"(#0.0 + (#0.1 * 2))", "(#0.3 = 'it''s')",
                                      "(#0.0 NOT BETWEEN 1 AND #0.1)", "(#0.0 IN (1, #0.1))",
                                      "(#0.2 IS NOT NULL)", "(NOT #0.0)", "CAST(#0.0 AS REAL)",
                                      "(-#0.0)"}));
  const Expr& is_not_null = bound.select.outputs[4].expr;
  EXPECT_EQ(is_not_null.kind, Expr::Kind::kUnary);
  EXPECT_EQ(is_not_null.unary_op, UnaryOp::kIsNotNull);
}

TEST(BinderTest, ExtractIsOneOperationOfTheDays) {
  clq::testing::CountingCatalog catalog;
  catalog.Add("t", {{"d", ColumnType::Date()}});
  const BoundStatement bound =
      BindSql(catalog,
              "SELECT EXTRACT(YEAR FROM d), EXTRACT(MONTH FROM d + 1), EXTRACT(DAY FROM d), "
              "EXTRACT(YEAR FROM DATE '2000-02-29'), EXTRACT(DAY FROM DATE '-0001-12-31'), "
              "EXTRACT(MONTH FROM NULL) FROM t");
  EXPECT_EQ(OutputStrings(bound.select),
            (std::vector<std::string>{"EXTRACT(YEAR FROM #0.0)", "EXTRACT(MONTH FROM (#0.0 + 1))",
                                      "EXTRACT(DAY FROM #0.0)", "2000", "31", "NULL"}));
  const Expr& year = bound.select.outputs[0].expr;
  EXPECT_EQ(year.kind, Expr::Kind::kUnary);
  EXPECT_EQ(year.unary_op, UnaryOp::kExtractYear);
  EXPECT_EQ(year.type, VT::kInteger);
  EXPECT_FALSE(year.logical.is_date());
  EXPECT_EQ(bound.select.outputs[2].expr.unary_op, UnaryOp::kExtractDay);
}

TEST(BinderTest, NegativeLiteralsAreFolded) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(
      *catalog, "SELECT -1, -1.5, -9223372036854775808, 9223372036854775808, - -2, -(3), +4");
  const auto& outputs = bound.select.outputs;
  ASSERT_EQ(outputs.size(), 7u);
  for (const OutputColumn& output : outputs)
    EXPECT_EQ(output.expr.kind, Expr::Kind::kConstant);
  EXPECT_EQ(outputs[0].expr.constant.integer, -1);
  EXPECT_DOUBLE_EQ(outputs[1].expr.constant.real, -1.5);
  EXPECT_EQ(outputs[2].expr.type, VT::kInteger);
  EXPECT_EQ(outputs[2].expr.constant.integer, std::numeric_limits<std::int64_t>::min());
  EXPECT_EQ(outputs[3].expr.type, VT::kReal);  // beyond int64, as in SQLite
  EXPECT_EQ(outputs[4].expr.constant.integer, 2);
  EXPECT_EQ(outputs[5].expr.constant.integer, -3);
  EXPECT_EQ(outputs[6].expr.constant.integer, 4);
  EXPECT_EQ(outputs[0].expr.position, 7u);
  EXPECT_TRUE(bound.select.from.empty());
}

// Arithmetic on two INTEGER constants folds where the result fits, so that
// a DECIMAL column compared with `1 + 10` compares with a rescaled constant;
// an overflow stays an expression (the row that computes it raises).
TEST(BinderTest, IntegerConstantArithmeticIsFolded) {
  clq::testing::CountingCatalog catalog;
  catalog.Add("t", {{"q", ColumnType::Decimal(15, 2)}, {"a", ColumnType::Int32()}});
  const BoundStatement bound =
      BindSql(catalog,
              "SELECT q <= 1 + 10, a * (2 - 5), 9223372036854775807 + 1, 7 / 2 + 1, "
              "(1 + 2) * a FROM t");
  EXPECT_EQ(OutputStrings(bound.select),
            (std::vector<std::string>{"(#0.0 <= 1100)", "(#0.1 * -3)", "(9223372036854775807 + 1)",
                                      "((7 / 2) + 1)", "(3 * #0.1)"}));
}

// An OR over two tables implies a filter of each table the WHERE does not
// filter already (t2 here); t1, filtered by `a > 0`, gets none.
TEST(BinderTest, ImpliedConjunctsOnlyForUnfilteredTables) {
  auto catalog = ToyCatalog();
  const BoundStatement filtered =
      BindSql(*catalog,
              "SELECT t1.a FROM t1, t2 WHERE t1.a = t2.a AND t1.b > 0 AND "
              "((t1.s = 'x' AND t2.d = 1) OR (t1.s = 'y' AND t2.d = 2))");
  ASSERT_TRUE(filtered.select.where.has_value());
  EXPECT_EQ(filtered.select.where->ToString(),
            "((((#0.0 = #1.0) AND (#0.1 > 0)) AND (((#0.3 = 'x') AND (#1.1 = 1)) OR "
            "((#0.3 = 'y') AND (#1.1 = 2)))) AND ((#1.1 = 1) OR (#1.1 = 2)))");
  const BoundStatement unfiltered =
      BindSql(*catalog,
              "SELECT t1.a FROM t1, t2 WHERE t1.a = t2.a AND "
              "((t1.s = 'x' AND t2.d = 1) OR (t1.s = 'y' AND t2.d = 2))");
  EXPECT_EQ(unfiltered.select.where->ToString(),
            "((((#0.0 = #1.0) AND (((#0.3 = 'x') AND (#1.1 = 1)) OR ((#0.3 = 'y') AND "
            "(#1.1 = 2)))) AND ((#0.3 = 'x') OR (#0.3 = 'y'))) AND ((#1.1 = 1) OR (#1.1 = 2)))");
}

TEST(BinderTest, ResolvesColumnsAcrossTablesAndAliases) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(*catalog, "SELECT T1.A, x.a, d, B, \"s\" FROM t1, T2 AS x");
  EXPECT_EQ(OutputStrings(bound.select),
            (std::vector<std::string>{"#0.0", "#1.0", "#1.1", "#0.1", "#0.3"}));
  ASSERT_EQ(bound.select.from.size(), 2u);
  EXPECT_EQ(bound.select.from[0].alias, "t1");
  EXPECT_EQ(bound.select.from[1].alias, "x");
  ASSERT_NE(bound.select.from[0].table, nullptr);
  EXPECT_EQ(bound.select.from[0].table->name(), "t1");
  EXPECT_EQ(bound.select.from[1].table->name(), "t2");
  EXPECT_EQ(*catalog->materialised, 2);
}

TEST(BinderTest, OutputNames) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(
      *catalog,
      "SELECT A, t1.b, (c), a+1, a  +  1 AS total, CAST(a AS REAL), 'x', -c, \"S\" FROM t1");
  EXPECT_EQ(OutputNames(bound.select),
            (std::vector<std::string>{"a", "b", "c", "a+1", "total", "CAST(a AS REAL)", "'x'", "-c",
                                      "s"}));
}

TEST(BinderTest, StarExpansion) {
  auto catalog = ToyCatalog();
  const BoundStatement all = BindSql(*catalog, "SELECT * FROM t1, t2");
  EXPECT_EQ(OutputNames(all.select), (std::vector<std::string>{"a", "b", "c", "s", "a", "d"}));
  EXPECT_EQ(OutputStrings(all.select),
            (std::vector<std::string>{"#0.0", "#0.1", "#0.2", "#0.3", "#1.0", "#1.1"}));
  EXPECT_EQ(all.select.outputs[0].expr.position, 7u);

  const BoundStatement one = BindSql(*catalog, "SELECT y.*, t1.a AS first FROM t1, t2 y");
  EXPECT_EQ(OutputNames(one.select), (std::vector<std::string>{"a", "d", "first"}));
  EXPECT_EQ(OutputStrings(one.select), (std::vector<std::string>{"#1.0", "#1.1", "#0.0"}));
}

TEST(BinderTest, JoinConditionsAreAndedIntoWhere) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(
      *catalog, "SELECT t1.a FROM t1 JOIN t2 ON t1.a = t2.a JOIN t2 z ON z.d = t2.d WHERE b > 1");
  ASSERT_TRUE(bound.select.where.has_value());
  EXPECT_EQ(bound.select.where->ToString(), "(((#0.0 = #1.0) AND (#2.1 = #1.1)) AND (#0.1 > 1))");
  EXPECT_EQ(bound.select.where->type, VT::kInteger);
  EXPECT_EQ(bound.select.from.size(), 3u);
}

TEST(BinderTest, OnConditionSeesOnlyTheTablesJoinedSoFar) {
  auto catalog = ToyCatalog();
  // Both t2 and z have d, but z is not yet joined in the first ON.
  const BoundStatement bound =
      BindSql(*catalog, "SELECT 1 FROM t1 JOIN t2 ON d = 1 JOIN t2 z ON z.d = 2");
  EXPECT_EQ(bound.select.where->ToString(), "((#1.1 = 1) AND (#2.1 = 2))");
}

TEST(BinderTest, LimitOffsetExplainAndText) {
  auto catalog = ToyCatalog();
  const std::string sql = "EXPLAIN SELECT a FROM t1 LIMIT 10 OFFSET 5";
  const BoundStatement bound = BindSql(*catalog, sql);
  EXPECT_TRUE(bound.explain);
  EXPECT_EQ(bound.text, sql);
  EXPECT_EQ(bound.select.limit, 10u);
  EXPECT_EQ(bound.select.offset, 5u);

  const BoundStatement sqlite_style = BindSql(*catalog, "SELECT a FROM t1 LIMIT 5, 10");
  EXPECT_EQ(sqlite_style.select.limit, 10u);
  EXPECT_EQ(sqlite_style.select.offset, 5u);
  EXPECT_FALSE(sqlite_style.explain);

  const BoundStatement none = BindSql(*catalog, "SELECT a FROM t1 LIMIT 0");
  EXPECT_EQ(none.select.limit, 0u);
  EXPECT_EQ(BindSql(*catalog, "SELECT a FROM t1").select.limit, std::nullopt);
}

TEST(BinderTest, PositionsPointAtTheExpression) {
  auto catalog = ToyCatalog();
  const std::string sql = "SELECT (a + b) * 2 FROM t1 WHERE b > 1";
  const BoundStatement bound = BindSql(*catalog, sql);
  const Expr& output = bound.select.outputs[0].expr;
  EXPECT_EQ(output.position, 7u);
  EXPECT_EQ(output.children[0].position, 7u);
  EXPECT_EQ(output.children[0].children[1].position, sql.find("b)"));
  EXPECT_EQ(output.children[1].position, sql.find('2'));
  EXPECT_EQ(bound.select.where->position, sql.find("b > 1"));
}

TEST(BinderTest, TablesAreMaterialisedOnlyAfterASuccessfulBind) {
  auto catalog = ToyCatalog();
  EXPECT_THROW(BindSql(*catalog, "SELECT nope FROM t1, t2"), SqlError);
  EXPECT_EQ(*catalog->materialised, 0);
  BindSql(*catalog, "SELECT a FROM t1");
  EXPECT_EQ(*catalog->materialised, 1);
}

// The derived table of a correlated subquery keeps only the keys the outer
// rows can have: its rows are joined first with the DISTINCT outer keys of
// the outer tables under their filters (the subquery's own derived table),
// where a filter makes that pay.
const BoundSelect& OnlyDerived(const BoundSelect& select) {
  EXPECT_EQ(select.subqueries.size(), 1u);
  return *select.subqueries.at(0).select;
}

TEST(BinderTest, CorrelatedSubqueryKeepsTheOuterRowsKeys) {
  auto catalog = WisconsinCatalog();
  for (const char* sql :
       {"SELECT COUNT(*) FROM tenktup1 t WHERE t.ten = 3 AND EXISTS (SELECT * FROM tenktup2 u "
        "WHERE u.unique2 = t.unique1)",
        "SELECT COUNT(*) FROM tenktup1 t WHERE t.ten = 3 AND NOT EXISTS (SELECT * FROM tenktup2 "
        "u WHERE u.unique2 = t.unique1 AND u.four <> t.four)",
        "SELECT COUNT(*) FROM tenktup1 t WHERE t.ten = 3 AND t.unique2 > (SELECT MIN(u.unique2) "
        "FROM tenktup2 u WHERE u.unique1 = t.unique1)",
        "SELECT COUNT(*) FROM tenktup1 t JOIN onektup o ON o.unique1 = t.unique1 AND o.two = 1 "
        "WHERE EXISTS (SELECT * FROM tenktup2 u WHERE u.unique2 = t.unique1)"}) {
    SCOPED_TRACE(sql);
    const BoundStatement bound = BindSql(*catalog, sql);
    const BoundSelect& derived = OnlyDerived(bound.select);
    // The keys: SELECT DISTINCT t.unique1 FROM tenktup1 t [, onektup o] WHERE ...
    const BoundSelect& keys = OnlyDerived(derived);
    EXPECT_TRUE(keys.distinct);
    EXPECT_FALSE(keys.from.empty());
    EXPECT_TRUE(keys.where.has_value());
    EXPECT_TRUE(keys.subqueries.empty());
  }
  // No filter on the outer tables, an outer LEFT JOIN, an outer derived
  // table: every key would be kept, or the outer rows are not a table's.
  for (const char* sql :
       {"SELECT COUNT(*) FROM tenktup1 t WHERE EXISTS (SELECT * FROM tenktup2 u WHERE u.unique2 "
        "= t.unique1)",
        "SELECT COUNT(*) FROM tenktup1 t, onektup o WHERE o.unique1 = t.unique1 AND EXISTS "
        "(SELECT * FROM tenktup2 u WHERE u.unique2 = t.unique1)",
        "SELECT COUNT(*) FROM tenktup1 t LEFT JOIN onektup o ON o.unique1 = t.unique1 WHERE "
        "t.ten = 3 AND EXISTS (SELECT * FROM tenktup2 u WHERE u.unique2 = t.unique1)",
        "SELECT COUNT(*) FROM (SELECT * FROM tenktup1 WHERE ten = 3) t WHERE EXISTS (SELECT * "
        "FROM tenktup2 u WHERE u.unique2 = t.unique1)"}) {
    SCOPED_TRACE(sql);
    const BoundStatement bound = BindSql(*catalog, sql);
    const BoundSelect& derived = *bound.select.subqueries.back().select;
    EXPECT_TRUE(derived.subqueries.empty());
  }
}

// Derived tables made from equal IN subqueries are one bound select (run
// once); those whose text differs only where the nearest double would hide
// it (a decimal's digits) are two.
TEST(BinderTest, EqualGeneratedSubqueriesShareOneSelect) {
  auto catalog = ToyCatalog();
  const auto shared = [&](const std::string& left, const std::string& right) {
    const std::string sql = "SELECT COUNT(*) FROM t1 x, t1 y WHERE x.a = y.a AND x.a IN (" + left +
                            ") AND y.a IN (" + right + ")";
    const BoundStatement bound = BindSql(*catalog, sql);
    EXPECT_EQ(bound.select.subqueries.size(), 2u) << sql;
    return bound.select.subqueries.at(0).select == bound.select.subqueries.at(1).select;
  };
  EXPECT_TRUE(shared("SELECT a FROM t2 WHERE d < 3", "SELECT a FROM t2 WHERE d < 3"));
  EXPECT_FALSE(shared("SELECT a FROM t2 WHERE d < 3", "SELECT a FROM t2 WHERE d < 4"));
  EXPECT_FALSE(
      shared("SELECT a FROM t1 WHERE c = 0.1", "SELECT a FROM t1 WHERE c = 0.10000000000000001"));
}

}  // namespace
}  // namespace clq::sql
