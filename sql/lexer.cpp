#include "sql/lexer.hpp"

#include <locale.h>
#include <stdlib.h>

#include <algorithm>
#include <array>
#include <charconv>
#include <cstdio>
#include <cstdlib>

#include "common/errors.hpp"

namespace clq::sql {
namespace {

// A numeric literal's value, as strtod reads it in the "C" locale whatever
// the process's: a program embedding clq (Python) may have set one whose
// decimal point is a comma, under which strtod would read "1.5" as 1.
// Out of range, strtod's answer stands (HUGE_VAL, or 0 for underflow).
double ParseReal(const std::string& text) {
  static const locale_t c_locale = newlocale(LC_ALL_MASK, "C", locale_t{});
  return strtod_l(text.c_str(), nullptr, c_locale);
}

constexpr auto kReservedKeywords = std::to_array<std::string_view>({
    "ALL",    "AND",    "AS",       "ASC",    "BETWEEN",   "BY",      "CASE",   "CAST", "COLLATE",
    "CROSS",  "DESC",   "DISTINCT", "EXCEPT", "EXISTS",    "EXPLAIN", "FROM",   "FULL", "GLOB",
    "GROUP",  "HAVING", "IN",       "INNER",  "INTERSECT", "IS",      "JOIN",   "LEFT", "LIKE",
    "LIMIT",  "MATCH",  "NATURAL",  "NOT",    "NULL",      "OFFSET",  "ON",     "OR",   "ORDER",
    "REGEXP", "RIGHT",  "SELECT",   "UNION",  "USING",     "WHERE",   "WINDOW",
});

static_assert(std::is_sorted(kReservedKeywords.begin(), kReservedKeywords.end()),
              "IsReservedKeyword searches kReservedKeywords by bisection");
constexpr std::size_t kLongestKeyword = 9;  // INTERSECT

// Two-character operators first, so that "<=" is not read as "<" then "=".
constexpr auto kTwoCharOperators =
    std::to_array<std::string_view>({"==", "!=", "<>", "<=", ">=", "||", "<<", ">>"});
constexpr std::string_view kOneCharOperators = "(),.;*/%+-=<>&|~";

bool IsDigit(char c) {
  return c >= '0' && c <= '9';
}
bool IsIdentifierStart(char c) {
  const auto u = static_cast<unsigned char>(c);
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_' || u >= 0x80;
}
bool IsIdentifierChar(char c) {
  return IsIdentifierStart(c) || IsDigit(c) || c == '$';
}
bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

std::string Upper(std::string_view word) {
  std::string result(word);
  for (char& c : result)
    if (c >= 'a' && c <= 'z') c = static_cast<char>(c - 'a' + 'A');
  return result;
}

std::string DescribeCharacter(char c) {
  const auto u = static_cast<unsigned char>(c);
  if (u >= 0x20 && u < 0x7f) return std::string("'") + c + "'";
  char buffer[8];
  std::snprintf(buffer, sizeof buffer, "0x%02X", u);
  return buffer;
}

class Lexer {
 public:
  explicit Lexer(std::string_view sql) : sql_(sql) {}

  std::vector<Token> Run() {
    std::vector<Token> tokens;
    tokens.reserve(sql_.size() / 4 + 1);
    while (true) {
      SkipSpaceAndComments();
      if (pos_ >= sql_.size()) break;
      tokens.push_back(Next());
    }
    Token end;
    end.kind = TokenKind::kEnd;
    end.offset = sql_.size();
    tokens.push_back(std::move(end));
    return tokens;
  }

 private:
  char At(std::size_t i) const { return i < sql_.size() ? sql_[i] : '\0'; }

  void SkipSpaceAndComments() {
    while (pos_ < sql_.size()) {
      const char c = sql_[pos_];
      if (IsSpace(c)) {
        ++pos_;
      } else if (c == '-' && At(pos_ + 1) == '-') {
        const std::size_t newline = sql_.find('\n', pos_);
        pos_ = newline == std::string_view::npos ? sql_.size() : newline + 1;
      } else if (c == '/' && At(pos_ + 1) == '*') {
        const std::size_t close = sql_.find("*/", pos_ + 2);
        if (close == std::string_view::npos) throw SqlError("unterminated /* comment", pos_);
        pos_ = close + 2;
      } else {
        break;
      }
    }
  }

  Token Next() {
    const char c = sql_[pos_];
    if (IsIdentifierStart(c)) return Word();
    if (IsDigit(c) || (c == '.' && IsDigit(At(pos_ + 1)))) return Number();
    if (c == '\'') return String();
    if (c == '"') return QuotedIdentifier();
    for (std::string_view op : kTwoCharOperators) {
      if (sql_.substr(pos_, 2) == op) return Make(TokenKind::kOperator, pos_, 2);
    }
    if (kOneCharOperators.find(c) != std::string_view::npos)
      return Make(TokenKind::kOperator, pos_, 1);
    if (c == '?' || c == ':' || c == '@' || c == '$')
      throw SqlError("query parameters are not supported", pos_);
    throw SqlError("unexpected character " + DescribeCharacter(c), pos_);
  }

  Token Make(TokenKind kind, std::size_t begin, std::size_t length) {
    Token token;
    token.kind = kind;
    token.offset = begin;
    token.text = sql_.substr(begin, length);
    pos_ = begin + length;
    return token;
  }

  Token Word() {
    std::size_t end = pos_;
    while (end < sql_.size() && IsIdentifierChar(sql_[end]))
      ++end;
    Token token = Make(TokenKind::kIdentifier, pos_, end - pos_);
    if (token.text.size() <= kLongestKeyword) {
      std::string upper = Upper(token.text);
      if (IsReservedKeyword(upper)) {
        token.kind = TokenKind::kKeyword;
        token.value = std::move(upper);
        return token;
      }
    }
    token.value = std::string(token.text);
    return token;
  }

  Token Number() {
    const std::size_t begin = pos_;
    std::size_t end = pos_;
    bool is_real = false;
    while (IsDigit(At(end)))
      ++end;
    if (At(end) == '.') {
      is_real = true;
      ++end;
      while (IsDigit(At(end)))
        ++end;
    }
    if (At(end) == 'e' || At(end) == 'E') {
      std::size_t exponent = end + 1;
      if (At(exponent) == '+' || At(exponent) == '-') ++exponent;
      if (!IsDigit(At(exponent))) {
        throw SqlError(
            "malformed number '" + std::string(sql_.substr(begin, exponent - begin)) + "'", begin);
      }
      while (IsDigit(At(exponent)))
        ++exponent;
      is_real = true;
      end = exponent;
    }
    if (IsIdentifierChar(At(end)) || At(end) == '.') {
      std::size_t bad_end = end;
      while (IsIdentifierChar(At(bad_end)) || At(bad_end) == '.')
        ++bad_end;
      throw SqlError("malformed number '" + std::string(sql_.substr(begin, bad_end - begin)) + "'",
                     begin);
    }
    Token token = Make(is_real ? TokenKind::kReal : TokenKind::kInteger, begin, end - begin);
    const char* first = token.text.data();
    const char* last = first + token.text.size();
    if (!is_real) {
      const auto [ptr, ec] = std::from_chars(first, last, token.integer);
      if (ec == std::errc() && ptr == last) return token;
      // Beyond int64: a REAL, as in SQLite.
      token.integer_overflow = true;
    }
    token.real = ParseReal(std::string(token.text));
    return token;
  }

  Token String() {
    const std::size_t begin = pos_;
    std::string value;
    std::size_t i = pos_ + 1;
    while (true) {
      if (i >= sql_.size()) throw SqlError("unterminated string literal", begin);
      const char c = sql_[i];
      if (c == '\'') {
        if (At(i + 1) == '\'') {
          value.push_back('\'');
          i += 2;
          continue;
        }
        break;
      }
      if (c == '\0') throw SqlError("string literals cannot contain NUL characters", i);
      value.push_back(c);
      ++i;
    }
    Token token = Make(TokenKind::kString, begin, i + 1 - begin);
    token.value = std::move(value);
    return token;
  }

  Token QuotedIdentifier() {
    const std::size_t begin = pos_;
    std::string value;
    std::size_t i = pos_ + 1;
    while (true) {
      if (i >= sql_.size()) throw SqlError("unterminated quoted identifier", begin);
      const char c = sql_[i];
      if (c == '"') {
        if (At(i + 1) == '"') {
          value.push_back('"');
          i += 2;
          continue;
        }
        break;
      }
      if (c == '\0') throw SqlError("identifiers cannot contain NUL characters", i);
      value.push_back(c);
      ++i;
    }
    if (value.empty()) throw SqlError("zero-length quoted identifier", begin);
    Token token = Make(TokenKind::kIdentifier, begin, i + 1 - begin);
    token.value = std::move(value);
    token.quoted = true;
    return token;
  }

  std::string_view sql_;
  std::size_t pos_ = 0;
};

}  // namespace

std::vector<Token> Tokenize(std::string_view sql) {
  return Lexer(sql).Run();
}

bool IsReservedKeyword(std::string_view upper) {
  return std::binary_search(kReservedKeywords.begin(), kReservedKeywords.end(), upper);
}

std::string DescribeToken(const Token& token) {
  if (token.kind == TokenKind::kEnd) return "end of input";
  std::string text = "'";
  text.append(token.text).append("'");
  return text;
}

}  // namespace clq::sql
