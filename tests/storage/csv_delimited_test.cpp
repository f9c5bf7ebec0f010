// Delimited text other than CSV: another delimiter, no header row, and
// records ending with one extra delimiter (dbgen's .tbl rows), in the reader
// and through `clq import`.
#include <gtest/gtest.h>

#include <fstream>

#include "common/errors.hpp"
#include "storage/csv.hpp"
#include "storage/table_file.hpp"
#include "tests/support/run_clq.hpp"
#include "tests/support/temp_dir.hpp"

namespace clq {
namespace {

using testing::RunClq;
using testing::TempDir;

CsvReadOptions Pipe(bool header = true) {
  CsvReadOptions options;
  options.delimiter = '|';
  options.header = header;
  return options;
}

TablePtr Import(std::string_view text, std::optional<Schema> schema,
                const CsvReadOptions& options) {
  return ImportCsvText(text, "data.tbl", "t", std::move(schema), kUnlimitedHostMemory, options);
}

void ExpectImportError(std::string_view text, std::optional<Schema> schema,
                       const CsvReadOptions& options, const std::string& message) {
  try {
    Import(text, std::move(schema), options);
    ADD_FAILURE() << "no error; expected: " << message;
  } catch (const InvalidInputError& e) {
    EXPECT_NE(std::string(e.what()).find(message), std::string::npos) << e.what();
  }
}

TEST(CsvDelimitedTest, TblRowsWithATrailingDelimiter) {
  const Schema schema = ParseSchema("k INT, name VARCHAR(25), price DOUBLE, flag CHAR(1)");
  const TablePtr t =
      Import("1|Customer#1|711.56|N|\n2|a, b|0.5||\n3|x|-2|R|\n", schema, Pipe(false));
  ASSERT_EQ(t->rows(), 3u);
  EXPECT_EQ(t->column(0).int32s()[2], 3);
  EXPECT_EQ(t->column(1).StringAt(0), "Customer#1");
  EXPECT_EQ(t->column(1).StringAt(1), "a, b");  // a comma is no delimiter here
  EXPECT_EQ(t->column(2).doubles()[0], 711.56);
  EXPECT_TRUE(t->column(3).IsNull(1));  // an empty field is NULL, the next one the end
  EXPECT_EQ(t->column(3).StringAt(2), "R");
  // Rows with and without the trailing delimiter may be mixed.
  EXPECT_EQ(Import("1|a|1|N|\n2|b|2|N\n", schema, Pipe(false))->rows(), 2u);
}

TEST(CsvDelimitedTest, AHeaderWithTheSameDelimiter) {
  const TablePtr t = Import("id|word|\n1|one|\n2|two|\n", std::nullopt, Pipe());
  ASSERT_EQ(t->columns().size(), 2u);
  EXPECT_EQ(t->column(1).name(), "word");
  EXPECT_EQ(t->column(1).StringAt(1), "two");
  // A one-column file: "5|" is the value 5, and an empty line a NULL.
  const TablePtr one = Import("5|\n\n7\n", ParseSchema("n INT"), Pipe(false));
  ASSERT_EQ(one->rows(), 3u);
  EXPECT_EQ(one->column(0).int32s()[0], 5);
  EXPECT_TRUE(one->column(0).IsNull(1));
}

TEST(CsvDelimitedTest, DelimiterInsideQuotes) {
  const TablePtr t =
      Import("\"a|b\"|\"say \"\"hi\"\"\"|\n", ParseSchema("x TEXT, y TEXT"), Pipe(false));
  EXPECT_EQ(t->column(0).StringAt(0), "a|b");
  EXPECT_EQ(t->column(1).StringAt(0), "say \"hi\"");
  // A quoted empty last field is a value, not a trailing delimiter.
  ExpectImportError("1|2|\"\"\n", ParseSchema("a INT, b INT"), Pipe(false),
                    "data.tbl line 1: 3 fields, expected 2 as in the schema");
  ExpectImportError("\"x\"y|1\n", ParseSchema("a TEXT, b INT"), Pipe(false),
                    "line 1: unexpected character after a closing quote");
}

TEST(CsvDelimitedTest, WrongFieldCounts) {
  const Schema schema = ParseSchema("a INT, b INT, c INT");
  // "1|2|" is three fields, the last NULL; "1|" two.
  EXPECT_TRUE(Import("1|2|\n", schema, Pipe(false))->column(2).IsNull(0));
  ExpectImportError("1|2|3|\n1|\n", schema, Pipe(false),
                    "data.tbl line 2: 2 fields, expected 3 as in the schema (or one more, empty, "
                    "after a delimiter ending the line)");
  ExpectImportError("1|2|3|4|\n", schema, Pipe(false), "line 1: 5 fields, expected 3");
  // Only one extra field, and only an empty one.
  ExpectImportError("1|2|3||\n", schema, Pipe(false), "line 1: 5 fields, expected 3");
  ExpectImportError("1|2|3|x\n", schema, Pipe(false), "line 1: 4 fields, expected 3");
  ExpectImportError("a|b|c\n1|2\n", std::nullopt, Pipe(), "2 fields, expected 3 as in the header");
}

TEST(CsvDelimitedTest, NoHeaderNeedsASchema) {
  ExpectImportError("1|2\n", std::nullopt, Pipe(false),
                    "data.tbl: without a header row the schema must name the columns");
  // Without a header the first record is a row.
  EXPECT_EQ(Import("1|2\n", ParseSchema("a INT, b INT"), Pipe(false))->rows(), 1u);
  EXPECT_EQ(Import("", ParseSchema("a INT, b INT"), Pipe(false))->rows(), 0u);
  CsvReadOptions quote;
  quote.delimiter = '"';
  ExpectImportError("a\n1\n", std::nullopt, quote, "cannot be a quote");
}

TEST(CsvDelimitedTest, ATabDelimiterAndCommaDefault) {
  CsvReadOptions tab;
  tab.delimiter = '\t';
  const TablePtr t = Import("a\tb\n1\tx y\n", std::nullopt, tab);
  EXPECT_EQ(t->column(1).StringAt(0), "x y");
  // The default stays CSV, trailing comma included.
  EXPECT_EQ(ImportCsvText("a,b\n1,2,\n", "d.csv", "t")->column(1).int32s()[0], 2);
}

TEST(CsvDelimitedTest, ImportCommand) {
  TempDir dir;
  std::ofstream(dir / "nation.tbl") << "0|ALGERIA|0| haggle. carefully final|\n"
                                       "1|ARGENTINA|1|al foxes promise|\n";
  const std::string tbl = (dir / "nation.tbl").string();
  const std::string out = (dir / "nation.clq").string();
  const std::string schema =
      " --schema \"n_nationkey INT, n_name CHAR(25), n_regionkey INT, n_comment VARCHAR(152)\"";
  auto result =
      RunClq("import --csv " + tbl + " --out " + out + " --delimiter '|' --no-header" + schema);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("nation: 2 rows (n_nationkey INT32, n_name CHAR(25)"),
            std::string::npos)
      << result.output;
  const TablePtr t = ReadTableFile(out);
  EXPECT_EQ(t->column(1).StringAt(1), "ARGENTINA");
  EXPECT_EQ(t->column(3).StringAt(0), " haggle. carefully final");

  result = RunClq("import --csv " + tbl + " --out " + out + " --delimiter '|' --no-header");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("--no-header needs --schema"), std::string::npos) << result.output;
  result = RunClq("import --csv " + tbl + " --out " + out + " --delimiter '||'" + schema);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("--delimiter '||': give one byte"), std::string::npos)
      << result.output;
  // With the header it lacks, the first row is taken for one: 4 names + 1.
  result = RunClq("import --csv " + tbl + " --out " + out + " --delimiter ','" + schema);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("the header has 1 columns but the schema 4"), std::string::npos)
      << result.output;
  result = RunClq("import --help");
  EXPECT_NE(result.output.find("one extra delimiter"), std::string::npos) << result.output;
}

}  // namespace
}  // namespace clq
