// Shrinks a failing query by delta debugging over its parts: drops DISTINCT,
// LIMIT, ORDER BY terms, HAVING and WHERE conjuncts, GROUP BY keys, select
// items and joined tables, replaces expressions by their operands or by
// small constants, and shrinks constants, keeping each step only while the
// query still fails the same way. Steps that would let LIMIT keep arbitrary
// rows (an output not covered by ORDER BY) are not tried.
#pragma once

#include <cstddef>
#include <functional>

#include "tests/fuzz_query/query_ast.hpp"

namespace clq::fuzz_query {

// `still_fails` says whether a candidate fails the same way. At most
// `max_checks` calls; returns the smallest query found.
Query Shrink(const Query& failing, const std::function<bool(const Query&)>& still_fails,
             std::size_t max_checks);

}  // namespace clq::fuzz_query
