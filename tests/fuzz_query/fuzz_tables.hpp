// Random tables for the query fuzzer. Every table has the same columns:
//   id INT32  unique, 0..rows-1 in random order (a join key that keeps joins small)
//   k  INT32  0..9 (a many-to-many join key, group key)
//   a  INT32  mostly -100..100; in a wild table also INT32's extremes
//   b  INT64  mostly -1000..1000; in a wild table also near INT64's extremes
//   d  DOUBLE quarters in -10..10 (sums stay exact in any order)
//   x  DOUBLE mostly halves; in a wild table also +-1e300, 1e-300, -0.0, 2^53 + 1
//   s  CHAR(3), t CHAR(8): short and long texts
// In a table with NULLs (null_rate > 0), each column but id is nullable at
// random, and each value of a nullable column is NULL with that chance
// (0.9 leaves columns nearly all NULL: empty aggregates, NULL join and group
// keys). More NULLs come from the queries (NULL literals, division by zero,
// NaN, empty aggregates).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/table.hpp"

namespace clq::fuzz_query {

struct TableShape {
  std::string name;
  RowCount rows = 0;
  bool wild = false;
  double null_rate = 0;  // 0: no NULL stored
};

// The table `shape` describes, with values drawn from `seed`.
TablePtr MakeFuzzTable(const TableShape& shape, std::uint64_t seed);

// Four tables for one round: t0 large (crossing several 1024-row tiles), t1
// medium, t2 small and wild, t3 empty or of one row.
std::vector<TableShape> RoundShapes(std::uint64_t seed);

}  // namespace clq::fuzz_query
