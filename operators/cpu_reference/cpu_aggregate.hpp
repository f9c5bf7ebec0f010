// GROUP BY, aggregates and HAVING in the CPU reference.
//
// Without group keys there is exactly one group, even over no rows; with
// group keys, no rows give no groups. Groups come in the order of their
// first row. HAVING and the outputs of an aggregated query are evaluated
// over the groups (kGroupRef, kAggregateRef).
#pragma once

#include <cstddef>
#include <span>
#include <vector>

#include "operators/cpu_reference/cpu_join.hpp"
#include "operators/cpu_reference/expression_eval.hpp"
#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

struct GroupedRows {
  std::vector<ValueVector> keys;        // per group key, one value per group
  std::vector<ValueVector> aggregates;  // per aggregate, one value per group
  std::size_t groups = 0;
};

// Groups `rows` by select.group_keys and computes select.aggregates.
GroupedRows AggregateRows(const sql::BoundSelect& select, const JoinedRows& rows);

// A context that evaluates expressions over the groups (borrowing `groups`).
EvalContext ContextOf(const GroupedRows& groups);

// The groups where select.having is true (all of them without HAVING).
GroupedRows ApplyHaving(const sql::BoundSelect& select, GroupedRows groups);

}  // namespace clq::cpu_reference
