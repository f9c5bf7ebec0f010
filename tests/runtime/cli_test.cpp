// Runs the clq binary the way a user does and checks exit codes and messages.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>
#include <utility>
#include <vector>

#include "tests/support/run_clq.hpp"

namespace clq {
namespace {

using testing::RunClq;

TEST(CliTest, VersionAndHelp) {
  auto version = RunClq("--version");
  EXPECT_EQ(version.exit_code, 0);
  EXPECT_NE(version.output.find("clq 0."), std::string::npos) << version.output;
  auto help = RunClq("--help");
  EXPECT_EQ(help.exit_code, 0);
  EXPECT_NE(help.output.find("devices"), std::string::npos);
  EXPECT_NE(help.output.find("bandwidth"), std::string::npos);
  for (const char* sub : {"devices", "bandwidth"}) {
    auto sub_help = RunClq(std::string(sub) + " --help");
    EXPECT_EQ(sub_help.exit_code, 0) << sub;
    EXPECT_NE(sub_help.output.find("--format"), std::string::npos) << sub_help.output;
  }
}

TEST(CliTest, UnknownSubcommandAndFlagPrintUsage) {
  auto unknown = RunClq("frobnicate");
  EXPECT_NE(unknown.exit_code, 0);
  EXPECT_NE(unknown.output.find("Usage"), std::string::npos) << unknown.output;
  auto flag = RunClq("devices --bogus");
  EXPECT_NE(flag.exit_code, 0);
  EXPECT_NE(flag.output.find("--bogus"), std::string::npos) << flag.output;
  EXPECT_NE(flag.output.find("Usage"), std::string::npos) << flag.output;
  auto none = RunClq("");
  EXPECT_NE(none.exit_code, 0);
}

// EXPLAIN lists each expression program with the machine it runs on, as
// compiled for the query: the thesis filter's merged range test on the
// 32-bit machine, the REAL MAX on the 64-bit one, and slots by column name.
TEST(CliTest, ExplainListsTheExpressionPrograms) {
  // Each case: a query, and lines its EXPLAIN must contain.
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"SELECT * FROM tenktup1 WHERE unique1 > 1000 AND unique1 < 6000 AND unique2 % 2 = 0 AND "
       "two = 0",
       {"filter of tenktup1 (32-bit, lean, untracked):", "slot 0: tenktup1.unique1 INT32",
        "KEEP_CMP slot 0 in [1001, 5999]"}},
      {"SELECT MAX(unique1 / (0.173 + onepercent)) FROM tenktup1",
       {"aggregation of tenktup1 (64-bit, lean, untracked):", "DIV_R slot 1 reversed",
        "(0.173 as REAL)"}},
      {"SELECT AVG(unique1) FROM tenktup1", {"(vm_aggregate_columns, no interpreter)"}},
      // A program the device cannot run is named, and EXPLAIN still succeeds.
      {"SELECT COUNT(*) FROM tenktup1 WHERE stringu1 = stringu2",
       {"aggregation of tenktup1: not on the device"}},
  };
  for (const auto& [sql, lines] : cases) {
    const auto result = RunClq("query --device 0 --rows 10K 'EXPLAIN " + sql + "'");
    ASSERT_EQ(result.exit_code, 0) << sql << "\n" << result.output;
    for (const std::string& line : lines)
      EXPECT_NE(result.output.find(line), std::string::npos) << line << "\n" << result.output;
  }
}

TEST(CliTest, DevicesJsonListsADevice) {
  auto result = RunClq("devices --format json");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_EQ(result.output.front(), '[');
  EXPECT_NE(result.output.find("\"selector\":\"0:0\""), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("\"int64_atomics\""), std::string::npos);
}

TEST(CliTest, BandwidthWithUnknownDeviceListsDevices) {
  auto result = RunClq("bandwidth --device nosuch");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("'nosuch' matches no device"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("0:0"), std::string::npos) << result.output;
}

TEST(CliTest, BandwidthSmallRun) {
  auto result = RunClq("bandwidth --device 0 --min-size 64K --max-size 128K --repeat 1");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("d2d-kernel"), std::string::npos) << result.output;
  EXPECT_NE(result.output.find("best"), std::string::npos) << result.output;
  auto bad = RunClq("bandwidth --device 0 --max-size 12Q");
  EXPECT_EQ(bad.exit_code, 1);
  EXPECT_NE(bad.output.find("12Q"), std::string::npos) << bad.output;
}

}  // namespace
}  // namespace clq
