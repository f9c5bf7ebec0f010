#include "sql/statement_split.hpp"

#include <gtest/gtest.h>

#include <string>
#include <vector>

namespace clq::sql {
namespace {

std::vector<std::string> Texts(const std::vector<StatementText>& statements) {
  std::vector<std::string> texts;
  for (const StatementText& s : statements)
    texts.push_back(s.text);
  return texts;
}

TEST(StatementSplitTest, SplitsOnSemicolonsAndKeepsOffsets) {
  const std::string script = "SELECT 1;  SELECT 2 ;\n\nSELECT 3";
  const auto statements = SplitStatements(script);
  ASSERT_EQ(statements.size(), 3u);
  EXPECT_EQ(Texts(statements), (std::vector<std::string>{"SELECT 1", "SELECT 2", "SELECT 3"}));
  for (const StatementText& s : statements)
    EXPECT_EQ(script.substr(s.offset, s.text.size()), s.text);
  EXPECT_EQ(statements[1].offset, 11u);
  EXPECT_EQ(statements[2].offset, 23u);
}

TEST(StatementSplitTest, SemicolonsInsideLiteralsIdentifiersAndComments) {
  const std::string script =
      "SELECT 'a;b', 'it''s;' FROM t; SELECT \"x;y\" FROM u -- c;d\n; "
      "SELECT /* e;f */ 1";
  const auto statements = SplitStatements(script);
  EXPECT_EQ(Texts(statements),
            (std::vector<std::string>{"SELECT 'a;b', 'it''s;' FROM t",
                                      "SELECT \"x;y\" FROM u -- c;d", "SELECT /* e;f */ 1"}));
}

TEST(StatementSplitTest, DropsEmptyStatements) {
  EXPECT_TRUE(SplitStatements("").empty());
  EXPECT_TRUE(SplitStatements(" ;; \n ; -- just a comment\n; /* and another */ ;").empty());
  const auto statements = SplitStatements(";;SELECT 1;;; -- trailing comment");
  EXPECT_EQ(Texts(statements), (std::vector<std::string>{"SELECT 1"}));
  EXPECT_EQ(statements[0].offset, 2u);
}

TEST(StatementSplitTest, KeepsCommentsWithTheirStatement) {
  const auto statements = SplitStatements("-- first query\nSELECT 1;\n/* second */ SELECT 2");
  EXPECT_EQ(Texts(statements),
            (std::vector<std::string>{"-- first query\nSELECT 1", "/* second */ SELECT 2"}));
}

TEST(StatementSplitTest, UnterminatedConstructsRunToTheEnd) {
  // The parser reports these; the splitter only must not lose text or throw.
  EXPECT_EQ(Texts(SplitStatements("SELECT 1; SELECT 'oops; SELECT 3")),
            (std::vector<std::string>{"SELECT 1", "SELECT 'oops; SELECT 3"}));
  EXPECT_EQ(Texts(SplitStatements("SELECT 1 /* open; SELECT 2")),
            (std::vector<std::string>{"SELECT 1 /* open; SELECT 2"}));
  EXPECT_EQ(Texts(SplitStatements("SELECT \"a;")), (std::vector<std::string>{"SELECT \"a;"}));
}

}  // namespace
}  // namespace clq::sql
