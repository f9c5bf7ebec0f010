#include "host/bench_suites.hpp"

#include <cmath>

#include "runtime/errors.hpp"

namespace clq {
namespace {

constexpr double kThesisTenktup2Fraction = 0.6;

std::vector<BenchQuery> ThesisQueries() {
  const double f = kThesisTenktup2Fraction;
  return {
      {"thesis", "L2_projection", "projection unique1 + unique2",
       "SELECT unique1 + unique2 AS summation FROM tenktup1", 1.0},
      {"thesis", "L7_avg", "AVG(unique1)", "SELECT AVG(unique1) AS average FROM tenktup1", 1.0},
      {"thesis", "L8_selection", "selection, 4 predicates, SELECT *",
       "SELECT * FROM tenktup1 WHERE unique1 > 1000 AND unique1 < 6000 AND unique2 % 2 = 0 AND "
       "two = 0",
       1.0},
      {"thesis", "L11_join", "equi-join on unique1, SELECT *",
       "SELECT * FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 = t2.unique1", f},
      {"thesis", "L13_combined", "selection + join + MAX",
       "SELECT MAX(t1.unique1 * t1.tenpercent / 100) FROM tenktup1 t1, tenktup2 t2 WHERE "
       "t1.unique1 = t2.unique2 AND t1.unique1 < 6000 AND t2.unique2 > 1000",
       f},
      {"thesis", "L14_max", "MAX of an integer expression",
       "SELECT MAX(unique1 * tenpercent / 100) AS max_value FROM tenktup1", 1.0},
      {"thesis", "L14_max_real", "MAX of a REAL expression",
       "SELECT MAX(unique1 / (0.173 + onepercent)) FROM tenktup1", 1.0},
  };
}

std::vector<BenchQuery> WisconsinQueries(RowCount n) {
  // DeWitt's constants are for N = 10,000; scale them so selectivities match.
  const auto scaled = [n](RowCount at_10k) { return std::to_string(at_10k * n / 10000); };
  const RowCount one_percent = n / 100;
  const RowCount ten_percent = n / 10;
  const RowCount start_10 = 792 * n / 10000;
  const auto upper = [](RowCount start, RowCount count) {
    return std::to_string(count == 0 ? start : start + count - 1);
  };
  const std::string all_columns =
      "two, four, ten, twenty, onepercent, tenpercent, twentypercent, fiftypercent, unique3, "
      "evenonepercent, oddonepercent, stringu1, stringu2, string4";
  return {
      {"wisconsin", "sel1pct", "1% range selection on unique2",
       "SELECT * FROM tenktup1 WHERE unique2 BETWEEN 0 AND " + upper(0, one_percent), 1.0},
      {"wisconsin", "sel10pct", "10% range selection on unique2",
       "SELECT * FROM tenktup1 WHERE unique2 BETWEEN " + std::to_string(start_10) + " AND " +
           upper(start_10, ten_percent),
       1.0},
      {"wisconsin", "joinAselB", "join with a 10% selection on one side",
       "SELECT * FROM tenktup1 a, tenktup2 b WHERE a.unique2 = b.unique2 AND b.unique2 < " +
           scaled(1000),
       1.0},
      {"wisconsin", "joinABprime", "join with bprime (N/10 rows)",
       "SELECT * FROM tenktup1 a, bprime b WHERE a.unique2 = b.unique2", 1.0},
      {"wisconsin", "joinCselAselB", "three-way join onektup, tenktup1, tenktup2",
       "SELECT * FROM onektup c, tenktup1 a, tenktup2 b WHERE c.unique2 = a.unique2 AND "
       "a.unique2 = b.unique2 AND a.unique2 < " +
           scaled(1000),
       1.0},
      {"wisconsin", "min", "scalar MIN(unique2)", "SELECT MIN(unique2) FROM tenktup1", 1.0},
      {"wisconsin", "min_group", "MIN(unique3) grouped by onePercent",
       "SELECT onepercent, MIN(unique3) FROM tenktup1 GROUP BY onepercent", 1.0},
      {"wisconsin", "sum_group", "SUM(unique3) grouped by onePercent",
       "SELECT onepercent, SUM(unique3) FROM tenktup1 GROUP BY onepercent", 1.0},
      {"wisconsin", "distinct1pct", "DISTINCT projection, 1% of the rows distinct",
       "SELECT DISTINCT two, four, ten, twenty, onepercent, string4 FROM tenktup1", 1.0},
      {"wisconsin", "distinct100pct", "DISTINCT projection, every row distinct (onektup)",
       "SELECT DISTINCT " + all_columns + " FROM onektup", 1.0},
  };
}

}  // namespace

const std::vector<std::string>& BenchSuiteNames() {
  static const std::vector<std::string> names{"thesis", "wisconsin", "all"};
  return names;
}

std::vector<BenchQuery> BenchQueries(std::string_view suite, RowCount n) {
  if (suite == "thesis") return ThesisQueries();
  if (suite == "wisconsin") return WisconsinQueries(n);
  if (suite == "all") {
    std::vector<BenchQuery> queries = ThesisQueries();
    for (BenchQuery& q : WisconsinQueries(n))
      queries.push_back(std::move(q));
    return queries;
  }
  throw InvalidInputError("unknown suite '" + std::string(suite) +
                          "' (choose thesis, wisconsin or all)");
}

std::vector<RowCount> DefaultBenchRows(std::string_view suite) {
  if (suite == "thesis") return {1000, 10000, 100000, 1000000};
  return {1000000};
}

RowCount Tenktup2Rows(RowCount n, double fraction) {
  if (fraction >= 1.0) return n;
  const auto rows = static_cast<RowCount>(std::floor(static_cast<double>(n) * fraction));
  return n > 0 && rows == 0 ? 1 : rows;
}

}  // namespace clq
