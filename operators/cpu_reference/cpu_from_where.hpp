// The FROM and WHERE clauses in the CPU reference: the cross product of the
// FROM tables filtered by WHERE, computed without forming the product.
//
// WHERE is split into AND-conjuncts. Conjuncts that read one table (or none:
// those go with the first table) filter that table first. Tables are then
// joined one at a time, starting with the first: next comes the first
// remaining table that an equality conjunct connects to the tables joined so
// far (each side reading exactly one table, both sides INTEGER or both
// TEXT), joined by hashing on all such equalities; a table that no equality
// connects is joined by cross product. Every other conjunct is applied as
// soon as the tables it reads are joined. For one table the result keeps
// table order.
#pragma once

#include "operators/cpu_reference/cpu_join.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

// The rows of select.from satisfying select.where. An empty FROM yields one
// row over no tables (which WHERE may remove). Joins hold their matched
// rows to `host_memory` (cpu_join.hpp).
JoinedRows EvaluateFromWhere(const sql::BoundSelect& select, std::uint64_t host_memory);

}  // namespace clq::cpu_reference
