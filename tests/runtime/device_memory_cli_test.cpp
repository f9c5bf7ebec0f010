// The device-memory cap from the command line (--device-memory SIZE, or
// --option device_memory=SIZE): on PoCL, which then copies tables as a GPU
// does, a table several times the cap streams through tablet by tablet for
// filters, aggregates and GROUP BYs, with the answers of the uncapped run;
// a step whose intermediates outgrow the cap fails with one message naming
// the cap; a size below 1M is refused.
#include <gtest/gtest.h>

#include <sstream>
#include <string>

#include "tests/support/run_clq.hpp"

namespace clq {
namespace {

using testing::RunClq;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// 2M rows: each INT32 column is 8 MB, four times a 2M cap.
constexpr const char* kAggregates =
    "\"SELECT COUNT(*), SUM(unique1), MIN(unique2), MAX(unique2) FROM tenktup1 WHERE ten < 5 "
    "AND unique2 % 7 <> 3; SELECT SUM(unique1 - unique2), MAX(onepercent * 3) FROM tenktup1\"";

TEST(DeviceMemoryCliTest, AggregatesOverATableLargerThanTheCapStream) {
  const auto free =
      RunClq(std::string("query --device pocl --rows 2M --format csv ") + kAggregates);
  ASSERT_EQ(free.exit_code, 0) << free.output;
  const auto capped = RunClq(
      std::string("query --device pocl --rows 2M --device-memory 2M --format csv ") + kAggregates);
  ASSERT_EQ(capped.exit_code, 0) << capped.output;
  EXPECT_EQ(capped.output, free.output);
  // The columns travelled in tablets, many per column: 8 MB each under a
  // 2M cap whose tablets hold at most 256 KiB of the widest (CHAR(52))
  // column, 5024 rows (whole 32-row words).
  const auto profiled = RunClq(
      "query --device pocl --rows 2M --device-memory 2M --profile \"SELECT SUM(unique1) FROM "
      "tenktup1\"");
  ASSERT_EQ(profiled.exit_code, 0) << profiled.output;
  // The profile's row "upload tenktup1.unique1  upload  <launches>  <ms>  <MB>".
  const std::size_t at = profiled.output.find("upload tenktup1.unique1 ");
  ASSERT_NE(at, std::string::npos) << profiled.output;
  std::istringstream row(profiled.output.substr(at, profiled.output.find('\n', at) - at));
  std::string upload, column, kind, launches;
  row >> upload >> column >> kind >> launches;
  EXPECT_EQ(kind, "upload") << profiled.output;
  EXPECT_EQ(launches, "399") << profiled.output;
}

// `query` (quoted) on 2M rows gives the same output capped at 2M as free.
void ExpectCappedOutputEqualsFree(const std::string& query) {
  const auto free = RunClq("query --device pocl --rows 2M --format csv " + query);
  ASSERT_EQ(free.exit_code, 0) << free.output;
  const auto capped =
      RunClq("query --device pocl --rows 2M --device-memory 2M --format csv " + query);
  ASSERT_EQ(capped.exit_code, 0) << capped.output;
  EXPECT_EQ(capped.output, free.output);
}

// A GROUP BY whose aggregates merge streams too (tests/plan checks its
// answers on every device); a REAL SUM, which the device rounds once over
// every row, does not.
TEST(DeviceMemoryCliTest, GroupByOverATableLargerThanTheCapStreams) {
  const std::string query =
      "\"SELECT ten, COUNT(*), SUM(unique1), MAX(unique2) FROM tenktup1 WHERE four <> 1 GROUP "
      "BY ten ORDER BY ten\"";
  ExpectCappedOutputEqualsFree(query);
}

// A join of two tables larger than the cap runs a hash partition of both at
// a time (tests/plan checks its answers on every device).
TEST(DeviceMemoryCliTest, AJoinPastTheCapRunsAPartitionAtATime) {
  const std::string query =
      "\"SELECT t1.ten, COUNT(*), SUM(t2.unique2) FROM tenktup1 t1 JOIN tenktup2 t2 ON "
      "t1.unique1 = t2.unique2 GROUP BY t1.ten ORDER BY t1.ten\"";
  ExpectCappedOutputEqualsFree(query);
  const auto explained =
      RunClq("query --device pocl --rows 2M --device-memory 2M \"EXPLAIN " + query.substr(1));
  EXPECT_TRUE(Contains(explained.output, "the join partitioned on the host")) << explained.output;
}

TEST(DeviceMemoryCliTest, IntermediatesPastTheCapFailWithAMessage) {
  const auto result = RunClq(
      "query --device pocl --rows 2M --option device_memory=2M \"SELECT ten, SUM(unique1 * "
      "0.5) FROM tenktup1 GROUP BY ten\"");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_TRUE(Contains(result.output, "device-memory cap")) << result.output;
}

TEST(DeviceMemoryCliTest, ASizeBelowOneMebibyteIsRefused) {
  const auto result = RunClq("query --device pocl --device-memory 12 \"SELECT 1\"");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_TRUE(Contains(result.output, "device_memory")) << result.output;
}

}  // namespace
}  // namespace clq
