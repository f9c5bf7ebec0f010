// Devices without fp64 or 64-bit atomics (plan/device_capabilities.hpp),
// simulated on every device under test by an engine that assumes it has
// neither (EngineOptions::assume_no_fp64, assume_no_int64_atomics): its
// kernels are built without double and without 64-bit atomics, as on
// rusticl's llvmpipe. INTEGER queries give the CPU reference's answer
// exactly, launching only kernels their nodes list and none that needs what
// the device lacks; REAL queries are refused before any kernel runs, naming
// the device and the capability, in EXPLAIN as well.
#include "plan/device_capabilities.hpp"

#include <gtest/gtest.h>

#include <map>
#include <memory>
#include <set>

#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_executor.hpp"
#include "plan/physical_plan.hpp"
#include "plan/query_executor.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "tests/support/device_fixture.hpp"
#include "wisconsin/dataset.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

constexpr RowCount kRows = 5000;

class DeviceCapabilitiesTest : public DeviceTest {
 protected:
  // This device's engine that assumes neither fp64 nor 64-bit atomics (one
  // per test process: its kernels are built apart).
  Engine& lacking() {
    static std::map<std::size_t, std::unique_ptr<Engine>> engines;
    std::unique_ptr<Engine>& engine = engines[GetParam()];
    if (!engine) {
      EngineOptions options = TestEngineOptions();
      options.assume_no_fp64 = true;
      options.assume_no_int64_atomics = true;
      engine = std::make_unique<Engine>(TestDevice(GetParam()), options);
    }
    return *engine;
  }
};

std::vector<std::string> IntegerQueries() {
  return {
      "SELECT COUNT(*), SUM(unique1), MIN(unique2), MAX(unique1 * 3 - unique2) FROM tenktup1 "
      "WHERE ten = 3",
      "SELECT ten, COUNT(*), SUM(unique1), MIN(unique2), MAX(four) FROM tenktup1 GROUP BY ten",
      // Many groups, a HAVING.
      "SELECT unique1 % 1000, COUNT(*), MAX(unique2) FROM tenktup1 GROUP BY unique1 % 1000 "
      "HAVING COUNT(*) > 4",
      // Four keys; CHAR keys.
      "SELECT two, four, ten, twenty, COUNT(*), SUM(unique2) FROM tenktup1 "
      "GROUP BY two, four, ten, twenty",
      "SELECT stringu1, string4, COUNT(*), MIN(unique1) FROM tenktup1 WHERE unique1 < 300 "
      "GROUP BY stringu1, string4",
      // Sums the range analysis cannot bound (their 32-bit halves apart).
      "SELECT ten, SUM(unique1 * 1000000000000) FROM tenktup1 GROUP BY ten",
      // NULL keys and arguments (integer division by zero).
      "SELECT unique1 / two, COUNT(*) FROM tenktup1 WHERE unique1 < 100 GROUP BY unique1 / two",
      "SELECT ten, COUNT(unique1 / two), SUM(unique2 / two), MIN(unique1 / two) FROM tenktup1 "
      "GROUP BY ten",
      // QUANTILE ranks computed without doubles.
      "SELECT ten, MEDIAN(unique1), QUANTILE(unique2, 0.9), QUANTILE(unique2, 0.1), "
      "QUANTILE(unique1, 1), QUANTILE(unique1, 0) FROM tenktup1 GROUP BY ten",
      "SELECT four, QUANTILE(unique2, 0.333), QUANTILE(unique2, 0.7) FROM tenktup1 "
      "WHERE unique1 < 777 GROUP BY four",
      "SELECT MEDIAN(unique1), QUANTILE(unique2, 0.25) FROM tenktup1",
      "SELECT DISTINCT two, four FROM tenktup1 ORDER BY 2 DESC, 1",
      "SELECT DISTINCT unique1 % 97 FROM tenktup1",
      "SELECT t1.unique1, t2.ten FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 "
      "AND t2.unique1 < 700",
      "SELECT t1.ten, COUNT(*), SUM(t2.unique1) FROM tenktup1 t1, tenktup2 t2 "
      "WHERE t1.unique2 = t2.unique2 GROUP BY t1.ten",
      "SELECT unique1, unique2 FROM tenktup1 ORDER BY unique2 DESC LIMIT 20",
      "SELECT unique1 FROM tenktup1 WHERE unique2 IN (1, 2, 3, 500) OR unique1 / 7 = 3",
  };
}

std::vector<std::string> RealQueries() {
  return {
      "SELECT AVG(unique1) FROM tenktup1",
      "SELECT unique1 / 4.0 FROM tenktup1",
      "SELECT COUNT(*) FROM tenktup1 WHERE unique1 < 2.5",
      "SELECT ten, SUM(CAST(unique1 AS REAL)) FROM tenktup1 GROUP BY ten",
      "SELECT ten FROM tenktup1 GROUP BY ten HAVING AVG(unique1) > 10",
      "SELECT ten, COUNT(*) * 1.5 FROM tenktup1 GROUP BY ten",
  };
}

// Kernels that need 64-bit atomics or fp64.
const std::set<std::string> kNeedMore = {"hash_group_by_aggregate", "group_by_merge",
                                         "join_cuckoo_insert", "vm_aggregate_short_real"};

TEST_P(DeviceCapabilitiesTest, IntegerQueriesMatchTheCpuReference) {
  Engine& engine = lacking();
  ASSERT_FALSE(engine.info().fp64);
  ASSERT_FALSE(engine.info().int64_atomics);
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  for (const std::string& sql : IntegerQueries()) {
    const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
    const PhysicalPlan plan(engine, {}, bound.select);
    std::vector<KernelLaunch> launches;
    QueryResult actual;
    try {
      actual = plan.Execute(engine, &launches);
    } catch (const std::exception& e) {
      ADD_FAILURE() << sql << "\n  threw: " << e.what() << "\n" << plan.Explain();
      continue;
    }
    const QueryResult expected = ExecuteOnCpu(bound.select);
    const std::string difference =
        CompareResults(expected, actual, {.ignore_row_order = bound.select.order_by.empty()});
    EXPECT_TRUE(difference.empty()) << sql << "\n  " << difference;
    bool folded_sorted = false;
    for (const KernelLaunch& launch : launches) {
      EXPECT_TRUE(plan.nodes().at(launch.node)->Kernels().Contains(launch.kernel))
          << sql << "\n  node " << launch.node << " launched " << launch.kernel << ", unlisted\n"
          << plan.Explain();
      EXPECT_FALSE(kNeedMore.contains(launch.kernel)) << sql << "\n  launched " << launch.kernel;
      folded_sorted |= launch.kernel == "sorted_group_by_fold";
    }
    const bool groups = !bound.select.group_keys.empty() || bound.select.distinct;
    EXPECT_EQ(folded_sorted, groups) << sql << "\n" << plan.Explain();
  }
}

TEST_P(DeviceCapabilitiesTest, RealQueriesAreRefusedBeforeAnythingRuns) {
  Engine& engine = lacking();
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  const std::string refusal = "device '" + engine.info().name +
                              "' lacks fp64 (cl_khr_fp64): REAL expressions cannot run there (";
  std::size_t launches = 0;
  engine.SetLaunchObserver([&launches](std::string_view) { ++launches; });
  for (const std::string& sql : RealQueries()) {
    const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
    QueryExecutor executor(engine);
    try {
      (void)executor.Execute(bound.select);
      ADD_FAILURE() << sql << "\n  ran on a device without fp64";
    } catch (const DeviceLimitError& e) {
      EXPECT_EQ(std::string(e.what()).rfind(refusal, 0), 0u) << sql << "\n  " << e.what();
    }
    EXPECT_EQ(executor.Explain(bound.select).rfind("not on the device: " + refusal, 0), 0u)
        << sql << "\n"
        << executor.Explain(bound.select);
  }
  engine.SetLaunchObserver({});
  EXPECT_EQ(launches, 0u) << "a refused query launched kernels";
}

TEST_P(DeviceCapabilitiesTest, ExplainSaysHowGroupByWorksAround) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  const std::string sql = "SELECT ten, COUNT(*) FROM tenktup1 GROUP BY ten";
  const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
  const std::string explain = QueryExecutor(lacking()).Explain(bound.select);
  EXPECT_NE(explain.find("sort GROUP BY, sorted groups folded by chunks of rows: the device "
                         "lacks 64-bit atomics (cl_khr_int64_base_atomics)"),
            std::string::npos)
      << explain;
  EXPECT_NE(explain.find("sorted_group_by_fold"), std::string::npos) << explain;
  EXPECT_EQ(explain.find("hash_group_by_aggregate"), std::string::npos) << explain;
}

CLQ_INSTANTIATE_DEVICE_TESTS(DeviceCapabilitiesTest);

TEST(DeviceShortfallsTest, NamesEachMissingCapabilityAndItsCost) {
  DeviceInfo device;
  device.fp64 = true;
  device.int64_atomics = true;
  EXPECT_TRUE(DeviceShortfalls(device).empty());
  device.fp64 = false;
  device.int64_atomics = false;
  const std::vector<DeviceShortfall> shortfalls = DeviceShortfalls(device);
  ASSERT_EQ(shortfalls.size(), 2u);
  EXPECT_EQ(shortfalls[0].capability, "fp64 (cl_khr_fp64)");
  EXPECT_EQ(shortfalls[0].cost, "REAL queries refused");
  EXPECT_EQ(shortfalls[1].capability, "64-bit atomics (cl_khr_int64_base_atomics)");
  EXPECT_NE(shortfalls[1].cost.find("GROUP BY and DISTINCT sort"), std::string::npos);
}

}  // namespace
}  // namespace clq
