#include "host/bench_suites.hpp"

#include <cctype>
#include <cmath>

#include "common/errors.hpp"
#include "host/tpch_queries.hpp"

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

// Shapes beyond the thesis's (issue "One physical plan..."): grouping at
// three group counts, filtered aggregates, joins with aggregates on top,
// top-k, DISTINCT, boolean filters, REAL arithmetic and HAVING. Constants
// scale with N where a selectivity should not.
std::vector<BenchQuery> GeneralQueries(RowCount n) {
  const std::string half = std::to_string(n / 2);
  const std::string group_rows = std::to_string(n / 100 / 2);  // half a onepercent group
  return {
      {"general", "G1_group10", "GROUP BY ten (10 groups): COUNT, SUM, MIN, MAX",
       "SELECT ten, COUNT(*), SUM(unique1), MIN(unique2), MAX(unique2) FROM tenktup1 GROUP BY ten",
       1.0},
      {"general", "G2_group1k", "GROUP BY unique1 % 1000 (1K groups): COUNT, SUM",
       "SELECT unique1 % 1000 AS g, COUNT(*), SUM(unique2) FROM tenktup1 GROUP BY g", 1.0},
      {"general", "G3_group1m", "GROUP BY unique1 % 1000000 (up to 1M groups): COUNT, MAX",
       "SELECT unique1 % 1000000 AS g, COUNT(*), MAX(unique2) FROM tenktup1 GROUP BY g", 1.0},
      {"general", "G4_filter_aggs", "filter + five aggregates",
       "SELECT COUNT(*), SUM(unique2), MIN(unique1), MAX(unique1), AVG(ten) FROM tenktup1 "
       "WHERE unique1 < " +
           half + " AND two = 0",
       1.0},
      {"general", "G5_filter_group_order", "filter + GROUP BY (100 groups) + ORDER BY",
       "SELECT onepercent, COUNT(*), SUM(unique1) AS s FROM tenktup1 WHERE unique2 < " + half +
           " GROUP BY onepercent ORDER BY s DESC",
       1.0},
      {"general", "G6_join_agg", "join + filter + SUM",
       "SELECT COUNT(*), SUM(a.unique2) FROM tenktup1 a JOIN tenktup2 b ON a.unique1 = b.unique1 "
       "WHERE b.ten = 3",
       1.0},
      {"general", "G7_join_group", "join + GROUP BY (10 groups)",
       "SELECT b.ten, COUNT(*), SUM(a.unique2) FROM tenktup1 a JOIN tenktup2 b "
       "ON a.unique1 = b.unique2 GROUP BY b.ten",
       1.0},
      {"general", "G8_join3", "three-way join + aggregates",
       "SELECT COUNT(*), SUM(c.unique1), MAX(b.unique1) FROM onektup c JOIN tenktup1 a "
       "ON c.unique1 = a.unique1 JOIN tenktup2 b ON a.unique2 = b.unique2",
       1.0},
      {"general", "G9_join_m2m", "many-to-many join (duplicate keys both sides), counted",
       "SELECT COUNT(*) FROM onektup a JOIN tenktup2 b ON a.onepercent = b.onepercent "
       "WHERE a.unique2 < 100",
       1.0},
      {"general", "G10_topk", "ORDER BY unique1 DESC LIMIT 10",
       "SELECT unique1, unique2 FROM tenktup1 ORDER BY unique1 DESC LIMIT 10", 1.0},
      {"general", "G11_distinct", "DISTINCT of two columns (100 rows)",
       "SELECT DISTINCT twenty, onepercent FROM tenktup1", 1.0},
      {"general", "G12_or_not_in", "OR / NOT / IN filter, COUNT",
       "SELECT COUNT(*) FROM tenktup1 WHERE (ten = 3 OR twenty = 7) AND "
       "NOT onepercent IN (1, 5, 9, 13, 17)",
       1.0},
      {"general", "G13_real", "REAL arithmetic: SUM and AVG under a filter",
       "SELECT SUM(unique1 * 1.5 + unique2 / 3.0), AVG(unique2 * 0.25) FROM tenktup1 "
       "WHERE ten < 5",
       1.0},
      {"general", "G14_having", "GROUP BY (100 groups) + HAVING",
       "SELECT onepercent, SUM(unique1) FROM tenktup1 GROUP BY onepercent "
       "HAVING COUNT(*) > " +
           group_rows + " AND SUM(unique1) > " + std::to_string(n / 200 * (n / 2)),
       1.0},
      {"general", "G15_group_real", "GROUP BY ten with REAL AVG and SUM",
       "SELECT ten, AVG(unique1 * 0.5), SUM(unique2 / 7.0) FROM tenktup1 GROUP BY ten", 1.0},
      {"general", "G16_topk_filter", "filter + ORDER BY two keys LIMIT 100",
       "SELECT unique2, unique1 FROM tenktup1 WHERE ten = 5 ORDER BY twenty, unique1 LIMIT 100 ",
       1.0},
  };
}

// The TPC-H queries as tests/tpch/queries writes them: id "Q1" for q01.sql,
// the title from its first line ("-- TPC-H Q1, pricing summary report
// (...)"), the SQL without its final ';'.
std::vector<BenchQuery> TpchQueries() {
  std::vector<BenchQuery> queries;
  for (const TpchQueryText& text : TpchQueryTexts()) {
    const std::string_view name = text.name;
    std::string sql = text.sql;
    while (!sql.empty() &&
           (std::isspace(static_cast<unsigned char>(sql.back())) != 0 || sql.back() == ';'))
      sql.pop_back();
    std::string title;
    const std::string_view first_line = std::string_view(sql).substr(0, sql.find('\n'));
    const std::size_t comma = first_line.find(", ");
    if (first_line.starts_with("--") && comma != std::string_view::npos)
      title = first_line.substr(comma + 2, first_line.find(" (") - comma - 2);
    const std::size_t digits = name.find_first_not_of("q0");
    queries.push_back(
        {"tpch", "Q" + std::string(name.substr(digits)), std::move(title), std::move(sql), 1.0});
  }
  return queries;
}

}  // namespace

const std::vector<std::string>& BenchSuiteNames() {
  static const std::vector<std::string> names{"thesis", "wisconsin", "general", "tpch", "all"};
  return names;
}

std::vector<BenchQuery> BenchQueries(std::string_view suite, RowCount n) {
  if (suite == "thesis") return ThesisQueries();
  if (suite == "wisconsin") return WisconsinQueries(n);
  if (suite == "general") return GeneralQueries(n);
  if (suite == "tpch") return TpchQueries();
  if (suite == "all") {
    std::vector<BenchQuery> queries = ThesisQueries();
    for (BenchQuery& q : WisconsinQueries(n))
      queries.push_back(std::move(q));
    for (BenchQuery& q : GeneralQueries(n))
      queries.push_back(std::move(q));
    return queries;
  }
  throw InvalidInputError("unknown suite '" + std::string(suite) +
                          "' (choose thesis, wisconsin, general, tpch or all)");
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
