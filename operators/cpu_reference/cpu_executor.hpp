// The CPU reference of clq: executes a bound SELECT over host tables with
// plain single-threaded loops, one operator at a time.
//
// It is the oracle that device results are checked against (besides
// SQLite) and the "CPU" column of benchmarks, so it favours obvious
// correctness over speed while avoiding gratuitous cost: expressions are
// evaluated a column at a time over typed arrays, in batches of kBatchRows
// rows where the values need not be kept (filters, join probes,
// aggregation); `column <op> constant` selections run as one typed loop
// (cpu_simple_filter.hpp); joins keep row-index tuples; hashing uses flat
// open-addressing tables. Single-threaded.
//
// Pipeline: FROM/WHERE (per-table filters, hash joins on equalities, cross
// products otherwise; cpu_from_where.hpp) -> GROUP BY, aggregates, HAVING
// (cpu_aggregate.hpp) -> outputs -> DISTINCT over the visible outputs ->
// ORDER BY (stable) -> OFFSET/LIMIT -> the visible outputs as a QueryResult.
// An output that neither DISTINCT nor ORDER BY needs is evaluated on the rows
// OFFSET/LIMIT keep only, as on the devices (cpu_executor.cpp says exactly
// which), so that both raise an overflow on the same queries.
//
// Row order without ORDER BY: table order for a query over one table that is
// not aggregated; otherwise deterministic but unspecified (join: probe order,
// then build order; groups: order of their first row).
//
// Errors: an integer overflow anywhere is InvalidInputError("integer
// overflow"); TEXT where a number is needed is InvalidInputError; a join's
// matched rows or the rows' outputs that would pass `host_memory` with what
// tables hold are ResourceLimitError (common/host_memory.hpp), checked
// before they are allocated (a hash join's as its matches grow); a
// BoundSelect that breaks the contract of bound.hpp is InternalError.
// Thread-safety: none needed; the call only reads `select` and its tables.
#pragma once

#include <cstdint>

#include "common/host_memory.hpp"
#include "operators/query_result.hpp"
#include "sql/bound.hpp"

namespace clq {

QueryResult ExecuteOnCpu(const sql::BoundSelect& select,
                         std::uint64_t host_memory = kUnlimitedHostMemory);

}  // namespace clq
