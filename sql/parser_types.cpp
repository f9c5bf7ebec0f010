// Literals and constructs of the DATE and DECIMAL types: DATE 'yyyy-mm-dd',
// INTERVAL 'n' DAY|MONTH|YEAR, EXTRACT(YEAR|MONTH|DAY FROM x), and CAST to
// DATE or DECIMAL(p, s). DATE, INTERVAL and EXTRACT stay ordinary names
// elsewhere (a column may be called date).
#include <charconv>

#include "common/calendar.hpp"
#include "common/errors.hpp"
#include "sql/parser_internal.hpp"
#include "storage/table.hpp"

namespace clq::sql::detail {
namespace {

using ast::IntervalUnit;

std::optional<IntervalUnit> UnitOf(std::string_view word) {
  std::string upper;
  for (char c : word)
    upper.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  if (upper == "DAY" || upper == "DAYS") return IntervalUnit::kDay;
  if (upper == "MONTH" || upper == "MONTHS") return IntervalUnit::kMonth;
  if (upper == "YEAR" || upper == "YEARS") return IntervalUnit::kYear;
  return std::nullopt;
}

}  // namespace

bool Parser::AtTypedLiteral() const {
  if (IsWord("DATE") && Peek(1).kind == TokenKind::kString) return true;
  return IsWord("INTERVAL") &&
         (Peek(1).kind == TokenKind::kString || Peek(1).kind == TokenKind::kInteger);
}

ast::Expr Parser::ParseTypedLiteral() {
  const Token& word = Advance();
  const Token& value = Advance();
  ast::Expr expr;
  expr.position = expr.op_position = word.offset;
  if (IdentifierEquals(word.value, "DATE")) {
    const std::optional<std::int32_t> days = ParseDate(value.value);
    if (!days)
      throw SqlError("'" + value.value + "' is not a date (expected YYYY-MM-DD)", value.offset);
    expr.literal = Value::Integer(*days);
    expr.logical = LogicalType::Date();
    Finish(expr);
    return expr;
  }
  // INTERVAL '90' DAY, INTERVAL 90 DAY, INTERVAL '90 days'; an optional
  // precision after the unit, as the SQL standard writes DAY (3).
  expr.kind = ast::ExprKind::kInterval;
  std::string_view text = value.kind == TokenKind::kString ? std::string_view(value.value)
                                                           : std::string_view(value.text);
  while (!text.empty() && text.front() == ' ')
    text.remove_prefix(1);
  bool negative = false;
  if (!text.empty() && (text.front() == '-' || text.front() == '+')) {
    negative = text.front() == '-';
    text.remove_prefix(1);
  }
  std::int64_t amount = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), amount);
  std::string_view rest(end, static_cast<std::size_t>(text.data() + text.size() - end));
  while (!rest.empty() && rest.front() == ' ')
    rest.remove_prefix(1);
  while (!rest.empty() && rest.back() == ' ')
    rest.remove_suffix(1);
  if (error != std::errc() || end == text.data() || amount > 1'000'000'000)
    throw SqlError("'" + value.value + "' is not an interval amount (expected a whole number)",
                   value.offset);
  std::optional<IntervalUnit> unit;
  if (!rest.empty()) {
    unit = UnitOf(rest);
    if (!unit || value.kind != TokenKind::kString)
      throw SqlError("'" + value.value + "' is not an interval (expected n DAY, MONTH or YEAR)",
                     value.offset);
  } else {
    const Token& unit_token = Peek();
    if (unit_token.kind == TokenKind::kIdentifier && !unit_token.quoted)
      unit = UnitOf(unit_token.value);
    if (!unit) Unsupported(unit_token, "INTERVAL needs a unit: DAY, MONTH or YEAR");
    Advance();
    if (IsOperator("(") && Peek(1).kind == TokenKind::kInteger && IsOperator(")", 2)) {
      Advance();
      Advance();
      Advance();
    }
  }
  expr.literal = Value::Integer(negative ? -amount : amount);
  expr.interval_unit = *unit;
  Finish(expr);
  return expr;
}

ast::Expr Parser::ParseExtract() {
  ast::Expr expr;
  expr.kind = ast::ExprKind::kExtract;
  expr.position = expr.op_position = Advance().offset;
  ExpectOperator("(");
  const Token& field = Peek();
  if (field.kind != TokenKind::kIdentifier || field.quoted)
    SyntaxError(field, "YEAR, MONTH or DAY");
  const std::optional<IntervalUnit> unit = UnitOf(field.value);
  if (!unit || IdentifierEquals(field.value, "DAYS") || IdentifierEquals(field.value, "MONTHS") ||
      IdentifierEquals(field.value, "YEARS"))
    Unsupported(field, "EXTRACT of " + field.value + " is not supported (only YEAR, MONTH, DAY)");
  expr.name = IdentifierEquals(field.value, "YEAR")    ? "YEAR"
              : IdentifierEquals(field.value, "MONTH") ? "MONTH"
                                                       : "DAY";
  Advance();
  ExpectKeyword("FROM");
  expr.children.push_back(ParseExpr());
  ExpectOperator(")");
  Finish(expr);
  return expr;
}

bool Parser::ParseLogicalCastType(ast::Expr& cast) {
  if (IsWord("DATE")) {
    Advance();
    cast.cast_type = ValueType::kInteger;
    cast.logical = LogicalType::Date();
    return true;
  }
  if (!IsWord("DECIMAL") && !IsWord("NUMERIC")) return false;
  const Token& name = Advance();
  std::int64_t precision = 18, scale = 0;
  if (AcceptOperator("(")) {
    if (Peek().kind != TokenKind::kInteger) SyntaxError(Peek(), "a precision");
    precision = Advance().integer;
    if (AcceptOperator(",")) {
      if (Peek().kind != TokenKind::kInteger) SyntaxError(Peek(), "a scale");
      scale = Advance().integer;
    }
    ExpectOperator(")");
  }
  if (precision < 1 || precision > kMaxDecimalPrecision || scale < 0 || scale > precision)
    throw SqlError("DECIMAL(" + std::to_string(precision) + "," + std::to_string(scale) +
                       ") is not supported (precision 1 to 18, scale 0 to the precision)",
                   name.offset);
  cast.cast_type = ValueType::kInteger;
  cast.logical =
      LogicalType::Decimal(static_cast<std::uint8_t>(precision), static_cast<std::uint8_t>(scale));
  return true;
}

}  // namespace clq::sql::detail
