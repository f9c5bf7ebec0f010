// The Binder class behind Bind(), split by phase over binder.cpp (statement,
// FROM, LIMIT), binder_scope.cpp (name resolution), binder_expr.cpp
// (expressions and aggregates) and binder_select.cpp (select list, GROUP BY,
// HAVING, ORDER BY and the rewrite of an aggregated query). Private to
// sql/.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/ast.hpp"
#include "sql/bound.hpp"
#include "sql/name_suggestion.hpp"
#include "storage/catalog.hpp"

namespace clq::sql::detail {

enum class Clause : std::uint8_t { kSelect, kWhere, kOn, kGroupBy, kHaving, kOrderBy };

const char* ClauseName(Clause clause);

// The type of a CASE from its value branches (THEN values and ELSE), which
// it may convert: NULL branches aside, all TEXT gives TEXT, all INTEGER
// gives INTEGER, INTEGER with REAL gives REAL (the SQL standard's rule, and
// DuckDB's; SQLite keeps each row's branch type instead, which for a
// REAL-typed column is the same number); DATE and DECIMAL branches are
// unified as a comparison's operands are (TypeComparison: DECIMALs and
// INTEGERs at the largest scale, REAL when one is REAL); only NULLs give
// NULL. TEXT with a number is an error at `position`.
ValueType CaseResultType(std::vector<Expr>& branches, std::size_t position);

// Where an expression is bound, which decides what it may contain.
struct ExprContext {
  Clause clause = Clause::kSelect;
  bool allow_aggregates = false;
  bool allow_aliases = false;       // names that are not columns may name outputs
  bool in_aggregate = false;        // inside an aggregate's argument
  std::size_t visible_sources = 0;  // FROM tables in scope (fewer for ON)
};

// A FROM table as the statement names it.
struct Source {
  std::string alias;       // the alias, else the table name as written
  std::string table_name;  // as written
  const Schema* schema = nullptr;
  bool derived = false;    // a subquery's rows (BoundSelect::subqueries), not a catalog table
  bool generated = false;  // made from an IN or EXISTS subquery: not in SELECT *
};

// binder_logical.cpp: DATE and DECIMAL made integer (or REAL) arithmetic.
// What a bound expression is, for those rules: kDecimalLiteral is a REAL
// constant written as digits with a point, exact where it meets a DECIMAL.
enum class NumericKind : std::uint8_t {
  kNull,
  kInteger,
  kReal,
  kText,
  kDate,
  kDecimal,
  kDecimalLiteral,
};
NumericKind NumericKindOf(const Expr& e);
std::string NumericKindName(const Expr& e);  // "INTEGER", "DATE", "DECIMAL", ...
// An INTEGER, DECIMAL or exact constant as a DECIMAL of `scale` (>= its own).
Expr ToScaled(Expr e, int scale, std::size_t position);
// A DECIMAL as REAL (its integer over 10^scale); other values unchanged.
Expr ToReal(Expr e, std::size_t position);
// A bound arithmetic kBinary whose operands may be DATE or DECIMAL, typed.
Expr TypeArithmetic(Expr bound, std::size_t op_position);

// The value of an INTEGER expression made only of constants, +, - and *;
// none for anything else or on overflow.
std::optional<std::int64_t> FoldInteger(const Expr& e);

// The operands of one comparison (=, <, BETWEEN, IN), made comparable:
// DATEs with DATEs (TEXT constants read as dates), DECIMALs at one scale.
void TypeComparison(std::vector<Expr>& operands, std::size_t op_position);
// DATE ± INTERVAL.
Expr ApplyInterval(Expr date, const ast::Expr& interval, bool subtract, std::size_t op_position);
// EXTRACT(YEAR|MONTH|DAY FROM date): folded for a constant date, else the
// unary operation UnaryOp::kExtract* of the days.
Expr ExtractFromDate(Expr date, std::string_view field, std::size_t position);
// CAST to DATE or DECIMAL(p, s) (`target`), or of a DATE or DECIMAL to
// INTEGER (rounded half away from zero) or REAL (`type`).
Expr CastLogical(Expr operand, ValueType type, LogicalType target, std::size_t position);
// The logical type of an aggregate of a DATE or DECIMAL (SUM keeps the scale).
void TypeAggregate(Aggregate& aggregate, std::size_t position);
// A reference to AVG of a DECIMAL, divided by 10^scale (REAL).
Expr AverageOfDecimal(Expr reference, const Aggregate& aggregate, std::size_t position);

// The syntax of `table.column`, at `position`: how the binder's rewrites
// (binder_subquery.cpp, binder_count_distinct.cpp) read a derived table they
// made.
ast::Expr ColumnOf(const std::string& table, const std::string& column, std::size_t position);
// Syntax the rewrites build: `left op right` at left's text; an expression
// of `kind` over `child` alone, at the child's text; `value IS [NOT] NULL`.
ast::Expr Binary(BinaryOp op, ast::Expr left, ast::Expr right);
ast::Expr Over(ast::ExprKind kind, ast::Expr child);
ast::Expr IsNull(ast::Expr value, bool negated);
// A condition's conjuncts (the operands of its top-level ANDs), and back.
void SplitAnd(const ast::Expr& e, std::vector<const ast::Expr*>& out);
ast::Expr AndAll(std::vector<ast::Expr> parts);

class Binder {
 public:
  Binder(Catalog& catalog, std::string_view sql);
  BoundStatement BindStatement(const ast::Statement& statement);

 private:
  BoundSelect BindSelect(const ast::Select& select);

  // binder_subquery.cpp
  // The select with its IN and EXISTS subqueries, and its correlated scalar
  // subqueries, turned into derived tables joined on their keys.
  ast::Select Decorrelate(const ast::Select& select);
  // binder_subquery_domain.cpp: `inner IN (the outer rows' keys)` for a
  // derived table joined on inner_keys = outer_keys, where it can pay.
  std::optional<ast::Expr> SubqueryDomain(const ast::Select& outer,
                                          const std::vector<ast::Expr>& inner_keys,
                                          const std::vector<ast::Expr>& outer_keys);
  // COUNT(DISTINCT x) as COUNT(x) over a derived table grouped by the keys and x.
  ast::Select RewriteCountDistinct(const ast::Select& select);
  BoundSelect BindChild(const ast::Select& select) const;
  void BindDerived(const ast::TableRef& ref, const ast::Select& select,
                   const std::vector<std::string>& column_aliases, bool generated);
  Expr BindScalarSubquery(const ast::Expr& expr, const ExprContext& context);
  const ast::CommonTable* FindCommonTable(std::string_view name) const;

  // binder.cpp
  void BindFrom(const std::vector<ast::FromItem>& from);
  void BindWhere(const ast::Select& select);
  Expr BindCondition(const ast::Expr& condition, const ExprContext& context);
  std::uint64_t BindCount(const ast::Expr& count, const char* clause) const;
  ExprContext Context(Clause clause) const;

  // binder_scope.cpp
  Expr BindColumn(const ast::Expr& column, const ExprContext& context);
  std::size_t FindSource(std::string_view qualifier, std::size_t position,
                         const ExprContext* context) const;
  std::optional<Expr> BindAlias(const ast::Expr& column, const ExprContext& context);
  std::string ColumnName(std::size_t source, std::size_t column) const;
  std::vector<NameCandidate> ColumnCandidates(std::size_t visible_sources) const;
  bool IsOutputAlias(std::string_view name) const;

  // binder_expr.cpp
  Expr BindExpr(const ast::Expr& expr, const ExprContext& context);
  Expr BindUnary(const ast::Expr& expr, const ExprContext& context);
  Expr BindBinary(const ast::Expr& expr, const ExprContext& context);
  Expr BindAggregate(const ast::Expr& expr, const ExprContext& context);
  Expr BindCase(const ast::Expr& expr, const ExprContext& context);
  Expr BindLike(const ast::Expr& expr, const ExprContext& context);
  // binder_substring.cpp
  Expr BindSubstring(const ast::Expr& expr, const ExprContext& context);
  double BindQuantile(const ast::Expr& q, const ExprContext& context);

  // binder_select.cpp
  void BindSelectList(const std::vector<ast::SelectItem>& items);
  void ExpandStar(std::size_t source, std::size_t position);
  void BindGroupBy(const std::vector<ast::Expr>& terms);
  void BindHaving(const ast::Select& select);
  void BindOrderBy(const std::vector<ast::OrderItem>& items);
  std::optional<std::size_t> SelectPosition(const ast::Expr& term, const char* clause) const;
  void RewriteAggregated();
  Expr RewriteOverGroups(Expr expr) const;
  std::string Text(const ast::Expr& expr) const;

  Catalog& catalog_;
  std::string_view sql_;
  std::vector<ast::CommonTable> with_;  // WITH tables the FROM clauses may name
  std::deque<Schema> derived_schemas_;  // of derived sources (Source::schema points here)
  int generated_tables_ = 0;
  // The derived tables made from IN and EXISTS subqueries, by their text,
  // shared by this statement's binders: two equal ones (a correlated
  // subquery's outer keys, made for each of two subqueries) are one bound
  // select, which the executors run once.
  std::shared_ptr<std::map<std::string, std::shared_ptr<BoundSelect>>> generated_selects_ =
      std::make_shared<std::map<std::string, std::shared_ptr<BoundSelect>>>();
  const ast::Select* ast_select_ = nullptr;
  std::vector<Source> sources_;
  BoundSelect select_;
  std::vector<std::optional<std::string>> output_aliases_;  // one per visible output
};

}  // namespace clq::sql::detail
