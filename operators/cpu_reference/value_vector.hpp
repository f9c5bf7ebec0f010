// Typed columns of values computed by the CPU reference.
//
// The CPU reference evaluates expressions a column at a time: every
// expression over a batch of N rows (rows of a table, joined rows, groups)
// yields one ValueVector of N values of one SQL type, so the inner loops run
// over plain int64 / double / string_view arrays rather than a variant per
// value. A ValueVector owns its arrays; TEXT values are views into the
// storage of the tables of the BoundSelect, or into its string constants,
// which outlive the execution.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <string_view>
#include <vector>

#include "sql/bound.hpp"

namespace clq::cpu_reference {

// A row of a base table (clq tables hold fewer than 2^32 rows).
using RowIndex = std::uint32_t;
// The row of a LEFT JOIN's table where a kept row found no match: its
// columns read as NULL.
inline constexpr RowIndex kNoRow = 0xFFFFFFFFu;
// A position in an intermediate result (joined rows, groups, output rows),
// which may exceed 2^32 for large joins.
using Position = std::size_t;

// Rows per batch where the CPU reference evaluates a batch at a time
// (filters, join probes, aggregation): small enough that the intermediate
// vectors of an expression stay in cache, large enough to amortise the
// per-batch work.
inline constexpr std::size_t kBatchRows = 4096;

struct ValueVector {
  sql::ValueType type = sql::ValueType::kNull;
  std::vector<std::int64_t> integers;   // kInteger: one per row (0 where NULL)
  std::vector<double> reals;            // kReal: one per row (0 where NULL)
  std::vector<std::string_view> texts;  // kText: one per row (empty where NULL)
  std::vector<std::uint8_t> nulls;      // one per row, 1 = NULL; its size is the row count

  std::size_t size() const { return nulls.size(); }
  bool IsNull(std::size_t row) const { return nulls[row] != 0; }

  // `rows` values of `type`, all zero/empty and not NULL.
  static ValueVector Make(sql::ValueType type, std::size_t rows);
  // `rows` NULLs of `type` (kNull included).
  static ValueVector AllNull(sql::ValueType type, std::size_t rows);
};

// The values at `positions`, in that order.
ValueVector Gather(const ValueVector& values, std::span<const Position> positions);

// Appends row `row` of `from` to `to`. REQUIRES: the same type.
void AppendRow(ValueVector& to, const ValueVector& from, std::size_t row);

// INTEGER widened to REAL; REAL and kNull are returned unchanged.
ValueVector ToReal(const ValueVector& values);

// "NULL", "INTEGER", "REAL", "TEXT" (sql::ValueTypeName lives in the binder).
const char* TypeName(sql::ValueType type);

bool IsNumeric(sql::ValueType type);

}  // namespace clq::cpu_reference
