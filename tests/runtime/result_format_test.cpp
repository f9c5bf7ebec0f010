// The result formats of `clq query`: table, csv and json, with text that
// holds line breaks, tabs, quotes and other control characters.
#include "host/result_format.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <sstream>
#include <string>
#include <vector>

namespace clq {
namespace {

ResultColumn TextColumn(const std::string& name, const std::vector<std::string>& values) {
  ResultColumn column;
  column.name = name;
  column.type = sql::ValueType::kText;
  for (const std::string& v : values)
    column.text_width = std::max(column.text_width, static_cast<std::uint32_t>(v.size()));
  column.text.assign(values.size() * column.text_width, '\0');
  for (std::size_t r = 0; r < values.size(); ++r)
    std::copy(values[r].begin(), values[r].end(), column.text.begin() + r * column.text_width);
  return column;
}

ResultColumn IntegerColumn(const std::string& name, const std::vector<std::int64_t>& values) {
  ResultColumn column;
  column.name = name;
  column.integers.assign(values.begin(), values.end());
  return column;
}

const std::vector<std::string> kAwkwardText = {"two\nlines", "tab\there", "cr\rend",
                                               "bell\a",     "plain",     "\"quoted\", comma"};

QueryResult AwkwardResult() {
  QueryResult result;
  result.rows = kAwkwardText.size();
  result.columns.push_back(TextColumn("s", kAwkwardText));
  result.columns.push_back(IntegerColumn("n", {1, 22, 333, 4444, 55555, 6}));
  return result;
}

std::vector<std::string> Lines(const std::string& text) {
  std::vector<std::string> lines;
  std::istringstream in(text);
  for (std::string line; std::getline(in, line);)
    lines.push_back(line);
  return lines;
}

// Control characters in a table cell are shown escaped, so that every row
// is one line and the columns stay aligned.
TEST(ResultFormatTest, TableEscapesControlCharactersAndStaysAligned) {
  const std::string text = FormatTable(AwkwardResult(), 100);
  const std::vector<std::string> lines = Lines(text);
  // Header, rule, six rows, the row count.
  ASSERT_EQ(lines.size(), 9u) << text;
  EXPECT_EQ(lines[2].find("two\\nlines"), 0u) << text;
  EXPECT_EQ(lines[3].find("tab\\there"), 0u) << text;
  EXPECT_EQ(lines[4].find("cr\\rend"), 0u) << text;
  EXPECT_EQ(lines[5].find("bell\\x07"), 0u) << text;
  // The integer column is right-aligned: every row ends at the rule's end.
  for (std::size_t i = 2; i < 8; ++i)
    EXPECT_EQ(lines[i].size(), lines[1].size()) << "line " << i << " of\n" << text;
}

// RFC 4180: a field holding a line break, a quote or a comma is quoted, its
// quotes doubled; other control characters pass as they are.
TEST(ResultFormatTest, CsvQuotesLineBreaksQuotesAndCommas) {
  EXPECT_EQ(FormatCsv(AwkwardResult()),
            "s,n\r\n"
            "\"two\nlines\",1\r\n"
            "tab\there,22\r\n"
            "\"cr\rend\",333\r\n"
            "bell\a,4444\r\n"
            "plain,55555\r\n"
            "\"\"\"quoted\"\", comma\",6\r\n");
}

TEST(ResultFormatTest, JsonEscapesControlCharactersAndQuotes) {
  EXPECT_EQ(FormatJson(AwkwardResult()),
            "[{\"s\":\"two\\nlines\",\"n\":1},{\"s\":\"tab\\there\",\"n\":22},"
            "{\"s\":\"cr\\rend\",\"n\":333},{\"s\":\"bell\\u0007\",\"n\":4444},"
            "{\"s\":\"plain\",\"n\":55555},{\"s\":\"\\\"quoted\\\", comma\",\"n\":6}]\n");
}

// Infinities as SQLite's JSON writes them (numbers that parse as
// infinities), so that they are not mistaken for NULL; NaN, which no longer
// comes out of queries, stays null.
TEST(ResultFormatTest, JsonWritesInfinitiesAsNumbers) {
  QueryResult result;
  result.rows = 4;
  ResultColumn column;
  column.name = "x";
  column.type = sql::ValueType::kReal;
  column.reals = {std::numeric_limits<double>::infinity(), -std::numeric_limits<double>::infinity(),
                  1.5, 0.0};
  column.nulls = {0, 0, 0, 1};
  result.columns.push_back(std::move(column));
  EXPECT_EQ(FormatJson(result), "[{\"x\":9.0e+999},{\"x\":-9.0e+999},{\"x\":1.5},{\"x\":null}]\n");
}

}  // namespace
}  // namespace clq
