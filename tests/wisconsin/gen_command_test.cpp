// `clq gen` through the binary: CSV rows against DeWitt's rules, table
// files, and usage errors.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"
#include "storage/table_file.hpp"
#include "tests/support/run_clq.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/wisconsin/naive_wisconsin.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

using testing::RunClq;
using testing::TempDir;

std::vector<std::string> SplitCsvLine(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ','))
    fields.push_back(field);
  return fields;
}

TEST(GenCommandTest, CsvRowsFollowDeWittsRules) {
  TempDir dir;
  const std::string out = (dir / "t.csv").string();
  const auto result = RunClq("gen --rows 10000 --format csv --out " + out);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream file(out);
  std::string line;
  ASSERT_TRUE(std::getline(file, line));
  EXPECT_EQ(SplitCsvLine(line),
            (std::vector<std::string>{"unique1", "unique2", "two", "four", "ten", "twenty",
                                      "onePercent", "tenPercent", "twentyPercent", "fiftyPercent",
                                      "unique3", "evenOnePercent", "oddOnePercent", "stringu1",
                                      "stringu2", "string4"}));
  const int golden[] = {8800, 1891, 3420, 9850, 7164};
  for (int row = 0; row < 5; ++row) {
    ASSERT_TRUE(std::getline(file, line));
    const int u = golden[row];
    const std::vector<std::string> expected = {std::to_string(u),
                                               std::to_string(row),
                                               std::to_string(u % 2),
                                               std::to_string(u % 4),
                                               std::to_string(u % 10),
                                               std::to_string(u % 20),
                                               std::to_string(u % 100),
                                               std::to_string(u % 10),
                                               std::to_string(u % 5),
                                               std::to_string(u % 2),
                                               std::to_string(u),
                                               std::to_string(u % 100 * 2),
                                               std::to_string(u % 100 * 2 + 1),
                                               testing::NaiveCode(static_cast<std::uint32_t>(u)),
                                               testing::NaiveCode(static_cast<std::uint32_t>(row)),
                                               testing::NaiveString4(static_cast<RowCount>(row))};
    EXPECT_EQ(SplitCsvLine(line), expected) << "row " << row;
  }
  RowCount lines = 6;
  while (std::getline(file, line))
    ++lines;
  EXPECT_EQ(lines, 10001u);
}

TEST(GenCommandTest, TableFilesOfEachRelation) {
  TempDir dir;
  const TablePtr reference = GenerateWisconsinTable("reference", 20000);
  struct Case {
    const char* table;
    RowCount rows;
  };
  for (const Case& c : {Case{"tenktup1", 20000}, Case{"TENKTUP2", 20000}, Case{"onektup", 2000},
                        Case{"bprime", 2000}}) {
    const std::string out = (dir / (std::string(c.table) + ".clq")).string();
    const auto result = RunClq("gen --rows 20K --table " + std::string(c.table) + " --out " + out);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const TablePtr t = ReadTableFile(out);
    EXPECT_EQ(t->name(), LowercaseIdentifier(c.table));
    ASSERT_EQ(t->rows(), c.rows) << c.table;
    const TablePtr expected = std::string(c.table) == "onektup" ? GenerateWisconsinTable("x", 2000)
                                                                : reference->Slice("x", 0, c.rows);
    for (std::size_t col = 0; col < 16; ++col)
      EXPECT_EQ(std::memcmp(t->column(col).bytes(), expected->column(col).bytes(),
                            expected->column(col).byte_size()),
                0)
          << c.table << " column " << col;
  }
}

TEST(GenCommandTest, FormatFollowsTheExtensionUnlessGiven) {
  TempDir dir;
  ASSERT_EQ(RunClq("gen --rows 10 --out " + (dir / "a.csv").string()).exit_code, 0);
  std::ifstream csv(dir / "a.csv");
  std::string first;
  std::getline(csv, first);
  EXPECT_EQ(first.rfind("unique1,unique2", 0), 0u) << first;
  ASSERT_EQ(RunClq("gen --rows 10 --format clq --out " + (dir / "b.csv").string()).exit_code, 0);
  EXPECT_EQ(ReadTableFile((dir / "b.csv").string())->rows(), 10u);
}

TEST(GenCommandTest, TruncatedOutputIsDetected) {
  TempDir dir;
  const std::string out = (dir / "t.clq").string();
  ASSERT_EQ(RunClq("gen --rows 1000 --out " + out).exit_code, 0);
  std::filesystem::resize_file(out, std::filesystem::file_size(out) / 2);
  try {
    ReadTableFile(out);
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find(out + ": truncated"), std::string::npos) << e.what();
  }
}

TEST(GenCommandTest, BadArguments) {
  TempDir dir;
  const std::string out = " --out " + (dir / "x.clq").string();
  struct Case {
    std::string arguments;
    std::string message;
  };
  for (const Case& c :
       {Case{"--rows -5" + out, "-5"}, Case{"--rows abc" + out, "'abc' is not a row count"},
        Case{"--rows 3000000000" + out, "'3000000000' is not a row count"},
        Case{"--rows 5Q" + out, "'5Q'"}, Case{"--rows 10 --table nosuch" + out, "nosuch"},
        Case{"--rows 10 --format parquet" + out, "parquet"}, Case{"--rows 10", "--out"},
        Case{out, "--rows"},
        Case{"--rows 10 --out " + (dir / "missing" / "x.clq").string(), "cannot create"}}) {
    const auto result = RunClq("gen " + c.arguments);
    EXPECT_TRUE(result.exit_code == 1 || result.exit_code == 2) << c.arguments;
    EXPECT_NE(result.output.find(c.message), std::string::npos) << c.arguments << "\n"
                                                                << result.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "x.clq"));
}

}  // namespace
}  // namespace clq
