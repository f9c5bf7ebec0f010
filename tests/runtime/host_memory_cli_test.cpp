// The host-memory budget from the command line: a query, a table or an
// import that needs more host memory than the budget fails at once with
// status 1 and one message naming what needs how much, the budget and the
// option, and what fits runs under the default budget (the memory available
// at start). The joins run on PoCL, a device whose memory is the host's,
// where the join itself is refused; no test allocates what it refuses.
#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <string>

#include "tests/support/run_clq.hpp"
#include "tests/support/temp_dir.hpp"

namespace clq {
namespace {

using testing::RunClq;
using testing::TempDir;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// 100K rows a side, ten values of `ten`: a billion joined rows.
TEST(HostMemoryCliTest, AJoinOfABillionRowsFailsFast) {
  const auto result = RunClq(
      "query --device pocl --rows 100K --option host_memory=64M \"SELECT a.unique1, b.unique1 "
      "FROM tenktup1 a JOIN tenktup2 b ON a.ten = b.ten\"");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_TRUE(Contains(result.output,
                       "clq: error: the join's result (1000000000 matched rows) needs 7.45 GiB "
                       "of host memory, more than the "))
      << result.output;
  EXPECT_TRUE(Contains(result.output, " left of the 64.00 MiB budget (tables hold "))
      << result.output;
  EXPECT_TRUE(Contains(result.output, "--option host_memory=SIZE")) << result.output;
}

// 2^31 - 1 rows of 208 bytes: 416 GiB, refused before anything is generated.
TEST(HostMemoryCliTest, RowsNearTwoToThe31FailEarly) {
  const std::string table =
      "table tenktup1 (2147483647 rows of 208 bytes) needs 416.00 GiB of host memory";
  // A query makes only the columns it reads: COUNT(*) none, MAX(unique1) one.
  const auto count = RunClq(
      "query --device pocl --rows 2147483647 --option host_memory=1G --format csv \"SELECT "
      "COUNT(*) FROM tenktup1\"");
  EXPECT_EQ(count.exit_code, 0) << count.output;
  EXPECT_TRUE(Contains(count.output, "2147483647")) << count.output;
  const auto query = RunClq(
      "query --device pocl --rows 2147483647 --option host_memory=1G \"SELECT MAX(unique1) FROM "
      "tenktup1\"");
  EXPECT_EQ(query.exit_code, 1) << query.output;
  EXPECT_TRUE(Contains(query.output,
                       "column unique1 of tenktup1 (2147483647 rows of 4 bytes) needs 8.00 GiB"))
      << query.output;
  EXPECT_TRUE(Contains(query.output, "1.00 GiB budget")) << query.output;

  const TempDir dir;
  const std::string out = (dir / "huge.clq").string();
  const auto gen = RunClq("gen --rows 2147483647 --option host_memory=8G --out " + out);
  EXPECT_EQ(gen.exit_code, 1) << gen.output;
  EXPECT_TRUE(Contains(gen.output, table)) << gen.output;
  EXPECT_TRUE(std::filesystem::is_empty(dir.path())) << "left a file behind";
  // Past what row ids allow: refused as a row count, before any budget.
  const auto past = RunClq("query --rows 2147483648 \"SELECT 1\"");
  EXPECT_EQ(past.exit_code, 1) << past.output;
  EXPECT_TRUE(Contains(past.output, "is not a row count from 0 to 2147483647")) << past.output;
}

TEST(HostMemoryCliTest, AnImportBeyondTheBudgetFails) {
  const TempDir dir;
  const std::string csv = (dir / "t.csv").string();
  {
    std::ofstream file(csv);
    file << "id,name\n";
    for (int i = 0; i < 2000; ++i)
      file << i << ",name" << i << "\n";
  }
  const auto result = RunClq("import --csv " + csv + " --out " + (dir / "t.clq").string() +
                             " --option host_memory=4K");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_TRUE(Contains(result.output, "reading " + csv + " whole needs")) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "t.clq"));
}

TEST(HostMemoryCliTest, BadBudgetsAreRefused) {
  for (const char* bad : {"host_memory=0", "host_memory=12Q", "host_memory=lots"}) {
    const auto result = RunClq(std::string("query --rows 1K --option ") + bad + " \"SELECT 1\"");
    EXPECT_EQ(result.exit_code, 1) << bad << ": " << result.output;
    EXPECT_TRUE(Contains(result.output, "expected a size such as 512M")) << result.output;
  }
}

// The default budget is what the machine has available: the queries of a
// normal session run under it, joins and all.
TEST(HostMemoryCliTest, NormalQueriesRunUnderTheDefault) {
  const auto result = RunClq(
      "query --device pocl --rows 100K --format csv \"SELECT COUNT(*) FROM tenktup1 a JOIN "
      "tenktup2 b ON a.unique1 = b.unique1; SELECT ten, COUNT(*) FROM tenktup1 GROUP BY ten "
      "ORDER BY ten LIMIT 1; SELECT unique1 FROM tenktup1 ORDER BY unique1 DESC LIMIT 1\"");
  EXPECT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(Contains(result.output, "100000")) << result.output;
  EXPECT_TRUE(Contains(result.output, "0,10000")) << result.output;
  EXPECT_TRUE(Contains(result.output, "99999")) << result.output;
  // An explicit budget that holds the query runs it too.
  const auto budgeted = RunClq(
      "query --device pocl --rows 100K --option host_memory=512M --format csv \"SELECT COUNT(*) "
      "FROM tenktup1 a JOIN tenktup2 b ON a.ten = b.ten WHERE a.unique1 < 10\"");
  EXPECT_EQ(budgeted.exit_code, 0) << budgeted.output;
  EXPECT_TRUE(Contains(budgeted.output, "100000")) << budgeted.output;
}

}  // namespace
}  // namespace clq
