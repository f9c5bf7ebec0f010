// The syntax tree of one SQL statement, as the parser produces it: names are
// still names, nothing is typed. The binder turns it into a BoundStatement
// (bound.hpp).
//
// Every node records byte offsets into the statement text so that errors can
// point at it and an output column can be named by the SQL text it came from.
// Nodes own their children by value.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "sql/bound.hpp"

namespace clq::sql::ast {

struct Select;

enum class ExprKind : std::uint8_t {
  kLiteral,   // literal
  kColumn,    // [qualifier.]name
  kUnary,     // unary_op, children[0]
  kBinary,    // binary_op, children[0], children[1]
  kBetween,   // children: value, low, high; negated
  kInList,    // children: value, then the items; negated
  kIsNull,    // children[0]; negated for IS NOT NULL
  kCast,      // children[0] to cast_type (INTEGER or REAL)
  kFunction,  // an aggregate: function, children (none for COUNT(*))
  kInterval,  // INTERVAL 'n' unit: literal (INTEGER n), interval_unit
  kExtract,   // EXTRACT(name FROM children[0]); name is YEAR, MONTH or DAY
  kSubquery,  // subquery_kind over `subquery`; kIn: children[0] IN (...); negated
  kCase,      // CASE [operand] WHEN c THEN v ... [ELSE e] END: children [operand,] c1, v1, ...
              // [, e]; has_operand, has_else
  kLike,      // children: value, pattern; negated for NOT LIKE
  // SUBSTRING(x FROM a [FOR n]), SUBSTRING(x, a [, n]), SUBSTR(x, a [, n]): children x, a[, n]
  kSubstring,
};

enum class SubqueryKind : std::uint8_t {
  kScalar,  // (SELECT ...): its one value
  kExists,  // [NOT] EXISTS (SELECT ...)
  kIn,      // x [NOT] IN (SELECT ...)
};

enum class IntervalUnit : std::uint8_t { kDay, kMonth, kYear };

enum class UnaryOperator : std::uint8_t { kPlus, kMinus, kNot };

const char* UnaryOperatorName(UnaryOperator op);  // "+", "-", "NOT"

struct Expr {
  ExprKind kind = ExprKind::kLiteral;
  // [position, end) is the expression's text, including any parentheses
  // around it; op_position is its operator (BETWEEN, IN, IS, '+', the
  // function name, CAST), where type errors point.
  std::size_t position = 0;
  std::size_t end = 0;
  std::size_t op_position = 0;
  // 1 for a leaf, else 1 + the tallest child. The parser bounds it, so code
  // that recurses over the tree cannot run out of stack.
  std::uint32_t height = 1;

  Value literal;
  bool integer_literal = false;  // kLiteral written as digits only (even if it overflowed to REAL)
  // kLiteral: DATE 'yyyy-mm-dd' (INTEGER days), or a REAL written as digits
  // with a point (kDecimal, its scaled value in literal.integer); kCast: the
  // target when it is DATE or DECIMAL(p, s) (cast_type INTEGER).
  LogicalType logical;
  IntervalUnit interval_unit = IntervalUnit::kDay;
  SubqueryKind subquery_kind = SubqueryKind::kScalar;
  std::shared_ptr<const Select> subquery;  // kSubquery
  std::string qualifier;                   // kColumn: table or alias, empty when unqualified
  std::string name;                        // kColumn: column; kFunction: as written
  UnaryOperator unary_op = UnaryOperator::kMinus;
  BinaryOp binary_op = BinaryOp::kAdd;
  AggregateFunction function = AggregateFunction::kCountStar;
  ValueType cast_type = ValueType::kInteger;
  bool negated = false;
  bool distinct = false;     // kFunction: COUNT(DISTINCT x)
  bool has_operand = false;  // kCase: the simple form, CASE x WHEN ...
  bool has_else = false;     // kCase
  std::vector<Expr> children;
};

struct SelectItem {
  enum class Kind : std::uint8_t { kExpr, kStar, kTableStar };
  Kind kind = Kind::kExpr;
  Expr expr;              // kExpr
  std::string qualifier;  // kTableStar: the table or alias before ".*"
  std::optional<std::string> alias;
  std::size_t position = 0;  // the item's first token
};

struct TableRef {
  std::string name;  // a table, or a WITH name; empty for a subquery
  std::optional<std::string> alias;
  std::shared_ptr<const Select> subquery;   // FROM (SELECT ...) alias
  std::vector<std::string> column_aliases;  // alias (a, b, ...): the subquery's column names
  bool generated = false;    // made by the binder from an IN or EXISTS subquery (not in SELECT *)
  std::size_t position = 0;  // the table name
  std::size_t alias_position = 0;  // the alias, else the table name
};

struct FromItem {
  TableRef table;
  std::optional<Expr> on;  // JOIN ... ON; none for the first table and comma joins
  bool left_outer = false;  // LEFT [OUTER] JOIN: the sources before it keep unmatched rows
};

struct OrderItem {
  Expr expr;
  bool descending = false;
};

struct Select {
  std::size_t position = 0;  // the SELECT keyword
  bool distinct = false;
  std::vector<SelectItem> items;
  std::vector<FromItem> from;
  std::optional<Expr> where;
  std::vector<Expr> group_by;
  std::optional<Expr> having;
  std::vector<OrderItem> order_by;
  std::optional<Expr> limit;
  std::optional<Expr> offset;
};

// WITH name [(columns)] AS (SELECT ...): a derived table the statement's
// FROM clauses may name.
struct CommonTable {
  std::string name;
  std::vector<std::string> column_aliases;
  std::shared_ptr<const Select> select;
  std::size_t position = 0;
};

struct Statement {
  bool explain = false;
  std::vector<CommonTable> with;
  Select select;
};

// Fully parenthesised SQL for an expression, for tests and debugging:
// "((a + (b * 2)) = 1)".
std::string ToString(const Expr& expr);
// The statement as normalised SQL, one clause after another, every
// expression as above.
std::string ToString(const Statement& statement);
std::string ToString(const Select& select);

}  // namespace clq::sql::ast
