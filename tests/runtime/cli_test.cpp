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
