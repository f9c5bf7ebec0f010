// CASE, LIKE and SUBSTRING for the CPU reference's expression evaluation
// (expression_eval.hpp).
//
// CASE is evaluated lazily, as SQLite does: each WHEN condition only over
// the rows no earlier condition took, each THEN value and the ELSE only over
// the rows that choose it, so a branch a row does not take raises nothing
// (integer overflow) for that row.
#pragma once

#include "operators/cpu_reference/expression_eval.hpp"

namespace clq::cpu_reference {

// REQUIRES: expr.kind == kCase (children c1, v1, ..., else).
ValueVector EvaluateCase(const sql::Expr& expr, const EvalContext& context);

// REQUIRES: expr.kind == kLike.
ValueVector EvaluateLike(const sql::Expr& expr, const EvalContext& context);

// SUBSTRING of each value (sql/substring.hpp): views into the same storage.
// REQUIRES: expr.kind == kSubstring.
ValueVector EvaluateSubstring(const sql::Expr& expr, const EvalContext& context);

}  // namespace clq::cpu_reference
