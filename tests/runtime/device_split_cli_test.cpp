// One query on several devices from the command line: PoCL shows two CPU
// devices with POCL_DEVICES="pthread pthread", and `--device pocl,pocl`
// runs each query on both ("pocl" names both, and a comma asks for every
// device named; PoCL's device names differ between versions: "pthread-..."
// in 3, "cpu-..." in 5). A GROUP BY and an aggregate
// split by rows (evenly, or in the shares device_shares gives) and give one
// device's output, and so do the rows of one table; a query whose result
// does not merge from parts runs on one device, and EXPLAIN says which and
// why. By default the cost model chooses shares, or one device alone.
// (tests/plan/device_split_test.cpp checks the answers on every device.)
#include <gtest/gtest.h>

#include <string>

#include "tests/support/run_clq.hpp"

namespace clq {
namespace {

using testing::ClqBinary;
using testing::RunClq;
using testing::RunShell;

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// `arguments` of clq on two PoCL devices.
testing::ClqResult RunOnTwoDevices(const std::string& arguments) {
  return RunShell("POCL_DEVICES='pthread pthread' " + ClqBinary() + " query --device pocl,pocl " +
                  arguments + " 2>&1 </dev/null");
}

constexpr const char* kQueries =
    "\"SELECT unique1 % 1000 AS k, COUNT(*), SUM(unique2), MIN(ten), MAX(unique3) FROM tenktup1 "
    "WHERE four <> 3 GROUP BY k; SELECT COUNT(*), SUM(unique1), MAX(unique2) FROM tenktup1 WHERE "
    "ten < 5; SELECT unique1 FROM tenktup1 WHERE unique2 < 10 ORDER BY unique1; SELECT unique2, "
    "stringu1 FROM tenktup1 WHERE ten = 3 AND unique1 < 3000\"";

TEST(DeviceSplitCliTest, TwoDevicesGiveOneDevicesOutput) {
  const auto one = RunClq(std::string("query --device pocl --rows 200K --format csv ") + kQueries);
  ASSERT_EQ(one.exit_code, 0) << one.output;
  const auto two = RunOnTwoDevices(std::string("--rows 200K --format csv ") + kQueries);
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(two.output, one.output);
}

TEST(DeviceSplitCliTest, ExplainSaysHowTheDevicesShareAQuery) {
  const auto split = RunOnTwoDevices(
      "--rows 200K --option device_shares=even \"EXPLAIN SELECT ten, COUNT(*) FROM tenktup1 GROUP "
      "BY ten\"");
  ASSERT_EQ(split.exit_code, 0) << split.output;
  EXPECT_TRUE(Contains(split.output,
                       "split over 2 devices by rows of tenktup1 (device 0: rows "
                       "[0, 100000), device 1: rows [100000, 200000); shares 1:1)"))
      << split.output;
  const auto alone = RunOnTwoDevices(
      "--rows 200K --option device_shares=even \"EXPLAIN SELECT ten, SUM(unique1 * 0.5) FROM "
      "tenktup1 GROUP BY ten\"");
  ASSERT_EQ(alone.exit_code, 0) << alone.output;
  EXPECT_TRUE(Contains(alone.output, "on device 0 of 2 alone")) << alone.output;
  // The cost model says what it estimated, and where a query that does not
  // merge runs.
  const auto measured = RunOnTwoDevices(
      "--rows 200K \"EXPLAIN SELECT ten, COUNT(*) FROM tenktup1 GROUP BY ten; EXPLAIN SELECT "
      "ten, SUM(unique1 * 0.5) FROM tenktup1 GROUP BY ten\"");
  ASSERT_EQ(measured.exit_code, 0) << measured.output;
  EXPECT_TRUE(Contains(measured.output, "the cost model's estimates: alone on device 0 "))
      << measured.output;
  EXPECT_TRUE(Contains(measured.output, "of 2 alone: its result does not merge from parts"))
      << measured.output;
}

TEST(DeviceSplitCliTest, SharesForAnotherCountOfDevicesAreRefused) {
  const auto three =
      RunOnTwoDevices("--rows 1000 --option device_shares=1:1:1 \"SELECT COUNT(*) FROM tenktup1\"");
  EXPECT_EQ(three.exit_code, 1) << three.output;
  EXPECT_TRUE(Contains(three.output, "device_shares gives 3 shares for 2 devices")) << three.output;
  const auto zero = RunClq("query --device pocl --option device_shares=0:1 \"SELECT 1\"");
  EXPECT_EQ(zero.exit_code, 1) << zero.output;
  EXPECT_TRUE(Contains(zero.output, "shares from 1 to 1000")) << zero.output;
  const auto word = RunClq("query --device pocl --option device_shares=fastest \"SELECT 1\"");
  EXPECT_EQ(word.exit_code, 1) << word.output;
  EXPECT_TRUE(Contains(word.output, "measured, even, or shares")) << word.output;
}

}  // namespace
}  // namespace clq
