// Table files: round trips, and every kind of damaged file gives a FileError
// naming the file, never a crash or wrong data.
#include "storage/table_file.hpp"

#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <limits>
#include <vector>

#include "common/errors.hpp"
#include "common/hash.hpp"
#include "tests/storage/table_file_bytes.hpp"
#include "tests/support/temp_dir.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

using testing::TempDir;

TablePtr MixedTable(RowCount rows, std::string name = "mixed") {
  TableBuilder builder(std::move(name),
                       {{"i", ColumnType::Int32()},
                        {"big", ColumnType::Int64()},
                        {"price", ColumnType::Double()},
                        {"label", ColumnType::Char(12)},
                        {"c1", ColumnType::Char(1)}},
                       rows);
  for (RowCount r = 0; r < rows; ++r) {
    builder.column_values<std::int32_t>(0)[r] = static_cast<std::int32_t>(r * 7) - 1000;
    builder.column_values<std::int64_t>(1)[r] = static_cast<std::int64_t>(r) << 40;
    builder.column_values<double>(2)[r] = static_cast<double>(r) / 3.0 - 1e-300;
    builder.SetString(3, r, r % 3 == 0 ? "" : "row " + std::to_string(r));
    builder.SetString(4, r, std::string(1, static_cast<char>('a' + r % 26)));
  }
  return builder.Finish();
}

void ExpectSameTable(const Table& a, const Table& b) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.columns().size(), b.columns().size());
  for (std::size_t c = 0; c < a.columns().size(); ++c) {
    EXPECT_EQ(a.column(c).name(), b.column(c).name());
    EXPECT_EQ(a.column(c).type(), b.column(c).type());
    EXPECT_EQ(std::memcmp(a.column(c).bytes(), b.column(c).bytes(), a.column(c).byte_size()), 0)
        << a.column(c).name();
  }
}

using testing::ExpectFileError;
using testing::ReadBytes;
using testing::WriteBytes;

TEST(TableFileTest, RoundTripOfEveryType) {
  TempDir dir;
  for (RowCount rows : {RowCount{0}, RowCount{1}, RowCount{1000}}) {
    const TablePtr table = MixedTable(rows);
    const std::string path = (dir / "t.clq").string();
    WriteTableFile(*table, path);
    const TablePtr back = ReadTableFile(path);
    EXPECT_EQ(back->name(), "mixed");
    ExpectSameTable(*table, *back);
    EXPECT_EQ(ReadTableFile(path, "renamed")->name(), "renamed");
    const TableFileInfo info = ReadTableFileInfo(path);
    EXPECT_EQ(info.name, "mixed");
    EXPECT_EQ(info.rows, rows);
    ASSERT_EQ(info.schema.size(), 5u);
    EXPECT_EQ(info.schema[3].name, "label");
    EXPECT_EQ(info.schema[3].type, ColumnType::Char(12));
  }
  // No temporary file is left behind.
  EXPECT_EQ(std::distance(std::filesystem::directory_iterator(dir.path()), {}), 1);
}

TEST(TableFileTest, RoundTripOfSlicesAndWisconsin) {
  TempDir dir;
  const TablePtr table = GenerateWisconsinTable("tenktup1", 10000);
  const TablePtr slice = table->Slice("middle", 1234, 777);
  WriteTableFile(*slice, (dir / "s.clq").string());
  ExpectSameTable(*slice, *ReadTableFile((dir / "s.clq").string()));
  WriteTableFile(*table, (dir / "t.clq").string());
  const TablePtr back = ReadTableFile((dir / "t.clq").string());
  ExpectSameTable(*table, *back);
  EXPECT_EQ(back->column(13).StringAt(0), table->column(13).StringAt(0));
  // Overwriting an existing file replaces it.
  WriteTableFile(*slice, (dir / "t.clq").string());
  EXPECT_EQ(ReadTableFile((dir / "t.clq").string())->rows(), 777u);
}

TEST(TableFileTest, MissingEmptyAndDirectory) {
  TempDir dir;
  ExpectFileError(dir / "nosuch.clq", "cannot open");
  WriteBytes(dir / "empty.clq", {});
  ExpectFileError(dir / "empty.clq", "empty file");
  ExpectFileError(dir.path(), "directory");
  EXPECT_THROW(ReadTableFileInfo((dir / "nosuch.clq").string()), FileError);
}

TEST(TableFileTest, TruncatedAnywhere) {
  TempDir dir;
  const std::filesystem::path good = dir / "good.clq";
  WriteTableFile(*MixedTable(100), good.string());
  const std::vector<char> bytes = ReadBytes(good);
  const std::filesystem::path path = dir / "t.clq";
  // Every cut, byte by byte through the header, then through the data.
  for (std::size_t size = 1; size < bytes.size(); size += size < 200 ? 1 : 97) {
    WriteBytes(path, std::vector<char>(bytes.begin(), bytes.begin() + static_cast<long>(size)));
    SCOPED_TRACE("cut at " + std::to_string(size));
    ExpectFileError(path, "truncated");
    EXPECT_THROW(ReadTableFileInfo(path.string()), FileError);
  }
  // The message says which column and how much is missing: the header of
  // this file ends before byte 120, the 400 bytes of column i follow it.
  const std::size_t header_end = bytes.size() - (100 * (4 + 8 + 8 + 12 + 1) + 5 * 8);
  WriteBytes(path,
             std::vector<char>(bytes.begin(), bytes.begin() + static_cast<long>(header_end + 123)));
  ExpectFileError(path, "truncated: expected 400 bytes of column i, found 123");
}

TEST(TableFileTest, FlippedBytesAreCaught) {
  TempDir dir;
  const std::filesystem::path good = dir / "good.clq";
  WriteTableFile(*MixedTable(100), good.string());
  const std::vector<char> bytes = ReadBytes(good);
  const std::filesystem::path path = dir / "t.clq";
  auto flipped_at = [&](std::size_t offset) {
    std::vector<char> copy = bytes;
    copy[offset] = static_cast<char>(copy[offset] ^ 0x10);
    WriteBytes(path, copy);
  };
  flipped_at(20);  // inside the header body (the row count)
  ExpectFileError(path, "corrupt header (checksum mismatch)");
  flipped_at(bytes.size() - 9 - 50);  // in the data of the last column
  ExpectFileError(path, "corrupt data in column c1 (checksum mismatch)");
  flipped_at(bytes.size() - 1);  // in the last column's checksum
  ExpectFileError(path, "corrupt data in column c1");
  // Every single flipped byte is an error, never wrong data.
  for (std::size_t offset = 0; offset < bytes.size(); offset += 29) {
    flipped_at(offset);
    EXPECT_THROW(ReadTableFile(path.string()), FileError) << "offset " << offset;
  }
}

TEST(TableFileTest, WrongMagicVersionAndTrailingBytes) {
  TempDir dir;
  const std::filesystem::path good = dir / "good.clq";
  WriteTableFile(*MixedTable(3), good.string());
  const std::vector<char> bytes = ReadBytes(good);
  const std::filesystem::path path = dir / "t.clq";

  std::vector<char> copy = bytes;
  std::memcpy(copy.data(), "PAR1\0\0\0\0", 8);
  WriteBytes(path, copy);
  ExpectFileError(path, "not a clq table file (bad magic)");
  WriteBytes(path, {'h', 'e', 'l', 'l', 'o', '\n'});
  ExpectFileError(path, "bad magic");

  copy = bytes;
  copy[8] = 7;
  WriteBytes(path, copy);
  ExpectFileError(path, "unsupported table file version 7 (this clq reads versions 1 to 3)");

  copy = bytes;
  copy.push_back('!');
  WriteBytes(path, copy);
  ExpectFileError(path, "1 bytes after the last column");
}

// A header that passes its checksum but announces absurd sizes must fail
// before anything is allocated.
TEST(TableFileTest, HugeSizesInAValidHeaderAllocateNothing) {
  TempDir dir;
  const std::filesystem::path good = dir / "good.clq";
  WriteTableFile(*MixedTable(3), good.string());
  const std::vector<char> bytes = ReadBytes(good);
  std::uint32_t body_size;
  std::memcpy(&body_size, bytes.data() + 12, 4);
  auto with_row_count = [&](std::uint64_t rows) {
    std::vector<char> copy = bytes;
    std::memcpy(copy.data() + 16, &rows, 8);
    const std::uint64_t checksum =
        Checksum64(std::as_bytes(std::span(copy.data(), 16 + body_size)));
    std::memcpy(copy.data() + 16 + body_size, &checksum, 8);
    return copy;
  };
  const std::filesystem::path path = dir / "t.clq";
  WriteBytes(path, with_row_count(4000000000ull));
  ExpectFileError(path, "truncated: expected 16000000000 bytes of column i");
  WriteBytes(path, with_row_count(std::numeric_limits<std::uint64_t>::max()));
  ExpectFileError(path, "corrupt header");
  // A header length beyond the file.
  std::vector<char> copy = bytes;
  const std::uint32_t huge = 0xFFFFFFF0u;
  std::memcpy(copy.data() + 12, &huge, 4);
  WriteBytes(path, copy);
  ExpectFileError(path, "truncated");
}

TEST(TableFileTest, WriteErrorsNameTheFile) {
  TempDir dir;
  const std::string path = (dir / "missing" / "t.clq").string();
  try {
    WriteTableFile(*MixedTable(3), path);
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find("t.clq"), std::string::npos) << e.what();
  }
  // A non-regular target is written in place, not replaced.
  WriteTableFile(*MixedTable(3), "/dev/null");
  EXPECT_FALSE(std::filesystem::is_regular_file("/dev/null"));
}

}  // namespace
}  // namespace clq
