// `clq import` through the binary, and the dataset options (--rows,
// --table NAME=FILE) that query commands share.
#include <gtest/gtest.h>

#include <fstream>

#include "common/errors.hpp"
#include "host/dataset_options.hpp"
#include "storage/table_file.hpp"
#include "tests/support/run_clq.hpp"
#include "tests/support/temp_dir.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

using testing::RunClq;
using testing::TempDir;

TEST(ImportCommandTest, ConvertsCsvToATableFile) {
  TempDir dir;
  std::ofstream(dir / "sales.csv") << "id,item,price\r\n1,\"pen, blue\",1.5\r\n2,ink,20\r\n";
  const std::string out = (dir / "sales.clq").string();
  auto result = RunClq("import --csv " + (dir / "sales.csv").string() + " --out " + out);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("sales: 2 rows (id INT32, item CHAR(9), price DOUBLE)"),
            std::string::npos)
      << result.output;
  TablePtr t = ReadTableFile(out);
  EXPECT_EQ(t->name(), "sales");
  EXPECT_EQ(t->column(1).StringAt(0), "pen, blue");
  EXPECT_EQ(t->column(2).doubles()[1], 20.0);

  result = RunClq("import --csv " + (dir / "sales.csv").string() + " --out " + out +
                  " --name orders --schema \"id BIGINT, item TEXT, price DOUBLE\"");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  t = ReadTableFile(out);
  EXPECT_EQ(t->name(), "orders");
  EXPECT_EQ(t->column(0).type(), ColumnType::Int64());
}

TEST(ImportCommandTest, ErrorsAreOneClearLine) {
  TempDir dir;
  std::ofstream(dir / "bad.csv") << "id,price\n1,2\n2,abc\n";
  const std::string csv = (dir / "bad.csv").string();
  const std::string out = " --out " + (dir / "x.clq").string();
  auto result = RunClq("import --csv " + csv + out + " --schema \"id INT, price DOUBLE\"");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("bad.csv line 3, column price: 'abc' is not a DOUBLE"),
            std::string::npos)
      << result.output;
  result = RunClq("import --csv " + csv + out + " --schema \"id INT, price MONEY\"");
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("unknown type 'MONEY'"), std::string::npos) << result.output;
  result = RunClq("import --csv " + (dir / "nosuch.csv").string() + out);
  EXPECT_EQ(result.exit_code, 1);
  EXPECT_NE(result.output.find("nosuch.csv"), std::string::npos) << result.output;
  result = RunClq("import" + out);
  EXPECT_EQ(result.exit_code, 2);
  EXPECT_NE(result.output.find("--csv"), std::string::npos) << result.output;
  EXPECT_FALSE(std::filesystem::exists(dir / "x.clq"));
}

TEST(DatasetOptionsTest, ParseRowCount) {
  EXPECT_EQ(ParseRowCount("0", "--rows"), 0u);
  EXPECT_EQ(ParseRowCount("10000", "--rows"), 10000u);
  EXPECT_EQ(ParseRowCount("10K", "--rows"), 10000u);
  EXPECT_EQ(ParseRowCount("100m", "--rows"), 100000000u);
  EXPECT_EQ(ParseRowCount("2G", "--rows"), 2000000000u);
  EXPECT_EQ(ParseRowCount("2147483647", "--rows"), 2147483647u);
  for (const char* bad :
       {"", "-5", "K", "1.5M", "2147483648", "3G", "99999999999999999999", "10 K"})
    EXPECT_THROW(ParseRowCount(bad, "--rows"), InvalidInputError) << bad;
}

TEST(DatasetOptionsTest, Catalog) {
  TempDir dir;
  const std::string file = (dir / "t.clq").string();
  const TablePtr custom = GenerateWisconsinTable("whatever", 7);
  WriteTableFile(*custom, file);

  DatasetOptions options;
  options.rows = 2000;
  options.table_files = {"onektup=" + file, "extra=" + file};
  Catalog catalog = BuildCatalog(options, kUnlimitedHostMemory);
  EXPECT_EQ(catalog.Get("tenktup1")->rows(), 2000u);
  EXPECT_EQ(catalog.Get("bprime")->rows(), 200u);
  EXPECT_EQ(catalog.Get("onektup")->rows(), 7u) << "a file replaces the built-in table";
  EXPECT_EQ(catalog.Get("onektup")->name(), "onektup");
  EXPECT_EQ(catalog.Get("EXTRA")->rows(), 7u);
  EXPECT_EQ(catalog.Get("extra")->name(), "extra");

  for (const char* bad : {"noequals", "=x.clq", "name=", "1abc=x.clq", "a-b=x.clq"}) {
    DatasetOptions o;
    o.rows = 10;
    o.table_files = {bad};
    EXPECT_THROW(BuildCatalog(o, kUnlimitedHostMemory), InvalidInputError) << bad;
  }
  DatasetOptions missing;
  missing.table_files = {"t=" + (dir / "nosuch.clq").string()};
  EXPECT_THROW(BuildCatalog(missing, kUnlimitedHostMemory), FileError);
}

// Through the binary: only host/main.cpp sees the command-line parser.
TEST(DatasetOptionsTest, CommandLine) {
  TempDir dir;
  const std::string file = (dir / "t.clq").string();
  WriteTableFile(*GenerateWisconsinTable("whatever", 7), file);

  // Both --table forms; one value per --table, so the SQL after the second
  // stays the positional argument.
  auto result = RunClq("query --device 0 --format csv --rows 2K --table=onektup=" + file +
                       " --table extra=" + file +
                       " \"SELECT COUNT(*) AS n FROM tenktup1; SELECT COUNT(*) AS n FROM bprime; "
                       "SELECT COUNT(*) AS n FROM onektup; SELECT COUNT(*) AS n FROM extra\"");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_NE(result.output.find("n\r\n2000\r\nn\r\n200\r\nn\r\n7\r\nn\r\n7\r\n"), std::string::npos)
      << result.output;

  result = RunClq("query --rows lots \"SELECT 1\"");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("--rows: 'lots' is not a row count"), std::string::npos)
      << result.output;
}

}  // namespace
}  // namespace clq
