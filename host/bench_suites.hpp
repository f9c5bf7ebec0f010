// The query suites of `clq bench`, as data: each query is SQL text for a
// Wisconsin scale of N rows, plus the size of tenktup2 it expects.
//
//   thesis     Hristov (2010), listings 2, 7, 8, 11, 13, 14 and the REAL
//              variant of 14, over tenktup1 (N rows) and tenktup2 (0.6 N rows,
//              as in the thesis's joins). The thesis kept the constants of
//              listings 8 and 13 (1000, 6000) at every size; so do we, so that
//              the numbers compare with its tables (at N = 1000 listing 8
//              selects no row).
//   wisconsin  DeWitt (1993): the 1% and 10% range selections on unique2,
//              joinAselB, joinABprime, joinCselAselB, MIN(unique2), MIN and
//              SUM grouped by onePercent (the "hundred" column), and the 1%
//              and 100% DISTINCT projections, every constant scaled with N so
//              that selectivities match the 10K-row original.
//   general    shapes beyond both: GROUP BY over 10, 1K and up to 1M groups,
//              filtered aggregates, filter + GROUP BY + ORDER BY, joins with
//              aggregates or GROUP BY on top, a three-way and a many-to-many
//              join, top-k, DISTINCT, OR / NOT / IN, REAL arithmetic, HAVING
//              (default 1M rows).
//   tpch       the 22 TPC-H queries of tests/tpch/queries (embedded at build
//              time), ids Q1 .. Q22, over the tables of a directory of clq
//              table files (scripts/tpch_data.sh); no size of its own.
//
// Pure data; thread-safe.
#pragma once

#include <string>
#include <string_view>
#include <vector>

#include "wisconsin/sequence.hpp"

namespace clq {

struct BenchQuery {
  std::string suite;  // "thesis", "wisconsin", "general" or "tpch"
  std::string id;     // short, unique within the suite: "L8_selection"
  std::string title;  // what it measures: "selection, 4 predicates, SELECT *"
  std::string sql;
  // Rows of tenktup2 as a fraction of N: 0.6 for the thesis queries (the
  // bench catalog then generates tenktup2 as a Wisconsin relation of its own
  // with floor(0.6 N) rows), 1 otherwise (tenktup2 is tenktup1's data).
  double tenktup2_fraction = 1.0;
};

// "thesis", "wisconsin", "general", "tpch" and "all" (every suite but tpch).
const std::vector<std::string>& BenchSuiteNames();

// The queries of `suite` ("all": thesis, wisconsin, general) for N rows (tpch:
// whatever N; its tables come from files). Throws
// InvalidInputError naming the suites for an unknown name.
std::vector<BenchQuery> BenchQueries(std::string_view suite, RowCount n);

// The sizes a suite runs at when --rows is not given: thesis 1K, 10K, 100K,
// 1M (the thesis's sizes); the others 1M.
std::vector<RowCount> DefaultBenchRows(std::string_view suite);

// Rows of tenktup2 for a scale of N and a fraction (floor, at least 1 when N > 0).
RowCount Tenktup2Rows(RowCount n, double fraction);

}  // namespace clq
