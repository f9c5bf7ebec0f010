// The plan that runs is the plan EXPLAIN prints: every kernel a query
// launches belongs to a node of its physical plan that lists it, and on
// data where no step is skipped each node launches every kernel it lists
// as always launched. The queries are the bench suites' (thesis,
// Wisconsin, general) and a few more shapes, over Wisconsin tables of
// several tiles.
#include "plan/physical_plan.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <memory>
#include <optional>
#include <set>

#include "host/bench_suites.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/real_refusal.hpp"
#include "wisconsin/dataset.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class PhysicalPlanTest : public DeviceTest {};

constexpr RowCount kRows = 20000;

// Queries whose every listed kernel must launch; the others may launch
// fewer (a filter that keeps no row scatters nothing, a top-k whose
// threshold leaves few candidates sorts them in one pass...).
std::vector<std::string> ExactQueries() {
  return {
      "SELECT unique1 + unique2 FROM tenktup1",
      "SELECT * FROM tenktup1 WHERE unique1 < 5000 AND two = 0",
      "SELECT COUNT(*), SUM(unique1), MAX(unique2 * 3) FROM tenktup1 WHERE ten = 3",
      "SELECT t1.unique1, t2.ten FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 "
      "AND t2.unique1 < 7000",
      "SELECT t1.unique3 * 2 FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique1 AND "
      "t1.ten + t2.ten > 5",
      "SELECT SUM(unique1), SUM(unique2), SUM(two), SUM(four), SUM(ten), SUM(twenty), "
      "SUM(onePercent), SUM(tenPercent), SUM(twentyPercent * 2) FROM tenktup1",
      "SELECT SUM(CASE WHEN ten < 5 THEN unique1 ELSE 0 END), COUNT(*) FROM tenktup1 WHERE "
      "stringu1 LIKE '%A%x'",
      // Matched and unmatched rows, NULL-extended columns out.
      "SELECT t1.unique2, t2.ten, t2.stringu1 FROM tenktup1 t1 LEFT JOIN tenktup2 t2 ON "
      "t1.unique1 = t2.unique2 AND t2.unique1 < 7000",
  };
}

std::vector<std::string> AllQueries() {
  std::vector<std::string> queries = ExactQueries();
  for (const char* suite : {"thesis", "wisconsin", "general"})
    for (const BenchQuery& q : BenchQueries(suite, kRows))
      queries.push_back(q.sql);
  queries.push_back("SELECT MEDIAN(unique1), QUANTILE(unique2, 0.9) FROM tenktup1 WHERE ten < 4");
  queries.push_back("SELECT ten, MEDIAN(unique1) FROM tenktup1 GROUP BY ten");
  queries.push_back("SELECT unique2 FROM tenktup1 LIMIT 10 OFFSET 5");
  queries.push_back("SELECT DISTINCT 1 FROM tenktup1");
  queries.push_back("SELECT unique1 FROM tenktup1 ORDER BY 1 + 1 LIMIT 3");
  queries.push_back(
      "SELECT t1.ten, COUNT(t2.unique1) FROM tenktup1 t1 LEFT JOIN tenktup2 t2 ON t1.unique1 = "
      "t2.unique2 + 5 AND t2.four = 1 WHERE t2.two IS NULL OR t1.two = 0 GROUP BY t1.ten");
  queries.push_back(
      "SELECT COUNT(*) FROM tenktup1 t1 WHERE NOT EXISTS (SELECT * FROM onektup o WHERE "
      "o.unique1 = t1.unique2 AND o.four <> t1.four)");
  queries.push_back(
      "SELECT unique1, SUBSTRING(stringu1, 2, 3) FROM tenktup1 WHERE SUBSTRING(stringu1 FROM 1 "
      "FOR 5) IN ('AAAAA', 'AAAAB') AND SUBSTRING(stringu2, 3, 2) <> 'zz'");
  return queries;
}

struct Checked {
  std::string explain;
  // By node id: the kernels it lists (always, and when needed), and those it
  // launched.
  std::map<std::size_t, KernelSet> listed;
  std::map<std::size_t, std::set<std::string>> launched;
};

// Runs `sql`; nullopt for a REAL query on a device without fp64, which
// refuses it (tests/plan/device_capabilities_test.cpp checks that).
std::optional<Checked> RunPlan(Engine& engine, Catalog& catalog, const std::string& sql) {
  const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
  if (!engine.info().fp64 && UsesReal(bound.select)) return std::nullopt;
  const PhysicalPlan plan(engine, {}, bound.select);
  Checked checked;
  checked.explain = plan.Explain();
  for (const PhysicalNode* node : plan.nodes())
    checked.listed[node->id()] = node->Kernels();
  std::vector<KernelLaunch> launches;
  (void)plan.Execute(engine, &launches);
  for (const KernelLaunch& launch : launches)
    checked.launched[launch.node].insert(launch.kernel);
  return checked;
}

std::string Names(const std::set<std::string>& names) {
  std::string text;
  for (const std::string& n : names)
    text += (text.empty() ? "" : ", ") + n;
  return text;
}

TEST_P(PhysicalPlanTest, EveryLaunchIsListedByItsNode) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  for (const std::string& sql : AllQueries()) {
    const std::optional<Checked> run = RunPlan(engine(), catalog, sql);
    if (!run) continue;
    const Checked& checked = *run;
    for (const auto& [node, kernels] : checked.launched) {
      const KernelSet& listed = checked.listed.at(node);
      for (const std::string& kernel : kernels)
        EXPECT_TRUE(listed.Contains(kernel))
            << sql << "\nnode " << node << " launched " << kernel << ", unlisted\n"
            << checked.explain;
    }
  }
}

TEST_P(PhysicalPlanTest, NodesLaunchExactlyTheKernelsTheyList) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  for (const std::string& sql : ExactQueries()) {
    const std::optional<Checked> run = RunPlan(engine(), catalog, sql);
    if (!run) continue;
    const Checked& checked = *run;
    for (const auto& [node, listed] : checked.listed) {
      const auto launched = checked.launched.find(node);
      std::set<std::string> ran;
      if (launched != checked.launched.end()) ran = launched->second;
      for (const std::string& kernel : listed.always())
        EXPECT_TRUE(ran.contains(kernel)) << sql << "\nnode " << node << " listed " << kernel
                                          << ", never launched (it launched " << Names(ran) << ")\n"
                                          << checked.explain;
    }
  }
}

// An engine on the device under test as if it had 1 MiB of memory, and the
// rows of the tables it streams (40 tablets under that cap).
std::unique_ptr<Engine> CappedEngine(std::size_t device) {
  EngineOptions options = TestEngineOptions();
  options.device_memory = 1u << 20;
  return std::make_unique<Engine>(TestDevice(device), options);
}
constexpr RowCount kCappedRows = 100000;

// Runs each query on `capped`: its EXPLAIN holds `marker`, every launch is
// listed by its node, and the answer equals that of one pass on `whole`,
// REALs exactly.
void ExpectCappedRunsMatch(Engine& capped, Engine& whole_engine, Catalog& catalog,
                           const std::vector<std::string>& queries, const std::string& marker) {
  for (const std::string& sql : queries) {
    const std::optional<Checked> run = RunPlan(capped, catalog, sql);
    if (!run) continue;  // REAL on a device without fp64
    EXPECT_NE(run->explain.find(marker), std::string::npos) << sql << "\n" << run->explain;
    for (const auto& [node, kernels] : run->launched)
      for (const std::string& kernel : kernels)
        EXPECT_TRUE(run->listed.at(node).Contains(kernel))
            << sql << "\nnode " << node << " launched " << kernel << ", unlisted\n"
            << run->explain;
    const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
    const QueryResult streamed = PhysicalPlan(capped, {}, bound.select).Execute(capped);
    const QueryResult whole = PhysicalPlan(whole_engine, {}, bound.select).Execute(whole_engine);
    EXPECT_GT(whole.rows, 0u) << sql;
    CompareOptions exact;
    exact.real_relative_tolerance = 0;
    EXPECT_EQ(CompareResults(whole, streamed, exact), "") << sql;
  }
}

// A GROUP BY or a top-k whose input's intermediates pass a quarter of a
// capped device streams its table a chunk of tablets at a time: EXPLAIN
// says so, every launch is listed by its node, and the answers equal those
// of the same query in one pass on the uncapped engine: groups in order of
// first appearance, HAVING, ORDER BY and LIMIT on the merged groups,
// integer SUM, AVG, MIN and MAX of integers and REALs, CHAR and NULL keys;
// a top-k's rows with ties (NULLs among them) in input order, OFFSET.
TEST_P(PhysicalPlanTest, AGroupByOrTopKPastACappedDeviceStreamsWithTheSameAnswers) {
  const std::unique_ptr<Engine> engine_capped = CappedEngine(GetParam());
  Engine& capped = *engine_capped;
  Catalog catalog;
  AddWisconsinTables(catalog, kCappedRows);
  const std::vector<std::string> queries = {
      "SELECT ten, COUNT(*), SUM(unique1), MIN(unique2), MAX(unique2), AVG(onePercent) FROM "
      "tenktup1 GROUP BY ten",
      "SELECT unique1 % 100 AS k, COUNT(*), SUM(unique2) FROM tenktup1 WHERE four <> 2 AND "
      "unique2 % 3 <> 1 GROUP BY k HAVING COUNT(*) > 200 ORDER BY k DESC LIMIT 9",
      "SELECT string4, two, COUNT(*), MAX(unique3), MIN(unique1 - 50000) FROM tenktup1 GROUP BY "
      "string4, two",
      "SELECT CASE WHEN ten < 3 THEN NULL ELSE four END AS k, COUNT(*), MIN(unique1 * 0.5), "
      "MAX(unique3 * -0.25) FROM tenktup1 WHERE two = 1 GROUP BY k",
      "SELECT unique1, unique2, stringu1 FROM tenktup1 ORDER BY unique2 DESC LIMIT 5",
      "SELECT unique1, ten FROM tenktup1 WHERE four = 2 ORDER BY ten, unique1 DESC LIMIT 7 "
      "OFFSET 3",
      "SELECT two, unique1 FROM tenktup1 ORDER BY two LIMIT 40",
      "SELECT unique1, CASE WHEN ten < 3 THEN NULL ELSE unique2 END AS k FROM tenktup1 ORDER BY "
      "k LIMIT 30",
      "SELECT unique1, unique3 * 0.5 AS r FROM tenktup1 ORDER BY ten DESC, r LIMIT 12",
  };
  ExpectCappedRunsMatch(capped, engine(), catalog, queries, "streamed, ");
}

// A join whose tables and intermediates pass a quarter of a capped device
// runs a hash partition of both tables at a time: EXPLAIN says so, every
// launch is listed by its node, and the answers equal those of one pass on
// the uncapped engine: a GROUP BY and an ungrouped aggregate over it, keys
// repeated on one side, a WHERE pushed to each table, a residual filter
// over the join, a LEFT JOIN whose ON drops rows (unmatched rows kept once),
// CHAR group keys. Keys that are expressions do not partition.
TEST_P(PhysicalPlanTest, AJoinPastACappedDeviceRunsAPartitionAtATimeWithTheSameAnswers) {
  const std::unique_ptr<Engine> engine_capped = CappedEngine(GetParam());
  Engine& capped = *engine_capped;
  Catalog catalog;
  AddWisconsinTables(catalog, kCappedRows / 2);
  const std::vector<std::string> queries = {
      "SELECT t1.ten, COUNT(*), SUM(t2.unique2), MIN(t2.unique1), MAX(t1.unique2) FROM tenktup1 "
      "t1 JOIN tenktup2 t2 ON t1.unique1 = t2.unique1 WHERE t2.four <> 1 GROUP BY t1.ten ORDER "
      "BY t1.ten",
      "SELECT COUNT(*), SUM(t1.unique2), MIN(t2.unique3), MAX(t2.unique1 * 0.5), AVG(t2.ten) "
      "FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 AND t1.two = 0",
      "SELECT t2.twenty, COUNT(*), MAX(t1.unique3) FROM tenktup1 t1 JOIN tenktup2 t2 ON "
      "t1.onePercent = t2.unique1 WHERE t1.ten + t2.ten > 10 GROUP BY t2.twenty HAVING COUNT(*) "
      "> 10 ORDER BY 2 DESC, 1 LIMIT 7",
      "SELECT t1.four, COUNT(t2.unique1), COUNT(*), SUM(t2.ten) FROM tenktup1 t1 LEFT JOIN "
      "tenktup2 t2 ON t1.unique1 = t2.unique1 AND t2.ten < 3 GROUP BY t1.four ORDER BY 1",
      "SELECT t1.string4, t2.two, COUNT(*), MIN(t2.unique1 - 3) FROM tenktup1 t1 JOIN tenktup2 "
      "t2 ON t1.unique2 = t2.unique1 GROUP BY t1.string4, t2.two ORDER BY 1, 2",
  };
  ExpectCappedRunsMatch(capped, engine(), catalog, queries, "the join partitioned on the host");
  // join_partitions=on partitions on any device, with the same answers.
  QueryOptions forced;
  forced.join_partitions = Choice::kOn;
  const sql::BoundStatement first = sql::Bind(sql::Parse(queries[0]), catalog, queries[0]);
  const PhysicalPlan partitioned(engine(), forced, first.select);
  EXPECT_NE(partitioned.Explain().find("into 2 partitions"), std::string::npos)
      << partitioned.Explain();
  CompareOptions exact;
  exact.real_relative_tolerance = 0;
  EXPECT_EQ(CompareResults(PhysicalPlan(engine(), {}, first.select).Execute(engine()),
                           partitioned.Execute(engine()), exact),
            "");
  const std::string computed_keys =
      "SELECT COUNT(*) FROM tenktup1 t1 JOIN tenktup2 t2 ON t1.unique1 + 1 = t2.unique1";
  const sql::BoundStatement bound = sql::Bind(sql::Parse(computed_keys), catalog, computed_keys);
  const std::string explain = PhysicalPlan(capped, {}, bound.select).Explain();
  EXPECT_EQ(explain.find("partitioned"), std::string::npos) << explain;
}

// An integer SUM whose chunks' totals could leave int64 where the group's
// does not keeps the one-pass plan: one pass raises "integer overflow" only
// for a group's total.
TEST_P(PhysicalPlanTest, AGroupBySumThatMayPassInt64DoesNotStream) {
  const std::unique_ptr<Engine> engine_capped = CappedEngine(GetParam());
  Engine& capped = *engine_capped;
  Catalog catalog;
  AddWisconsinTables(catalog, kCappedRows);
  const std::string sql =
      "SELECT ten, SUM((unique1 - 50000) * 180000000000000), SUM(unique2) FROM tenktup1 GROUP BY "
      "ten";
  const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
  const std::string explain = PhysicalPlan(capped, {}, bound.select).Explain();
  EXPECT_EQ(explain.find("streamed"), std::string::npos) << explain;
}

// A WHERE pushed to each table of a join, a residual filter, and a
// grouping: one node each, in the order they run.
TEST_P(PhysicalPlanTest, ExplainPrintsTheTree) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  const std::string sql =
      "SELECT t2.ten, COUNT(*) FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 AND "
      "t1.unique1 < 100 AND t2.ten = 1 AND t1.four + t2.four > 2 GROUP BY t2.ten";
  const std::string explain = RunPlan(engine(), catalog, sql).value().explain;
  const std::vector<std::string> lines = {"GroupBy: t2.ten: COUNT(*)",
                                          "  Filter: joined rows: ",
                                          "    HashJoin: t1.unique1 = t2.unique2",
                                          "      Filter: WHERE of t1: (t1.unique1 < 100)",
                                          "        Scan: tenktup1 AS t1: 20000 rows",
                                          "      Filter: WHERE of t2: (t2.ten = 1)",
                                          "        Scan: tenktup2 AS t2: 20000 rows"};
  std::size_t at = 0;
  for (const std::string& line : lines) {
    const std::size_t found = explain.find("\n" + line, at);
    ASSERT_NE(found, std::string::npos) << line << "\n" << explain;
    at = found + 1;
  }
}

// A LEFT JOIN's ON other than equalities with one table before it and
// conditions on its own table is refused by name (the CPU reference runs
// any), and so are equalities whose combined key could pass 64 bits.
TEST_P(PhysicalPlanTest, LeftJoinOnRefusesWhatItCannotJoin) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  for (const std::string sql : {
           "SELECT COUNT(*) FROM tenktup1 t1 LEFT JOIN tenktup2 t2 ON t1.unique1 < t2.unique1",
           "SELECT COUNT(*) FROM tenktup1 t1 LEFT JOIN tenktup2 t2 ON t1.unique1 = t2.unique1 "
           "AND t1.two = 0",
           "SELECT COUNT(*) FROM onektup o, tenktup1 t1 LEFT JOIN tenktup2 t2 ON t1.unique1 = "
           "t2.unique1 AND o.unique2 = t2.unique2",
           "SELECT COUNT(*) FROM tenktup1 t1 LEFT JOIN tenktup2 t2 ON t1.unique1 * 4000000000000 "
           "= t2.unique1 * 4000000000000 AND t1.unique2 = t2.unique2",
       }) {
    const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
    try {
      const PhysicalPlan plan(engine(), {}, bound.select);
      ADD_FAILURE() << sql << ": planned";
    } catch (const InvalidInputError& error) {
      EXPECT_NE(std::string(error.what()).find("LEFT JOIN t2"), std::string::npos) << error.what();
    }
  }
}

// CASE and a LIKE matcher run on the expression machine: their
// instructions show in the bytecode EXPLAIN prints.
TEST_P(PhysicalPlanTest, ExplainShowsCaseAndLikeInstructions) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  const std::string sql =
      "SELECT ten, SUM(CASE WHEN two = 0 THEN unique1 WHEN four = 1 THEN 1 ELSE unique2 END) "
      "FROM tenktup1 WHERE stringu1 NOT LIKE '%B_C%' GROUP BY ten";
  const std::string explain = RunPlan(engine(), catalog, sql).value().explain;
  for (const char* text : {"CASE_BEGIN", "CASE_WHEN", "CASE_THEN", "CASE_END",
                           "STR_LIKE slot 0 width 52 not like '%B_C%'", "NOT LIKE '%B_C%'"})
    EXPECT_NE(explain.find(text), std::string::npos) << text << "\n" << explain;
}

CLQ_INSTANTIATE_DEVICE_TESTS(PhysicalPlanTest);

}  // namespace
}  // namespace clq
