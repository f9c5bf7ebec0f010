// Evaluation of bound expressions by the CPU reference, a column at a time.
//
// Evaluate() computes one expression for every row of a batch and returns a
// ValueVector of the expression's declared type (Expr::type). The batch is
// described by an EvalContext: for kColumnRef, the row of each source table
// for every batch row; for kGroupRef / kAggregateRef, the group key and
// aggregate values of every batch row (a batch of groups). The context only
// borrows what it points to.
//
// Semantics (SQLite's where they overlap, clq's own where SQLite would leave
// 64-bit integers): see expression_arith.hpp and expression_logic.hpp. Every
// subexpression is evaluated for every row of the batch (no short-circuit),
// so an integer overflow in any row raises InvalidInputError("integer
// overflow") even where AND/OR would not need the value; CASE alone is lazy
// (expression_case.hpp).
#pragma once

#include <cstddef>
#include <optional>
#include <span>
#include <vector>

#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

struct EvalContext {
  std::size_t rows = 0;  // rows in the batch
  // kColumnRef: the FROM list, and for each of its sources the table row of
  // every batch row (nullopt for a source that this batch does not cover).
  const std::vector<sql::TableRef>* from = nullptr;
  std::vector<std::optional<std::span<const RowIndex>>> table_rows;
  // kGroupRef / kAggregateRef: one value per batch row each.
  const std::vector<ValueVector>* group_keys = nullptr;
  const std::vector<ValueVector>* aggregates = nullptr;
};

// REQUIRES: every reference in `expr` is covered by `context` (else InternalError).
ValueVector Evaluate(const sql::Expr& expr, const EvalContext& context);

// The SQL type of a stored column type (INT32/INT64 -> INTEGER, DOUBLE ->
// REAL, CHAR -> TEXT).
sql::ValueType ColumnValueType(ColumnType type);

}  // namespace clq::cpu_reference
