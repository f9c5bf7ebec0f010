#include "sql/lexer.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/errors.hpp"

namespace clq::sql {
namespace {

std::vector<TokenKind> Kinds(const std::vector<Token>& tokens) {
  std::vector<TokenKind> kinds;
  for (const Token& token : tokens)
    kinds.push_back(token.kind);
  return kinds;
}

std::vector<std::string> Texts(const std::vector<Token>& tokens) {
  std::vector<std::string> texts;
  for (const Token& token : tokens)
    texts.emplace_back(token.text);
  return texts;
}

// The offset of the SqlError that lexing `sql` throws, and its message.
std::pair<std::size_t, std::string> LexError(const std::string& sql) {
  try {
    Tokenize(sql);
  } catch (const SqlError& e) {
    return {e.offset(), e.what()};
  }
  ADD_FAILURE() << "no error for: " << sql;
  return {0, ""};
}

TEST(LexerTest, EmptyInputIsJustEnd) {
  const auto tokens = Tokenize("");
  ASSERT_EQ(tokens.size(), 1u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kEnd);
  EXPECT_EQ(tokens[0].offset, 0u);
  EXPECT_EQ(Tokenize("  \n\t -- only a comment")[0].kind, TokenKind::kEnd);
}

TEST(LexerTest, KeywordsAndIdentifiers) {
  const auto tokens = Tokenize("select Foo FROM bar_1 count Integer");
  EXPECT_EQ(Kinds(tokens), (std::vector<TokenKind>{TokenKind::kKeyword, TokenKind::kIdentifier,
                                                   TokenKind::kKeyword, TokenKind::kIdentifier,
                                                   TokenKind::kIdentifier, TokenKind::kIdentifier,
                                                   TokenKind::kEnd}));
  EXPECT_EQ(tokens[0].value, "SELECT");  // keywords upper-cased
  EXPECT_EQ(tokens[0].text, "select");   // text as written
  EXPECT_EQ(tokens[1].value, "Foo");     // identifiers keep their case
  EXPECT_EQ(tokens[3].value, "bar_1");
  EXPECT_FALSE(tokens[1].quoted);
  EXPECT_EQ(tokens[1].offset, 7u);
  EXPECT_EQ(tokens.back().offset, 35u);
}

TEST(LexerTest, QuotedIdentifiers) {
  const auto tokens = Tokenize(R"("select" "Mixed Case" "a""b")");
  ASSERT_EQ(tokens.size(), 4u);
  for (int i = 0; i < 3; ++i) {
    EXPECT_EQ(tokens[i].kind, TokenKind::kIdentifier);
    EXPECT_TRUE(tokens[i].quoted);
  }
  EXPECT_EQ(tokens[0].value, "select");
  EXPECT_EQ(tokens[1].value, "Mixed Case");
  EXPECT_EQ(tokens[2].value, "a\"b");
  EXPECT_EQ(tokens[2].text, R"("a""b")");
}

TEST(LexerTest, StringLiterals) {
  const auto tokens = Tokenize("'abc' 'it''s' '' 'semi;colon -- not a comment'");
  ASSERT_EQ(tokens.size(), 5u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kString);
  EXPECT_EQ(tokens[0].value, "abc");
  EXPECT_EQ(tokens[1].value, "it's");
  EXPECT_EQ(tokens[2].value, "");
  EXPECT_EQ(tokens[3].value, "semi;colon -- not a comment");
}

TEST(LexerTest, Numbers) {
  const auto tokens =
      Tokenize("0 42 9223372036854775807 9223372036854775808 1.5 .25 3. 1e3 2.5E-2 7e+1");
  ASSERT_EQ(tokens.size(), 11u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kInteger);
  EXPECT_EQ(tokens[1].integer, 42);
  EXPECT_EQ(tokens[2].integer, 9223372036854775807);
  EXPECT_FALSE(tokens[2].integer_overflow);
  // Beyond int64: still an integer token, but its value is REAL (SQLite).
  EXPECT_EQ(tokens[3].kind, TokenKind::kInteger);
  EXPECT_TRUE(tokens[3].integer_overflow);
  EXPECT_DOUBLE_EQ(tokens[3].real, 9223372036854775808.0);
  EXPECT_EQ(tokens[4].kind, TokenKind::kReal);
  EXPECT_DOUBLE_EQ(tokens[4].real, 1.5);
  EXPECT_DOUBLE_EQ(tokens[5].real, 0.25);
  EXPECT_DOUBLE_EQ(tokens[6].real, 3.0);
  EXPECT_DOUBLE_EQ(tokens[7].real, 1000.0);
  EXPECT_EQ(tokens[7].kind, TokenKind::kReal);
  EXPECT_DOUBLE_EQ(tokens[8].real, 0.025);
  EXPECT_DOUBLE_EQ(tokens[9].real, 70.0);
}

TEST(LexerTest, Operators) {
  const auto tokens = Tokenize("( ) , . ; * / % + - = == != <> < <= > >= || & | << >> ~");
  std::vector<std::string> expected = {"(",  ")", ",",  ".",  ";",  "*", "/",  "%", "+",
                                       "-",  "=", "==", "!=", "<>", "<", "<=", ">", ">=",
                                       "||", "&", "|",  "<<", ">>", "~", ""};
  EXPECT_EQ(Texts(tokens), expected);
  for (std::size_t i = 0; i + 1 < tokens.size(); ++i)
    EXPECT_EQ(tokens[i].kind, TokenKind::kOperator) << tokens[i].text;
  // No spaces needed between operators and operands.
  EXPECT_EQ(Texts(Tokenize("a<=-1")), (std::vector<std::string>{"a", "<=", "-", "1", ""}));
  EXPECT_EQ(Texts(Tokenize("t.a")), (std::vector<std::string>{"t", ".", "a", ""}));
}

TEST(LexerTest, CommentsAreSkipped) {
  const auto tokens = Tokenize("a -- line comment\n b /* block\n comment */ c/**/d -- at end");
  EXPECT_EQ(Texts(tokens), (std::vector<std::string>{"a", "b", "c", "d", ""}));
  EXPECT_EQ(tokens[1].offset, 19u);
  // '-' followed by a space is a minus, "/" alone a division.
  EXPECT_EQ(Texts(Tokenize("1 - -2 / 3")),
            (std::vector<std::string>{"1", "-", "-", "2", "/", "3", ""}));
}

TEST(LexerTest, Errors) {
  EXPECT_EQ(LexError("SELECT 'abc"),
            std::make_pair(std::size_t{7}, std::string("unterminated string literal")));
  EXPECT_EQ(LexError("SELECT \"abc"),
            std::make_pair(std::size_t{7}, std::string("unterminated quoted identifier")));
  EXPECT_EQ(LexError("SELECT 1 /* open"),
            std::make_pair(std::size_t{9}, std::string("unterminated /* comment")));
  EXPECT_EQ(LexError("SELECT a @ b"),
            std::make_pair(std::size_t{9}, std::string("query parameters are not supported")));
  EXPECT_EQ(LexError("SELECT a # b"),
            std::make_pair(std::size_t{9}, std::string("unexpected character '#'")));
  EXPECT_EQ(LexError("SELECT [a]"),
            std::make_pair(std::size_t{7}, std::string("unexpected character '['")));
  EXPECT_EQ(LexError(std::string("SELECT \x01")),
            std::make_pair(std::size_t{7}, std::string("unexpected character 0x01")));
  EXPECT_EQ(LexError("SELECT ?"),
            std::make_pair(std::size_t{7}, std::string("query parameters are not supported")));
  EXPECT_EQ(LexError("SELECT 12abc"),
            std::make_pair(std::size_t{7}, std::string("malformed number '12abc'")));
  EXPECT_EQ(LexError("SELECT 1e+"),
            std::make_pair(std::size_t{7}, std::string("malformed number '1e+'")));
  EXPECT_EQ(LexError("SELECT 1.2.3"),
            std::make_pair(std::size_t{7}, std::string("malformed number '1.2.3'")));
  EXPECT_EQ(LexError("SELECT \"\""),
            std::make_pair(std::size_t{7}, std::string("zero-length quoted identifier")));
  EXPECT_EQ(LexError(std::string("SELECT 'a\0b'", 12)).first, 9u);
}

TEST(LexerTest, NonAsciiIdentifiers) {
  const auto tokens = Tokenize("caf\xC3\xA9 + 1");
  ASSERT_EQ(tokens.size(), 4u);
  EXPECT_EQ(tokens[0].kind, TokenKind::kIdentifier);
  EXPECT_EQ(tokens[0].value, "caf\xC3\xA9");
}

TEST(LexerTest, DescribeToken) {
  const auto tokens = Tokenize("FORM");
  EXPECT_EQ(DescribeToken(tokens[0]), "'FORM'");
  EXPECT_EQ(DescribeToken(tokens[1]), "end of input");
}

}  // namespace
}  // namespace clq::sql
