// Join order: every input is tried as the start of the greedy order and the
// order with the fewest estimated joined rows is taken. TPC-H Q9's shape: the
// smallest input (25 nations) leads through its suppliers to every lineitem
// row, where the parts a filter keeps reach a fiftieth of them; the answer
// is the CPU reference's either way.
#include <gtest/gtest.h>

#include <string>

#include "operators/cpu_reference/cpu_executor.hpp"
#include "plan/query_executor.hpp"
#include "plan/query_plan.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "storage/catalog.hpp"
#include "storage/csv.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

// `rows` rows of `header`'s columns, row i's values from `row(i)`.
template <typename Row>
TablePtr Generated(const std::string& name, const std::string& header, int rows, Row row) {
  std::string text = header + "\n";
  for (int i = 0; i < rows; ++i)
    text += row(i) + "\n";
  return ImportCsvText(text, name + ".csv", name);
}

class JoinOrderTest : public DeviceTest {
 protected:
  JoinOrderTest() {
    catalog_.Add(Generated("nation", "nk,name", 25,
                           [](int i) { return std::to_string(i) + ",n" + std::to_string(i); }));
    catalog_.Add(Generated("supplier", "sk,nk", 1000,
                           [](int i) { return std::to_string(i) + "," + std::to_string(i % 25); }));
    catalog_.Add(Generated("part", "pk,size", 5000, [](int i) {
      return std::to_string(i) + "," + std::to_string(i * 7 % 50);
    }));
    catalog_.Add(Generated("lineitem", "sk,pk,qty", 100000, [](int i) {
      return std::to_string(i / 50 % 1000) + "," + std::to_string(i % 5000) + "," +
             std::to_string(i % 17);
    }));
  }
  Catalog catalog_;
};

TEST_P(JoinOrderTest, StartsFromTheFilteredInputThatJoinsFewestRows) {
  const std::string sql =
      "SELECT n.name, SUM(l.qty) FROM nation n, supplier s, lineitem l, part p WHERE s.nk = n.nk "
      "AND l.sk = s.sk AND l.pk = p.pk AND p.size = 3 GROUP BY n.name ORDER BY n.name";
  const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog_, sql);
  const QueryPlan plan = PlanQuery(bound.select);
  ASSERT_EQ(plan.join_edges.size(), 3u);
  // FROM order: nation 0, supplier 1, lineitem 2, part 3.
  EXPECT_EQ(plan.join_edges[0].left_source, 3u) << "the filtered parts first";
  EXPECT_EQ(plan.join_edges[0].right_source, 2u) << "then their lineitems";

  QueryExecutor executor(engine(), {});
  const QueryResult got = executor.Execute(bound.select);
  const QueryResult want = ExecuteOnCpu(bound.select);
  EXPECT_EQ(want.rows, 25u);
  EXPECT_EQ(CompareResults(want, got), "");
}

// Where the smallest input's order cannot reach every table (an inner join
// to a LEFT JOIN's table comes after that table), another start is taken.
TEST_P(JoinOrderTest, AnInnerJoinThroughALeftJoinedTable) {
  const std::string sql =
      "SELECT COUNT(*), SUM(l.qty) FROM supplier s LEFT JOIN nation n ON s.nk = n.nk JOIN part p "
      "ON p.pk = n.nk JOIN lineitem l ON l.pk = p.pk";
  const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog_, sql);
  QueryExecutor executor(engine(), {});
  const QueryResult got = executor.Execute(bound.select);
  const QueryResult want = ExecuteOnCpu(bound.select);
  EXPECT_EQ(CompareResults(want, got), "");
}

CLQ_INSTANTIATE_DEVICE_TESTS(JoinOrderTest);

}  // namespace
}  // namespace clq
