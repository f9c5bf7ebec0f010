// Runs a query's subqueries before it (sql::Subquery): each derived table's
// rows become a host table in place of its placeholder, each scalar
// subquery's value a constant. Both executors (the device's and the CPU
// reference) call this, each running the subqueries itself.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <string>

#include "operators/query_result.hpp"
#include "runtime/profiler.hpp"
#include "sql/bound.hpp"
#include "storage/table.hpp"

namespace clq {

using SelectRunner = std::function<QueryResult(const sql::BoundSelect&)>;

// The derived tables one statement has made, by their bound select: a select
// the binder shares between two places (sql/binder_internal.hpp) runs once.
using DerivedTables = std::map<const sql::BoundSelect*, TablePtr>;

// `select` with every subquery run by `run` and put in place; the copy has
// no subqueries left. A scalar subquery of more than one row is an
// InvalidInputError; of none, NULL. Building the derived tables is a host
// stage of `profiler` when one is given.
sql::BoundSelect MaterializeSubqueries(const sql::BoundSelect& select, const SelectRunner& run,
                                       std::uint64_t host_memory, Profiler* profiler = nullptr,
                                       DerivedTables* made = nullptr);

// A result as a table named `name`: INTEGER as INT64 (DATE as DATE, DECIMAL
// as DECIMAL), REAL as DOUBLE, TEXT as CHAR as wide as the result's text,
// a column of NULLs as INT32; NULLs kept in NULL maps. The table takes the
// result's memory where it can read it in place (no copy; pinned memory
// stays pinned), so a derived table of millions of rows costs no host pass.
TablePtr ResultTable(QueryResult&& result, const std::string& name,
                     const std::vector<std::string>& column_names, std::uint64_t host_memory);

}  // namespace clq
