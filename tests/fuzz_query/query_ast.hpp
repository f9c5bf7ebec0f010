// The query fuzzer's own syntax tree: just enough structure to render SQL
// text and to shrink a failing query part by part (tests/fuzz_query/
// shrink.hpp). Both clq and SQLite read the rendered text, so the tree
// carries no types; the generator keeps its queries well typed.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace clq::fuzz_query {

struct Expr {
  enum class Kind : std::uint8_t {
    kLeaf,     // text: a column, a constant, an output position in ORDER BY
    kPrefix,   // text kids[0]: "-", "NOT "
    kPostfix,  // kids[0] text: " IS NULL"
    kBinary,   // (kids[0] text kids[1])
    kBetween,  // (kids[0] [NOT ]BETWEEN kids[1] AND kids[2]); text: "" or "NOT "
    kIn,       // (kids[0] [NOT ]IN (kids[1..])); text: "" or "NOT "
    kCall,     // text(kids, ...): COUNT, SUM, ...; COUNT(*) has no kid
    kCast,     // CAST(kids[0] AS text)
    // CASE [kids[0]] WHEN kids[i] THEN kids[i + 1] ... [ELSE kids.back()] END;
    // text holds 'S' when kids[0] is the operand, 'E' when there is an ELSE
    kCase,
    kLike,  // (kids[0] [NOT ]LIKE kids[1]); text: "" or "NOT "
  };
  Kind kind = Kind::kLeaf;
  std::string text;
  std::vector<Expr> kids;
  bool aggregate = false;  // a kCall that is an aggregate function

  static Expr Leaf(std::string t) { return {Kind::kLeaf, std::move(t), {}, false}; }
  std::string Sql() const;
};

struct OrderTerm {
  Expr key;
  bool descending = false;
};

struct Query {
  bool distinct = false;
  std::vector<Expr> items;        // the select list (visible outputs)
  std::vector<std::string> from;  // "t0 AS a0"
  // The last FROM entry is LEFT JOINed on this (its other entries are
  // comma joins); none: it is a comma join too.
  std::optional<Expr> left_join_on;
  std::vector<Expr> where;        // conjuncts, join equalities included
  std::vector<Expr> group_by;
  std::vector<Expr> having;         // conjuncts
  std::vector<OrderTerm> order_by;  // output positions ("2") or expressions
  std::optional<std::int64_t> limit;
  std::int64_t offset = 0;

  std::string Sql() const;
  // ORDER BY fixes the order of the visible outputs: its leading keys are
  // all output positions and cover every output.
  bool Ordered() const;
};

}  // namespace clq::fuzz_query
