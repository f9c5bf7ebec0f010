#include "sql/parser.hpp"

#include "common/errors.hpp"
#include "sql/parser_internal.hpp"

namespace clq::sql {
namespace detail {

Parser::Parser(std::string_view sql) : sql_(sql), tokens_(Tokenize(sql)) {}

// --- Tokens ------------------------------------------------------------------

const Token& Parser::Peek(std::size_t ahead) const {
  const std::size_t index = pos_ + ahead;
  return index < tokens_.size() ? tokens_[index] : tokens_.back();
}

const Token& Parser::Advance() {
  const Token& token = Peek();
  if (pos_ + 1 < tokens_.size()) ++pos_;
  return token;
}

bool Parser::IsKeyword(std::string_view upper, std::size_t ahead) const {
  const Token& token = Peek(ahead);
  return token.kind == TokenKind::kKeyword && token.value == upper;
}

bool Parser::IsOperator(std::string_view op, std::size_t ahead) const {
  const Token& token = Peek(ahead);
  return token.kind == TokenKind::kOperator && token.text == op;
}

bool Parser::IsIdentifier(std::size_t ahead) const {
  return Peek(ahead).kind == TokenKind::kIdentifier;
}

bool Parser::IsWord(std::string_view upper, std::size_t ahead) const {
  const Token& token = Peek(ahead);
  return token.kind == TokenKind::kIdentifier && !token.quoted &&
         IdentifierEquals(token.value, upper);
}

bool Parser::AcceptKeyword(std::string_view upper) {
  if (!IsKeyword(upper)) return false;
  Advance();
  return true;
}

bool Parser::AcceptOperator(std::string_view op) {
  if (!IsOperator(op)) return false;
  Advance();
  return true;
}

void Parser::ExpectKeyword(std::string_view upper) {
  if (!AcceptKeyword(upper)) SyntaxError(Peek(), upper);
}

void Parser::ExpectOperator(std::string_view op) {
  if (!AcceptOperator(op)) SyntaxError(Peek(), "'" + std::string(op) + "'");
}

void Parser::SyntaxError(const Token& at, std::string_view expected) const {
  std::string message = at.kind == TokenKind::kEnd ? std::string("syntax error at end of input")
                                                   : "syntax error at or near " + DescribeToken(at);
  if (!expected.empty()) message += " (expected " + std::string(expected) + ")";
  throw SqlError(message, at.offset);
}

void Parser::ExpectedExpression(const Token& at) const {
  if (pos_ == 0) SyntaxError(at, "an expression");
  throw SqlError("expected an expression after " + DescribeToken(tokens_[pos_ - 1]), at.offset);
}

void Parser::Unsupported(const Token& at, const std::string& message) {
  throw SqlError(message, at.offset);
}

std::size_t Parser::PreviousEnd() const {
  if (pos_ == 0) return 0;
  const Token& previous = tokens_[pos_ - 1];
  return previous.offset + previous.text.size();
}

// --- Statements ----------------------------------------------------------------

ast::Statement Parser::ParseStatement() {
  ast::Statement statement;
  if (Peek().kind == TokenKind::kEnd) throw SqlError("empty statement", Peek().offset);
  statement.explain = AcceptKeyword("EXPLAIN");
  if (IsWord("WITH")) ParseWith(statement);
  if (!IsKeyword("SELECT")) {
    if (statement.explain || !statement.with.empty()) SyntaxError(Peek(), "SELECT");
    Unsupported(Peek(), "only SELECT statements are supported");
  }
  statement.select = ParseSelect();
  for (std::string_view set_operation : {"UNION", "INTERSECT", "EXCEPT"}) {
    if (IsKeyword(set_operation))
      Unsupported(Peek(), std::string(set_operation) + " is not supported");
  }
  if (IsKeyword("WINDOW")) Unsupported(Peek(), "window functions are not supported");
  AcceptOperator(";");
  if (Peek().kind != TokenKind::kEnd) SyntaxError(Peek());
  return statement;
}

ast::Select Parser::ParseSelect() {
  ast::Select select;
  select.position = Peek().offset;
  ExpectKeyword("SELECT");
  if (AcceptKeyword("DISTINCT")) {
    select.distinct = true;
  } else {
    AcceptKeyword("ALL");
  }
  do {
    select.items.push_back(ParseSelectItem());
  } while (AcceptOperator(","));

  if (AcceptKeyword("FROM")) ParseFrom(select);
  if (AcceptKeyword("WHERE")) select.where = ParseExpr();
  if (AcceptKeyword("GROUP")) {
    ExpectKeyword("BY");
    do {
      select.group_by.push_back(ParseExpr());
    } while (AcceptOperator(","));
  }
  if (AcceptKeyword("HAVING")) select.having = ParseExpr();
  if (AcceptKeyword("ORDER")) {
    ExpectKeyword("BY");
    do {
      ast::OrderItem item;
      item.expr = ParseExpr();
      if (AcceptKeyword("DESC")) {
        item.descending = true;
      } else {
        AcceptKeyword("ASC");
      }
      if (IsWord("NULLS")) Unsupported(Peek(), "NULLS FIRST and NULLS LAST are not supported");
      select.order_by.push_back(std::move(item));
    } while (AcceptOperator(","));
  }
  if (AcceptKeyword("LIMIT")) ParseLimit(select);
  return select;
}

ast::SelectItem Parser::ParseSelectItem() {
  ast::SelectItem item;
  item.position = Peek().offset;
  if (AcceptOperator("*")) {
    item.kind = ast::SelectItem::Kind::kStar;
    return item;
  }
  if (IsIdentifier() && IsOperator(".", 1) && IsOperator("*", 2)) {
    item.kind = ast::SelectItem::Kind::kTableStar;
    item.qualifier = Advance().value;
    Advance();
    Advance();
    return item;
  }
  item.expr = ParseExpr();
  std::size_t alias_position = 0;
  item.alias = ParseAlias(alias_position);
  return item;
}

// [AS] alias, where an alias after AS may also be a 'string' (as SQLite allows).
std::optional<std::string> Parser::ParseAlias(std::size_t& alias_position) {
  if (AcceptKeyword("AS")) {
    const Token& token = Peek();
    if (token.kind != TokenKind::kIdentifier && token.kind != TokenKind::kString)
      SyntaxError(token, "a name after AS");
    alias_position = token.offset;
    return Advance().value;
  }
  if (IsIdentifier()) {
    alias_position = Peek().offset;
    return Advance().value;
  }
  return std::nullopt;
}

void Parser::ParseFrom(ast::Select& select) {
  ast::FromItem first;
  first.table = ParseTableRef();
  select.from.push_back(std::move(first));
  while (true) {
    ast::FromItem item;
    if (AcceptOperator(",")) {
      item.table = ParseTableRef();
      select.from.push_back(std::move(item));
      continue;
    }
    for (std::string_view kind : {"RIGHT", "FULL", "CROSS", "NATURAL"}) {
      if (IsKeyword(kind)) Unsupported(Peek(), "only inner joins and LEFT JOIN are supported");
    }
    if (AcceptKeyword("LEFT")) {
      if (IsWord("OUTER")) Advance();
      ExpectKeyword("JOIN");
      item.left_outer = true;
    } else if (AcceptKeyword("INNER")) {
      ExpectKeyword("JOIN");
    } else if (!AcceptKeyword("JOIN")) {
      break;
    }
    item.table = ParseTableRef();
    if (IsKeyword("USING")) Unsupported(Peek(), "JOIN ... USING is not supported; use ON");
    if (!AcceptKeyword("ON")) Unsupported(Peek(), "JOIN requires an ON condition");
    item.on = ParseExpr();
    select.from.push_back(std::move(item));
  }
}

// WITH name [(a, b)] AS (SELECT ...) [, ...]
void Parser::ParseWith(ast::Statement& statement) {
  Advance();
  if (IsWord("RECURSIVE")) Unsupported(Peek(), "WITH RECURSIVE is not supported");
  do {
    ast::CommonTable table;
    table.position = Peek().offset;
    if (!IsIdentifier()) SyntaxError(Peek(), "a name for the WITH table");
    table.name = Advance().value;
    table.column_aliases = ParseColumnAliases();
    ExpectKeyword("AS");
    if (!IsOperator("(") || !IsKeyword("SELECT", 1)) SyntaxError(Peek(), "(SELECT ...)");
    table.select = ParseSubquery();
    statement.with.push_back(std::move(table));
  } while (AcceptOperator(","));
}

// "(a, b, ...)" after a derived table's alias; none when no '(' follows.
std::vector<std::string> Parser::ParseColumnAliases() {
  std::vector<std::string> names;
  if (!IsOperator("(")) return names;
  Advance();
  do {
    if (!IsIdentifier()) SyntaxError(Peek(), "a column name");
    names.push_back(Advance().value);
  } while (AcceptOperator(","));
  ExpectOperator(")");
  return names;
}

// "(SELECT ...)": the parenthesised select, parsed one nesting level deeper.
std::shared_ptr<const ast::Select> Parser::ParseSubquery() {
  EnterNesting(Peek().offset);
  ExpectOperator("(");
  auto select = std::make_shared<ast::Select>(ParseSelect());
  for (std::string_view set_operation : {"UNION", "INTERSECT", "EXCEPT"}) {
    if (IsKeyword(set_operation))
      Unsupported(Peek(), std::string(set_operation) + " is not supported");
  }
  ExpectOperator(")");
  LeaveNesting();
  return select;
}

ast::TableRef Parser::ParseTableRef() {
  const Token& token = Peek();
  if (IsOperator("(")) {
    if (!IsKeyword("SELECT", 1)) Unsupported(token, "parenthesized joins are not supported");
    ast::TableRef ref;
    ref.position = ref.alias_position = token.offset;
    ref.subquery = ParseSubquery();
    std::size_t alias_position = ref.position;
    ref.alias = ParseAlias(alias_position);
    if (!ref.alias) throw SqlError("a subquery in FROM needs an alias", token.offset);
    ref.alias_position = alias_position;
    ref.column_aliases = ParseColumnAliases();
    return ref;
  }
  if (token.kind != TokenKind::kIdentifier) SyntaxError(token, "a table name");
  ast::TableRef ref;
  ref.position = token.offset;
  ref.alias_position = token.offset;
  ref.name = Advance().value;
  if (IsOperator(".")) Unsupported(Peek(), "schema-qualified table names are not supported");
  if (IsOperator("(")) Unsupported(token, "table-valued functions are not supported");
  std::size_t alias_position = ref.position;
  ref.alias = ParseAlias(alias_position);
  ref.alias_position = alias_position;
  return ref;
}

void Parser::ParseLimit(ast::Select& select) {
  select.limit = ParseExpr();
  if (AcceptKeyword("OFFSET")) {
    select.offset = ParseExpr();
  } else if (AcceptOperator(",")) {
    // SQLite's LIMIT offset, count.
    select.offset = std::move(select.limit);
    select.limit = ParseExpr();
  }
}

}  // namespace detail

ast::Statement Parse(std::string_view sql) {
  return detail::Parser(sql).ParseStatement();
}

}  // namespace clq::sql
