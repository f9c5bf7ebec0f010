// The binder: resolves a parsed statement's names against the catalog, types
// every expression, and reshapes it into the BoundStatement the planner takes
// (bound.hpp: aggregates and group keys pulled out, ORDER BY as output
// references, JOIN conditions folded into WHERE).
//
// Name rules (documented choices where SQL leaves room):
//  - Unqualified columns are searched in every FROM table; a name found in
//    two is ambiguous. An ON condition sees only the tables joined so far.
//  - Output aliases (explicit AS names) are visible in GROUP BY, HAVING and
//    ORDER BY, as in SQLite, but never in WHERE or ON. A column of a FROM
//    table takes precedence over an alias of the same name, except for an
//    ORDER BY term that is exactly an alias, which names that output (as the
//    SQL standard has it).
//  - An integer literal as a whole GROUP BY or ORDER BY term is a 1-based
//    position in the select list.
//  - Output names: the alias; else the column's name as the catalog spells
//    it for a plain (possibly parenthesised or qualified) column; else the
//    expression's SQL text exactly as written.
//
// Type rules (SQLite's, with TEXT kept apart from numbers): arithmetic is
// INTEGER when both operands are, else REAL; an operand of type NULL (the
// NULL literal) makes the result NULL-typed, and the same for unary minus
// and SUM/MIN/MAX/MEDIAN/QUANTILE of a NULL-typed argument (COUNT stays
// INTEGER, AVG REAL). Comparisons, logic, BETWEEN, IN and IS NULL are
// INTEGER. TEXT compares only with TEXT (or NULL); arithmetic, logic and
// CAST on TEXT are errors. A minus sign before a numeric literal is folded
// into the constant (-9223372036854775808 is INTEGER, as in SQLite). CASE
// takes CaseResultType of its branches (binder_internal.hpp); LIKE is
// INTEGER, its left side TEXT, its pattern a string literal.
//
// Tables are only materialised (Catalog::Get) once the whole statement has
// bound without error, so a typo never generates a large table.
#pragma once

#include <string_view>

#include "sql/ast.hpp"
#include "sql/bound.hpp"
#include "storage/catalog.hpp"

namespace clq::sql {

// Binds `statement`, parsed from `sql_text` (which becomes the result's
// text, and supplies output names). Throws SqlError with a byte offset into
// `sql_text` for semantic errors.
BoundStatement Bind(const ast::Statement& statement, Catalog& catalog, std::string_view sql_text);

}  // namespace clq::sql
