// One query on several devices (plan/device_split.hpp): a GROUP BY or an
// ungrouped aggregate whose aggregates merge runs each device over its
// range of the largest table's rows, and the answer equals one device's,
// groups in the same order and REALs to the bit. The "devices" here are
// several engines on the device under test (each its own context, queue
// and resident tables), so that the split runs on any machine; the CLI
// test (tests/runtime/device_split_cli_test.cpp) splits over two PoCL
// devices.
#include "plan/device_split.hpp"

#include <gtest/gtest.h>

#include <memory>
#include <random>
#include <string>
#include <vector>

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

class DeviceSplitTest : public DeviceTest {};

constexpr RowCount kRows = 30001;  // divides among neither 2 nor 3 devices evenly

// `count` more engines on the device under test, with `options`.
std::vector<std::unique_ptr<Engine>> MoreEngines(std::size_t device, std::size_t count,
                                                 const EngineOptions& options) {
  std::vector<std::unique_ptr<Engine>> engines;
  for (std::size_t i = 0; i < count; ++i)
    engines.push_back(std::make_unique<Engine>(TestDevice(device), options));
  return engines;
}

// Options that split every query that merges from parts, evenly.
QueryOptions EvenShares() {
  QueryOptions options;
  options.device_shares.measured = false;
  return options;
}

// Runs each query on `devices` and on `devices[0]` alone: EXPLAIN of the
// split holds `marker`, and the answers are equal, in order, REALs exactly.
void ExpectSplitRunsMatch(const std::vector<Engine*>& devices, Catalog& catalog,
                          const std::vector<std::string>& queries, const std::string& marker,
                          const QueryOptions& options = EvenShares()) {
  QueryExecutor split(devices, options);
  QueryExecutor alone(*devices.front(), {});
  CompareOptions exact;
  exact.real_relative_tolerance = 0;
  for (const std::string& sql : queries) {
    const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
    if (!devices.front()->info().fp64 && UsesReal(bound.select)) continue;
    const std::string explain = split.Explain(bound.select);
    EXPECT_NE(explain.find(marker), std::string::npos) << sql << "\n" << explain;
    const QueryResult one = alone.Execute(bound.select);
    EXPECT_GT(one.rows, 0u) << sql;
    EXPECT_EQ(CompareResults(one, split.Execute(bound.select), exact), "") << sql;
    // Again, with the parts resident from the first run.
    EXPECT_EQ(CompareResults(one, split.Execute(bound.select), exact), "") << sql;
  }
}

std::vector<std::string> SplitQueries() {
  return {
      // Unordered: groups in order of first appearance, as on one device;
      // unique2 counts the rows, so each group of the first lies in one
      // device's part, in the parts' order.
      "SELECT unique2 / 1000 AS k, COUNT(*), SUM(unique1), MAX(ten) FROM tenktup1 GROUP BY k",
      "SELECT unique1 % 997 AS k, COUNT(*), SUM(unique2), MIN(unique3), MAX(onePercent), "
      "AVG(ten) FROM tenktup1 GROUP BY k",
      "SELECT unique1 % 100 AS k, COUNT(*), SUM(unique2) FROM tenktup1 WHERE four <> 2 AND "
      "unique2 % 3 <> 1 GROUP BY k HAVING COUNT(*) > 50 ORDER BY k DESC LIMIT 9",
      "SELECT string4, two, COUNT(*), MAX(unique3), MIN(unique1 - 50000) FROM tenktup1 GROUP BY "
      "string4, two",
      "SELECT CASE WHEN ten < 3 THEN NULL ELSE four END AS k, COUNT(*), MIN(unique1 * 0.5), "
      "MAX(unique3 * -0.25) FROM tenktup1 WHERE two = 1 GROUP BY k",
      // Ungrouped, the WHERE fused into the aggregation.
      "SELECT COUNT(*), SUM(unique1), MIN(unique2), MAX(unique3), AVG(tenPercent) FROM tenktup1 "
      "WHERE ten <> 4",
      // A join: the other table whole on every device.
      "SELECT t1.ten, COUNT(*), SUM(t2.unique2), MIN(t2.unique1), MAX(t1.unique2) FROM tenktup1 "
      "t1 JOIN tenktup2 t2 ON t1.unique1 = t2.unique1 WHERE t2.four <> 1 GROUP BY t1.ten",
      "SELECT COUNT(*), SUM(t1.unique2), MIN(t2.unique3), MAX(t2.unique1 * 0.5), AVG(t2.ten) "
      "FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique2 AND t1.two = 0",
      // A LEFT JOIN splits its preserved side: unmatched rows kept once.
      "SELECT t1.four, COUNT(t2.unique1), COUNT(*), SUM(t2.ten) FROM tenktup1 t1 LEFT JOIN "
      "tenktup2 t2 ON t1.unique1 = t2.unique1 AND t2.ten < 3 GROUP BY t1.four",
      // MIN and MAX of CHAR: the parts' order codes merge as integers.
      "SELECT ten, MIN(stringu1), MAX(stringu2), MIN(string4), COUNT(*) FROM tenktup1 GROUP BY "
      "ten",
      "SELECT MIN(stringu1), MAX(stringu1), MAX(string4) FROM tenktup1 WHERE four <> 2",
  };
}

TEST_P(DeviceSplitTest, AGroupByOrAggregateSplitOverDevicesAnswersAsOneDevice) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  const std::vector<std::unique_ptr<Engine>> more = MoreEngines(GetParam(), 2, TestEngineOptions());
  ExpectSplitRunsMatch({&engine(), more[0].get()}, catalog, SplitQueries(),
                       "split over 2 devices by rows of");
  ExpectSplitRunsMatch({&engine(), more[0].get(), more[1].get()}, catalog, SplitQueries(),
                       "split over 3 devices by rows of");
  // Uneven shares: a part may hold no row at all.
  QueryOptions uneven = EvenShares();
  uneven.device_shares.given = {5, 1, 2};
  ExpectSplitRunsMatch({&engine(), more[0].get(), more[1].get()}, catalog, SplitQueries(),
                       "device 1: rows [18750, 22500), device 2: rows [22500, 30001); shares "
                       "5:1:2)",
                       uneven);
  // One row over two devices: the first device's part is empty.
  Catalog one_row;
  AddWisconsinTables(one_row, 1);
  ExpectSplitRunsMatch({&engine(), more[0].get()}, one_row,
                       {"SELECT COUNT(*), MIN(unique1), SUM(ten) FROM tenktup1",
                        "SELECT two, COUNT(*) FROM tenktup1 GROUP BY two"},
                       "device 0: rows [0, 0), device 1: rows [0, 1)");
}

// Capped devices each stream their part a chunk of tablets at a time, or
// partition a join, within the split.
TEST_P(DeviceSplitTest, CappedDevicesStreamOrPartitionTheirParts) {
  Catalog catalog;
  AddWisconsinTables(catalog, 100000);
  EngineOptions capped = TestEngineOptions();
  capped.device_memory = 1u << 20;
  const std::vector<std::unique_ptr<Engine>> engines = MoreEngines(GetParam(), 2, capped);
  const std::vector<Engine*> devices = {engines[0].get(), engines[1].get()};
  ExpectSplitRunsMatch(devices, catalog,
                       {"SELECT ten, COUNT(*), SUM(unique1), MIN(unique2), MAX(unique2) FROM "
                        "tenktup1 GROUP BY ten",
                        "SELECT ten, MIN(stringu1), MAX(stringu2) FROM tenktup1 GROUP BY ten"},
                       "streamed, ");
  ExpectSplitRunsMatch(devices, catalog,
                       {"SELECT t1.ten, COUNT(*), SUM(t2.unique2) FROM tenktup1 t1 JOIN tenktup2 "
                        "t2 ON t1.unique1 = t2.unique2 GROUP BY t1.ten ORDER BY t1.ten",
                        // Order codes of a part's partition copies decode
                        // with the table's dictionary.
                        "SELECT t1.ten, MIN(t1.stringu1), MAX(t2.stringu2) FROM tenktup1 t1 JOIN "
                        "tenktup2 t2 ON t1.unique1 = t2.unique2 GROUP BY t1.ten ORDER BY t1.ten"},
                       "the join partitioned on the host");
}

// The rows of one table split too: concatenated in the devices' order, or
// merged by the ORDER BY keys (hidden keys, ties in row order, NULLs,
// descending, several keys, OFFSET past a part's rows, LIMIT 0), DISTINCT
// rows less those an earlier device gave.
TEST_P(DeviceSplitTest, TheRowsOfOneTableMergeAsOneDeviceGivesThem) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  const std::vector<std::unique_ptr<Engine>> more = MoreEngines(GetParam(), 2, TestEngineOptions());
  const std::vector<std::string> unordered = {
      "SELECT unique1, stringu1 FROM tenktup1 WHERE ten = 3",
      // OFFSET past the first device's rows (each holds about 3750).
      "SELECT unique2 FROM tenktup1 WHERE four = 1 LIMIT 20 OFFSET 5000",
  };
  const std::vector<std::string> ordered = {
      "SELECT unique1, ten FROM tenktup1 WHERE four = 2 ORDER BY ten, unique1 DESC LIMIT 7",
      "SELECT unique2, two FROM tenktup1 ORDER BY two LIMIT 40 OFFSET 15000",
      "SELECT unique1 FROM tenktup1 WHERE ten < 2 ORDER BY unique2 DESC LIMIT 65536",
      "SELECT unique1, CASE WHEN ten < 3 THEN NULL ELSE ten END AS k, unique3 * 0.5 FROM tenktup1 "
      "ORDER BY k DESC, unique1 LIMIT 300",
      "SELECT stringu2, string4 FROM tenktup1 WHERE unique1 < 2000 ORDER BY string4, stringu2 "
      "LIMIT 1500",
  };
  // DISTINCT: each part's rows, less those an earlier part gave (every
  // value of ten lies in every part); -0.0 equals 0.0 and NULL NULL. Of
  // few rows by the plan's bounds, or under a LIMIT.
  const std::vector<std::string> distinct = {
      "SELECT DISTINCT ten FROM tenktup1",
      "SELECT DISTINCT four, two FROM tenktup1 WHERE unique1 % 7 = 3",
      "SELECT DISTINCT ten, four FROM tenktup1 ORDER BY four",
      "SELECT DISTINCT stringu1 FROM tenktup1 WHERE unique2 % 3 = 0 LIMIT 2000 OFFSET 3000",
      "SELECT DISTINCT (ten - 5) * 0.0 AS z, two FROM tenktup1 LIMIT 10",
      "SELECT DISTINCT CASE WHEN ten < 3 THEN NULL ELSE ten END AS k, two FROM tenktup1 ORDER BY "
      "k DESC LIMIT 7",
      "SELECT DISTINCT string4, unique1 % 5 AS f FROM tenktup1 ORDER BY string4, f DESC LIMIT 100",
  };
  for (const std::vector<Engine*>& devices :
       {std::vector<Engine*>{&engine(), more[0].get()},
        std::vector<Engine*>{&engine(), more[0].get(), more[1].get()}}) {
    ExpectSplitRunsMatch(devices, catalog, unordered,
                         "concatenated on the host in the devices' order");
    ExpectSplitRunsMatch(devices, catalog, ordered, "merged on the host by the ORDER BY keys");
    ExpectSplitRunsMatch(devices, catalog, distinct, "less those an earlier device gave");
  }
  QueryExecutor split({&engine(), more[0].get()}, EvenShares());
  const std::string none = "SELECT unique1 FROM tenktup1 ORDER BY unique1 LIMIT 0";
  const sql::BoundStatement bound = sql::Bind(sql::Parse(none), catalog, none);
  EXPECT_EQ(split.Execute(bound.select).rows, 0u);
}

// What does not merge from parts runs on the first device, and EXPLAIN says
// why: a REAL SUM (rounded once over every row), a join's rows, a sort or a
// DISTINCT of more rows than the host merges (without LIMIT or bounds, or
// OFFSET + LIMIT past 65536).
TEST_P(DeviceSplitTest, WhatDoesNotMergeRunsOnTheFirstDevice) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  const std::vector<std::unique_ptr<Engine>> more = MoreEngines(GetParam(), 1, TestEngineOptions());
  ExpectSplitRunsMatch({&engine(), more[0].get()}, catalog,
                       {"SELECT ten, SUM(unique1 * 0.5) FROM tenktup1 GROUP BY ten",
                        "SELECT DISTINCT unique2 % 5000, stringu1 FROM tenktup1",
                        "SELECT DISTINCT t1.ten FROM tenktup1 t1 JOIN tenktup2 t2 ON t1.unique1 = "
                        "t2.unique2",
                        "SELECT unique1 FROM tenktup1 WHERE ten < 2 ORDER BY unique2",
                        "SELECT unique1 FROM tenktup1 ORDER BY unique2 LIMIT 65000 OFFSET 537",
                        "SELECT t1.unique1, t2.ten FROM tenktup1 t1 JOIN tenktup2 t2 ON t1.unique1 "
                        "= t2.unique2 WHERE t2.unique1 < 100"},
                       "on device 0 of 2 alone: ");
}

// By default the cost model places each query: split in shares measured
// from the devices' speeds, or alone on the device it estimates fastest
// (tests/plan/split_costs_test.cpp checks its choices). Whichever it
// chooses, and as its measurements change from run to run, the answer is
// one device's.
TEST_P(DeviceSplitTest, TheCostModelsPlacementsAnswerAsOneDevice) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  const std::vector<std::unique_ptr<Engine>> more = MoreEngines(GetParam(), 2, TestEngineOptions());
  std::vector<std::string> queries = SplitQueries();
  for (const char* query : {"SELECT unique1 FROM tenktup1 WHERE ten < 2 ORDER BY unique2",
                            "SELECT unique2, two FROM tenktup1 ORDER BY two LIMIT 40 OFFSET 15000",
                            "SELECT unique1, stringu1 FROM tenktup1 WHERE ten = 3",
                            "SELECT DISTINCT ten FROM tenktup1"})
    queries.push_back(query);
  for (int round = 0; round < 2; ++round)
    ExpectSplitRunsMatch({&engine(), more[0].get(), more[1].get()}, catalog, queries,
                         "the cost model's estimates: alone on device 0 ", QueryOptions{});
}

// A device whose capabilities refuse a query (no fp64 for REAL) takes no
// part in it: it runs on the first device, evenly split or by the cost
// model, which does not place it there again.
TEST_P(DeviceSplitTest, ADeviceThatCannotRunAQueryTakesNoPart) {
  if (!engine().info().fp64) GTEST_SKIP() << "REAL needs fp64 on the first device";
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  EngineOptions no_fp64 = TestEngineOptions();
  no_fp64.assume_no_fp64 = true;
  const std::vector<std::unique_ptr<Engine>> more = MoreEngines(GetParam(), 1, no_fp64);
  const std::vector<std::string> queries = {
      "SELECT ten, COUNT(*), MIN(unique1 * 0.5), MAX(unique3 * -0.25) FROM tenktup1 GROUP BY ten",
      "SELECT unique1 * 0.5, ten FROM tenktup1 WHERE four = 1 ORDER BY unique2 LIMIT 10",
  };
  ExpectSplitRunsMatch({&engine(), more[0].get()}, catalog, queries,
                       "on device 0 of 2 alone: device 1 cannot run its part (");
  for (int round = 0; round < 3; ++round)
    ExpectSplitRunsMatch({&engine(), more[0].get()}, catalog, queries,
                         "on device 0 of 2 alone: ", QueryOptions{});
}

TEST(DeviceSplitRowsTest, PartsCoverTheRowsInOrderWithoutOverlap) {
  DeviceShares given;
  given.measured = false;
  const std::vector<std::uint32_t> even = GivenShares(given, 3);
  EXPECT_EQ(even, (std::vector<std::uint32_t>{1, 1, 1}));
  EXPECT_EQ(PartRows(10, 0, even), std::make_pair(RowCount{0}, RowCount{3}));
  EXPECT_EQ(PartRows(10, 1, even), std::make_pair(RowCount{3}, RowCount{6}));
  EXPECT_EQ(PartRows(10, 2, even), std::make_pair(RowCount{6}, RowCount{10}));
  EXPECT_EQ(PartRows(2, 0, even), std::make_pair(RowCount{0}, RowCount{0}));
  EXPECT_EQ(PartRows(2, 2, even), std::make_pair(RowCount{1}, RowCount{2}));
  EXPECT_EQ(PartRows(0, 1, {1, 1}), std::make_pair(RowCount{0}, RowCount{0}));
  // 3:1 gives the first device three quarters.
  EXPECT_EQ(PartRows(2147483647, 0, {3, 1}), std::make_pair(RowCount{0}, RowCount{1610612735}));
  EXPECT_EQ(PartRows(2147483647, 1, {3, 1}),
            std::make_pair(RowCount{1610612735}, RowCount{2147483647}));
  given.given = {1, 2, 3};
  EXPECT_THROW(GivenShares(given, 2), InvalidInputError);
}

// The host merge of sorted rows compares result values in place; in the
// order CompareSqlValues gives (NULL first, -0.0 equal to 0.0, text
// bytewise without its NUL padding).
TEST(DeviceSplitRowsTest, InPlaceComparisonsAgreeWithSqlValues) {
  std::mt19937 random(7);
  ResultColumn integers, reals, texts;
  integers.type = sql::ValueType::kInteger;
  reals.type = sql::ValueType::kReal;
  texts.type = sql::ValueType::kText;
  texts.text_width = 4;
  const std::vector<double> special = {0.0, -0.0, 1.5, -1.5, 1e300, -1e300, 3.0};
  const std::vector<std::string> words = {"", "a", "ab", "b", "\xff", "abcd", "abc", "B"};
  const RowCount rows = 120;
  for (RowCount r = 0; r < rows; ++r) {
    integers.integers.push_back(static_cast<std::int64_t>(random() % 7) - 3 +
                                (r % 11 == 0 ? INT64_MAX - 5 : 0));
    reals.reals.push_back(special[random() % special.size()]);
    std::string word = words[random() % words.size()];
    word.resize(4, '\0');
    texts.text.insert(texts.text.end(), word.begin(), word.end());
    for (ResultColumn* c : {&integers, &reals, &texts})
      c->nulls.push_back(random() % 5 == 0 ? 1 : 0);
  }
  for (const ResultColumn* c : {&integers, &reals, &texts})
    for (RowCount i = 0; i < rows; ++i)
      for (RowCount j = 0; j < rows; ++j)
        ASSERT_EQ(CompareResultValues(*c, i, *c, j), CompareSqlValues(c->ValueAt(i), c->ValueAt(j)))
            << static_cast<int>(c->type) << " " << i << " " << j;
}

// The slices of a table go once the table is no longer held elsewhere: a
// session that replaces its tables does not keep the old rows.
TEST(DeviceSplitRowsTest, SlicesGoWithTheirTable) {
  SplitTables split;
  std::vector<TablePtr> kept;
  {
    Catalog catalog;
    AddWisconsinTables(catalog, 100);
    const TablePtr table = catalog.Get("tenktup1");
    kept = split.Slices(table, {1, 1});
    EXPECT_EQ(&split.Slices(table, {1, 1}), split.Find(*table, {1, 1}));
    EXPECT_EQ(split.Find(*table, {1, 2}), nullptr);
    EXPECT_GT(kept[0].use_count(), 1);
    // One set a table: new shares replace the old.
    const std::vector<TablePtr> other = split.Slices(table, {1, 2});
    EXPECT_EQ(split.Find(*table, {1, 1}), nullptr);
    EXPECT_EQ(kept[0].use_count(), 1);
    kept = other;
  }
  Catalog other;
  AddWisconsinTables(other, 10);
  split.Slices(other.Get("tenktup2"), {1, 1});
  EXPECT_EQ(kept[0].use_count(), 1);
  EXPECT_EQ(kept[1].use_count(), 1);
}

CLQ_INSTANTIATE_DEVICE_TESTS(DeviceSplitTest);

}  // namespace
}  // namespace clq
