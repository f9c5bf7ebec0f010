// SQL text of constants, shared by the AST and bound-expression printers
// (ToString, EXPLAIN): 42, 1.5, 1.0e+30, 'it''s', NULL.
#pragma once

#include <string>

#include "sql/bound.hpp"

namespace clq::sql {

// Shortest text that reads back as the same double, always recognisable as
// REAL ("1.0", not "1"); "Inf", "-Inf" and "NaN" for the non-finite values.
std::string FormatReal(double value);

// The value as a SQL literal: integers and reals as above, text in single
// quotes with quotes doubled, NULL as NULL.
std::string SqlLiteral(const Value& value);

}  // namespace clq::sql
