// The SQL test file reader and result comparison of sql_test_file.hpp.
#include "tests/sql/sql_test_file.hpp"

#include <gtest/gtest.h>

#include <fstream>

#include "tests/support/temp_dir.hpp"

namespace clq::sql_test {
namespace {

TestFile ReadText(const std::string& text) {
  testing::TempDir dir;
  const std::string path = (dir / "t.test").string();
  std::ofstream(path) << text;
  return ReadTestFile(path);
}

ResultColumn IntegerColumn(std::vector<std::int64_t> values, std::vector<std::uint8_t> nulls = {}) {
  ResultColumn c;
  c.type = sql::ValueType::kInteger;
  c.integers.assign(values.begin(), values.end());
  c.nulls = std::move(nulls);
  return c;
}

ResultColumn RealColumn(std::vector<double> values) {
  ResultColumn c;
  c.type = sql::ValueType::kReal;
  c.reals.assign(values.begin(), values.end());
  return c;
}

TEST(SqlTestFileTest, ReadsDirectivesAndRecords) {
  const TestFile file = ReadText(
      "# A comment\n# rows: 500\n# requires: join, order_by\n\n"
      "load t ../data/t.csv a INT, b CHAR(3)\n\n"
      "statement ok\nSELECT 1\n\n"
      "statement error line 1, column 8: oops\nSELECT\n  2\n\n"
      "query IR rowsort\nSELECT a,\n  b FROM t\n----\n1\t2.5\n3\n4\n\n"
      "query T\nSELECT x FROM t WHERE 0\n----\n");
  EXPECT_EQ(file.rows, 500u);
  EXPECT_EQ(file.requires_features, (std::vector<std::string>{"join", "order_by"}));
  ASSERT_EQ(file.records.size(), 5u);
  EXPECT_EQ(file.records[0].kind, Record::Kind::kLoad);
  EXPECT_EQ(file.records[0].table, "t");
  EXPECT_EQ(file.records[0].csv, "../data/t.csv");
  EXPECT_EQ(file.records[0].schema, "a INT, b CHAR(3)");
  EXPECT_EQ(file.records[1].kind, Record::Kind::kStatementOk);
  EXPECT_EQ(file.records[2].error_text, "line 1, column 8: oops");
  EXPECT_EQ(file.records[2].sql, "SELECT\n  2");
  EXPECT_EQ(file.records[3].line, 14);
  EXPECT_EQ(file.records[3].sort, SortMode::kRowSort);
  EXPECT_EQ(file.records[3].expected, (std::vector<std::string>{"1", "2.5", "3", "4"}));
  EXPECT_TRUE(file.records[4].expected.empty());
}

TEST(SqlTestFileTest, RejectsMalformedFiles) {
  EXPECT_THROW(ReadText("# requires: teleport\n"), std::runtime_error);
  EXPECT_THROW(ReadText("query X\nSELECT 1\n"), std::runtime_error);
  EXPECT_THROW(ReadText("query I sideways\nSELECT 1\n"), std::runtime_error);
  EXPECT_THROW(ReadText("query II\nSELECT 1, 2\n----\n1\n"), std::runtime_error);
  EXPECT_THROW(ReadText("frobnicate\n"), std::runtime_error);
}

TEST(SqlTestFileTest, ComparesValuesTypesAndOrder) {
  Record record;
  record.types = "IR";
  record.expected = {"1", "0.1", "NULL", "2.0"};
  QueryResult result;
  result.rows = 2;
  result.columns = {IntegerColumn({1, 0}, {0, 1}), RealColumn({0.1, 2.0000000000001})};
  EXPECT_EQ(CheckResult(record, result), "");

  result.columns[1].reals[1] = 2.001;
  EXPECT_NE(CheckResult(record, result).find("row 2, column 2: expected 2, got 2.001"),
            std::string::npos);

  record.types = "II";
  EXPECT_NE(CheckResult(record, result).find("column 2 has type R, expected I"), std::string::npos);

  record.types = "IR";
  record.expected = {"NULL", "2.0", "1", "0.1"};
  result.columns[1].reals[1] = 2.0;
  EXPECT_NE(CheckResult(record, result), "");
  record.sort = SortMode::kRowSort;
  EXPECT_EQ(CheckResult(record, result), "");
  record.expected.resize(2);
  EXPECT_NE(CheckResult(record, result).find("expected 1 rows, got 2"), std::string::npos);
}

TEST(SqlTestFileTest, ValueSortAndText) {
  Record record;
  record.types = "T";
  record.sort = SortMode::kValueSort;
  record.expected = {"b", "(empty)", "a"};
  QueryResult result;
  result.rows = 3;
  ResultColumn text;
  text.type = sql::ValueType::kText;
  text.text_width = 1;
  text.text = {'a', '\0', 'b'};
  result.columns = {text};
  EXPECT_EQ(CheckResult(record, result), "");
}

}  // namespace
}  // namespace clq::sql_test
