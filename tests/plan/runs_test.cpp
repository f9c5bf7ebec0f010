// Rows of one table that the device cannot hold in one pass (a sort without
// LIMIT, a DISTINCT, a wide SELECT past the device-memory cap) run in runs
// of the table's rows, each on the device, and the host merges the runs'
// rows (plan/query_executor.hpp, ExecuteInRuns): the answer is one
// uncapped pass's, in order, REALs exactly.
#include <gtest/gtest.h>

#include <algorithm>
#include <memory>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "plan/query_executor.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "storage/catalog.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/real_refusal.hpp"
#include "wisconsin/dataset.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class RunsTest : public DeviceTest {
 protected:
  // Wisconsin tables of 100K rows, and an engine on the device under test
  // capped at `cap` bytes of device memory.
  RunsTest() { AddWisconsinTables(catalog_, 100000); }
  static std::unique_ptr<Engine> Capped(std::size_t device, std::uint64_t cap) {
    EngineOptions options = TestEngineOptions();
    options.device_memory = cap;
    return std::make_unique<Engine>(TestDevice(device), options);
  }
  Catalog catalog_;
};

TEST_P(RunsTest, RowsPastTheCapRunInRunsAndMergeAsOnePass) {
  const std::unique_ptr<Engine> capped = Capped(GetParam(), 1u << 20);
  QueryExecutor runs(*capped, {});
  QueryExecutor whole(engine(), {});
  CompareOptions exact;
  exact.real_relative_tolerance = 0;
  const std::vector<std::string> queries = {
      "SELECT unique1, unique2, stringu1 FROM tenktup1 ORDER BY unique3",
      // Ties, kept in row order across the runs.
      "SELECT unique1, ten FROM tenktup1 WHERE four <> 2 ORDER BY ten DESC, two",
      "SELECT unique2 * 0.5, CASE WHEN ten < 4 THEN NULL ELSE ten END AS k FROM tenktup1 ORDER BY "
      "k, unique1 DESC",
      // DISTINCT: a row first from the earliest run that holds it.
      "SELECT DISTINCT unique1 % 5000 AS k, two FROM tenktup1",
      "SELECT DISTINCT string4, ten FROM tenktup1 ORDER BY ten DESC, string4",
      // Unordered rows, concatenated; OFFSET and LIMIT over the runs.
      "SELECT * FROM tenktup1 WHERE ten = 3",
      "SELECT unique1, stringu2 FROM tenktup1 ORDER BY unique2 DESC LIMIT 70000 OFFSET 123",
  };
  for (const std::string& sql : queries) {
    const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog_, sql);
    if (!engine().info().fp64 && UsesReal(bound.select)) continue;
    capped->profiler().Start();
    const QueryResult got = runs.Execute(bound.select);
    const std::vector<StageTiming> stages = capped->profiler().Stop();
    EXPECT_TRUE(std::any_of(stages.begin(), stages.end(),
                            [](const StageTiming& s) { return s.name == "runs merged"; }))
        << sql << ": ran in one pass";
    const QueryResult one = whole.Execute(bound.select);
    EXPECT_GT(one.rows, 0u) << sql;
    EXPECT_EQ(CompareResults(one, got, exact), "") << sql;
  }
}

// What runs cannot help (a GROUP BY that does not stream, a join's rows)
// still ends with the DeviceLimitError that names the cap.
TEST_P(RunsTest, WhatRunsCannotHoldStillNamesTheCap) {
  const std::unique_ptr<Engine> capped = Capped(GetParam(), 64u << 10);
  QueryExecutor runs(*capped, {});
  const std::string sql =
      "SELECT t1.unique1, t2.stringu1 FROM tenktup1 t1 JOIN tenktup2 t2 ON "
      "t1.unique1 = t2.unique2";
  const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog_, sql);
  try {
    (void)runs.Execute(bound.select);
    FAIL() << "ran under a 64 KiB cap";
  } catch (const DeviceLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("device_memory"), std::string::npos) << error.what();
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(RunsTest);

}  // namespace
}  // namespace clq
