// The Binder class behind Bind(), split by phase over binder.cpp (statement,
// FROM, LIMIT), binder_scope.cpp (name resolution), binder_expr.cpp
// (expressions and aggregates) and binder_select.cpp (select list, GROUP BY,
// HAVING, ORDER BY and the rewrite of an aggregated query). Private to
// sql/.
#pragma once

#include <cstddef>
#include <cstdint>
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

// The type of a CASE from its branches' types (THEN values and ELSE): NULL
// branches aside, all TEXT gives TEXT, all INTEGER gives INTEGER, INTEGER
// with REAL gives REAL (the SQL standard's rule, and DuckDB's; SQLite keeps
// each row's branch type instead, which for a REAL-typed column is the
// same number), only NULLs give NULL. TEXT with a number is an error at
// `position`.
ValueType CaseResultType(const std::vector<ValueType>& branches, std::size_t position);

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
};

class Binder {
 public:
  Binder(Catalog& catalog, std::string_view sql);
  BoundStatement BindStatement(const ast::Statement& statement);

 private:
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
  const ast::Select* ast_select_ = nullptr;
  std::vector<Source> sources_;
  BoundSelect select_;
  std::vector<std::optional<std::string>> output_aliases_;  // one per visible output
};

}  // namespace clq::sql::detail
