// Runs the clq binary the way a user does and checks exit codes and messages.
#include <gtest/gtest.h>

#include <cstdio>
#include <cstdlib>
#include <string>

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
  const auto selection = RunClq(
      "query --device 0 --rows 10K 'EXPLAIN SELECT * FROM tenktup1 WHERE unique1 > 1000 AND "
      "unique1 < 6000 AND unique2 % 2 = 0 AND two = 0'");
  ASSERT_EQ(selection.exit_code, 0) << selection.output;
  EXPECT_NE(selection.output.find("filter of tenktup1 (32-bit, lean, untracked):"),
            std::string::npos)
      << selection.output;
  EXPECT_NE(selection.output.find("slot 0: tenktup1.unique1 INT32"), std::string::npos)
      << selection.output;
  EXPECT_NE(selection.output.find("KEEP_CMP slot 0 in [1001, 5999]"), std::string::npos)
      << selection.output;
  const auto real_max = RunClq(
      "query --device 0 --rows 10K 'EXPLAIN SELECT MAX(unique1 / (0.173 + onepercent)) "
      "FROM tenktup1'");
  ASSERT_EQ(real_max.exit_code, 0) << real_max.output;
  EXPECT_NE(real_max.output.find("aggregation of tenktup1 (64-bit, lean, untracked):"),
            std::string::npos)
      << real_max.output;
  EXPECT_NE(real_max.output.find("DIV_R slot 1 reversed"), std::string::npos) << real_max.output;
  const auto bare =
      RunClq("query --device 0 --rows 10K 'EXPLAIN SELECT AVG(unique1) FROM tenktup1'");
  ASSERT_EQ(bare.exit_code, 0) << bare.output;
  EXPECT_NE(bare.output.find("(vm_aggregate_columns, no interpreter)"), std::string::npos)
      << bare.output;
  // A program the device cannot run is named, and EXPLAIN still succeeds.
  const auto refused = RunClq(
      "query --device 0 --rows 10K 'EXPLAIN SELECT COUNT(*) FROM tenktup1 WHERE stringu1 = "
      "stringu2'");
  ASSERT_EQ(refused.exit_code, 0) << refused.output;
  EXPECT_NE(refused.output.find("aggregation of tenktup1: not on the device"), std::string::npos)
      << refused.output;
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
