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

// A device without fp64 (here assumed: the option makes any device one)
// refuses a REAL query before running anything, naming the capability, with
// exit status 1; its INTEGER queries run, GROUP BY sorting when 64-bit
// atomics are assumed absent too.
TEST(CliTest, RealQueriesAreRefusedOnDevicesWithoutFp64) {
  const std::string lacking = "query --rows 2000 --option assume_no_fp64=on ";
  auto average = RunClq(lacking + "\"SELECT AVG(unique1) FROM tenktup1\"");
  EXPECT_EQ(average.exit_code, 1) << average.output;
  EXPECT_NE(average.output.find("lacks fp64 (cl_khr_fp64): REAL expressions cannot run there "
                                "(AVG(tenktup1.unique1))"),
            std::string::npos)
      << average.output;
  auto literal = RunClq(lacking + "\"SELECT unique1 FROM tenktup1 WHERE unique2 < 2.5\"");
  EXPECT_EQ(literal.exit_code, 1) << literal.output;
  EXPECT_NE(literal.output.find("REAL expressions cannot run there (2.5)"), std::string::npos)
      << literal.output;
  auto explain = RunClq(lacking + "\"EXPLAIN SELECT unique1 * 1.5 FROM tenktup1\"");
  EXPECT_EQ(explain.exit_code, 0) << explain.output;
  EXPECT_NE(explain.output.find("not on the device: device '"), std::string::npos)
      << explain.output;
  auto grouped =
      RunClq(lacking +
             "--option assume_no_int64_atomics=on --format csv "
             "\"SELECT ten, COUNT(*), SUM(unique1) FROM tenktup1 GROUP BY ten ORDER BY ten\"");
  EXPECT_EQ(grouped.exit_code, 0) << grouped.output;
  EXPECT_NE(grouped.output.find("3,200,199600"), std::string::npos) << grouped.output;
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
// The kernels without an interpreter that GPUs pick for the filter and all
// devices for the REAL MAX are off here, so that the listing is the same on
// every device.
TEST(CliTest, ExplainListsTheExpressionPrograms) {
  // Each case: a query, and lines its EXPLAIN must contain.
  const std::vector<std::pair<std::string, std::vector<std::string>>> cases = {
      {"SELECT * FROM tenktup1 WHERE unique1 > 1000 AND unique1 < 6000 AND unique2 % 2 = 0 AND "
       "two = 0",
       // Without the closing "):", which GPUs follow with the filter kernel's note.
       {"WHERE of tenktup1 (32-bit, lean, untracked", "slot 0: tenktup1.unique1 INT32",
        "KEEP_CMP slot 0 in [1001, 5999]"}},
      {"SELECT MAX(unique1 / (0.173 + onepercent)) FROM tenktup1",
       {"aggregation of tenktup1 (64-bit, lean, untracked):", "DIV_R slot 1 reversed",
        "(0.173 as REAL)"}},
      {"SELECT AVG(unique1) FROM tenktup1", {"(vm_aggregate_columns, no interpreter)"}},
      // Programs over filtered or joined rows: outputs (each entry on its
      // own machine), ORDER BY keys, the residual filter, group keys and
      // arguments, and an unfused aggregation in groups of 8 columns.
      {"SELECT unique1 + unique2, unique1 * 2.5 FROM tenktup1 WHERE unique1 < 100 ORDER BY "
       "unique2 % 7",
       {"outputs (entry 0: 32-bit, lean, untracked; entry 1: 64-bit, lean, untracked):",
        "MUL_R const 2.5", "ORDER BY keys (32-bit, lean, untracked):", "MOD_CONST_I narrow"}},
      {"SELECT t1.unique1 FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique1 AND "
       "t1.ten + t2.ten > 5",
       {"joined rows (32-bit, lean, untracked):", "slot 0: t1.ten INT32",
        "slot 1: t2.ten INT32"}},
      {"SELECT ten, SUM(unique1 * 2) FROM tenktup1 GROUP BY ten",
       {"group keys and aggregate arguments (32-bit, lean, untracked):",
        "MUL_I const 2 nocheck narrow"}},
      {"SELECT SUM(unique1), SUM(unique2), SUM(two), SUM(four), SUM(ten), SUM(twenty), "
       "SUM(onePercent), SUM(tenPercent), SUM(twentyPercent * 2) FROM tenktup1",
       {"aggregation, group 1 of 2 (vm_aggregate_columns, no interpreter):",
        "aggregation, group 2 of 2 (32-bit, lean, untracked):",
        "slot 0: tenktup1.twentyPercent INT32"}},
      // A program the device cannot run is named, and EXPLAIN still succeeds.
      {"SELECT COUNT(*) FROM tenktup1 WHERE stringu1 = stringu2",
       {"not on the device: "}},
  };
  for (const auto& [sql, lines] : cases) {
    const auto result = RunClq(
        "query --device 0 --rows 10K --option conjunct_filter=off --option short_real=off "
        "'EXPLAIN " +
        sql + "'");
    ASSERT_EQ(result.exit_code, 0) << sql << "\n" << result.output;
    for (const std::string& line : lines)
      EXPECT_NE(result.output.find(line), std::string::npos) << line << "\n" << result.output;
  }
}

// The REAL MAX in vm_aggregate_short_real (by default; the short_real
// option forces either way), as EXPLAIN lists it.
TEST(CliTest, ExplainSaysWhenShortRealRunsWithoutTheInterpreter) {
  const auto explain = [](const std::string& setting) {
    return RunClq("query --device 0 --rows 10K --option short_real=" + setting +
                  " 'EXPLAIN SELECT MAX(unique1 / (0.173 + onepercent)) FROM tenktup1'");
  };
  const auto short_real = explain("on");
  const auto general = explain("off");
  const auto bad = explain("yes");
  EXPECT_NE(
      short_real.output.find("aggregation of tenktup1 (vm_aggregate_short_real, no interpreter):"),
      std::string::npos)
      << short_real.output;
  EXPECT_NE(general.output.find("aggregation of tenktup1 (64-bit, lean, untracked):"),
            std::string::npos)
      << general.output;
  EXPECT_NE(bad.exit_code, 0);
  EXPECT_NE(bad.output.find("option short_real=yes: expected auto, on or off"), std::string::npos)
      << bad.output;
}

// EXPLAIN says which kernel runs a selection's first pass: vm_filter_conjuncts
// for a predicate of INT32 column tests (by default on GPUs; the
// conjunct_filter option forces either way), else on GPUs the leading range
// test alone first for a selective test (range_first forces either way).
TEST(CliTest, ExplainSaysWhichKernelFilters) {
  const auto run = [](const std::string& conjuncts, const std::string& range_first) {
    return RunClq("query --device 0 --rows 100K --option conjunct_filter=" + conjuncts +
                  " --option range_first=" + range_first +
                  " 'EXPLAIN SELECT * FROM tenktup1 WHERE unique1 > 1000 AND unique1 < 6000 AND "
                  "unique2 % 2 = 0 AND two = 0'");
  };
  const auto conjuncts = run("on", "on");
  const auto first = run("off", "on");
  const auto plain = run("off", "off");
  const auto bad_range = run("off", "2");
  const auto bad_conjuncts = run("x", "off");
  ASSERT_EQ(conjuncts.exit_code, 0) << conjuncts.output;
  EXPECT_NE(conjuncts.output.find("WHERE of tenktup1 (32-bit, lean, untracked; runs in "
                                  "vm_filter_conjuncts instead of vm_filter, no interpreter: 3 "
                                  "conjuncts described from constant "),
            std::string::npos)
      << conjuncts.output;
  EXPECT_EQ(conjuncts.output.find("filter_range_tiles"), std::string::npos) << conjuncts.output;
  ASSERT_EQ(first.exit_code, 0) << first.output;
  EXPECT_NE(first.output.find("WHERE of tenktup1 (32-bit, lean, untracked; instruction 0 first, "
                              "alone, in filter_range_tiles (estimated to keep 5% of the rows), "
                              "then vm_filter from instruction 1 on the tiles where it kept a "
                              "row):"),
            std::string::npos)
      << first.output;
  ASSERT_EQ(plain.exit_code, 0) << plain.output;
  EXPECT_NE(plain.output.find("WHERE of tenktup1 (32-bit, lean, untracked):"), std::string::npos)
      << plain.output;
  EXPECT_EQ(plain.output.find("filter_range_tiles"), std::string::npos) << plain.output;
  EXPECT_NE(bad_range.exit_code, 0);
  EXPECT_NE(bad_range.output.find("option range_first=2: expected auto, on or off"),
            std::string::npos)
      << bad_range.output;
  EXPECT_NE(bad_conjuncts.exit_code, 0);
  EXPECT_NE(bad_conjuncts.output.find("option conjunct_filter=x: expected auto, on or off"),
            std::string::npos)
      << bad_conjuncts.output;
}

TEST(CliTest, CsvKeepsNullAndEmptyTextApart) {
  const auto result = RunClq(
      "query --device 0 --rows 1K --format csv "
      "\"SELECT NULL AS a, '' AS b, 'x,y' AS c, 1.5 AS d FROM tenktup1 WHERE unique2 = 0; "
      "SELECT '' AS e FROM tenktup1 WHERE unique2 = 0\"");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("a,b,c,d\r\n,\"\",\"x,y\",1.5\r\n"), std::string::npos)
      << result.output;
  EXPECT_NE(result.output.find("e\r\n\"\"\r\n"), std::string::npos) << result.output;
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
