// Shared pieces of the operator tests: random tables and running one
// expression over them.
#pragma once

#include <cstdint>
#include <limits>
#include <numeric>
#include <optional>
#include <random>
#include <string>
#include <vector>

#include "operators/cpu_reference/expression_eval.hpp"
#include "operators/device_program.hpp"
#include "operators/projection.hpp"
#include "operators/query_context.hpp"
#include "operators/relation.hpp"
#include "storage/table.hpp"

namespace clq::testing {

// Columns: a INT32, b INT64, c DOUBLE, s CHAR(8). Values are random with the
// edge values (0, -1, the type's extremes) sprinkled in when `extremes`.
inline TablePtr RandomTable(RowCount rows, std::uint32_t seed, bool extremes = true,
                            std::int32_t int_range = 1000) {
  Schema schema{{"a", ColumnType::Int32()},
                {"b", ColumnType::Int64()},
                {"c", ColumnType::Double()},
                {"s", ColumnType::Char(8)}};
  TableBuilder builder("t", schema, rows);
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<std::int32_t> small(-int_range, int_range);
  std::uniform_int_distribution<int> pick(0, 15);
  auto* a = builder.column_values<std::int32_t>(0);
  auto* b = builder.column_values<std::int64_t>(1);
  auto* c = builder.column_values<double>(2);
  const std::int32_t int32_edges[] = {0, -1, 1, std::numeric_limits<std::int32_t>::min(),
                                      std::numeric_limits<std::int32_t>::max()};
  const std::int64_t int64_edges[] = {0, -1, 1, std::numeric_limits<std::int64_t>::min(),
                                      std::numeric_limits<std::int64_t>::max()};
  for (RowCount i = 0; i < rows; ++i) {
    const int p = pick(rng);
    a[i] = (extremes && p == 0) ? int32_edges[rng() % 5] : small(rng);
    b[i] = (extremes && p == 1) ? int64_edges[rng() % 5] : small(rng) * 1000003LL;
    c[i] = static_cast<double>(small(rng)) / 7.0;
    std::string text;
    const int length = static_cast<int>(rng() % 9);
    for (int j = 0; j < length; ++j)
      text += static_cast<char>('a' + rng() % 3);
    builder.SetString(3, i, text);
  }
  return builder.Finish();
}

inline ColumnMapper IdentityMapper() {
  return [](std::size_t, std::size_t column) { return column; };
}

struct ProjectedValues {
  std::vector<std::int64_t> values;  // int64 or double bits
  std::vector<std::uint8_t> nulls;   // one per row (0 when the entry cannot be NULL)
};

// Evaluates `expr` over every row of `table` on the device.
inline ProjectedValues ProjectOnDevice(Engine& engine, const TablePtr& table, const sql::Expr& expr,
                                       const QueryOptions& options = {}) {
  TableRelation relation(engine, table);
  ExpressionProgram program(relation.columns(), IdentityMapper());
  const std::size_t entry = program.AddValue(expr);
  QueryContext context(engine, options);
  DeviceProgram device_program(engine, program, options);
  DeviceVector out = Project(context, relation, device_program, entry);
  context.CheckStatus();
  ProjectedValues result;
  if (out.type == ColumnType::Int32()) {
    // Narrowed by the compiler's range proof: every value must fit.
    for (const std::int32_t v : DownloadValues<std::int32_t>(engine, out))
      result.values.push_back(v);
  } else {
    result.values = DownloadValues<std::int64_t>(engine, out);
  }
  result.nulls = DownloadNulls(engine, out);
  return result;
}

// Evaluates `expr` over every row of `table` with the CPU reference (the
// oracle of the device's projections).
inline cpu_reference::ValueVector EvaluateOnCpu(const TablePtr& table, const sql::Expr& expr) {
  std::vector<sql::TableRef> from = {{table, "t"}};
  std::vector<cpu_reference::RowIndex> rows(table->rows());
  std::iota(rows.begin(), rows.end(), cpu_reference::RowIndex{0});
  cpu_reference::EvalContext context;
  context.rows = table->rows();
  context.from = &from;
  context.table_rows.push_back(std::span<const cpu_reference::RowIndex>(rows));
  return cpu_reference::Evaluate(expr, context);
}

}  // namespace clq::testing
