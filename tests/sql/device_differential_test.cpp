// Differential test of the device executor against SQLite, on every device
// under test:
//
//  - RandomTables: random tables and random queries from
//    tests/cpu_reference/random_query.hpp (built as a BoundSelect and as SQL
//    from the same choices), run through QueryExecutor and through SQLite;
//  - Wisconsin: random SQL text over the Wisconsin relations (N = 1000),
//    parsed and bound by clq's own front end, run on the device and SQLite
//    (queries with MEDIAN/QUANTILE, which SQLite lacks, against the CPU
//    reference instead).
//
// Results must agree as multisets unless ORDER BY fixes the order (REAL
// within 1e-9 relative). A query whose device execution throws
// DeviceLimitError "... not available in this build yet" is unsupported for
// now: it is tallied by message and printed, not a failure. So is a query
// that the device rejects by design (kOutsideDeviceSubset: cross joins and
// TEXT join keys, TEXT expressions other than CHAR column vs literal
// comparisons), tallied apart. Every other
// error or mismatch is a failure that prints the seed, the query number and
// the SQL. Each test also requires a minimum number of queries to have run
// on the device, so it cannot pass by skipping everything. On a device
// without fp64 every query with a REAL value must be refused (tallied), and
// the tests generate until as many queries without REAL as asked for ran.
//
// CLQ_DIFF_SEED (default 20240611) and CLQ_DIFF_QUERIES (default 600 random
// queries; the Wisconsin part runs half as many) run other or more queries.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <iostream>
#include <map>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_executor.hpp"
#include "plan/query_executor.hpp"
#include "plan/query_plan.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "tests/cpu_reference/random_query.hpp"
#include "tests/cpu_reference/sqlite_oracle.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/real_refusal.hpp"
#include "wisconsin/dataset.hpp"

namespace clq::sql_test {
namespace {

using cpu_reference_test::GeneratedQuery;
using cpu_reference_test::MakeRandomTable;
using cpu_reference_test::QueryGenerator;
using cpu_reference_test::RandomSource;
using cpu_reference_test::SqliteOracle;

std::uint64_t EnvOr(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::strtoull(value, nullptr, 10) : fallback;
}

// Counts of what happened to the queries of one test.
struct Tally {
  std::size_t queries = 0, supported = 0, failures = 0, rows = 0;
  // A device without fp64 must refuse every query with a REAL value.
  bool lacks_fp64 = false;
  std::size_t refused_real = 0;

  // Whether to go on generating: `queries` in all, and on a device without
  // fp64 as many that are not REAL (most random queries have a REAL value
  // somewhere, and a refusal costs little), up to 20 times as many in all.
  bool More(std::uint64_t wanted) const {
    if (queries >= 20 * wanted) return false;
    return queries < wanted || (lacks_fp64 && queries - refused_real < wanted);
  }
  std::map<std::string, std::size_t> unsupported;  // not available yet: message -> queries
  std::map<std::string, std::size_t> outside;      // kOutsideDeviceSubset: message -> queries

  void Print(const std::string& what, std::uint64_t seed) const {
    std::cout << "[ differential ] " << what << ", seed " << seed << ": " << queries << " queries, "
              << supported << " ran on the device (" << rows << " rows), " << failures << " failed";
    std::size_t total = 0, total_outside = 0;
    for (const auto& [message, count] : unsupported)
      total += count;
    for (const auto& [message, count] : outside)
      total_outside += count;
    std::cout << ", " << total << " not available yet, " << total_outside
              << " outside the device's subset";
    if (lacks_fp64) std::cout << ", " << refused_real << " REAL refused (the device lacks fp64)";
    std::cout << "\n";
    for (const auto& [message, count] : unsupported)
      std::cout << "[ differential ]   not yet: " << count << " x " << message << "\n";
    for (const auto& [message, count] : outside)
      std::cout << "[ differential ]   outside: " << count << " x " << message << "\n";
  }
};

bool IsNotYetAvailable(const DeviceLimitError& e) {
  return std::string(e.what()).find("not available in this build yet") != std::string::npos;
}

// Queries outside the device executor's subset by design (documented
// rejections, not missing features): tallied apart, not failures. Remove an
// entry when the device learns the construct.
const std::vector<std::string> kOutsideDeviceSubset = {
    // join_chained.cpp: on devices that cap a work-item's loop iterations
    // (llvmpipe), build keys repeated past what one work-item's loops reach.
    "caps a work-item's loops",
    // query_plan.cpp: FROM tables must be connected by equalities on integer
    // expressions (no cross products, no TEXT join keys).
    "cross joins are not supported",
    // expression_compile*.cpp: TEXT only as CHAR column vs literal comparisons
    // and plain column outputs.
    "are not supported on devices",
    "only comparisons of a CHAR column with a string literal are supported on devices",
};

bool IsOutsideDeviceSubset(const std::exception& e) {
  const std::string message = e.what();
  return std::any_of(
      kOutsideDeviceSubset.begin(), kOutsideDeviceSubset.end(),
      [&](const std::string& known) { return message.find(known) != std::string::npos; });
}

// Runs one query on the device and compares it with SQLite's answer, or with
// the CPU reference's where SQLite lacks a function (MEDIAN, QUANTILE; the
// CPU reference is itself checked against SQLite by the SQL files).
void CheckQuery(QueryExecutor& executor, SqliteOracle& oracle, const sql::BoundSelect& select,
                const std::string& sql, bool ordered, bool cpu_oracle, const std::string& where,
                Tally& tally) {
  ++tally.queries;
  if (tally.lacks_fp64 && testing::UsesReal(select)) {
    try {
      (void)executor.Execute(select);
      ++tally.failures;
      ADD_FAILURE() << where << "\n  a REAL query ran on a device without fp64";
    } catch (const std::exception& e) {
      if (testing::IsFp64Refusal(e)) {
        ++tally.refused_real;
      } else {
        ++tally.failures;
        ADD_FAILURE() << where << "\n  expected the refusal of REAL, got: " << e.what();
      }
    }
    return;
  }
  std::vector<sql::ValueType> types;
  for (std::size_t c = 0; c < select.visible_outputs; ++c)
    types.push_back(select.outputs[c].expr.type);
  QueryResult actual;
  try {
    actual = executor.Execute(select);
  } catch (const DeviceLimitError& e) {
    if (IsNotYetAvailable(e)) {
      ++tally.unsupported[e.what()];
      return;
    }
    if (IsOutsideDeviceSubset(e)) {
      ++tally.outside[e.what()];
      return;
    }
    ++tally.failures;
    ADD_FAILURE() << where << "\n  device threw DeviceLimitError: " << e.what();
    return;
  } catch (const std::exception& e) {
    if (IsOutsideDeviceSubset(e)) {
      ++tally.outside[e.what()];
      return;
    }
    ++tally.failures;
    ADD_FAILURE() << where << "\n  device threw: " << e.what();
    return;
  }
  ++tally.supported;
  tally.rows += actual.rows;
  cpu_reference_test::OracleAnswer expected;
  if (cpu_oracle) {
    try {
      expected.result = ExecuteOnCpu(select);
    } catch (const std::exception& e) {
      expected.error = std::string("CPU reference threw: ") + e.what();
    }
  } else {
    expected = oracle.Query(sql, types);
  }
  if (!expected.error.empty()) {
    ++tally.failures;
    ADD_FAILURE() << where << "\n  oracle: " << expected.error;
    return;
  }
  const std::string difference =
      CompareResults(expected.result, actual, {.ignore_row_order = !ordered});
  if (!difference.empty()) {
    ++tally.failures;
    ADD_FAILURE() << where << "\n  " << (cpu_oracle ? "CPU reference" : "SQLite")
                  << " vs device: " << difference
                  << "\n  expected: " << cpu_reference_test::Render(expected.result).substr(0, 400)
                  << "\n  device: " << cpu_reference_test::Render(actual).substr(0, 400);
  }
}

class DeviceDifferentialTest : public testing::DeviceTest {};

TEST_P(DeviceDifferentialTest, RandomTables) {
  const std::uint64_t seed = EnvOr("CLQ_DIFF_SEED", 20240611);
  const std::uint64_t queries = EnvOr("CLQ_DIFF_QUERIES", 600);
  RandomSource data_random(seed);
  const std::vector<TablePtr> tables = {
      MakeRandomTable("t0", 240, data_random), MakeRandomTable("t1", 160, data_random),
      MakeRandomTable("t2", 50, data_random), MakeRandomTable("t3", 0, data_random)};
  SqliteOracle oracle;
  for (const TablePtr& t : tables)
    oracle.Load(*t);
  QueryGenerator generator(tables, seed ^ 0x5eed);
  QueryExecutor executor(engine());
  Tally tally;
  tally.lacks_fp64 = !engine().info().fp64;
  for (std::uint64_t q = 0; tally.More(queries) && tally.failures < 10; ++q) {
    const GeneratedQuery query = generator.Next();
    const std::string where =
        "seed " + std::to_string(seed) + ", query " + std::to_string(q) + ": " + query.sql;
    CheckQuery(executor, oracle, query.select, query.sql, query.ordered, false, where, tally);
  }
  tally.Print("random tables", seed);
  EXPECT_GE(tally.supported, std::max<std::uint64_t>(20, queries / 20))
      << "too few queries ran on the device";
}

// --- Random SQL over the Wisconsin relations -------------------------------------------

const std::vector<std::string> kWisconsinIntegers = {
    "unique1", "unique2",        "two",          "four",          "ten",
    "twenty",  "onePercent",     "tenPercent",   "twentyPercent", "fiftyPercent",
    "unique3", "evenOnePercent", "oddOnePercent"};
const std::vector<std::string> kStrings4 = {"AAAA", "HHHH", "OOOO", "VVVV"};

class WisconsinQueries {
 public:
  WisconsinQueries(std::uint64_t seed, std::int64_t n) : random_(seed), n_(n) {}

  struct Query {
    std::string sql;
    bool ordered = false;
    bool median = false;  // has MEDIAN or QUANTILE: checked against the CPU reference
  };

  Query Next() {
    aliases_.clear();
    std::string from;
    std::vector<std::string> where;
    const std::int64_t tables = random_.Chance(0.6) ? 1 : (random_.Chance(0.8) ? 2 : 3);
    const std::vector<std::string> names = {"tenktup1", "tenktup2", "onektup", "bprime"};
    for (std::int64_t t = 0; t < tables; ++t) {
      const std::string alias = "t" + std::to_string(t);
      const std::string& name = random_.Pick(names);
      from += (t > 0 ? ", " : "") + name + " " + alias;
      aliases_.push_back(alias);
      if (t > 0) {
        // An equality on a key of one side: results stay small.
        const std::string left = aliases_[static_cast<std::size_t>(random_.Int(0, t - 1))];
        const std::string key = random_.Chance(0.5) ? "unique1" : "unique2";
        const std::string other = random_.Pick(kWisconsinIntegers);
        const std::int64_t shift = random_.Chance(0.5) ? 0 : random_.Int(1, 9);
        where.push_back(alias + "." + key + " = " + left + "." + other +
                        (shift ? " + " + std::to_string(shift) : ""));
      }
    }
    const std::int64_t predicates = random_.Int(0, 2);
    for (std::int64_t p = 0; p < predicates; ++p)
      where.push_back(Predicate(1));
    std::string where_sql;
    for (std::size_t i = 0; i < where.size(); ++i)
      where_sql += (i == 0 ? " WHERE " : " AND ") + where[i];

    Query query;
    const std::int64_t shape = random_.Int(0, 99);
    std::string select;
    std::string tail;
    if (shape < 35) {  // projection, maybe ordered by a unique key with a limit
      const std::int64_t count = random_.Int(1, 3);
      for (std::int64_t i = 0; i < count; ++i)
        select += (i > 0 ? ", " : "") + Numeric();
      if (random_.Chance(0.3)) select += ", " + Alias() + ".stringu1";
      if (random_.Chance(0.4)) {
        tail = " ORDER BY ";
        for (std::size_t i = 0; i < aliases_.size(); ++i)
          tail +=
              (i > 0 ? ", " : "") + aliases_[i] + ".unique2" + (random_.Chance(0.5) ? " DESC" : "");
        tail += " LIMIT " + std::to_string(random_.Int(0, 30));
        if (random_.Chance(0.5)) tail += " OFFSET " + std::to_string(random_.Int(0, 50));
        query.ordered = true;
      }
    } else if (shape < 45) {  // DISTINCT
      select = "DISTINCT " + Small();
      if (random_.Chance(0.5)) select += ", " + Small();
    } else if (shape < 75) {  // ungrouped aggregates
      select = Aggregate();
      for (std::int64_t i = random_.Int(0, 2); i > 0; --i)
        select += ", " + Aggregate();
      query.median = AddMedian(select);
    } else {  // grouped
      const std::string key = Small();
      select = key + ", " + Aggregate();
      if (random_.Chance(0.5)) select += ", " + Aggregate();
      query.median = AddMedian(select);
      tail = " GROUP BY " + key;
      if (random_.Chance(0.3)) tail += " HAVING COUNT(*) > " + std::to_string(random_.Int(0, 20));
    }
    query.sql = "SELECT " + select + " FROM " + from + where_sql + tail;
    return query;
  }

 private:
  // Now and then appends MEDIAN or QUANTILE to an aggregate select list.
  bool AddMedian(std::string& select) {
    if (!random_.Chance(0.2)) return false;
    if (random_.Chance(0.5)) {
      select += ", MEDIAN(" + Numeric() + ")";
    } else {
      static const std::vector<std::string> kQ = {"0", "0.1", "0.25", "0.5", "0.9", "1"};
      select += ", QUANTILE(" + Column() + ", " + random_.Pick(kQ) + ")";
    }
    return true;
  }

  std::string Alias() { return random_.Pick(aliases_); }
  std::string Column() { return Alias() + "." + random_.Pick(kWisconsinIntegers); }
  std::string Constant(std::int64_t high) { return std::to_string(random_.Int(0, high)); }

  // A column of few distinct values, or a modulus.
  std::string Small() {
    static const std::vector<std::string> kSmall = {"two",          "four",          "ten",
                                                    "twenty",       "onePercent",    "tenPercent",
                                                    "fiftyPercent", "evenOnePercent"};
    if (random_.Chance(0.2)) return Alias() + ".unique1 % " + std::to_string(random_.Int(2, 17));
    if (random_.Chance(0.1)) return Alias() + ".string4";
    return Alias() + "." + random_.Pick(kSmall);
  }

  std::string Numeric() {
    const std::int64_t roll = random_.Int(0, 99);
    if (roll < 40) return Column();
    if (roll < 55) return Column() + " + " + Column();
    if (roll < 65) return Column() + " * " + Constant(100);
    if (roll < 75) return Column() + " / " + Constant(9);
    if (roll < 82) return Column() + " % " + Constant(9);
    if (roll < 90) return Column() + " / 4.0";
    return "CAST(" + Column() + " AS REAL)";
  }

  std::string Aggregate() {
    const std::int64_t roll = random_.Int(0, 99);
    if (roll < 20) return "COUNT(*)";
    if (roll < 30) return "COUNT(" + Column() + " / " + Constant(3) + ")";
    if (roll < 55) return "SUM(" + Numeric() + ")";
    if (roll < 70) return "AVG(" + Column() + ")";
    if (roll < 85) return "MIN(" + Column() + ")";
    return "MAX(" + Column() + " - " + Column() + ")";
  }

  std::string Predicate(int depth) {
    const std::int64_t roll = random_.Int(0, 99);
    if (depth > 0 && roll < 15)
      return "(" + Predicate(depth - 1) + (random_.Chance(0.5) ? " AND " : " OR ") +
             Predicate(depth - 1) + ")";
    if (depth > 0 && roll < 20) return "NOT (" + Predicate(depth - 1) + ")";
    if (roll < 45) {
      static const std::vector<std::string> kOps = {"=", "<>", "<", "<=", ">", ">="};
      return Column() + " " + random_.Pick(kOps) + " " + Constant(n_);
    }
    if (roll < 65) {
      const std::int64_t low = random_.Int(0, n_);
      return Alias() + ".unique2 " + (random_.Chance(0.2) ? "NOT " : "") + "BETWEEN " +
             std::to_string(low) + " AND " + std::to_string(low + random_.Int(0, n_ / 5));
    }
    if (roll < 80) {
      std::string list;
      for (std::int64_t i = random_.Int(1, 4); i > 0; --i)
        list += (list.empty() ? "" : ", ") + Constant(20);
      return Column() + (random_.Chance(0.3) ? " NOT IN (" : " IN (") + list + ")";
    }
    if (roll < 88) return Column() + " % " + std::to_string(random_.Int(2, 15)) + " = 0";
    if (roll < 94)
      return Alias() + ".string4 " + (random_.Chance(0.5) ? "=" : ">") + " '" +
             random_.Pick(kStrings4) + std::string(48, 'x') + "'";
    return Column() + " / " + Constant(2) + " IS NULL";
  }

  RandomSource random_;
  std::int64_t n_;
  std::vector<std::string> aliases_;
};

// The four Wisconsin relations of N rows, in `catalog` and in SQLite.
void LoadWisconsin(RowCount n, Catalog& catalog, SqliteOracle& oracle) {
  AddWisconsinTables(catalog, n);
  for (const char* name : {kTenktup1, kTenktup2, kOnektup, kBprime})
    oracle.Load(*catalog.Get(name));
}

TEST_P(DeviceDifferentialTest, Wisconsin) {
  const std::uint64_t seed = EnvOr("CLQ_DIFF_SEED", 20240611);
  const std::uint64_t queries = EnvOr("CLQ_DIFF_QUERIES", 600) / 2;
  constexpr RowCount kRows = 1000;
  Catalog catalog;
  SqliteOracle oracle;
  LoadWisconsin(kRows, catalog, oracle);
  WisconsinQueries generator(seed, static_cast<std::int64_t>(kRows));
  QueryExecutor executor(engine());
  Tally tally;
  tally.lacks_fp64 = !engine().info().fp64;
  for (std::uint64_t q = 0; tally.More(queries) && tally.failures < 10; ++q) {
    const WisconsinQueries::Query query = generator.Next();
    const std::string where = "seed " + std::to_string(seed) + ", Wisconsin query " +
                              std::to_string(q) + ": " + query.sql;
    sql::BoundStatement bound;
    try {
      bound = sql::Bind(sql::Parse(query.sql), catalog, query.sql);
    } catch (const std::exception& e) {
      ++tally.failures;
      ADD_FAILURE() << where << "\n  does not bind: " << e.what();
      continue;
    }
    CheckQuery(executor, oracle, bound.select, query.sql, query.ordered, query.median, where,
               tally);
  }
  tally.Print("Wisconsin N=1000", seed);
  EXPECT_GE(tally.supported, std::max<std::uint64_t>(20, queries / 10))
      << "too few queries ran on the device";
}

// Joins whose incoming table's filters keep most of its rows: the planner
// moves those filters past the join (the join probes the whole table's key
// column in place) and the results must not change. Also checks that the
// planner does move them, and keeps a selective filter below the join.
TEST_P(DeviceDifferentialTest, FiltersMovedPastJoins) {
  Catalog catalog;
  SqliteOracle oracle;
  LoadWisconsin(1000, catalog, oracle);
  struct Case {
    std::string sql;
    bool ordered;
  };
  const std::vector<Case> cases = {
      // The thesis's combined query with N = 1000 constants.
      {"SELECT MAX(t1.unique1 * t1.tenpercent / 100), COUNT(*) FROM tenktup1 t1, tenktup2 t2 "
       "WHERE t1.unique1 = t2.unique2 AND t1.unique1 < 60 AND t2.unique2 > 10",
       false},
      // Rows out, two deferred conjuncts, one of which empties part of the join.
      {"SELECT t1.unique1, t2.unique1, t2.stringu1 FROM tenktup1 t1, tenktup2 t2 WHERE "
       "t1.unique2 = t2.unique1 AND t1.unique1 < 100 AND t2.unique2 >= 5 AND t2.unique1 <> 7 "
       "ORDER BY 1, 2",
       true},
      // No joined row survives the deferred filter.
      {"SELECT COUNT(*), SUM(t2.unique2) FROM tenktup1 t1 JOIN tenktup2 t2 ON t1.unique1 = "
       "t2.unique1 WHERE t1.unique1 < 20 AND t2.unique1 >= 20",
       false},
      // Three tables: the second join's incoming table is filtered after it.
      {"SELECT c.unique1, a.unique2, b.ten FROM onektup c, tenktup1 a, tenktup2 b WHERE "
       "c.unique2 = a.unique2 AND a.unique2 = b.unique2 AND c.unique2 < 30 AND b.unique2 > 2 "
       "ORDER BY 1",
       true},
  };
  QueryExecutor executor(engine());
  Tally tally;
  tally.lacks_fp64 = !engine().info().fp64;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sql);
    const sql::BoundStatement bound = sql::Bind(sql::Parse(c.sql), catalog, c.sql);
    const QueryPlan plan = PlanQuery(bound.select);
    std::size_t deferred = 0, filtered_below = 0;
    for (const SourcePlan& source : plan.sources) {
      deferred += source.deferred_selectivity > 0;
      filtered_below += !source.filters.empty();
    }
    EXPECT_GE(deferred, 1u) << "the planner kept every filter below its join";
    EXPECT_GE(filtered_below, 1u) << "the selective filter moved too";
    CheckQuery(executor, oracle, bound.select, c.sql, c.ordered, false, c.sql, tally);
  }
  EXPECT_EQ(tally.failures, 0u);
  EXPECT_EQ(tally.supported, cases.size());
}

// A conjunct that can overflow is evaluated on the joined rows, after the
// joins and the conditions that cannot fail (rows they reject never raise,
// as the README promises); one that cannot overflow still filters its table
// below the join. The answers are SQLite's (tests/sql_files/join/
// overflow.test has more, and the errors).
TEST_P(DeviceDifferentialTest, ConjunctsThatCanOverflowRunAfterTheJoins) {
  Catalog catalog;
  SqliteOracle oracle;
  LoadWisconsin(1000, catalog, oracle);
  struct Case {
    std::string sql;
    std::size_t pushed;    // conjuncts left below the joins
    std::size_t residual;  // conjuncts on the joined rows
  };
  const std::vector<Case> cases = {
      {"SELECT COUNT(*) FROM tenktup1 a JOIN tenktup2 b ON a.unique1 = b.unique1 WHERE "
       "a.unique1 < 2 AND b.unique1 * 4611686018427387904 >= 0",
       1, 1},
      {"SELECT COUNT(*) FROM tenktup1 t1 JOIN tenktup2 t2 ON t1.unique1 = t2.unique1 WHERE "
       "t1.unique1 < 4 AND t2.unique1 <> 3 AND t2.unique1 * 3074457345618258603 >= 0",
       1, 2},
      {"SELECT COUNT(*) FROM tenktup1 a JOIN tenktup2 b ON a.unique1 = b.unique1 WHERE "
       "a.unique1 < 20 AND b.unique1 * 2 >= 10 AND b.unique1 * b.unique2 > 5",
       3, 0},
  };
  QueryExecutor executor(engine());
  Tally tally;
  for (const Case& c : cases) {
    SCOPED_TRACE(c.sql);
    const sql::BoundStatement bound = sql::Bind(sql::Parse(c.sql), catalog, c.sql);
    const QueryPlan plan = PlanQuery(bound.select);
    std::size_t pushed = 0;
    for (const SourcePlan& source : plan.sources)
      pushed += source.filters.size();
    EXPECT_EQ(pushed, c.pushed);
    EXPECT_EQ(plan.residual.size(), c.residual);
    CheckQuery(executor, oracle, bound.select, c.sql, false, false, c.sql, tally);
    const cpu_reference_test::OracleAnswer expected =
        oracle.Query(c.sql, {sql::ValueType::kInteger});
    EXPECT_EQ(CompareResults(expected.result, ExecuteOnCpu(bound.select)), "");
  }
  EXPECT_EQ(tally.failures, 0u);
  EXPECT_EQ(tally.supported, cases.size());
}

// Result columns read from the host table for a few rows of a column the
// device does not hold (QueryExecutor's GatherOnHost), and from the device:
// the host_gather option forces each path (the default takes the host one
// only on devices that copy tables, not on CPUs), after filters, joins,
// ORDER BY and LIMIT, for every column type, and with no row at all.
TEST_P(DeviceDifferentialTest, ResultColumnsGatheredOnTheHostOrTheDevice) {
  Catalog catalog;
  SqliteOracle oracle;
  LoadWisconsin(1000, catalog, oracle);
  const std::vector<std::pair<std::string, bool>> cases = {
      {"SELECT * FROM tenktup1 WHERE unique1 > 100 AND unique1 < 130 AND unique2 % 2 = 0", false},
      {"SELECT * FROM tenktup1 WHERE unique1 > 5000", false},
      {"SELECT t2.stringu1, t1.unique3, t1.* FROM tenktup1 t1, tenktup2 t2 WHERE "
       "t1.unique1 = t2.unique2 AND t2.unique1 < 12",
       false},
      {"SELECT string4, unique2, ten FROM tenktup1 WHERE two = 1 ORDER BY unique2 DESC LIMIT 7",
       true},
      {"SELECT unique1 + 1, stringu2 FROM tenktup1 WHERE ten = 3 AND unique2 < 200", false},
  };
  Tally tally;
  tally.lacks_fp64 = !engine().info().fp64;
  for (const char* setting : {"on", "off", "auto"}) {
    Options options;
    options.Set("host_gather", setting);
    engine().tables().Clear();
    QueryExecutor executor(engine(), options.query);
    for (const auto& [sql, ordered] : cases) {
      SCOPED_TRACE(std::string("host_gather=") + setting + ": " + sql);
      const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
      CheckQuery(executor, oracle, bound.select, sql, ordered, false, sql, tally);
    }
  }
  EXPECT_EQ(tally.failures, 0u);
  EXPECT_EQ(tally.supported, 3 * cases.size());
}

CLQ_INSTANTIATE_DEVICE_TESTS(DeviceDifferentialTest);

}  // namespace
}  // namespace clq::sql_test
