#include "sql/sql_error_format.hpp"

#include <gtest/gtest.h>

#include <string>

#include "common/errors.hpp"
#include "sql/parser.hpp"

namespace clq::sql {
namespace {

TEST(SqlErrorFormatTest, MultiLineStatement) {
  const std::string sql = "SELECT unique1,\n       uniqe1\nFROM tenktup1";
  const SqlError error("no column named 'uniqe1'; did you mean 'unique1'?", sql.find("uniqe1"));
  EXPECT_EQ(FormatSqlError(sql, error),
            "line 2, column 8: no column named 'uniqe1'; did you mean 'unique1'?\n"
            "       uniqe1\n"
            "       ^");
}

TEST(SqlErrorFormatTest, FirstLineAndFirstColumn) {
  EXPECT_EQ(FormatSqlError("INSERT INTO t\nVALUES (1)", SqlError("only SELECT", 0)),
            "line 1, column 1: only SELECT\nINSERT INTO t\n^");
}

TEST(SqlErrorFormatTest, WithoutOffsetJustTheMessage) {
  EXPECT_EQ(FormatSqlError("SELECT 1", SqlError("something went wrong")), "something went wrong");
}

TEST(SqlErrorFormatTest, OffsetAtTheEnd) {
  EXPECT_EQ(FormatSqlError("SELECT 1 +", SqlError("expected an expression after '+'", 10)),
            "line 1, column 11: expected an expression after '+'\nSELECT 1 +\n          ^");
  // At a newline: the caret goes just past the line's end.
  EXPECT_EQ(FormatSqlError("SELECT (\nx", SqlError("m", 8)),
            "line 1, column 9: m\nSELECT (\n        ^");
  // Past the end is clamped.
  EXPECT_EQ(FormatSqlError("ab", SqlError("m", 99)), "line 1, column 3: m\nab\n  ^");
}

TEST(SqlErrorFormatTest, TabsExpandAndColumnsCountCharacters) {
  const std::string sql = "SELECT\ta\tFROM";
  EXPECT_EQ(FormatSqlError(sql, SqlError("m", sql.find("FROM"))),
            "line 1, column 10: m\nSELECT  a       FROM\n                ^");
}

TEST(SqlErrorFormatTest, Utf8CountsAsOneColumn) {
  const std::string sql = "SELECT 'caf\xC3\xA9', x";
  EXPECT_EQ(FormatSqlError(sql, SqlError("m", sql.find('x'))),
            "line 1, column 16: m\nSELECT 'caf\xC3\xA9', x\n               ^");
}

TEST(SqlErrorFormatTest, CrLfLineEndings) {
  const std::string sql = "SELECT a\r\nFROM t\r\nWHERE";
  EXPECT_EQ(FormatSqlError(sql, SqlError("m", sql.find("FROM") + 5)),
            "line 2, column 6: m\nFROM t\n     ^");
  EXPECT_EQ(FormatSqlError(sql, SqlError("m", sql.size())), "line 3, column 6: m\nWHERE\n     ^");
}

TEST(SqlErrorFormatTest, LongLinesShowAWindowAroundTheCaret) {
  std::string sql = "SELECT ";
  for (int i = 0; i < 300; ++i)
    sql += "a + ";
  sql += "FROM";
  const std::size_t offset = sql.find("FROM");
  const std::string text = FormatSqlError(sql, SqlError("m", offset));
  const std::size_t first_newline = text.find('\n');
  const std::size_t second_newline = text.find('\n', first_newline + 1);
  const std::string line = text.substr(first_newline + 1, second_newline - first_newline - 1);
  const std::string caret = text.substr(second_newline + 1);
  EXPECT_EQ(text.substr(0, first_newline), "line 1, column 1208: m");
  EXPECT_LE(line.size(), 200u);
  EXPECT_EQ(line.substr(0, 3), "...");
  EXPECT_EQ(caret.back(), '^');
  EXPECT_EQ(line.substr(caret.size() - 1, 4), "FROM");
}

TEST(SqlErrorFormatTest, LongLinesWithTabsKeepTheCaretAligned) {
  for (int tabs = 20; tabs < 40; ++tabs) {
    std::string sql = "SELECT";
    for (int i = 0; i < tabs; ++i)
      sql += "\tx,";
    sql += " FROM";
    const std::string text = FormatSqlError(sql, SqlError("m", sql.find("FROM")));
    const std::size_t first_newline = text.find('\n');
    const std::size_t second_newline = text.find('\n', first_newline + 1);
    const std::string line = text.substr(first_newline + 1, second_newline - first_newline - 1);
    const std::string caret = text.substr(second_newline + 1);
    SCOPED_TRACE(tabs);
    EXPECT_EQ(line.substr(0, 3), "...");
    EXPECT_EQ(line.substr(caret.size() - 1, 4), "FROM");
  }
}

TEST(SqlErrorFormatTest, FormatsARealParseError) {
  const std::string sql = "SELECT *\n  FORM tenktup1";
  try {
    Parse(sql);
    FAIL() << "no error";
  } catch (const SqlError& e) {
    EXPECT_EQ(FormatSqlError(sql, e),
              "line 2, column 3: syntax error at or near 'FORM'\n  FORM tenktup1\n  ^");
  }
}

}  // namespace
}  // namespace clq::sql
