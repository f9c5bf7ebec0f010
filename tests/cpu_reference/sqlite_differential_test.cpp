// Differential test of the CPU reference against SQLite: random tables are
// loaded into both, random queries are built as a BoundSelect and as SQL
// from the same random choices, and the two answers must agree (as
// multisets unless ORDER BY fixes the order of every visible output; REAL
// within 1e-9 relative).
//
// CLQ_DIFF_SEED (default 20240611) and CLQ_DIFF_QUERIES (default 600) run
// other or more queries; a failure prints the seed, the query number and
// its SQL.
#include <gtest/gtest.h>

#include <cstdlib>
#include <iostream>
#include <string>

#include "operators/cpu_reference/cpu_executor.hpp"
#include "tests/cpu_reference/random_query.hpp"
#include "tests/cpu_reference/sqlite_oracle.hpp"

namespace clq::cpu_reference_test {
namespace {

std::uint64_t EnvOr(const char* name, std::uint64_t fallback) {
  const char* value = std::getenv(name);
  return value != nullptr && *value != '\0' ? std::strtoull(value, nullptr, 10) : fallback;
}

struct Tally {
  std::size_t queries = 0, ordered = 0, joined = 0, aggregated = 0, empty = 0, rows = 0;
};

TEST(SqliteDifferentialTest, RandomQueriesAgreeWithSqlite) {
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
  Tally tally;
  std::size_t failures = 0;
  for (std::uint64_t q = 0; q < queries && failures < 10; ++q) {
    const GeneratedQuery query = generator.Next();
    const std::string where =
        "seed " + std::to_string(seed) + ", query " + std::to_string(q) + ": " + query.sql;
    std::vector<sql::ValueType> types;
    for (std::size_t c = 0; c < query.select.visible_outputs; ++c)
      types.push_back(query.select.outputs[c].expr.type);
    const OracleAnswer expected = oracle.Query(query.sql, types);
    if (!expected.error.empty()) {
      ADD_FAILURE() << where << "\n  SQLite: " << expected.error;
      ++failures;
      continue;
    }
    QueryResult actual;
    try {
      actual = ExecuteOnCpu(query.select);
    } catch (const std::exception& e) {
      ADD_FAILURE() << where << "\n  CPU reference threw: " << e.what();
      ++failures;
      continue;
    }
    const std::string difference =
        CompareResults(expected.result, actual, {.ignore_row_order = !query.ordered});
    if (!difference.empty()) {
      ADD_FAILURE() << where << "\n  SQLite vs CPU: " << difference
                    << "\n  SQLite: " << Render(expected.result).substr(0, 400)
                    << "\n  CPU:    " << Render(actual).substr(0, 400);
      ++failures;
    }
    ++tally.queries;
    tally.ordered += query.ordered ? 1 : 0;
    tally.joined += query.joined ? 1 : 0;
    tally.aggregated += query.select.aggregated ? 1 : 0;
    tally.empty += actual.rows == 0 ? 1 : 0;
    tally.rows += actual.rows;
  }
  std::cout << "[ differential ] seed " << seed << ": " << tally.queries << " queries, "
            << tally.joined << " joins, " << tally.aggregated << " aggregated, " << tally.ordered
            << " compared in order, " << tally.empty << " empty, " << tally.rows
            << " rows in all\n";
  // The generator must produce results, not mostly empty sets.
  EXPECT_LT(tally.empty * 3, tally.queries);
}

}  // namespace
}  // namespace clq::cpu_reference_test
