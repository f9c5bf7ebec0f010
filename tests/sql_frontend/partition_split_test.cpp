// SplitForPartitions: the partial query each partition runs (as SQL text that
// parses back to itself) and the combine rule, for every supported shape, and
// the shapes it refuses. tests/python/test_dask.py runs the combined answers
// against DuckDB.
#include <gtest/gtest.h>

#include "common/errors.hpp"
#include "sql/ast.hpp"
#include "sql/parser.hpp"
#include "sql/partition_split.hpp"
#include "tests/sql_frontend/test_catalog.hpp"

namespace clq::sql {
namespace {

using Combine = PartitionPlan::Combine;

PartitionPlan Split(const std::string& sql, const std::string& partitioned = "t1") {
  auto catalog = testing::ToyCatalog();
  PartitionPlan plan = SplitForPartitions(sql, catalog->catalog, partitioned);
  // The partial query is valid SQL that prints back to itself.
  EXPECT_EQ(ast::ToString(Parse(plan.partial_sql)), plan.partial_sql);
  return plan;
}

TEST(PartitionSplitTest, AggregatesBecomePartialsAndTheirCombines) {
  const PartitionPlan plan = Split(
      "SELECT a, COUNT(*), SUM(b) AS total, MIN(c), MAX(b), AVG(c) FROM t1 WHERE b > 2 "
      "GROUP BY a ORDER BY total DESC, 1 LIMIT 3 OFFSET 1");
  EXPECT_EQ(plan.partial_sql,
            "SELECT a AS p0, COUNT(*) AS p1, SUM(b) AS p2, MIN(c) AS p3, MAX(b) AS p4, SUM(c) AS "
            "p5, COUNT(c) AS p6 FROM t1 WHERE (b > 2) GROUP BY a");
  ASSERT_EQ(plan.outputs.size(), 6u);
  EXPECT_EQ(plan.outputs[0].combine, Combine::kKey);
  EXPECT_EQ(plan.outputs[1].combine, Combine::kCount);
  EXPECT_EQ(plan.outputs[2].combine, Combine::kSum);
  EXPECT_EQ(plan.outputs[2].name, "total");
  EXPECT_EQ(plan.outputs[3].combine, Combine::kMin);
  EXPECT_EQ(plan.outputs[4].combine, Combine::kMax);
  EXPECT_EQ(plan.outputs[5].combine, Combine::kAvg);
  EXPECT_EQ(plan.outputs[5].column, 5u);
  EXPECT_EQ(plan.outputs[5].count_column, 6u);
  EXPECT_EQ(plan.group_columns, std::vector<std::size_t>{0});
  EXPECT_EQ(plan.order_by, (std::vector<std::pair<std::size_t, bool>>{{2, true}, {0, false}}));
  EXPECT_EQ(plan.limit, 3u);
  EXPECT_EQ(plan.offset, 1u);
}

TEST(PartitionSplitTest, RowsKeepLimitPlusOffsetPerPartitionInOrder) {
  const PartitionPlan plan =
      Split("SELECT s, b * 2 FROM t1 JOIN t2 ON t1.a = t2.a ORDER BY t2.d DESC LIMIT 5 OFFSET 2");
  EXPECT_EQ(plan.partial_sql,
            "SELECT s AS p0, (b * 2) AS p1, t2.d AS p2 FROM t1 JOIN t2 ON (t1.a = t2.a) ORDER BY "
            "3 DESC LIMIT 7");
  ASSERT_EQ(plan.outputs.size(), 3u);
  EXPECT_FALSE(plan.outputs[2].visible);
  EXPECT_EQ(plan.order_by, (std::vector<std::pair<std::size_t, bool>>{{2, true}}));
  EXPECT_FALSE(plan.aggregated);
}

TEST(PartitionSplitTest, StarsExpandAndDistinctStays) {
  const PartitionPlan plan = Split("SELECT DISTINCT * FROM t2", "t2");
  EXPECT_EQ(plan.partial_sql, "SELECT DISTINCT t2.a AS p0, t2.d AS p1 FROM t2");
  EXPECT_TRUE(plan.distinct);
  EXPECT_EQ(plan.outputs[1].name, "d");
}

TEST(PartitionSplitTest, RefusesWhatItCannotCombine) {
  auto refused = [](const std::string& sql, const std::string& part) {
    auto catalog = testing::ToyCatalog();
    try {
      SplitForPartitions(sql, catalog->catalog, "t1");
      ADD_FAILURE() << "accepted: " << sql;
    } catch (const InvalidInputError& e) {
      EXPECT_NE(std::string(e.what()).find(part), std::string::npos) << e.what();
    }
  };
  refused("SELECT a, SUM(b) FROM t1 GROUP BY a HAVING SUM(b) > 1", "HAVING");
  refused("SELECT SUM(b) * 2 FROM t1", "neither a GROUP BY key nor one aggregate");
  refused("SELECT MEDIAN(b) FROM t1", "MEDIAN");
  refused("SELECT COUNT(*) FROM t1 x JOIN t1 y ON x.a = y.a", "exactly once");
  refused("SELECT COUNT(*) FROM t2", "exactly once");
  refused("SELECT a, COUNT(*) FROM t1 GROUP BY a ORDER BY SUM(b)", "orders by its outputs only");
  EXPECT_THROW(Split("SELECT nope FROM t1"), SqlError);
}

}  // namespace
}  // namespace clq::sql
