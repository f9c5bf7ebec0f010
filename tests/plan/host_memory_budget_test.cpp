// Queries and the host-memory budget (QueryOptions::host_memory): each step
// whose buffers grow with the rows is refused before it allocates them when
// they would pass the budget with what tables hold, with a
// ResourceLimitError naming the step; within the budget the same queries
// run. The budgets here are what the tables hold plus a little, so nothing
// large is allocated on any device.
#include <gtest/gtest.h>

#include <string>

#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "plan/query_executor.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "tests/support/device_fixture.hpp"
#include "wisconsin/dataset.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class HostMemoryBudgetTest : public DeviceTest {
 protected:
  static constexpr RowCount kRows = 10000;

  // Every column made now (generated columns are made on first read), so
  // that a budget computed before a query counts them.
  HostMemoryBudgetTest() {
    AddWisconsinTables(catalog_, kRows);
    for (const std::string& name : catalog_.Names())
      for (const Column& column : catalog_.Get(name)->columns())
        (void)column.bytes();
  }

  // Runs `sql` with a budget of what tables hold, once its own are built,
  // plus `spare` bytes.
  QueryResult Run(const std::string& sql, std::uint64_t spare) {
    const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog_, sql);
    QueryOptions options;
    options.host_memory = HeldHostMemory() + spare;
    return QueryExecutor(engine(), options).Execute(bound.select);
  }

  // The message of the ResourceLimitError that running `sql` throws.
  std::string Refusal(const std::string& sql, std::uint64_t spare) {
    try {
      Run(sql, spare);
    } catch (const ResourceLimitError& error) {
      return error.what();
    }
    ADD_FAILURE() << sql << ": not refused";
    return "";
  }

  Catalog catalog_;
};

// 1,000,000 joined rows (onePercent repeats 100 times on each side). Where
// the device's memory is the host's, the join itself is refused once it
// has counted its matches; elsewhere the result is, before it is
// downloaded.
TEST_P(HostMemoryBudgetTest, AJoinOfManyRows) {
  const std::string join =
      "SELECT a.unique1, b.unique1 FROM tenktup1 a JOIN tenktup2 b ON a.onePercent = "
      "b.onePercent";
  const std::string message = Refusal(join, 1 << 20);
  EXPECT_NE(message.find(engine().info().MemoryIsHost()
                             ? "the join's result (1000000 matched rows) needs 7.63 MiB"
                             : "the result (1000000 rows of 16 bytes)"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find("--option host_memory=SIZE"), std::string::npos) << message;
  EXPECT_EQ(Run(join + " WHERE a.unique1 < 10 AND b.unique1 < 100", 1 << 20).rows, 10u);
}

TEST_P(HostMemoryBudgetTest, AResultOfManyRows) {
  const std::string message = Refusal("SELECT * FROM tenktup1", 64 << 10);
  EXPECT_NE(message.find("the result (10000 rows of 260 bytes)"), std::string::npos) << message;
  EXPECT_EQ(Run("SELECT * FROM tenktup1 WHERE unique2 < 100", 64 << 10).rows, 100u);
}

TEST_P(HostMemoryBudgetTest, GroupsDistinctAndOrder) {
  for (const std::string& sql :
       {std::string("SELECT unique1, COUNT(*) FROM tenktup1 GROUP BY unique1"),
        // Outputs computed over the groups on the device, then downloaded.
        std::string("SELECT unique1, COUNT(*) + 1 FROM tenktup1 GROUP BY unique1"),
        std::string("SELECT DISTINCT unique1 FROM tenktup1"),
        std::string("SELECT unique1 FROM tenktup1 ORDER BY unique2 DESC")}) {
    const std::string message = Refusal(sql, 16 << 10);
    EXPECT_NE(message.find(" needs "), std::string::npos) << sql << ": " << message;
  }
  EXPECT_NE(
      Refusal("SELECT unique1, COUNT(*) FROM tenktup1 GROUP BY unique1", 16 << 10).find("GROUP BY"),
      std::string::npos);
  EXPECT_NE(Refusal("SELECT unique1, COUNT(*) + 1 FROM tenktup1 GROUP BY unique1", 16 << 10)
                .find("GROUP BY"),
            std::string::npos);
  EXPECT_EQ(Run("SELECT ten, COUNT(*) FROM tenktup1 GROUP BY ten ORDER BY ten", 1 << 20).rows, 10u);
  EXPECT_EQ(Run("SELECT unique1 FROM tenktup1 ORDER BY unique2 DESC LIMIT 5", 1 << 20).rows, 5u);
}

CLQ_INSTANTIATE_DEVICE_TESTS(HostMemoryBudgetTest);

}  // namespace
}  // namespace clq
