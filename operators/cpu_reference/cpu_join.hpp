// Joins in the CPU reference, over row-index tuples rather than copied values.
//
// JoinedRows is the result of a join in progress, stored by column: for each
// joined source (an index into BoundSelect::from), the table row of every
// joined row. Hash joins build on the table being added and probe with the
// rows joined so far; output comes in probe order and, within a probe row,
// in build-table order, so results are deterministic.
#pragma once

#include <cstddef>
#include <cstdint>
#include <span>
#include <vector>

#include "common/host_memory.hpp"
#include "operators/cpu_reference/expression_eval.hpp"
#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

struct JoinedRows {
  std::vector<std::size_t> sources;               // FROM indices, in join order
  std::vector<std::vector<RowIndex>> table_rows;  // parallel to sources, each `size` long
  std::size_t size = 0;

  // Every row of one table, in table order.
  static JoinedRows AllRowsOf(const std::vector<sql::TableRef>& from, std::size_t source);
};

// A context that evaluates expressions over `rows` (borrowing both arguments).
EvalContext ContextOf(const std::vector<sql::TableRef>& from, const JoinedRows& rows);
// The same over rows [begin, begin + count).
EvalContext ContextOf(const std::vector<sql::TableRef>& from, const JoinedRows& rows,
                      std::size_t begin, std::size_t count);

// The rows at `positions`, in that order.
JoinedRows SelectRows(const JoinedRows& rows, std::span<const Position> positions);

// The rows where `predicate` is true.
JoinedRows FilterRows(const std::vector<sql::TableRef>& from, const JoinedRows& rows,
                      const sql::Expr& predicate);

// One equality of a hash join: `joined_side` reads only sources already in
// the left input, `new_side` only the source being added; both are INTEGER
// or both TEXT.
struct JoinKey {
  const sql::Expr* joined_side = nullptr;
  const sql::Expr* new_side = nullptr;
};

// Joins `left` with `right` (rows of one source) on equality of every key
// (NULL keys never match). REQUIRES: keys not empty. The matches are held
// to `host_memory` (common/host_memory.hpp) as they grow, each growth
// checked before it is allocated, and the joined rows before they are
// composed: ResourceLimitError when they do not fit.
JoinedRows HashJoin(const std::vector<sql::TableRef>& from, const JoinedRows& left,
                    const JoinedRows& right, const std::vector<JoinKey>& keys,
                    std::uint64_t host_memory = kUnlimitedHostMemory);

// LEFT JOIN of `left` with `right` (rows of one source): each left row with
// every right row whose `keys` are equal (none: every right row) and where
// every one of `conditions` is true; a left row with no such right row is
// kept once, its right row kNoRow (its columns read as NULL). Left order,
// then right order. Held to `host_memory` as HashJoin is.
JoinedRows LeftJoin(const std::vector<sql::TableRef>& from, const JoinedRows& left,
                    const JoinedRows& right, const std::vector<JoinKey>& keys,
                    const std::vector<const sql::Expr*>& conditions,
                    std::uint64_t host_memory = kUnlimitedHostMemory);

// Every pair of a left row and a right row; ResourceLimitError, before
// anything is allocated, when they do not fit `host_memory`.
JoinedRows CrossJoin(const JoinedRows& left, const JoinedRows& right,
                     std::uint64_t host_memory = kUnlimitedHostMemory);

}  // namespace clq::cpu_reference
