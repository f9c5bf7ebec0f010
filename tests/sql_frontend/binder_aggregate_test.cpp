// Aggregation, GROUP BY, HAVING and ORDER BY in the binder.
#include <gtest/gtest.h>

#include "sql/binder.hpp"
#include "tests/sql_frontend/bind_helpers.hpp"

namespace clq::sql {
namespace {

using clq::testing::BindSql;
using clq::testing::OutputNames;
using clq::testing::OutputStrings;
using clq::testing::ToyCatalog;
using VT = ValueType;

std::vector<std::string> OrderStrings(const BoundSelect& select) {
  std::vector<std::string> keys;
  for (const OrderKey& key : select.order_by)
    keys.push_back(key.expr.ToString() + (key.descending ? " DESC" : ""));
  return keys;
}

TEST(BinderAggregateTest, AggregateFunctionsAndTypes) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(
      *catalog,
      "SELECT COUNT(*), COUNT(s), SUM(a), SUM(c), AVG(a), MIN(b), MAX(c), MEDIAN(a), "
      "QUANTILE(c, 0.9), QUANTILE(a, 1), SUM(NULL), AVG(NULL), COUNT(NULL), MIN(NULL) FROM t1");
  const BoundSelect& select = bound.select;
  EXPECT_TRUE(select.aggregated);
  EXPECT_TRUE(select.group_keys.empty());
  ASSERT_EQ(select.aggregates.size(), 14u);
  const std::vector<AggregateFunction> functions = {
      AggregateFunction::kCountStar, AggregateFunction::kCount,  AggregateFunction::kSum,
      AggregateFunction::kSum,       AggregateFunction::kAvg,    AggregateFunction::kMin,
      AggregateFunction::kMax,       AggregateFunction::kMedian, AggregateFunction::kQuantile,
      AggregateFunction::kQuantile,  AggregateFunction::kSum,    AggregateFunction::kAvg,
      AggregateFunction::kCount,     AggregateFunction::kMin};
  const std::vector<VT> types = {VT::kInteger, VT::kInteger, VT::kInteger, VT::kReal, VT::kReal,
                                 VT::kInteger, VT::kReal,    VT::kInteger, VT::kReal, VT::kInteger,
                                 VT::kNull,    VT::kReal,    VT::kInteger, VT::kNull};
  for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
    SCOPED_TRACE(i);
    EXPECT_EQ(select.aggregates[i].function, functions[i]);
    EXPECT_EQ(select.aggregates[i].type, types[i]);
    EXPECT_EQ(select.outputs[i].expr.kind, Expr::Kind::kAggregateRef);
    EXPECT_EQ(select.outputs[i].expr.index, i);
    EXPECT_EQ(select.outputs[i].expr.type, types[i]);
  }
  EXPECT_FALSE(select.aggregates[0].argument.has_value());
  EXPECT_EQ(select.aggregates[1].argument->ToString(), "#0.3");
  EXPECT_DOUBLE_EQ(select.aggregates[7].quantile, 0.5);
  EXPECT_DOUBLE_EQ(select.aggregates[8].quantile, 0.9);
  EXPECT_DOUBLE_EQ(select.aggregates[9].quantile, 1.0);
  EXPECT_EQ(OutputNames(select)[0], "COUNT(*)");
  EXPECT_EQ(OutputNames(select)[8], "QUANTILE(c, 0.9)");
}

TEST(BinderAggregateTest, AggregatesAreDeduplicated) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(
      *catalog,
      "SELECT SUM(a), sum(A) + 1, COUNT(*), SUM(a + 1), QUANTILE(a, 0.5), MEDIAN(a) FROM t1 "
      "HAVING SUM(a) > 0 ORDER BY count(*)");
  const BoundSelect& select = bound.select;
  // SUM(a) once; QUANTILE(a, 0.5) and MEDIAN(a) stay apart (different functions).
  ASSERT_EQ(select.aggregates.size(), 5u);
  EXPECT_EQ(OutputStrings(select),
            (std::vector<std::string>{"#a0", "(#a0 + 1)", "#a1", "#a2", "#a3", "#a4"}));
  EXPECT_EQ(select.aggregates[2].argument->ToString(), "(#0.0 + 1)");
  EXPECT_EQ(select.having->ToString(), "(#a0 > 0)");
  EXPECT_EQ(OrderStrings(select), (std::vector<std::string>{"#o2"}));
  EXPECT_EQ(select.outputs.size(), select.visible_outputs);
}

TEST(BinderAggregateTest, GroupKeysReplaceMatchingSubexpressions) {
  auto catalog = ToyCatalog();
  const BoundStatement bound =
      BindSql(*catalog,
              "SELECT (a + b) * 2, a + b, s, COUNT(*), SUM(a + b) FROM t1 GROUP BY a + b, s "
              "HAVING a + b > 1 AND MAX(c) < 2");
  const BoundSelect& select = bound.select;
  EXPECT_TRUE(select.aggregated);
  ASSERT_EQ(select.group_keys.size(), 2u);
  EXPECT_EQ(select.group_keys[0].ToString(), "(#0.0 + #0.1)");
  EXPECT_EQ(select.group_keys[1].ToString(), "#0.3");
  EXPECT_EQ(OutputStrings(select),
            (std::vector<std::string>{"(#g0 * 2)", "#g0", "#g1", "#a0", "#a1"}));
  EXPECT_EQ(select.outputs[1].expr.type, VT::kInteger);
  EXPECT_EQ(select.outputs[2].expr.type, VT::kText);
  // Aggregate arguments stay over columns.
  EXPECT_EQ(select.aggregates[1].argument->ToString(), "(#0.0 + #0.1)");
  EXPECT_EQ(select.having->ToString(), "((#g0 > 1) AND (#a2 < 2))");
}

TEST(BinderAggregateTest, GroupByWithoutAggregates) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(*catalog, "SELECT a, 1 FROM t1 GROUP BY a, a");
  EXPECT_TRUE(bound.select.aggregated);
  EXPECT_TRUE(bound.select.aggregates.empty());
  EXPECT_EQ(bound.select.group_keys.size(), 1u);  // duplicates dropped
  EXPECT_EQ(OutputStrings(bound.select), (std::vector<std::string>{"#g0", "1"}));
}

TEST(BinderAggregateTest, GroupByPositionAndAlias) {
  auto catalog = ToyCatalog();
  const BoundStatement by_position = BindSql(*catalog, "SELECT a % 3, COUNT(*) FROM t1 GROUP BY 1");
  EXPECT_EQ(by_position.select.group_keys[0].ToString(), "(#0.0 % 3)");
  EXPECT_EQ(OutputStrings(by_position.select), (std::vector<std::string>{"#g0", "#a0"}));

  const BoundStatement by_alias =
      BindSql(*catalog, "SELECT a % 3 AS k, COUNT(*) AS n FROM t1 GROUP BY k HAVING n > 1");
  EXPECT_EQ(by_alias.select.group_keys[0].ToString(), "(#0.0 % 3)");
  EXPECT_EQ(OutputStrings(by_alias.select), (std::vector<std::string>{"#g0", "#a0"}));
  EXPECT_EQ(by_alias.select.having->ToString(), "(#a0 > 1)");

  // A FROM column wins over an alias of the same name in GROUP BY.
  const BoundStatement column_first =
      BindSql(*catalog, "SELECT b AS a, COUNT(*) FROM t1 GROUP BY a, b");
  EXPECT_EQ(column_first.select.group_keys[0].ToString(), "#0.0");
  EXPECT_EQ(OutputStrings(column_first.select), (std::vector<std::string>{"#g1", "#a0"}));
}

TEST(BinderAggregateTest, HiddenOrderByOutputs) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(*catalog, "SELECT a FROM t1 ORDER BY b DESC, a, c * 2, b");
  const BoundSelect& select = bound.select;
  EXPECT_EQ(select.visible_outputs, 1u);
  EXPECT_EQ(OutputStrings(select), (std::vector<std::string>{"#0.0", "#0.1", "(#0.2 * 2)"}));
  EXPECT_EQ(OutputNames(select), (std::vector<std::string>{"a", "b", "c * 2"}));
  EXPECT_EQ(OrderStrings(select), (std::vector<std::string>{"#o1 DESC", "#o0", "#o2", "#o1"}));
  EXPECT_EQ(select.order_by[2].expr.type, VT::kReal);
}

TEST(BinderAggregateTest, OrderByAliasPositionAndExpression) {
  auto catalog = ToyCatalog();
  const BoundStatement bound =
      BindSql(*catalog, "SELECT a AS x, b, a + 1 AS y FROM t1 ORDER BY x, 2 DESC, a + 1, y * 2, X");
  EXPECT_EQ(OrderStrings(bound.select),
            (std::vector<std::string>{"#o0", "#o1 DESC", "#o2", "#o3", "#o0"}));
  EXPECT_EQ(bound.select.outputs[3].expr.ToString(), "((#0.0 + 1) * 2)");
  EXPECT_EQ(bound.select.visible_outputs, 3u);

  // An ORDER BY term that is exactly an alias names the output, even where a
  // FROM column has that name.
  const BoundStatement shadow = BindSql(*catalog, "SELECT b AS a FROM t1 ORDER BY a");
  EXPECT_EQ(OrderStrings(shadow.select), (std::vector<std::string>{"#o0"}));
  EXPECT_EQ(shadow.select.outputs.size(), 1u);
}

// As in SQLite: an integer literal of at most 2^31 - 1 under unary signs is a
// position (`+2`, `- -2`); a larger one is a constant expression, by which
// every row ties.
TEST(BinderAggregateTest, OrderByAndGroupByPositionsUnderSigns) {
  auto catalog = ToyCatalog();
  const BoundStatement plus = BindSql(*catalog, "SELECT a, b FROM t1 ORDER BY +2, - -1 DESC");
  EXPECT_EQ(OrderStrings(plus.select), (std::vector<std::string>{"#o1", "#o0 DESC"}));
  EXPECT_EQ(plus.select.outputs.size(), 2u);
  const BoundStatement grouped = BindSql(*catalog, "SELECT a, COUNT(*) FROM t1 GROUP BY +1");
  EXPECT_EQ(grouped.select.group_keys.at(0).ToString(), "#0.0");
  const BoundStatement wide = BindSql(*catalog, "SELECT a FROM t1 ORDER BY 2147483648");
  EXPECT_EQ(wide.select.outputs.size(), 2u);
  EXPECT_EQ(wide.select.outputs[1].expr.ToString(), "2147483648");
}

TEST(BinderAggregateTest, OrderByInAggregatedQueries) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(
      *catalog, "SELECT a, COUNT(*) FROM t1 GROUP BY a ORDER BY COUNT(*) DESC, SUM(b), a + 1");
  const BoundSelect& select = bound.select;
  EXPECT_EQ(select.visible_outputs, 2u);
  EXPECT_EQ(OutputStrings(select), (std::vector<std::string>{"#g0", "#a0", "#a1", "(#g0 + 1)"}));
  EXPECT_EQ(OrderStrings(select), (std::vector<std::string>{"#o1 DESC", "#o2", "#o3"}));
}

TEST(BinderAggregateTest, AggregateOnlyInOrderByMakesTheQueryAggregated) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(*catalog, "SELECT COUNT(*) FROM t1 ORDER BY SUM(a)");
  EXPECT_TRUE(bound.select.aggregated);
  EXPECT_EQ(OutputStrings(bound.select), (std::vector<std::string>{"#a0", "#a1"}));
  EXPECT_EQ(bound.select.visible_outputs, 1u);
}

TEST(BinderAggregateTest, DistinctWithOrderBy) {
  auto catalog = ToyCatalog();
  const BoundStatement bound =
      BindSql(*catalog, "SELECT DISTINCT a, b + 1 FROM t1 ORDER BY b + 1 DESC, 1");
  EXPECT_TRUE(bound.select.distinct);
  EXPECT_FALSE(bound.select.aggregated);
  EXPECT_EQ(OrderStrings(bound.select), (std::vector<std::string>{"#o1 DESC", "#o0"}));
  EXPECT_EQ(bound.select.outputs.size(), 2u);
}

TEST(BinderAggregateTest, AliasesInsideHavingAndOrderByExpressions) {
  auto catalog = ToyCatalog();
  const BoundStatement bound = BindSql(
      *catalog,
      "SELECT a AS k, SUM(c) AS total FROM t1 GROUP BY k HAVING total > k ORDER BY total / 2");
  EXPECT_EQ(bound.select.having->ToString(), "(#a0 > #g0)");
  EXPECT_EQ(bound.select.outputs[2].expr.ToString(), "(#a0 / 2)");
  EXPECT_EQ(bound.select.having->children[0].position, bound.text.find("total >"));
}

}  // namespace
}  // namespace clq::sql
