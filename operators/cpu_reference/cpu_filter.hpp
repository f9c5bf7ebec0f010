// Selection in the CPU reference: WHERE split into conjuncts, the sources a
// predicate reads, and the rows a predicate keeps.
//
// A row is kept when the predicate is true: not NULL and non-zero (SQLite's
// truthiness), as in WHERE and HAVING.
#pragma once

#include <cstddef>
#include <vector>

#include "operators/cpu_reference/value_vector.hpp"
#include "sql/bound.hpp"

namespace clq::cpu_reference {

// Appends the operands of nested ANDs (the whole expression when it is no AND).
// Pointers borrow from `expr`.
void SplitConjuncts(const sql::Expr& expr, std::vector<const sql::Expr*>& conjuncts);

// The FROM indices the kColumnRefs of `expr` read, sorted, each once.
std::vector<std::size_t> ReferencedSources(const sql::Expr& expr);

// Positions where `predicate` is true. A TEXT predicate is an InvalidInputError.
std::vector<Position> TruePositions(const ValueVector& predicate);
// Appends offset + i for every row i where `predicate` is true.
void AppendTruePositions(const ValueVector& predicate, Position offset,
                         std::vector<Position>& kept);

}  // namespace clq::cpu_reference
