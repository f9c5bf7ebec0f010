// The recursive-descent parser behind Parse(), shared by parser.cpp
// (statements and clauses) and parser_expr.cpp (expressions). Private to
// sql/.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "sql/ast.hpp"
#include "sql/lexer.hpp"

namespace clq::sql::detail {

class Parser {
 public:
  explicit Parser(std::string_view sql);

  ast::Statement ParseStatement();

 private:
  // Tokens.
  const Token& Peek(std::size_t ahead = 0) const;
  const Token& Advance();
  bool IsKeyword(std::string_view upper, std::size_t ahead = 0) const;
  bool IsOperator(std::string_view op, std::size_t ahead = 0) const;
  bool IsIdentifier(std::size_t ahead = 0) const;
  bool IsWord(std::string_view upper, std::size_t ahead = 0) const;  // unquoted identifier
  bool AcceptKeyword(std::string_view upper);
  bool AcceptOperator(std::string_view op);
  void ExpectKeyword(std::string_view upper);
  void ExpectOperator(std::string_view op);
  [[noreturn]] void SyntaxError(const Token& at, std::string_view expected = {}) const;
  [[noreturn]] void ExpectedExpression(const Token& at) const;
  [[noreturn]] static void Unsupported(const Token& at, const std::string& message);
  std::size_t PreviousEnd() const;

  // Statements and clauses (parser.cpp).
  ast::Select ParseSelect();
  ast::SelectItem ParseSelectItem();
  std::optional<std::string> ParseAlias(std::size_t& alias_position);
  void ParseFrom(ast::Select& select);
  ast::TableRef ParseTableRef();
  void ParseLimit(ast::Select& select);

  // Expressions (parser_expr.cpp).
  ast::Expr ParseExpr();
  ast::Expr ParseBinary(int min_precedence);
  ast::Expr ParsePrefix();
  ast::Expr ParseUnary();
  ast::Expr ParsePrimary();
  ast::Expr ParseFunction();
  ast::Expr ParseCast();
  // SUBSTRING(x FROM a [FOR n]), SUBSTRING(x, a [, n]), SUBSTR(x, a [, n]).
  ast::Expr ParseSubstring();
  // parser_types.cpp: DATE 'x', INTERVAL 'n' unit, EXTRACT(field FROM x), and
  // the DATE and DECIMAL(p, s) targets of CAST.
  bool AtTypedLiteral() const;
  ast::Expr ParseTypedLiteral();
  ast::Expr ParseExtract();
  bool ParseLogicalCastType(ast::Expr& cast);
  // Subqueries: WITH, derived tables' column names, "(SELECT ...)".
  void ParseWith(ast::Statement& statement);
  std::vector<std::string> ParseColumnAliases();
  std::shared_ptr<const ast::Select> ParseSubquery();
  ast::Expr ParseCase();
  void ParseBetween(ast::Expr& between);
  void ParseInList(ast::Expr& in);
  void Finish(ast::Expr& expr) const;
  void EnterNesting(std::size_t offset);
  void LeaveNesting() { --depth_; }

  class NestingGuard;

  std::string_view sql_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  std::size_t depth_ = 0;
};

}  // namespace clq::sql::detail
