// Structural comparison of bound expressions: same shape, operators, types,
// columns and constants, ignoring source positions. The binder uses it to
// deduplicate aggregates and to match expressions against GROUP BY keys and
// select-list outputs; the planner may use it to share common work.
#pragma once

#include "sql/bound.hpp"

namespace clq::sql {

bool StructurallyEqual(const Expr& a, const Expr& b);
bool StructurallyEqual(const Aggregate& a, const Aggregate& b);

// Whether the expression contains a node of this kind (e.g. kAggregateRef).
bool ContainsKind(const Expr& expr, Expr::Kind kind);

}  // namespace clq::sql
