// Hostile input cannot overflow the stack: nesting beyond the parser's
// bounds is a SqlError, and trees within them bind and print.
#include <gtest/gtest.h>

#include <string>

#include "sql/parser.hpp"
#include "sql/sql_error_format.hpp"
#include "tests/sql_frontend/bind_helpers.hpp"

namespace clq::sql {
namespace {

using clq::testing::BindSql;
using clq::testing::ToyCatalog;

constexpr int kHuge = 100000;

std::string Repeat(const std::string& piece, int count) {
  std::string text;
  text.reserve(piece.size() * static_cast<std::size_t>(count));
  for (int i = 0; i < count; ++i)
    text += piece;
  return text;
}

void ExpectTooDeep(const std::string& sql) {
  try {
    Parse(sql);
    ADD_FAILURE() << "no error";
  } catch (const SqlError& e) {
    EXPECT_STREQ(e.what(), "expression nested too deeply");
    EXPECT_LT(e.offset(), sql.size());
    // The formatted error stays short however long the line is.
    EXPECT_LT(FormatSqlError(sql, e).size(), 500u);
  }
}

TEST(DeepNestingTest, ManyParentheses) {
  ExpectTooDeep("SELECT " + Repeat("(", kHuge) + "1" + Repeat(")", kHuge));
  ExpectTooDeep("SELECT " + Repeat("(", kHuge));  // unbalanced, too
}

TEST(DeepNestingTest, LongUnaryChains) {
  ExpectTooDeep("SELECT " + Repeat("NOT ", kHuge) + "1");
  ExpectTooDeep("SELECT " + Repeat("- ", kHuge) + "1");
  ExpectTooDeep("SELECT " + Repeat("+", kHuge) + "1");
}

TEST(DeepNestingTest, NestedFunctionsAndCasts) {
  ExpectTooDeep("SELECT " + Repeat("SUM(", kHuge) + "1" + Repeat(")", kHuge));
  ExpectTooDeep("SELECT " + Repeat("CAST(", kHuge) + "1" + Repeat(" AS INT)", kHuge));
  ExpectTooDeep("SELECT 1 IN (" + Repeat("1 IN (", kHuge) + "1" + Repeat(")", kHuge));
}

TEST(DeepNestingTest, LongBinaryChainsAreBoundedByHeight) {
  ExpectTooDeep("SELECT 1" + Repeat(" + 1", kHuge));
  ExpectTooDeep("SELECT 1 FROM t1 WHERE a = 1" + Repeat(" AND a = 1", kHuge));
  ExpectTooDeep("SELECT 1" + Repeat(" + (1", kHuge) + Repeat(")", kHuge));
}

TEST(DeepNestingTest, DeepButAllowedTreesBindAndPrint) {
  auto catalog = ToyCatalog();
  const BoundStatement chain =
      BindSql(*catalog, "SELECT a FROM t1 WHERE a = 1" + Repeat(" AND a = 1", 900) + " ORDER BY b");
  EXPECT_GT(chain.select.where->ToString().size(), 900u * 10);

  const BoundStatement parens =
      BindSql(*catalog, "SELECT " + Repeat("(", 150) + "a" + Repeat(")", 150) + " FROM t1");
  EXPECT_EQ(parens.select.outputs[0].expr.ToString(), "#0.0");
  EXPECT_EQ(parens.select.outputs[0].name, "a");

  const BoundStatement nots = BindSql(*catalog, "SELECT " + Repeat("NOT ", 90) + "a FROM t1");
  EXPECT_EQ(nots.select.outputs[0].expr.type, ValueType::kInteger);
}

TEST(DeepNestingTest, WideInputIsFine) {
  auto catalog = ToyCatalog();
  std::string list = "0";
  for (int i = 1; i < kHuge; ++i) {
    list += ", ";
    list += std::to_string(i);
  }
  const BoundStatement in = BindSql(*catalog, "SELECT a FROM t1 WHERE a IN (" + list + ")");
  EXPECT_EQ(in.select.where->children.size(), static_cast<std::size_t>(kHuge) + 1);

  const BoundStatement wide = BindSql(*catalog, "SELECT a" + Repeat(", a", 10000) + " FROM t1");
  EXPECT_EQ(wide.select.outputs.size(), 10001u);
}

}  // namespace
}  // namespace clq::sql
