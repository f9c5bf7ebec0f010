// Every semantic error of the binder: its message and where it points.
#include <gtest/gtest.h>

#include "sql/binder.hpp"
#include "tests/sql_frontend/bind_helpers.hpp"

namespace clq::sql {
namespace {

using clq::testing::BindError;
using clq::testing::ToyCatalog;
using clq::testing::WisconsinCatalog;

struct ErrorCase {
  std::string sql;
  std::string at;              // the error points at the first occurrence of this text...
  std::size_t occurrence = 0;  // ...or at a later one
  std::string message;
};

std::size_t Find(const ErrorCase& c) {
  std::size_t offset = c.sql.find(c.at);
  for (std::size_t i = 0; i < c.occurrence && offset != std::string::npos; ++i)
    offset = c.sql.find(c.at, offset + 1);
  EXPECT_NE(offset, std::string::npos) << c.at;
  return offset;
}

void ExpectErrors(clq::testing::CountingCatalog& catalog, const std::vector<ErrorCase>& cases) {
  for (const ErrorCase& c : cases) {
    SCOPED_TRACE(c.sql);
    EXPECT_EQ(BindError(catalog, c.sql), std::make_pair(Find(c), c.message));
  }
  EXPECT_EQ(*catalog.materialised, 0) << "a failed bind materialised a table";
}

TEST(BinderErrorTest, Tables) {
  auto catalog = ToyCatalog();
  ExpectErrors(
      *catalog,
      {
          {"SELECT a FROM t3", "t3", 0, "no table named 't3'; did you mean 't1'?"},
          {"SELECT a FROM nothing_like_it", "nothing", 0, "no table named 'nothing_like_it'"},
          {"SELECT 1 FROM t1, t1", "t1", 1, "table 't1' appears twice in FROM; give each an alias"},
          {"SELECT 1 FROM t1 x, T2 X", "X", 0, "table alias 'X' is used twice in FROM"},
          {"SELECT 1 FROM t1 t2, t2", "t2", 1,
           "table 't2' appears twice in FROM; give each an alias"},
          {"SELECT t3.a FROM t1, t2", "t3", 0, "no table named 't3' in FROM; did you mean 't1'?"},
          {"SELECT t1.a FROM t1 x", "t1.a", 0,
           "no table named 't1' in FROM (it is aliased as 'x')"},
          {"SELECT y.* FROM t1 x", "y.*", 0, "no table named 'y' in FROM"},
          {"SELECT *", "*", 0, "SELECT * requires a FROM clause"},
      });
  auto wisconsin = WisconsinCatalog();
  ExpectErrors(*wisconsin, {
                               {"SELECT * FROM tenktup3", "tenktup3", 0,
                                "no table named 'tenktup3'; did you mean 'tenktup1'?"},
                               {"SELECT * FROM onektupp", "onektupp", 0,
                                "no table named 'onektupp'; did you mean 'onektup'?"},
                           });
}

TEST(BinderErrorTest, Columns) {
  auto catalog = ToyCatalog();
  ExpectErrors(
      *catalog,
      {
          {"SELECT a FROM t1, t2", "a", 0, "column 'a' is ambiguous: it exists in t1 and t2"},
          {"SELECT 1 FROM t1 x, t2 y, t1 z WHERE a = 1", "a =", 0,
           "column 'a' is ambiguous: it exists in x, y and z"},
          {"SELECT aa FROM t1", "aa", 0, "no column named 'aa'; did you mean 'a'?"},
          {"SELECT dd FROM t1, t2", "dd", 0, "no column named 'dd'; did you mean 'd'?"},
          {"SELECT ab FROM t1, t2", "ab", 0, "no column named 'ab'; did you mean 't1.a'?"},
          {"SELECT e FROM t1", "e", 0, "no column named 'e'"},
          {"SELECT t1.d FROM t1, t2", "t1.d", 0, "table 't1' has no column named 'd'"},
          {"SELECT x.dd FROM t2 x", "x.dd", 0,
           "table 'x' has no column named 'dd'; did you mean 'd'?"},
          {"SELECT a AS total FROM t1 WHERE total > 1", "total >", 0,
           "no column named 'total' (output aliases cannot be used in WHERE)"},
          {"SELECT 1 FROM t1 JOIN t2 ON t1.a = t3.a JOIN t2 t3 ON 1", "t3.a", 0,
           "ON clause cannot refer to 't3', which is joined after it"},
          {"SELECT 1 FROM t1 JOIN t1 y ON d = 1 JOIN t2 ON 1", "d =", 0,
           "ON clause cannot refer to column 'd' of 't2', which is joined after it"},
          {"SELECT a AS x, b AS x FROM t1 ORDER BY x", "x", 2, "output alias 'x' is ambiguous"},
          {"SELECT a AS x, b AS X FROM t1 ORDER BY x + 1", "x", 1, "output alias 'x' is ambiguous"},
      });
  auto wisconsin = WisconsinCatalog();
  ExpectErrors(*wisconsin, {
                               {"SELECT uniqe1 FROM tenktup1", "uniqe1", 0,
                                "no column named 'uniqe1'; did you mean 'unique1'?"},
                               {"SELECT unique1 FROM tenktup1 t1, tenktup2 t2", "unique1", 0,
                                "column 'unique1' is ambiguous: it exists in t1 and t2"},
                               {"SELECT t1.uniqe2 FROM tenktup1 t1", "t1.", 0,
                                "table 't1' has no column named 'uniqe2'; did you mean 'unique2'?"},
                               {"SELECT onepercnt FROM tenktup1 a, tenktup2 b", "onepercnt", 0,
                                "no column named 'onepercnt'; did you mean 'a.onePercent'?"},
                           });
}

TEST(BinderErrorTest, Types) {
  auto catalog = ToyCatalog();
  ExpectErrors(
      *catalog,
      {
          {"SELECT s + 1 FROM t1", "+", 0, "cannot apply '+' to TEXT and INTEGER"},
          {"SELECT 1.5 * s FROM t1", "*", 0, "cannot apply '*' to REAL and TEXT"},
          {"SELECT s % s FROM t1", "%", 0, "cannot apply '%' to TEXT and TEXT"},
          {"SELECT s = 1 FROM t1", "=", 0, "cannot compare TEXT with INTEGER"},
          {"SELECT a < 'x' FROM t1", "<", 0, "cannot compare INTEGER with TEXT"},
          {"SELECT c <> s FROM t1", "<>", 0, "cannot compare REAL with TEXT"},
          {"SELECT -s FROM t1", "-", 0, "cannot apply '-' to TEXT"},
          {"SELECT -'x' FROM t1", "-", 0, "cannot apply '-' to TEXT"},
          {"SELECT NOT s FROM t1", "NOT", 0, "cannot apply NOT to TEXT"},
          {"SELECT s AND a FROM t1", "AND", 0, "cannot apply AND to TEXT and INTEGER"},
          {"SELECT a OR 'x' FROM t1", "OR", 0, "cannot apply OR to INTEGER and TEXT"},
          {"SELECT a BETWEEN 'a' AND 'b' FROM t1", "BETWEEN", 0,
           "cannot compare INTEGER with TEXT"},
          {"SELECT s NOT BETWEEN 'a' AND 2 FROM t1", "BETWEEN", 0,
           "cannot compare TEXT with INTEGER"},
          {"SELECT s IN ('a', 1) FROM t1", "IN", 0, "cannot compare TEXT with INTEGER"},
          {"SELECT CAST(s AS INTEGER) FROM t1", "CAST", 0,
           "CAST of TEXT to INTEGER is not supported"},
          {"SELECT CAST('1.5' AS REAL) FROM t1", "CAST", 0,
           "CAST of TEXT to REAL is not supported"},
          {"SELECT a FROM t1 WHERE s", "s", 0, "WHERE condition must be numeric, not TEXT"},
          {"SELECT 1 FROM t1 JOIN t2 ON 'x'", "'x'", 0, "ON condition must be numeric, not TEXT"},
          {"SELECT s FROM t1 GROUP BY s HAVING s", "s", 2,
           "HAVING condition must be numeric, not TEXT"},
      });
}

TEST(BinderErrorTest, Aggregates) {
  auto catalog = ToyCatalog();
  ExpectErrors(
      *catalog,
      {
          {"SELECT a FROM t1 WHERE COUNT(*) > 1", "COUNT", 0,
           "aggregate functions are not allowed in WHERE"},
          {"SELECT COUNT(*) FROM t1 GROUP BY SUM(a)", "SUM", 0,
           "aggregate functions are not allowed in GROUP BY"},
          {"SELECT 1 FROM t1 JOIN t2 ON SUM(t1.a) > 0", "SUM", 0,
           "aggregate functions are not allowed in ON"},
          {"SELECT SUM(COUNT(*)) FROM t1", "COUNT", 0, "aggregate functions cannot be nested"},
          {"SELECT MAX(a + MIN(b)) FROM t1", "MIN", 0, "aggregate functions cannot be nested"},
          {"SELECT SUM(s) FROM t1", "SUM", 0, "cannot compute SUM of TEXT"},
          {"SELECT AVG(s) FROM t1", "AVG", 0, "cannot compute AVG of TEXT"},
          {"SELECT MEDIAN(s) FROM t1", "MEDIAN", 0, "MEDIAN is not supported for TEXT"},
          {"SELECT QUANTILE(s, 0.5) FROM t1", "QUANTILE", 0, "QUANTILE is not supported for TEXT"},
          {"SELECT QUANTILE(a, 1.5) FROM t1", "1.5", 0,
           "QUANTILE's second argument must be a numeric constant between 0 and 1"},
          {"SELECT QUANTILE(a, -0.1) FROM t1", "-0.1", 0,
           "QUANTILE's second argument must be a numeric constant between 0 and 1"},
          {"SELECT QUANTILE(a, b) FROM t1", "b", 0,
           "QUANTILE's second argument must be a numeric constant between 0 and 1"},
          {"SELECT QUANTILE(a, 'x') FROM t1", "'x'", 0,
           "QUANTILE's second argument must be a numeric constant between 0 and 1"},
          {"SELECT QUANTILE(a, NULL) FROM t1", "NULL", 0,
           "QUANTILE's second argument must be a numeric constant between 0 and 1"},
      });
}

TEST(BinderErrorTest, Grouping) {
  auto catalog = ToyCatalog();
  ExpectErrors(
      *catalog,
      {
          {"SELECT a, b FROM t1 GROUP BY a", "b", 0,
           "column 'b' must appear in GROUP BY or be used in an aggregate function"},
          {"SELECT a, COUNT(*) FROM t1", "a", 0,
           "column 'a' must appear in GROUP BY or be used in an aggregate function"},
          {"SELECT a + 1 FROM t1 GROUP BY a + 2", "a", 0,
           "column 'a' must appear in GROUP BY or be used in an aggregate function"},
          {"SELECT t1.a FROM t1, t2 GROUP BY d", "t1.a", 0,
           "column 't1.a' must appear in GROUP BY or be used in an aggregate function"},
          {"SELECT * FROM t1 GROUP BY a", "*", 0,
           "column 'b' must appear in GROUP BY or be used in an aggregate function"},
          {"SELECT a FROM t1 GROUP BY a ORDER BY b", "b", 0,
           "column 'b' must appear in GROUP BY or be used in an aggregate function"},
          {"SELECT a FROM t1 GROUP BY a HAVING b > 1", "b >", 0,
           "column 'b' must appear in GROUP BY or be used in an aggregate function"},
          {"SELECT a FROM t1 ORDER BY COUNT(*)", "a", 0,
           "column 'a' must appear in GROUP BY or be used in an aggregate function"},
          {"SELECT a FROM t1 HAVING a > 1", "a >", 0,
           "HAVING requires GROUP BY or an aggregate function"},
          {"SELECT SUM(a) AS total FROM t1 GROUP BY total", "total", 1,
           "aggregate functions are not allowed in GROUP BY (output 'total' contains one)"},
          {"SELECT SUM(a) FROM t1 GROUP BY 1", "1", 1,
           "aggregate functions are not allowed in GROUP BY (select list item 1 contains one)"},
          {"SELECT SUM(a) AS x FROM t1 ORDER BY SUM(x)", "x)", 0,
           "aggregate functions cannot be nested (output 'x' contains one)"},
      });
}

TEST(BinderErrorTest, OrderByAndLimit) {
  auto catalog = ToyCatalog();
  ExpectErrors(
      *catalog,
      {
          {"SELECT a FROM t1 ORDER BY 2", "2", 0,
           "ORDER BY position 2 is out of range (the select list has 1 column)"},
          {"SELECT a, b FROM t1 ORDER BY 0", "0", 0,
           "ORDER BY position 0 is out of range (the select list has 2 columns)"},
          {"SELECT a, b FROM t1 GROUP BY 3", "3", 0,
           "GROUP BY position 3 is out of range (the select list has 2 columns)"},
          // As in SQLite, signs in front of an integer literal keep it a position.
          {"SELECT a FROM t1 ORDER BY -1", "-1", 0,
           "ORDER BY position -1 is out of range (the select list has 1 column)"},
          {"SELECT a, b FROM t1 ORDER BY -0 DESC", "-0", 0,
           "ORDER BY position 0 is out of range (the select list has 2 columns)"},
          {"SELECT a, b FROM t1 ORDER BY +-2", "+-2", 0,
           "ORDER BY position -2 is out of range (the select list has 2 columns)"},
          {"SELECT a, COUNT(*) FROM t1 GROUP BY -1", "-1", 0,
           "GROUP BY position -1 is out of range (the select list has 2 columns)"},
          {"SELECT DISTINCT a FROM t1 ORDER BY b", "b", 0,
           "for SELECT DISTINCT, ORDER BY terms must appear in the select list"},
          {"SELECT a FROM t1 LIMIT -1", "-1", 0, "LIMIT must not be negative"},
          {"SELECT a FROM t1 LIMIT a", "a", 1, "LIMIT must be a non-negative integer constant"},
          {"SELECT a FROM t1 LIMIT 1.5", "1.5", 0, "LIMIT must be a non-negative integer constant"},
          {"SELECT a FROM t1 LIMIT 1 OFFSET 'x'", "'x'", 0,
           "OFFSET must be a non-negative integer constant"},
          {"SELECT a FROM t1 LIMIT 1 OFFSET -2", "-2", 0, "OFFSET must not be negative"},
      });
}

}  // namespace
}  // namespace clq::sql
