// The queries of the first workload (Hristov's listings and the Wisconsin
// benchmark's selections, joins and aggregates) parse and bind against the
// Wisconsin schema, with the shapes the planner relies on.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/sql_frontend/bind_helpers.hpp"

namespace clq::sql {
namespace {

using clq::testing::BindSql;
using clq::testing::OutputNames;
using clq::testing::OutputStrings;
using clq::testing::WisconsinCatalog;

const std::vector<std::string> kQueries = {
    "SELECT unique1 + unique2 AS summation FROM tenktup1",
    "SELECT AVG(unique1) AS average FROM tenktup1",
    "SELECT * FROM tenktup1 WHERE unique1 > 1000 AND unique1 < 6000 AND unique2 % 2 = 0 AND two = "
    "0",
    "SELECT MAX(unique1 * tenpercent / 100) AS max_value FROM tenktup1",
    "SELECT MAX(unique1 / (0.173 + onepercent)) FROM tenktup1",
    "SELECT * FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique1",
    "SELECT MAX(t1.unique1 * t1.tenpercent / 100) FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = "
    "t2.unique2 AND t1.unique1 < 6000 AND t2.unique2 > 1000",
    "SELECT * FROM onektup c, tenktup1 a, tenktup2 b WHERE c.unique2 = a.unique2 AND a.unique2 = "
    "b.unique2 AND a.unique2 < 1000 AND b.unique2 < 1000",
    "SELECT onePercent, MIN(unique3), SUM(unique3) FROM tenktup1 GROUP BY onePercent HAVING "
    "COUNT(*) > 1 ORDER BY 1",
    "SELECT DISTINCT four FROM tenktup1 ORDER BY four DESC LIMIT 2 OFFSET 1",
    "SELECT string4, COUNT(*) FROM tenktup1 WHERE stringu1 < 'AAAAAZZ' GROUP BY string4",
    "SELECT ten, MEDIAN(unique1), QUANTILE(unique2, 0.9) FROM tenktup1 GROUP BY ten ORDER BY "
    "AVG(unique1) DESC",
    "SELECT t1.unique1 FROM tenktup1 t1 JOIN tenktup2 t2 ON t1.unique1 = t2.unique2 + 7 WHERE "
    "t2.ten IN (1, 3, 5) AND t1.two BETWEEN 0 AND 1",
};

TEST(WisconsinQueriesTest, EveryQueryParsesAndBinds) {
  auto catalog = WisconsinCatalog();
  for (const std::string& sql : kQueries) {
    SCOPED_TRACE(sql);
    EXPECT_NO_THROW(BindSql(*catalog, sql));
    EXPECT_NO_THROW(BindSql(*catalog, "EXPLAIN " + sql));
  }
}

TEST(WisconsinQueriesTest, Shapes) {
  auto catalog = WisconsinCatalog();
  auto bind = [&](std::size_t i) { return BindSql(*catalog, kQueries[i]).select; };

  const BoundSelect projection = bind(0);
  EXPECT_EQ(OutputNames(projection), (std::vector<std::string>{"summation"}));
  EXPECT_EQ(OutputStrings(projection), (std::vector<std::string>{"(#0.0 + #0.1)"}));

  const BoundSelect average = bind(1);
  EXPECT_TRUE(average.aggregated);
  EXPECT_EQ(average.aggregates.at(0).type, ValueType::kReal);

  const BoundSelect selection = bind(2);
  EXPECT_EQ(selection.outputs.size(), 16u);
  EXPECT_EQ(selection.where->ToString(),
            "((((#0.0 > 1000) AND (#0.0 < 6000)) AND ((#0.1 % 2) = 0)) AND (#0.2 = 0))");

  const BoundSelect max_value = bind(3);
  EXPECT_EQ(max_value.aggregates.at(0).argument->ToString(), "((#0.0 * #0.7) / 100)");
  EXPECT_EQ(max_value.aggregates.at(0).type, ValueType::kInteger);

  const BoundSelect real_max = bind(4);
  EXPECT_EQ(real_max.aggregates.at(0).type, ValueType::kReal);
  EXPECT_EQ(OutputNames(real_max),
            (std::vector<std::string>{"MAX(unique1 / (0.173 + onepercent))"}));

  const BoundSelect join = bind(5);
  EXPECT_EQ(join.outputs.size(), 32u);
  EXPECT_EQ(join.where->ToString(), "(#0.0 = #1.0)");
  EXPECT_EQ(join.from.at(1).alias, "t2");

  const BoundSelect three_way = bind(7);
  EXPECT_EQ(three_way.outputs.size(), 48u);
  EXPECT_EQ(three_way.from.at(0).table->name(), "onektup");

  const BoundSelect grouped = bind(8);
  EXPECT_EQ(OutputStrings(grouped), (std::vector<std::string>{"#g0", "#a0", "#a1"}));
  EXPECT_EQ(grouped.having->ToString(), "(#a2 > 1)");
  EXPECT_EQ(grouped.order_by.at(0).expr.ToString(), "#o0");
  EXPECT_EQ(OutputNames(grouped),
            (std::vector<std::string>{"onePercent", "MIN(unique3)", "SUM(unique3)"}));

  const BoundSelect distinct = bind(9);
  EXPECT_TRUE(distinct.distinct);
  EXPECT_FALSE(distinct.aggregated);
  EXPECT_EQ(distinct.limit, 2u);
  EXPECT_EQ(distinct.offset, 1u);
  EXPECT_TRUE(distinct.order_by.at(0).descending);

  const BoundSelect strings = bind(10);
  EXPECT_EQ(strings.where->ToString(), "(#0.13 < 'AAAAAZZ')");
  EXPECT_EQ(strings.outputs.at(0).expr.type, ValueType::kText);

  const BoundSelect quantiles = bind(11);
  EXPECT_EQ(quantiles.visible_outputs, 3u);
  EXPECT_EQ(OutputStrings(quantiles), (std::vector<std::string>{"#g0", "#a0", "#a1", "#a2"}));
  EXPECT_EQ(quantiles.aggregates.at(2).function, AggregateFunction::kAvg);
  EXPECT_DOUBLE_EQ(quantiles.aggregates.at(1).quantile, 0.9);

  const BoundSelect inner_join = bind(12);
  EXPECT_EQ(inner_join.where->ToString(),
            "((#0.0 = (#1.1 + 7)) AND ((#1.4 IN (1, 3, 5)) AND (#0.2 BETWEEN 0 AND 1)))");
}

}  // namespace
}  // namespace clq::sql
