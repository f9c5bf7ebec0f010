// Table files whose checksums hold but whose contents no clq table can have
// (found by fuzz/table_file_fuzzer): the reader refuses each with a
// FileError naming the file and the problem, instead of returning a table
// that breaks what queries rely on.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <span>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "common/hash.hpp"
#include "storage/table_file.hpp"
#include "tests/storage/table_file_bytes.hpp"
#include "tests/support/temp_dir.hpp"

namespace clq {
namespace {

using testing::TempDir;

using testing::ExpectFileError;
using testing::ReadBytes;
using testing::WriteBytes;

TEST(TableFileContentsTest, NoColumns) {
  TempDir dir;
  const std::filesystem::path path = dir / "t.clq";
  WriteTableFile(*TableBuilder("t", {}, 0).Finish(), path.string());
  ExpectFileError(path, "corrupt header: the table has no columns");
  // With a row count in the header, which a table of no columns would lose.
  std::vector<char> bytes = ReadBytes(path);
  std::uint32_t body_size;
  std::memcpy(&body_size, bytes.data() + 12, 4);
  const std::uint64_t rows = 5;
  std::memcpy(bytes.data() + 16, &rows, 8);
  const std::uint64_t checksum = Checksum64(std::as_bytes(std::span(bytes.data(), 16 + body_size)));
  std::memcpy(bytes.data() + 16 + body_size, &checksum, 8);
  WriteBytes(path, bytes);
  ExpectFileError(path, "corrupt header: the table has no columns");
}

TEST(TableFileContentsTest, TwoColumnsOfOneName) {
  TempDir dir;
  const std::filesystem::path path = dir / "t.clq";
  TableBuilder builder("t", {{"a", ColumnType::Int32()}, {"A", ColumnType::Int64()}}, 1);
  builder.column_values<std::int32_t>(0)[0] = 1;
  builder.column_values<std::int64_t>(1)[0] = 2;
  WriteTableFile(*builder.Finish(), path.string());
  ExpectFileError(path, "corrupt header: two columns are named A");
}

TEST(TableFileContentsTest, NaNInADoubleColumn) {
  TempDir dir;
  const std::filesystem::path path = dir / "t.clq";
  TableBuilder builder("t", {{"d", ColumnType::Double()}}, 3);
  builder.column_values<double>(0)[0] = 1.5;
  builder.column_values<double>(0)[1] = std::numeric_limits<double>::infinity();
  builder.column_values<double>(0)[2] = std::numeric_limits<double>::quiet_NaN();
  WriteTableFile(*builder.Finish(), path.string());
  ExpectFileError(path, "corrupt data in column d: row 3 is NaN");
}

TEST(TableFileContentsTest, NulInsideACharValue) {
  TempDir dir;
  const std::filesystem::path path = dir / "t.clq";
  TableBuilder builder("t", {{"s", ColumnType::Char(3)}}, 3);
  std::memcpy(builder.column_values<char>(0), "ab\0a\0\0x\0y", 9);
  WriteTableFile(*builder.Finish(), path.string());
  ExpectFileError(path, "corrupt data in column s: row 3 holds a NUL byte inside its value");
  // NUL padding on the right, an empty value included, is how values end.
  TableBuilder padded("t", {{"s", ColumnType::Char(3)}}, 3);
  std::memcpy(padded.column_values<char>(0), "ab\0a\0\0\0\0\0", 9);
  WriteTableFile(*padded.Finish(), path.string());
  const TablePtr table = ReadTableFile(path.string());
  EXPECT_EQ(table->column(0).StringAt(0), "ab");
  EXPECT_EQ(table->column(0).StringAt(1), "a");
  EXPECT_EQ(table->column(0).StringAt(2), "");
}

}  // namespace
}  // namespace clq
