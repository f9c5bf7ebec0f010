// A direct scan for the commonest selections, `column <op> constant` and
// `column [NOT] BETWEEN constant AND constant`, so that the selections of
// benchmarks run as one plain typed loop over the column instead of
// through the general column-at-a-time evaluator.
//
// It computes exactly what the general evaluator computes (same numeric
// promotion: INTEGER against INTEGER as int64, anything with REAL as
// double; TEXT bytewise without padding) and declines everything else,
// including NULL constants, which the general path handles.
#pragma once

#include <vector>

#include "operators/cpu_reference/cpu_join.hpp"
#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

// If `predicate` has a simple form, appends the positions of `rows` where it
// is true to `kept` and returns true; else returns false and leaves `kept`.
bool TrySimpleFilter(const std::vector<sql::TableRef>& from, const JoinedRows& rows,
                     const sql::Expr& predicate, std::vector<Position>& kept);

}  // namespace clq::cpu_reference
