// Conjuncts that every branch of an OR shares, moved out of it:
// (A AND x) OR (A AND y) becomes A AND (x OR y), which holds in SQL's
// three-valued logic too. A join's equality written inside each branch (as
// TPC-H's Q19 writes p_partkey = l_partkey) then joins the tables instead of
// leaving a cross join. Only conjuncts that cannot raise are moved (no
// arithmetic or CAST), so no row raises that did not before.
#pragma once

#include "sql/bound.hpp"

namespace clq::sql {

// `condition` with each OR among its top-level conjuncts factored.
Expr FactorCommonConjuncts(Expr condition);

}  // namespace clq::sql
