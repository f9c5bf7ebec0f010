// The bound form of a SQL statement: names resolved to tables and columns,
// every expression typed, aggregates and group keys pulled out. This is the
// contract between the front end (parser + binder) and the planner; the
// planner never sees SQL text or names.
//
// Types follow SQLite (docs/DESIGN.md): INTEGER is 64-bit, REAL is double, TEXT is
// a CHAR column or a string literal, and comparisons and logic yield INTEGER
// 0/1 (or NULL). INT32/INT64 columns are INTEGER, DOUBLE columns REAL.
//
// Expression scopes (which Expr kinds may appear where):
//   where, group_keys, aggregate arguments, and `outputs` of a query that is
//     not aggregated:                    kColumnRef, constants, operators
//   having, and `outputs` of an aggregated query:
//                                        kGroupRef, kAggregateRef, constants, operators
//   order_by:                            kOutputRef only (hidden outputs are appended
//                                        for ORDER BY terms that are not in the select list)
#pragma once

#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "common/value.hpp"
#include "storage/table.hpp"

namespace clq::sql {

// kExtractYear, kExtractMonth, kExtractDay: EXTRACT(YEAR|MONTH|DAY FROM d) of
// an INTEGER operand read as days since 1970-01-01 in the proleptic
// Gregorian calendar (common/calendar.hpp CivilFromDays); INTEGER, NULL for
// NULL. The binder folds EXTRACT of a constant date.
enum class UnaryOp : std::uint8_t {
  kNegate,
  kNot,
  kIsNull,
  kIsNotNull,
  kExtractYear,
  kExtractMonth,
  kExtractDay,
};

enum class BinaryOp : std::uint8_t {
  kAdd,
  kSubtract,
  kMultiply,
  kDivide,
  kModulo,
  kEqual,
  kNotEqual,
  kLess,
  kLessEqual,
  kGreater,
  kGreaterEqual,
  kAnd,
  kOr,
};

enum class AggregateFunction : std::uint8_t {
  kCountStar,
  kCount,
  kSum,
  kAvg,
  kMin,
  kMax,
  kMedian,
  kQuantile,
};

const char* UnaryOpName(UnaryOp op);  // "-", "NOT", "IS NULL", "IS NOT NULL", "YEAR", ...
// Whether `op` is one of the EXTRACT operations.
bool IsExtract(UnaryOp op);
// EXTRACT `op` (kExtractYear, kExtractMonth or kExtractDay) of the date
// `days`, for any int64 `days`.
std::int64_t ExtractFromDays(UnaryOp op, std::int64_t days);
const char* BinaryOpName(BinaryOp op);           // "+", "=", "AND", ...
const char* AggregateName(AggregateFunction f);  // "COUNT", "SUM", ...
// The comparison with its operands swapped: a OP b == b Mirrored(OP) a
// (<, <=, >, >= turn around; every other operator is returned as it is).
BinaryOp MirroredComparison(BinaryOp op);

struct Expr;
// Names a column reference for printing ("t1.unique1").
using LeafNamer = std::function<std::string(const Expr&)>;

struct Expr {
  enum class Kind : std::uint8_t {
    kColumnRef,      // source, column
    kConstant,       // constant
    kUnary,          // unary_op, children[0]
    kBinary,         // binary_op, children[0], children[1]
    kBetween,        // children: value, low, high; `negated` for NOT BETWEEN
    kInList,         // children: value, then the list items; `negated` for NOT IN
    kCast,           // children[0] to `type` (INTEGER or REAL)
    kGroupRef,       // index into BoundSelect::group_keys
    kAggregateRef,   // index into BoundSelect::aggregates
    kOutputRef,      // index into BoundSelect::outputs
    kSubqueryValue,  // index into BoundSelect::subqueries: a scalar subquery's value
    // children: c1, v1, c2, v2, ..., e (always an ELSE, the NULL constant
    // when the SQL has none). The first ci that is true (not NULL, not 0)
    // gives vi, else e; a branch not chosen is not evaluated for that row
    // (it raises no error there), as in SQLite.
    kCase,
    // children[0] (TEXT) LIKE `constant` (the pattern, TEXT); `negated` for
    // NOT LIKE. Case-sensitive, bytewise: '%' matches any run of bytes, '_'
    // one byte (sql/like_pattern.hpp). Patterns without wildcards and
    // prefix patterns are bound as comparisons instead.
    kLike,
    // SUBSTRING(children[0], children[1], children[2]) (sql/substring.hpp):
    // TEXT of TEXT, the start and the optional length INTEGER constants
    // within [kSubstringMin, kSubstringMax] (the binder folds the rest).
    // Comparisons of it with string constants (=, <>, IN, NOT IN) are bound
    // as LIKE and byte ranges of its operand instead where patterns can say
    // them (sql/binder_internal.hpp); IS [NOT] NULL and COUNT of it as those
    // of its operand.
    kSubstring,
    // The string whose order code (storage/text_codes.hpp) children[0]
    // (INTEGER) is, from `dictionary`: the planner computes MIN and MAX of a
    // CHAR column on its codes and decodes them on the host with this. The
    // binder never makes it.
    kTextOfCode,
  };

  Kind kind = Kind::kConstant;
  ValueType type = ValueType::kNull;  // result type
  // What an INTEGER result means (DATE, DECIMAL(p, s)); none otherwise. The
  // binder has made every operation on such values integer arithmetic, so
  // only the edges read it. One exception: a REAL constant written as a
  // decimal literal ("0.06") has kDecimal and holds its exact scaled value in
  // constant.integer, which the binder uses where it meets a DECIMAL.
  LogicalType logical;
  std::size_t source = 0;  // kColumnRef: index into BoundSelect::from
  std::size_t index = 0;   // kColumnRef: column of that table; k*Ref: the index
  Value constant;
  UnaryOp unary_op = UnaryOp::kNegate;
  BinaryOp binary_op = BinaryOp::kAdd;
  bool negated = false;
  // A WHERE conjunct the binder added because the WHERE implies it
  // (sql/common_conjuncts.hpp, AddImpliedSourceConjuncts): it filters
  // early, and no condition of its table's own (a join key that can
  // overflow is computed before it, plan/query_plan.cpp).
  bool implied = false;
  std::vector<Expr> children;
  std::size_t position = 0;  // byte offset of the expression in the statement text
  std::shared_ptr<const TextDictionary> dictionary;  // kTextOfCode

  std::string ToString() const;                        // debugging and EXPLAIN: "(#0.3 + 1)"
  std::string ToString(const LeafNamer& namer) const;  // column refs named by `namer`
};

// Bound expressions built by the compiler's rewrites (and the binder):
// a constant, and a comparison or logical operation (INTEGER typed).
Expr MakeConstant(Value value, std::size_t position);
Expr MakeBoolean(BinaryOp op, Expr left, Expr right, std::size_t position);
// NOT e (INTEGER typed, at e's position).
Expr MakeNot(Expr e);
// The operands of a chain of `op` (AND or OR), in order: a AND (b AND c)
// gives a, b, c; an expression that is no such chain is its one operand.
void SplitChain(Expr expr, BinaryOp op, std::vector<Expr>& out);
// `parts` joined left-deep by `op` (each node at its left operand's
// position). REQUIRES: parts is not empty.
Expr JoinChain(std::vector<Expr> parts, BinaryOp op);

struct Aggregate {
  AggregateFunction function = AggregateFunction::kCountStar;
  std::optional<Expr> argument;  // none for COUNT(*)
  double quantile = 0.5;         // kQuantile: q in [0, 1]; kMedian: 0.5
  ValueType type = ValueType::kInteger;
  LogicalType logical;  // SUM, MIN, MAX, MEDIAN, QUANTILE of a DATE or DECIMAL
  // Result types: COUNT -> INTEGER; SUM -> the argument's type; AVG -> REAL;
  // MIN, MAX, MEDIAN, QUANTILE -> the argument's type. Over no non-NULL input
  // every aggregate but COUNT yields NULL. MEDIAN/QUANTILE return the element
  // of rank floor(q * (n - 1)) (0-based) of the sorted non-NULL values.
};

struct TableRef {
  TablePtr table;
  std::string alias;  // the name the statement uses for it (alias, else table name)
  // LEFT JOIN: the rows of the sources before it are kept when no row of this
  // one meets `on` (its columns are then NULL). `on` reads this source and
  // those before it; an inner join's ON is part of the WHERE instead.
  bool outer = false;
  std::optional<Expr> on = std::nullopt;
  // A derived table whose rows a subquery made for this query
  // (operators/subquery_materialize sets it when it puts them in place).
  bool derived = false;
};

struct OutputColumn {
  std::string name;  // alias, else column name, else the expression's SQL text
  Expr expr;
};

struct OrderKey {
  Expr expr;  // kOutputRef
  bool descending = false;
};

struct BoundSelect;

// A SELECT whose result the query reads, run before it: a derived table (a
// subquery in FROM, a WITH table, or what an IN or EXISTS subquery became),
// whose rows replace the placeholder table of from[*source]; or a scalar
// subquery, whose one value replaces each kSubqueryValue of its index
// (operators/subquery_materialize.hpp). Both are uncorrelated: the binder
// turns correlated subqueries into derived tables joined on their keys.
struct Subquery {
  std::shared_ptr<const BoundSelect> select;
  std::optional<std::size_t> source;  // a derived table: its index in BoundSelect::from
  // A list: x [NOT] IN (subquery) where no join can do it (NOT IN, or under
  // OR); its values replace the kSubqueryValue that is the kInList's second
  // child (at most kMaxSubqueryList of them).
  bool list = false;
};

inline constexpr std::uint64_t kMaxSubqueryList = 1024;

struct BoundSelect {
  std::vector<TableRef> from;  // comma joins and JOIN ... ON, in statement order
  std::vector<Subquery> subqueries;
  std::optional<Expr> where;  // WHERE and every inner join's ON condition, ANDed
  bool aggregated = false;    // GROUP BY present, or an aggregate used
  std::vector<Expr> group_keys;
  std::vector<Aggregate> aggregates;  // each distinct aggregate once
  std::optional<Expr> having;
  std::vector<OutputColumn> outputs;
  std::size_t visible_outputs = 0;  // outputs[visible_outputs..] are hidden ORDER BY keys
  bool distinct = false;
  std::vector<OrderKey> order_by;
  std::optional<std::uint64_t> limit;
  std::uint64_t offset = 0;
};

struct BoundStatement {
  bool explain = false;
  BoundSelect select;
  std::string text;  // the statement's SQL text
};

}  // namespace clq::sql
