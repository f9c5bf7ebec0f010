// Two correlated subqueries of one outer query get the same derived table of
// the outer rows' keys (sql/binder_subquery_domain.cpp); the binder binds it
// once and the executor makes it once (QueryExecutor's derived tables), and
// the answer is the CPU reference's, which makes each of its own.
#include <gtest/gtest.h>

#include <algorithm>
#include <string>
#include <vector>

#include "operators/cpu_reference/cpu_executor.hpp"
#include "plan/query_executor.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "storage/catalog.hpp"
#include "tests/support/device_fixture.hpp"
#include "wisconsin/dataset.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class SharedDerivedTest : public DeviceTest {
 protected:
  SharedDerivedTest() { AddWisconsinTables(catalog_, 20000); }
  Catalog catalog_;
};

TEST_P(SharedDerivedTest, EqualDerivedTablesAreMadeOnce) {
  // TPC-H Q21's shape: EXISTS and NOT EXISTS, each correlated by an
  // equality and an inequality, under the same filters of the outer rows.
  const std::string sql =
      "SELECT t.ten, COUNT(*) FROM tenktup1 t, onektup o WHERE t.unique2 = o.unique1 AND "
      "o.four = 1 AND t.two = 0 AND EXISTS (SELECT * FROM tenktup2 u WHERE u.onePercent = "
      "t.onePercent AND u.unique1 <> t.unique1 AND u.ten < 5) AND NOT EXISTS (SELECT * FROM "
      "tenktup2 v WHERE v.onePercent = t.onePercent AND v.unique1 <> t.unique1 AND v.four = 3) "
      "GROUP BY t.ten ORDER BY t.ten";
  const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog_, sql);
  const std::vector<sql::Subquery>& subqueries = bound.select.subqueries;
  ASSERT_EQ(subqueries.size(), 2u);
  ASSERT_EQ(subqueries[0].select->subqueries.size(), 1u);
  ASSERT_EQ(subqueries[1].select->subqueries.size(), 1u);
  EXPECT_EQ(subqueries[0].select->subqueries[0].select.get(),
            subqueries[1].select->subqueries[0].select.get())
      << "the outer keys' derived table bound twice";

  QueryExecutor executor(engine(), {});
  engine().profiler().Start();
  const QueryResult got = executor.Execute(bound.select);
  const std::vector<StageTiming> stages = engine().profiler().Stop();
  const auto made = std::find_if(stages.begin(), stages.end(), [](const StageTiming& s) {
    return s.name == "derived table to host table";
  });
  ASSERT_NE(made, stages.end());
  EXPECT_EQ(made->launches, 3u) << "the outer keys' table and the two subqueries' tables";
  const QueryResult want = ExecuteOnCpu(bound.select);
  EXPECT_GT(want.rows, 2u);
  EXPECT_EQ(CompareResults(want, got), "");
  // Again, with nothing kept from the first run.
  EXPECT_EQ(CompareResults(want, executor.Execute(bound.select)), "");
}

CLQ_INSTANTIATE_DEVICE_TESTS(SharedDerivedTest);

}  // namespace
}  // namespace clq
