#include "sql/parser.hpp"

#include <gtest/gtest.h>

#include <string>
#include <utility>

#include "common/errors.hpp"

namespace clq::sql {
namespace {

// The first select item of "SELECT <expr>", fully parenthesised.
std::string ParseExpr(const std::string& expr) {
  return ast::ToString(Parse("SELECT " + expr).select.items.at(0).expr);
}

std::string Normalise(const std::string& sql) {
  return ast::ToString(Parse(sql));
}

// {offset, message} of the SqlError that parsing `sql` throws.
std::pair<std::size_t, std::string> ParseError(const std::string& sql) {
  try {
    Parse(sql);
  } catch (const SqlError& e) {
    return {e.offset(), e.what()};
  }
  ADD_FAILURE() << "no error for: " << sql;
  return {0, ""};
}

// The offset of `needle`'s first occurrence in `sql`, for readable expectations.
std::size_t At(const std::string& sql, const std::string& needle) {
  const std::size_t offset = sql.find(needle);
  EXPECT_NE(offset, std::string::npos) << needle;
  return offset;
}

TEST(ParserTest, SubqueriesAndTypedLiterals) {
  EXPECT_EQ(Normalise("WITH s (a, b) AS (SELECT x, y FROM t) SELECT a FROM s"),
            "WITH s(a, b) AS (SELECT x, y FROM t) SELECT a FROM s");
  EXPECT_EQ(
      Normalise("SELECT a FROM (SELECT x FROM t) AS d (a), u WHERE u.k IN (SELECT k FROM v) "
                "AND EXISTS (SELECT * FROM w WHERE w.k = u.k) AND a > (SELECT MAX(x) FROM t)"),
      "SELECT a FROM (SELECT x FROM t) AS d(a), u WHERE (((u.k IN (SELECT k FROM v)) AND "
      "(EXISTS (SELECT * FROM w WHERE (w.k = u.k)))) AND (a > ((SELECT MAX(x) FROM t))))");
  EXPECT_EQ(ParseExpr("DATE '1998-12-01' - INTERVAL '90' DAY"),
            "(DATE '1998-12-01' - INTERVAL '90' DAY)");
  EXPECT_EQ(ParseExpr("EXTRACT(year FROM d)"), "EXTRACT(YEAR FROM d)");
  EXPECT_EQ(ParseExpr("CAST(x AS DECIMAL(15, 2))"), "CAST(x AS DECIMAL(15,2))");
}

TEST(ParserTest, ArithmeticPrecedenceAndAssociativity) {
  EXPECT_EQ(ParseExpr("1 + 2 * 3"), "(1 + (2 * 3))");
  EXPECT_EQ(ParseExpr("1 * 2 + 3"), "((1 * 2) + 3)");
  EXPECT_EQ(ParseExpr("1 - 2 - 3"), "((1 - 2) - 3)");
  EXPECT_EQ(ParseExpr("8 / 4 / 2 % 3"), "(((8 / 4) / 2) % 3)");
  EXPECT_EQ(ParseExpr("(1 + 2) * 3"), "((1 + 2) * 3)");
  EXPECT_EQ(ParseExpr("-a * b"), "((-a) * b)");
  EXPECT_EQ(ParseExpr("- - 1"), "(-(-1))");
  EXPECT_EQ(ParseExpr("+a"), "(+a)");
  EXPECT_EQ(ParseExpr("a-1"), "(a - 1)");
}

TEST(ParserTest, ComparisonAndLogicPrecedence) {
  EXPECT_EQ(ParseExpr("a + b = c * d"), "((a + b) = (c * d))");
  EXPECT_EQ(ParseExpr("a OR b AND c"), "(a OR (b AND c))");
  EXPECT_EQ(ParseExpr("a AND b OR c"), "((a AND b) OR c)");
  EXPECT_EQ(ParseExpr("NOT a = b"), "(NOT (a = b))");
  EXPECT_EQ(ParseExpr("NOT a AND b"), "((NOT a) AND b)");
  EXPECT_EQ(ParseExpr("NOT NOT a"), "(NOT (NOT a))");
  // As in SQLite, < <= > >= bind tighter than = != IS IN BETWEEN.
  EXPECT_EQ(ParseExpr("a = b < c"), "(a = (b < c))");
  EXPECT_EQ(ParseExpr("a < b = c"), "((a < b) = c)");
  EXPECT_EQ(ParseExpr("a == 1 AND b <> 2 AND c != 3"), "(((a = 1) AND (b != 2)) AND (c != 3))");
  EXPECT_EQ(ParseExpr("a <= 1 OR a >= 2"), "((a <= 1) OR (a >= 2))");
  EXPECT_EQ(ParseExpr("a % 2 == 0"), "((a % 2) = 0)");
}

TEST(ParserTest, BetweenInIsNull) {
  EXPECT_EQ(ParseExpr("a BETWEEN 1 AND 2 AND b"), "((a BETWEEN 1 AND 2) AND b)");
  EXPECT_EQ(ParseExpr("a NOT BETWEEN 1 + 1 AND 5"), "(a NOT BETWEEN (1 + 1) AND 5)");
  EXPECT_EQ(ParseExpr("a IN (1, 2, 3)"), "(a IN (1, 2, 3))");
  EXPECT_EQ(ParseExpr("a + 1 NOT IN (b, c * 2)"), "((a + 1) NOT IN (b, (c * 2)))");
  EXPECT_EQ(ParseExpr("a IS NULL OR b IS NOT NULL"), "((a IS NULL) OR (b IS NOT NULL))");
  EXPECT_EQ(ParseExpr("NOT a IN (1)"), "(NOT (a IN (1)))");
}

TEST(ParserTest, PrimariesFunctionsAndCasts) {
  EXPECT_EQ(ParseExpr("NULL"), "NULL");
  EXPECT_EQ(ParseExpr("'it''s'"), "'it''s'");
  EXPECT_EQ(ParseExpr("1.5e3"), "1500.0");
  EXPECT_EQ(ParseExpr("t.a <> 'x'"), "(t.a != 'x')");
  EXPECT_EQ(ParseExpr("\"Mixed Col\""), "\"Mixed Col\"");  // printed so that it parses back
  EXPECT_EQ(ParseExpr("COUNT(*)"), "COUNT(*)");
  EXPECT_EQ(ParseExpr("count(a)"), "COUNT(a)");
  EXPECT_EQ(ParseExpr("Sum(ALL a + 1)"), "SUM((a + 1))");
  EXPECT_EQ(ParseExpr("quantile(a, 0.5)"), "QUANTILE(a, 0.5)");
  EXPECT_EQ(ParseExpr("avg(a) / median(b)"), "(AVG(a) / MEDIAN(b))");
  EXPECT_EQ(ParseExpr("CAST(a AS int) + 1"), "(CAST(a AS INTEGER) + 1)");
  EXPECT_EQ(ParseExpr("CAST(a AS bigint)"), "CAST(a AS INTEGER)");
  EXPECT_EQ(ParseExpr("CAST(a AS double precision)"), "CAST(a AS REAL)");
  EXPECT_EQ(ParseExpr("CAST(a AS FLOAT)"), "CAST(a AS REAL)");
  // A column may be named like a function when it is not called.
  EXPECT_EQ(ParseExpr("count + 1"), "(count + 1)");
}

TEST(ParserTest, CaseAndLike) {
  EXPECT_EQ(ParseExpr("CASE WHEN a THEN 1 END"), "CASE WHEN a THEN 1 END");
  EXPECT_EQ(ParseExpr("case when a > 1 then b + 1 when c then 2 else 3 end * 2"),
            "(CASE WHEN (a > 1) THEN (b + 1) WHEN c THEN 2 ELSE 3 END * 2)");
  EXPECT_EQ(ParseExpr("CASE a + 1 WHEN 1 THEN 'x' ELSE CASE WHEN b THEN 'y' END END"),
            "CASE (a + 1) WHEN 1 THEN 'x' ELSE CASE WHEN b THEN 'y' END END");
  EXPECT_EQ(ParseExpr("s LIKE 'a%' AND t NOT LIKE '_b'"), "((s LIKE 'a%') AND (t NOT LIKE '_b'))");
  EXPECT_EQ(ParseExpr("NOT s LIKE 'a'"), "(NOT (s LIKE 'a'))");
  EXPECT_EQ(ParseExpr("s LIKE 'a' = 1"), "((s LIKE 'a') = 1)");
}

TEST(ParserTest, ExpressionSpansIncludeParentheses) {
  const ast::Statement statement = Parse("SELECT (a + 1) AS x, b*2 y FROM t");
  const ast::Expr& first = statement.select.items.at(0).expr;
  EXPECT_EQ(first.position, 7u);
  EXPECT_EQ(first.end, 14u);
  EXPECT_EQ(first.op_position, 10u);
  const ast::Expr& second = statement.select.items.at(1).expr;
  EXPECT_EQ(second.position, 21u);
  EXPECT_EQ(second.end, 24u);
  EXPECT_EQ(statement.select.items.at(1).alias, "y");
}

TEST(ParserTest, EveryClause) {
  EXPECT_EQ(Normalise("explain select distinct a, t.*, * from t1 x, t2 join t3 as y on x.a = y.a "
                      "inner join t4 on 1 where a > 1 group by a, 2 having count(*) > 1 "
                      "order by a desc, b asc, c limit 10 offset 5;"),
            "EXPLAIN SELECT DISTINCT a, t.*, * FROM t1 AS x, t2 JOIN t3 AS y ON (x.a = y.a) "
            "JOIN t4 ON 1 WHERE (a > 1) GROUP BY a, 2 HAVING (COUNT(*) > 1) "
            "ORDER BY a DESC, b, c LIMIT 10 OFFSET 5");
  EXPECT_EQ(Normalise("SELECT ALL a b, c AS d, e AS 'f' FROM t"),
            "SELECT a AS b, c AS d, e AS f FROM t");
  EXPECT_EQ(Normalise("SELECT a FROM t LIMIT 5, 10"), "SELECT a FROM t LIMIT 10 OFFSET 5");
  EXPECT_EQ(Normalise("SELECT 1"), "SELECT 1");
  EXPECT_EQ(Normalise("select \"select\" from \"from\""), "SELECT select FROM from");

  const ast::Statement statement = Parse("SELECT a FROM t1 x JOIN t2 ON x.a = t2.a");
  ASSERT_EQ(statement.select.from.size(), 2u);
  EXPECT_EQ(statement.select.from[0].table.name, "t1");
  EXPECT_EQ(statement.select.from[0].table.alias, "x");
  EXPECT_EQ(statement.select.from[0].table.alias_position, 17u);
  EXPECT_FALSE(statement.select.from[0].on.has_value());
  EXPECT_FALSE(statement.select.from[1].table.alias.has_value());
  EXPECT_TRUE(statement.select.from[1].on.has_value());
  EXPECT_FALSE(statement.explain);
  EXPECT_FALSE(statement.select.distinct);
}

TEST(ParserTest, SyntaxErrors) {
  EXPECT_EQ(ParseError("SELECT * FORM t"),
            std::make_pair(std::size_t{9}, std::string("syntax error at or near 'FORM'")));
  EXPECT_EQ(ParseError("SELECT 1 +"),
            std::make_pair(std::size_t{10}, std::string("expected an expression after '+'")));
  EXPECT_EQ(ParseError("SELECT 1 + FROM t"),
            std::make_pair(std::size_t{11}, std::string("expected an expression after '+'")));
  EXPECT_EQ(ParseError("SELECT FROM t"),
            std::make_pair(std::size_t{7}, std::string("expected an expression after 'SELECT'")));
  EXPECT_EQ(ParseError("SELECT a FROM t WHERE"),
            std::make_pair(std::size_t{21}, std::string("expected an expression after 'WHERE'")));
  EXPECT_EQ(ParseError("SELECT a, FROM t"),
            std::make_pair(std::size_t{10}, std::string("expected an expression after ','")));
  EXPECT_EQ(ParseError("SELECT (1 + 2 FROM t"),
            std::make_pair(std::size_t{14},
                           std::string("syntax error at or near 'FROM' (expected ')')")));
  EXPECT_EQ(ParseError("SELECT CASE a END FROM t"),
            std::make_pair(std::size_t{14},
                           std::string("syntax error at or near 'END' (expected WHEN)")));
  EXPECT_EQ(
      ParseError("SELECT CASE WHEN a 1 END FROM t"),
      std::make_pair(std::size_t{19}, std::string("syntax error at or near '1' (expected THEN)")));
  EXPECT_EQ(ParseError("SELECT CASE WHEN a THEN 1 FROM t"),
            std::make_pair(std::size_t{26},
                           std::string("syntax error at or near 'FROM' (expected END)")));
  EXPECT_EQ(ParseError("SELECT a b c FROM t"),
            std::make_pair(std::size_t{11}, std::string("syntax error at or near 'c'")));
  EXPECT_EQ(
      ParseError("SELECT a FROM t GROUP a"),
      std::make_pair(std::size_t{22}, std::string("syntax error at or near 'a' (expected BY)")));
  EXPECT_EQ(ParseError("SELECT a FROM t; SELECT b FROM t"),
            std::make_pair(std::size_t{17}, std::string("syntax error at or near 'SELECT'")));
  EXPECT_EQ(ParseError("SELECT a FROM"),
            std::make_pair(std::size_t{13},
                           std::string("syntax error at end of input (expected a table name)")));
  EXPECT_EQ(ParseError("SELECT t. FROM x"),
            std::make_pair(std::size_t{10},
                           std::string("syntax error at or near 'FROM' (expected a column name)")));
  EXPECT_EQ(
      ParseError("SELECT a BETWEEN 1 OR 2"),
      std::make_pair(std::size_t{19}, std::string("syntax error at or near 'OR' (expected AND)")));
  EXPECT_EQ(ParseError("EXPLAIN"),
            std::make_pair(std::size_t{7},
                           std::string("syntax error at end of input (expected SELECT)")));
  EXPECT_EQ(ParseError(""), std::make_pair(std::size_t{0}, std::string("empty statement")));
  EXPECT_EQ(ParseError("  -- nothing"),
            std::make_pair(std::size_t{12}, std::string("empty statement")));
  EXPECT_EQ(ParseError("SELECT 'abc").second, "unterminated string literal");
}

struct UnsupportedCase {
  std::string sql;
  std::string at;  // the text the error must point at
  std::string message;
};

TEST(ParserTest, UnsupportedConstructsPointAtTheirToken) {
  const std::vector<UnsupportedCase> cases = {
      {"INSERT INTO t VALUES (1)", "INSERT", "only SELECT statements are supported"},
      {"WITH RECURSIVE x AS (SELECT 1) SELECT 1", "RECURSIVE", "WITH RECURSIVE is not supported"},
      {"SELECT a FROM t1 RIGHT JOIN t2 ON 1", "RIGHT",
       "only inner joins and LEFT JOIN are supported"},
      {"SELECT a FROM t1 FULL JOIN t2 ON 1", "FULL",
       "only inner joins and LEFT JOIN are supported"},
      {"SELECT a FROM t1 CROSS JOIN t2", "CROSS", "only inner joins and LEFT JOIN are supported"},
      {"SELECT a FROM t1 NATURAL JOIN t2", "NATURAL",
       "only inner joins and LEFT JOIN are supported"},
      {"SELECT a FROM t1 JOIN t2 USING (a)", "USING", "JOIN ... USING is not supported; use ON"},
      {"SELECT a FROM t1 JOIN t2 WHERE 1", "WHERE", "JOIN requires an ON condition"},
      {"SELECT a FROM t UNION SELECT b FROM u", "UNION", "UNION is not supported"},
      {"SELECT a FROM t INTERSECT SELECT 1", "INTERSECT", "INTERSECT is not supported"},
      {"SELECT a FROM t EXCEPT SELECT 1", "EXCEPT", "EXCEPT is not supported"},
      {"SELECT a FROM (SELECT 1)", "(SELECT 1)", "a subquery in FROM needs an alias"},
      {"SELECT a FROM t WHERE a IN (SELECT b FROM u UNION SELECT 1)", "UNION",
       "UNION is not supported"},
      {"SELECT a FROM (t1 JOIN t2 ON 1)", "(t1", "parenthesized joins are not supported"},
      {"SELECT SUM(DISTINCT a) FROM t", "DISTINCT",
       "DISTINCT inside aggregate functions other than COUNT is not supported"},
      {"SELECT COUNT(DISTINCT *) FROM t", "*", "COUNT(DISTINCT *) is not supported"},
      {"SELECT SUM(a) OVER (PARTITION BY b) FROM t", "OVER", "window functions are not supported"},
      {"SELECT COUNT(*) FILTER (WHERE a) FROM t", "FILTER", "FILTER clauses are not supported"},
      {"SELECT a FROM t WINDOW w AS (ORDER BY a)", "WINDOW", "window functions are not supported"},
      {"SELECT foo(a) FROM t", "foo", "unknown function 'foo'"},
      {"SELECT a + abs(b) FROM t", "abs", "unknown function 'abs'"},
      {"SELECT a FROM t WHERE s LIKE 'x%' ESCAPE '!'", "ESCAPE",
       "LIKE ... ESCAPE is not supported"},
      {"SELECT a FROM t WHERE s NOT GLOB 'x*'", "NOT", "NOT GLOB is not supported"},
      {"SELECT a FROM t WHERE s GLOB 'x*'", "GLOB", "GLOB is not supported"},
      {"SELECT a || b FROM t", "||", "string concatenation (||) is not supported"},
      {"SELECT a & 1 FROM t", "&", "bitwise operators are not supported"},
      {"SELECT a << 1 FROM t", "<<", "bitwise operators are not supported"},
      {"SELECT ~a FROM t", "~", "bitwise operators are not supported"},
      {"SELECT a COLLATE nocase FROM t", "COLLATE", "COLLATE is not supported"},
      {"SELECT a FROM t WHERE a IS 1", "1", "only IS NULL and IS NOT NULL are supported"},
      {"SELECT a FROM t WHERE a IS NOT DISTINCT FROM b", "DISTINCT",
       "only IS NULL and IS NOT NULL are supported"},
      {"SELECT CAST(a AS TEXT) FROM t", "TEXT",
       "CAST to TEXT is not supported (only INTEGER, INT, BIGINT, REAL, DOUBLE, FLOAT, DATE, "
       "DECIMAL(p,s))"},
      {"SELECT SUM(*) FROM t", "*", "'*' is only allowed in COUNT(*)"},
      {"SELECT COUNT() FROM t", "COUNT", "COUNT takes one argument or '*'"},
      {"SELECT MIN(a, b) FROM t", "MIN",
       "MIN of several arguments (the scalar MIN) is not supported"},
      {"SELECT AVG(a, b) FROM t", "AVG", "AVG takes exactly one argument"},
      {"SELECT QUANTILE(a) FROM t", "QUANTILE",
       "QUANTILE takes two arguments: a value and a fraction q in [0, 1]"},
      {"SELECT a FROM t ORDER BY a NULLS FIRST", "NULLS",
       "NULLS FIRST and NULLS LAST are not supported"},
      {"SELECT a FROM t WHERE a IN ()", ")", "empty IN lists are not supported"},
      {"SELECT a FROM t WHERE a IN t2", "t2", "expected a parenthesized list after IN"},
      {"SELECT (a, b) FROM t", ",", "row values are not supported"},
      {"SELECT a FROM main.t", ".t", "schema-qualified table names are not supported"},
      {"SELECT a FROM generate_series(1, 3)", "generate_series",
       "table-valued functions are not supported"},
  };
  for (const UnsupportedCase& c : cases) {
    SCOPED_TRACE(c.sql);
    EXPECT_EQ(ParseError(c.sql), std::make_pair(At(c.sql, c.at), c.message));
  }
}

TEST(ParserTest, ReservedWordsNeedQuotesAsNames) {
  EXPECT_EQ(ParseError("SELECT order FROM t"),
            std::make_pair(std::size_t{7}, std::string("expected an expression after 'SELECT'")));
  EXPECT_NO_THROW(Parse("SELECT \"order\" FROM \"group\""));
}

}  // namespace
}  // namespace clq::sql
