// LIKE patterns: the matcher shared by the host evaluators (CPU reference,
// scalar evaluation) and the binder's rewrites of simple patterns.
//
// Semantics (case-sensitive, as in the SQL standard and DuckDB; SQLite with
// PRAGMA case_sensitive_like = ON): '%' matches any run of bytes, the empty
// one included, '_' exactly one byte, every other byte itself. No ESCAPE.
#pragma once

#include <optional>
#include <string>
#include <string_view>

namespace clq::sql {

// Whether `value` matches `pattern`. Greedy, with one backtrack point (the
// last '%' seen): O(|value| * |pattern|) at worst, never exponential.
bool LikeMatches(std::string_view value, std::string_view pattern);

// The pattern's text when it has no wildcard ('%' or '_'): LIKE is then `=`.
std::optional<std::string> LikeExactText(std::string_view pattern);

// P when the pattern is P followed by one or more '%' and P has no wildcard:
// LIKE is then `value >= P AND value < PrefixUpperBound(P)` (P may be empty).
std::optional<std::string> LikePrefix(std::string_view pattern);

// The least string greater than every string that starts with `prefix`:
// the prefix without its trailing 0xFF bytes, its last byte plus one; none
// when the prefix is empty or only 0xFF bytes (every string greater than or
// equal to it starts with it).
std::optional<std::string> PrefixUpperBound(std::string_view prefix);

}  // namespace clq::sql
