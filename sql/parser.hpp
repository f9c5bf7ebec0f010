// The SQL parser: one statement's text to its syntax tree (ast.hpp).
//
// Grammar (keywords case-insensitive):
//   [EXPLAIN] SELECT [DISTINCT | ALL] item, ...
//     [FROM table [[AS] alias] {, table [[AS] alias] | [INNER] JOIN table [[AS] alias] ON expr}]
//     [WHERE expr] [GROUP BY expr, ...] [HAVING expr]
//     [ORDER BY expr [ASC | DESC], ...] [LIMIT n [OFFSET m] | LIMIT m, n] [;]
// with SQLite's operator precedence, lowest first: OR; AND; NOT; = == != <>
// IS IN BETWEEN; < <= > >=; + -; * / %; unary - +.
//
// Constructs outside this subset (subqueries, outer joins, set operations,
// CASE, LIKE, window functions, ...) are rejected with a SqlError naming the
// construct and pointing at it, not with a bare syntax error.
//
// Nesting is bounded (kMaxExpressionDepth for parentheses, unary operators
// and function calls; kMaxExpressionHeight for the height of the tree, which
// long chains such as a AND b AND ... also grow), so no input can exhaust the
// stack, here or in code that later recurses over the tree.
#pragma once

#include <cstddef>
#include <string_view>

#include "sql/ast.hpp"

namespace clq::sql {

inline constexpr std::size_t kMaxExpressionDepth = 200;
inline constexpr std::size_t kMaxExpressionHeight = 1000;

// Parses one statement (an optional trailing ';' is allowed). Throws SqlError
// with the byte offset into `sql` of the offending token.
ast::Statement Parse(std::string_view sql);

}  // namespace clq::sql
