// The SQL lexer: turns one statement's text into tokens.
//
// Keywords and bare identifiers are case-insensitive; "double quoted"
// identifiers keep their case and may be any word, reserved or not. String
// literals are 'single quoted' with '' as the escape for a quote. Comments
// (`-- to end of line` and `/* ... */`) and whitespace are skipped.
//
// Only the words the parser must tell apart from names (clause keywords,
// operators spelled as words, and constructs it rejects such as CASE or
// UNION) are reserved; function names (COUNT, SUM) and type names (INTEGER)
// are ordinary identifiers.
//
// Tokens view the text they were made from: the text must outlive them.
// Errors (an unterminated literal or comment, a stray character, a malformed
// number) are SqlError with the byte offset of the problem.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

namespace clq::sql {

enum class TokenKind : std::uint8_t {
  kEnd,         // end of input; offset = text size
  kIdentifier,  // bare or "quoted" name; value holds the name
  kKeyword,     // reserved word; value holds it in upper case
  kInteger,     // digits only; integer, or real when it does not fit int64
  kReal,        // decimal point and/or exponent
  kString,      // 'literal'; value holds it with '' unescaped
  kOperator,    // punctuation and operators: ( ) , . ; * / % + - = == != <> < <= > >= || ...
};

struct Token {
  TokenKind kind = TokenKind::kEnd;
  std::string_view text;  // the token exactly as written
  std::string value;      // see TokenKind
  std::size_t offset = 0;
  bool quoted = false;            // kIdentifier written in double quotes
  bool integer_overflow = false;  // kInteger too large for int64: `real` holds it
  std::int64_t integer = 0;
  double real = 0;
};

// All tokens of `sql`, ending with one kEnd token.
std::vector<Token> Tokenize(std::string_view sql);

// Whether `upper` (an upper-case word) is reserved.
bool IsReservedKeyword(std::string_view upper);

// How a token reads in an error message: its text, or "end of input".
std::string DescribeToken(const Token& token);

}  // namespace clq::sql
