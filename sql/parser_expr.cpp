// Expressions: precedence climbing over SQLite's operator levels. Every
// recursion goes through ParseBinary or a unary operator, each of which
// counts one level of nesting, so kMaxExpressionDepth bounds the stack.
#include <algorithm>
#include <array>
#include <utility>

#include "common/decimal.hpp"
#include "common/errors.hpp"
#include "sql/parser.hpp"
#include "sql/parser_internal.hpp"

namespace clq::sql::detail {
namespace {

// Binding strength, loosest first (SQLite's order).
enum Precedence : int {
  kOrLevel = 1,
  kAndLevel,
  kNotLevel,
  kEqualityLevel,    // = == != <> IS IN BETWEEN
  kRelationalLevel,  // < <= > >=
  kAdditiveLevel,
  kMultiplicativeLevel,
};

struct InfixOperator {
  std::string_view text;
  BinaryOp op;
  int precedence;
};

constexpr auto kInfixOperators = std::to_array<InfixOperator>({
    {"=", BinaryOp::kEqual, kEqualityLevel},
    {"==", BinaryOp::kEqual, kEqualityLevel},
    {"!=", BinaryOp::kNotEqual, kEqualityLevel},
    {"<>", BinaryOp::kNotEqual, kEqualityLevel},
    {"<", BinaryOp::kLess, kRelationalLevel},
    {"<=", BinaryOp::kLessEqual, kRelationalLevel},
    {">", BinaryOp::kGreater, kRelationalLevel},
    {">=", BinaryOp::kGreaterEqual, kRelationalLevel},
    {"+", BinaryOp::kAdd, kAdditiveLevel},
    {"-", BinaryOp::kSubtract, kAdditiveLevel},
    {"*", BinaryOp::kMultiply, kMultiplicativeLevel},
    {"/", BinaryOp::kDivide, kMultiplicativeLevel},
    {"%", BinaryOp::kModulo, kMultiplicativeLevel},
});

struct FunctionName {
  std::string_view name;
  AggregateFunction function;
};

constexpr auto kFunctions = std::to_array<FunctionName>({
    {"COUNT", AggregateFunction::kCount},
    {"SUM", AggregateFunction::kSum},
    {"AVG", AggregateFunction::kAvg},
    {"MIN", AggregateFunction::kMin},
    {"MAX", AggregateFunction::kMax},
    {"MEDIAN", AggregateFunction::kMedian},
    {"QUANTILE", AggregateFunction::kQuantile},
});

constexpr auto kPatternOperators = std::to_array<std::string_view>({"GLOB", "REGEXP", "MATCH"});

}  // namespace

class Parser::NestingGuard {
 public:
  NestingGuard(Parser& parser, std::size_t offset) : parser_(parser) {
    parser_.EnterNesting(offset);
  }
  ~NestingGuard() { parser_.LeaveNesting(); }
  NestingGuard(const NestingGuard&) = delete;
  NestingGuard& operator=(const NestingGuard&) = delete;

 private:
  Parser& parser_;
};

void Parser::EnterNesting(std::size_t offset) {
  if (depth_ >= kMaxExpressionDepth) throw SqlError("expression nested too deeply", offset);
  ++depth_;
}

void Parser::Finish(ast::Expr& expr) const {
  std::uint32_t tallest = 0;
  for (const ast::Expr& child : expr.children)
    tallest = std::max(tallest, child.height);
  expr.height = tallest + 1;
  if (expr.height > kMaxExpressionHeight)
    throw SqlError("expression nested too deeply", expr.op_position);
  expr.end = PreviousEnd();
}

ast::Expr Parser::ParseExpr() {
  return ParseBinary(kOrLevel);
}

ast::Expr Parser::ParseBinary(int min_precedence) {
  NestingGuard guard(*this, Peek().offset);
  ast::Expr left = ParsePrefix();
  while (true) {
    const Token& token = Peek();
    // Operators outside the subset are reported where they stand, whatever
    // their precedence, rather than as a syntax error further on.
    if (token.kind == TokenKind::kOperator) {
      if (token.text == "||") Unsupported(token, "string concatenation (||) is not supported");
      if (token.text == "&" || token.text == "|" || token.text == "<<" || token.text == ">>")
        Unsupported(token, "bitwise operators are not supported");
    }
    if (token.kind == TokenKind::kKeyword) {
      const bool negated = token.value == "NOT";
      const Token& word = negated ? Peek(1) : token;
      for (std::string_view pattern : kPatternOperators) {
        if (word.kind == TokenKind::kKeyword && word.value == pattern)
          Unsupported(token, (negated ? "NOT " : "") + std::string(pattern) + " is not supported");
      }
      if (token.value == "COLLATE") Unsupported(token, "COLLATE is not supported");
    }

    ast::Expr node;
    node.position = left.position;
    node.op_position = token.offset;
    if (token.kind == TokenKind::kKeyword) {
      if (token.value == "OR" || token.value == "AND") {
        const int precedence = token.value == "OR" ? kOrLevel : kAndLevel;
        if (precedence < min_precedence) break;
        node.kind = ast::ExprKind::kBinary;
        node.binary_op = token.value == "OR" ? BinaryOp::kOr : BinaryOp::kAnd;
        Advance();
        node.children.push_back(std::move(left));
        node.children.push_back(ParseBinary(precedence + 1));
      } else if (token.value == "LIKE" || (token.value == "NOT" && IsKeyword("LIKE", 1))) {
        if (kEqualityLevel < min_precedence) break;
        node.kind = ast::ExprKind::kLike;
        node.negated = AcceptKeyword("NOT");
        node.op_position = Peek().offset;
        ExpectKeyword("LIKE");
        node.children.push_back(std::move(left));
        node.children.push_back(ParseBinary(kEqualityLevel + 1));
        if (IsWord("ESCAPE")) Unsupported(Peek(), "LIKE ... ESCAPE is not supported");
      } else if (token.value == "IS" || token.value == "IN" || token.value == "BETWEEN" ||
                 (token.value == "NOT" && (IsKeyword("IN", 1) || IsKeyword("BETWEEN", 1)))) {
        if (kEqualityLevel < min_precedence) break;
        node.negated = AcceptKeyword("NOT");
        node.op_position = Peek().offset;
        node.children.push_back(std::move(left));
        if (AcceptKeyword("IS")) {
          node.kind = ast::ExprKind::kIsNull;
          node.negated = AcceptKeyword("NOT");
          if (!AcceptKeyword("NULL"))
            Unsupported(Peek(), "only IS NULL and IS NOT NULL are supported");
        } else if (AcceptKeyword("IN")) {
          node.kind = ast::ExprKind::kInList;
          ParseInList(node);
        } else {
          ExpectKeyword("BETWEEN");
          node.kind = ast::ExprKind::kBetween;
          ParseBetween(node);
        }
      } else {
        break;
      }
    } else if (token.kind == TokenKind::kOperator) {
      const auto* found = std::find_if(
          kInfixOperators.begin(), kInfixOperators.end(),
          [&](const InfixOperator& candidate) { return candidate.text == token.text; });
      if (found == kInfixOperators.end() || found->precedence < min_precedence) break;
      node.kind = ast::ExprKind::kBinary;
      node.binary_op = found->op;
      Advance();
      node.children.push_back(std::move(left));
      node.children.push_back(ParseBinary(found->precedence + 1));
    } else {
      break;
    }
    Finish(node);
    left = std::move(node);
  }
  return left;
}

void Parser::ParseBetween(ast::Expr& between) {
  between.children.push_back(ParseBinary(kRelationalLevel));
  ExpectKeyword("AND");
  between.children.push_back(ParseBinary(kRelationalLevel));
}

void Parser::ParseInList(ast::Expr& in) {
  if (!IsOperator("(")) Unsupported(Peek(), "expected a parenthesized list after IN");
  if (IsKeyword("SELECT", 1)) {
    in.kind = ast::ExprKind::kSubquery;
    in.subquery_kind = ast::SubqueryKind::kIn;
    in.subquery = ParseSubquery();
    return;
  }
  Advance();
  if (IsOperator(")")) Unsupported(Peek(), "empty IN lists are not supported");
  do {
    in.children.push_back(ParseExpr());
  } while (AcceptOperator(","));
  ExpectOperator(")");
}

ast::Expr Parser::ParsePrefix() {
  if (!IsKeyword("NOT")) return ParseUnary();
  NestingGuard guard(*this, Peek().offset);
  ast::Expr node;
  node.kind = ast::ExprKind::kUnary;
  node.unary_op = ast::UnaryOperator::kNot;
  node.position = node.op_position = Advance().offset;
  node.children.push_back(ParseBinary(kEqualityLevel));
  Finish(node);
  return node;
}

ast::Expr Parser::ParseUnary() {
  if (IsOperator("~")) Unsupported(Peek(), "bitwise operators are not supported");
  if (!IsOperator("-") && !IsOperator("+")) return ParsePrimary();
  NestingGuard guard(*this, Peek().offset);
  ast::Expr node;
  node.kind = ast::ExprKind::kUnary;
  node.unary_op = IsOperator("-") ? ast::UnaryOperator::kMinus : ast::UnaryOperator::kPlus;
  node.position = node.op_position = Advance().offset;
  node.children.push_back(ParseUnary());
  Finish(node);
  return node;
}

ast::Expr Parser::ParsePrimary() {
  const Token& token = Peek();
  ast::Expr expr;
  expr.position = expr.op_position = token.offset;
  switch (token.kind) {
    case TokenKind::kInteger:
      expr.literal =
          token.integer_overflow ? Value::Real(token.real) : Value::Integer(token.integer);
      expr.integer_literal = true;
      Advance();
      break;
    case TokenKind::kReal:
      expr.literal = Value::Real(token.real);
      // Digits with a point are also an exact decimal, for DECIMAL operands.
      if (const auto decimal = ReadDecimalLiteral(token.text)) {
        expr.logical = LogicalType::Decimal(decimal->precision, decimal->scale);
        expr.literal.integer = decimal->scaled;
      }
      Advance();
      break;
    case TokenKind::kString:
      expr.literal = Value::Text(token.value);
      Advance();
      break;
    case TokenKind::kKeyword:
      if (token.value == "NULL") {
        Advance();
        break;
      }
      if (token.value == "CAST") return ParseCast();
      if (token.value == "CASE") return ParseCase();
      if (token.value == "EXISTS") {
        expr.kind = ast::ExprKind::kSubquery;
        expr.subquery_kind = ast::SubqueryKind::kExists;
        Advance();
        if (!IsOperator("(") || !IsKeyword("SELECT", 1)) SyntaxError(Peek(), "(SELECT ...)");
        expr.subquery = ParseSubquery();
        break;
      }
      [[fallthrough]];
    case TokenKind::kEnd:
      ExpectedExpression(token);
    case TokenKind::kIdentifier:
      if (AtTypedLiteral()) return ParseTypedLiteral();
      if (IsWord("EXTRACT") && IsOperator("(", 1)) return ParseExtract();
      if ((IsWord("SUBSTRING") || IsWord("SUBSTR")) && IsOperator("(", 1)) return ParseSubstring();
      if (IsOperator("(", 1)) return ParseFunction();
      expr.kind = ast::ExprKind::kColumn;
      expr.name = Advance().value;
      if (AcceptOperator(".")) {
        if (!IsIdentifier()) SyntaxError(Peek(), "a column name");
        expr.qualifier = std::move(expr.name);
        expr.name = Advance().value;
      }
      break;
    case TokenKind::kOperator: {
      if (token.text != "(") ExpectedExpression(token);
      if (IsKeyword("SELECT", 1)) {
        expr.kind = ast::ExprKind::kSubquery;
        expr.subquery_kind = ast::SubqueryKind::kScalar;
        expr.subquery = ParseSubquery();
        break;
      }
      Advance();
      ast::Expr inner = ParseExpr();
      if (IsOperator(",")) Unsupported(Peek(), "row values are not supported");
      ExpectOperator(")");
      // The parentheses belong to the expression's text (its output name).
      inner.position = token.offset;
      inner.end = PreviousEnd();
      return inner;
    }
  }
  Finish(expr);
  return expr;
}

ast::Expr Parser::ParseFunction() {
  const Token& name = Advance();
  ast::Expr expr;
  expr.kind = ast::ExprKind::kFunction;
  expr.position = expr.op_position = name.offset;
  expr.name = name.value;
  const auto* found =
      std::find_if(kFunctions.begin(), kFunctions.end(),
                   [&](const FunctionName& f) { return IdentifierEquals(f.name, name.value); });
  if (found == kFunctions.end())
    throw SqlError("unknown function '" + name.value + "'", name.offset);
  expr.function = found->function;
  ExpectOperator("(");
  if (IsKeyword("DISTINCT")) {
    if (expr.function != AggregateFunction::kCount)
      Unsupported(Peek(), "DISTINCT inside aggregate functions other than COUNT is not supported");
    expr.distinct = true;
    Advance();
  } else {
    AcceptKeyword("ALL");
  }
  if (IsOperator("*")) {
    if (expr.distinct) Unsupported(Peek(), "COUNT(DISTINCT *) is not supported");
    if (expr.function != AggregateFunction::kCount)
      Unsupported(Peek(), "'*' is only allowed in COUNT(*)");
    Advance();
    expr.function = AggregateFunction::kCountStar;
  } else if (!IsOperator(")")) {
    do {
      expr.children.push_back(ParseExpr());
    } while (AcceptOperator(","));
  }
  ExpectOperator(")");

  const std::string function_name(found->name);
  const std::size_t arguments = expr.children.size();
  if (expr.function == AggregateFunction::kCount && arguments != 1)
    throw SqlError("COUNT takes one argument or '*'", name.offset);
  if ((expr.function == AggregateFunction::kMin || expr.function == AggregateFunction::kMax) &&
      arguments > 1)
    throw SqlError(
        function_name + " of several arguments (the scalar " + function_name + ") is not supported",
        name.offset);
  if (expr.function == AggregateFunction::kQuantile && arguments != 2)
    throw SqlError("QUANTILE takes two arguments: a value and a fraction q in [0, 1]", name.offset);
  if (expr.function != AggregateFunction::kQuantile &&
      expr.function != AggregateFunction::kCountStar && arguments != 1)
    throw SqlError(function_name + " takes exactly one argument", name.offset);

  if (IsWord("OVER")) Unsupported(Peek(), "window functions are not supported");
  if (IsWord("FILTER")) Unsupported(Peek(), "FILTER clauses are not supported");
  Finish(expr);
  return expr;
}

ast::Expr Parser::ParseCase() {
  NestingGuard guard(*this, Peek().offset);
  ast::Expr expr;
  expr.kind = ast::ExprKind::kCase;
  expr.position = expr.op_position = Advance().offset;
  if (!IsWord("WHEN")) {
    expr.has_operand = true;
    expr.children.push_back(ParseExpr());
  }
  if (!IsWord("WHEN")) SyntaxError(Peek(), "WHEN");
  while (IsWord("WHEN")) {
    Advance();
    expr.children.push_back(ParseExpr());
    if (!IsWord("THEN")) SyntaxError(Peek(), "THEN");
    Advance();
    expr.children.push_back(ParseExpr());
  }
  if (IsWord("ELSE")) {
    Advance();
    expr.has_else = true;
    expr.children.push_back(ParseExpr());
  }
  if (!IsWord("END")) SyntaxError(Peek(), "END");
  Advance();
  Finish(expr);
  return expr;
}

ast::Expr Parser::ParseCast() {
  ast::Expr expr;
  expr.kind = ast::ExprKind::kCast;
  expr.position = expr.op_position = Advance().offset;
  ExpectOperator("(");
  expr.children.push_back(ParseExpr());
  ExpectKeyword("AS");
  const Token& type = Peek();
  if (type.kind != TokenKind::kIdentifier || type.quoted) SyntaxError(type, "a type name");
  if (IsWord("INTEGER") || IsWord("INT") || IsWord("BIGINT")) {
    expr.cast_type = ValueType::kInteger;
  } else if (IsWord("REAL") || IsWord("FLOAT") || IsWord("DOUBLE")) {
    expr.cast_type = ValueType::kReal;
  } else if (ParseLogicalCastType(expr)) {
    ExpectOperator(")");
    Finish(expr);
    return expr;
  } else {
    Unsupported(type,
                "CAST to " + type.value +
                    " is not supported (only INTEGER, INT, BIGINT, REAL, DOUBLE, FLOAT, DATE, "
                    "DECIMAL(p,s))");
  }
  Advance();
  if (IdentifierEquals(type.value, "DOUBLE") && IsWord("PRECISION")) Advance();
  ExpectOperator(")");
  Finish(expr);
  return expr;
}

ast::Expr Parser::ParseSubstring() {
  const Token& name = Advance();
  const bool standard = IdentifierEquals(name.value, "SUBSTRING");
  const std::string function = standard ? "SUBSTRING" : "SUBSTR";
  ast::Expr expr;
  expr.kind = ast::ExprKind::kSubstring;
  expr.position = expr.op_position = name.offset;
  ExpectOperator("(");
  if (IsOperator(")")) throw SqlError(function + " takes a string and a start", Peek().offset);
  expr.children.push_back(ParseExpr());
  if (standard && AcceptKeyword("FROM")) {
    expr.children.push_back(ParseExpr());
    if (IsWord("FOR")) {
      Advance();
      expr.children.push_back(ParseExpr());
    }
  } else if (standard && IsWord("FOR")) {
    Unsupported(Peek(), "SUBSTRING(x FOR n) needs a start: SUBSTRING(x FROM 1 FOR n)");
  } else if (AcceptOperator(",")) {
    expr.children.push_back(ParseExpr());
    if (AcceptOperator(",")) expr.children.push_back(ParseExpr());
    if (IsOperator(",")) throw SqlError(function + " takes at most three arguments", Peek().offset);
  } else if (!IsOperator(")")) {
    SyntaxError(Peek(), standard ? "FROM, ',' or ')'" : "',' or ')'");
  }
  if (expr.children.size() < 2)
    throw SqlError(function + " takes a string and a start: " + function + "(x, start[, length])",
                   name.offset);
  ExpectOperator(")");
  Finish(expr);
  return expr;
}

}  // namespace clq::sql::detail
