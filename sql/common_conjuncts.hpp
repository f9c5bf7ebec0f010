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

// `condition` (a WHERE) and, after it, the conjuncts each OR among its
// top-level conjuncts implies of one source: where every branch of an OR
// over several sources has conjuncts that read only source s, the OR of
// those conjunctions (one per branch) holds wherever the OR does.
//   (n1.name = 'FRANCE' AND n2.name = 'GERMANY') OR
//   (n1.name = 'GERMANY' AND n2.name = 'FRANCE')
// implies n1.name = 'FRANCE' OR n1.name = 'GERMANY', and the same of n2;
// the planner filters each source by its own before the joins (TPC-H Q7,
// Q19), and the OR stays to decide the rows. A WHERE keeps only the rows
// where it is true, so a conjunct true wherever the OR is changes no
// answer. Only conjuncts that cannot raise are used: they run on rows the
// joins would have dropped. Only sources the WHERE does not filter by a
// conjunct of their own get one: elsewhere it would refine a filter at a
// second test per row.
Expr AddImpliedSourceConjuncts(Expr condition);

}  // namespace clq::sql
