#include "sql/sql_literal.hpp"

#include <charconv>
#include <cmath>

namespace clq::sql {

std::string FormatReal(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value < 0 ? "-Inf" : "Inf";
  char buffer[64];
  const auto [end, ec] = std::to_chars(buffer, buffer + sizeof buffer, value);
  std::string text(buffer, ec == std::errc() ? end : buffer);
  if (text.find_first_of(".e") == std::string::npos) text += ".0";
  return text;
}

std::string SqlLiteral(const Value& value) {
  switch (value.type) {
    case ValueType::kNull:
      return "NULL";
    case ValueType::kInteger:
      return std::to_string(value.integer);
    case ValueType::kReal:
      return FormatReal(value.real);
    case ValueType::kText: {
      std::string text = "'";
      for (char c : value.text) {
        if (c == '\'') text += '\'';
        text += c;
      }
      return text + "'";
    }
  }
  return "?";
}

}  // namespace clq::sql
