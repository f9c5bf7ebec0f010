// Table files with NULLs (format version 2): NULL maps round trip, version 1
// files (no NULL maps) still read, and a NULL map no clq table has is a
// FileError naming the file and the column, checksums notwithstanding.
#include <gtest/gtest.h>

#include <cstring>
#include <filesystem>
#include <fstream>
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

// Four rows: i INT32 (NULL at rows 2 and 4), s CHAR(2) (NULL at row 1),
// d DOUBLE NOT NULL. Every name is one byte, which the offsets below use.
TablePtr NullTable() {
  TableBuilder builder("t",
                       {{"i", ColumnType::Int32(), true},
                        {"s", ColumnType::Char(2), true},
                        {"d", ColumnType::Double(), false}},
                       4);
  for (RowCount r = 0; r < 4; ++r) {
    builder.column_values<std::int32_t>(0)[r] = static_cast<std::int32_t>(r) + 10;
    builder.SetString(1, r, r == 2 ? "" : "v" + std::to_string(r));
    builder.column_values<double>(2)[r] = 0.5 * static_cast<double>(r);
  }
  builder.SetNull(0, 1);
  builder.SetNull(0, 3);
  builder.SetNull(1, 0);
  return builder.Finish();
}

// Offsets in NullTable()'s file (the layout of storage/table_file.hpp).
constexpr std::size_t kFirstDescription = 16 + 8 + 4 + 1 + 4;
constexpr std::size_t kDescription = 4 + 1 + 1 + 4 + 1;  // name, type, width, flags
constexpr std::size_t kHeaderEnd = kFirstDescription + 3 * kDescription;
constexpr std::size_t kValuesI = kHeaderEnd + 8;
constexpr std::size_t kMapI = kValuesI + 16 + 8;
constexpr std::size_t kValuesS = kMapI + 4 + 8;
constexpr std::size_t kMapS = kValuesS + 8 + 8;

std::size_t FlagsOffset(std::size_t column) {
  return kFirstDescription + column * kDescription + kDescription - 1;
}

// Stores at `at` the checksum of bytes [from, at).
void PutChecksum(std::vector<char>& bytes, std::size_t from, std::size_t at) {
  const std::uint64_t sum = Checksum64(std::as_bytes(std::span(bytes.data() + from, at - from)));
  std::memcpy(bytes.data() + at, &sum, 8);
}

void ExpectSameTable(const Table& a, const Table& b) {
  ASSERT_EQ(a.rows(), b.rows());
  ASSERT_EQ(a.columns().size(), b.columns().size());
  for (std::size_t c = 0; c < a.columns().size(); ++c) {
    const Column& x = a.column(c);
    const Column& y = b.column(c);
    EXPECT_EQ(x.name(), y.name());
    EXPECT_EQ(x.type(), y.type());
    EXPECT_EQ(std::memcmp(x.bytes(), y.bytes(), x.byte_size()), 0) << x.name();
    for (RowCount r = 0; r < x.rows(); ++r)
      EXPECT_EQ(x.IsNull(r), y.IsNull(r)) << x.name() << " row " << r;
  }
}

TEST(TableFileNullsTest, NullMapsRoundTrip) {
  TempDir dir;
  const std::string path = (dir / "t.clq").string();
  const TablePtr table = NullTable();
  WriteTableFile(*table, path);
  EXPECT_EQ(ReadBytes(path).size(), kMapS + 4 + 8 + 32 + 8);
  const TablePtr back = ReadTableFile(path);
  ExpectSameTable(*table, *back);
  EXPECT_TRUE(back->column(0).nullable());
  EXPECT_TRUE(back->column(0).IsNull(1));
  EXPECT_FALSE(back->column(0).IsNull(2));
  EXPECT_EQ(back->column(0).int32s()[2], 12);
  EXPECT_TRUE(back->column(1).IsNull(0));
  EXPECT_FALSE(back->column(1).IsNull(2));  // the empty string is a value
  EXPECT_FALSE(back->column(2).nullable());
  const TableFileInfo info = ReadTableFileInfo(path);
  ASSERT_EQ(info.schema.size(), 3u);
  EXPECT_TRUE(info.schema[0].nullable);
  EXPECT_TRUE(info.schema[1].nullable);
  EXPECT_FALSE(info.schema[2].nullable);

  // A slice that holds no NULL of a nullable column is written without a
  // map (a map of no NULL would be refused), and so is an empty slice.
  for (const auto& [begin, count] : {std::pair<RowCount, RowCount>{2, 1}, {0, 0}}) {
    const TablePtr slice = table->Slice("slice", begin, count);
    ASSERT_TRUE(slice->column(0).nullable());
    WriteTableFile(*slice, path);
    const TablePtr read = ReadTableFile(path);
    EXPECT_EQ(read->rows(), count);
    EXPECT_FALSE(read->column(0).nullable());
    EXPECT_FALSE(ReadTableFileInfo(path).schema[0].nullable);
  }
  // A slice that holds NULLs keeps them.
  const TablePtr slice = table->Slice("slice", 1, 3);
  WriteTableFile(*slice, path);
  const TablePtr read = ReadTableFile(path);
  ExpectSameTable(*slice, *read);
  EXPECT_TRUE(read->column(0).nullable());
  EXPECT_FALSE(read->column(1).nullable());  // its NULL is in row 1, before the slice
}

// Version 1 is version 2 without the flags byte and the NULL maps.
TEST(TableFileNullsTest, Version1FilesStillRead) {
  TempDir dir;
  const std::filesystem::path path = dir / "t.clq";
  TableBuilder builder("t", {{"i", ColumnType::Int32()}, {"s", ColumnType::Char(2)}}, 2);
  builder.column_values<std::int32_t>(0)[0] = 7;
  builder.column_values<std::int32_t>(0)[1] = -7;
  builder.SetString(1, 0, "ab");
  builder.SetString(1, 1, "c");
  const TablePtr table = builder.Finish();
  WriteTableFile(*table, path.string());
  std::vector<char> bytes = ReadBytes(path);
  // Drop the flags bytes, last first, and fix the version, header length
  // and header checksum.
  bytes.erase(bytes.begin() + static_cast<long>(FlagsOffset(1)));
  bytes.erase(bytes.begin() + static_cast<long>(FlagsOffset(0)));
  const std::uint32_t version = 1;
  std::memcpy(bytes.data() + 8, &version, 4);
  std::uint32_t body;
  std::memcpy(&body, bytes.data() + 12, 4);
  body -= 2;
  std::memcpy(bytes.data() + 12, &body, 4);
  PutChecksum(bytes, 0, 16 + body);
  WriteBytes(path, bytes);
  const TablePtr back = ReadTableFile(path.string());
  ExpectSameTable(*table, *back);
  EXPECT_EQ(back->column(1).StringAt(0), "ab");
  EXPECT_FALSE(ReadTableFileInfo(path.string()).schema[0].nullable);
  // Writing it again makes a version 2 file.
  WriteTableFile(*back, path.string());
  EXPECT_EQ(ReadBytes(path)[8], 2);

  // Version 0 and versions after this clq's are refused.
  for (const std::uint32_t v : {0u, kTableFileVersion + 1}) {
    std::vector<char> copy = bytes;
    std::memcpy(copy.data() + 8, &v, 4);
    WriteBytes(path, copy);
    ExpectFileError(path, "unsupported table file version " + std::to_string(v) +
                              " (this clq reads versions 1 to 3)");
  }
}

TEST(TableFileNullsTest, DamagedNullMapsAreRefused) {
  TempDir dir;
  const std::filesystem::path good = dir / "good.clq";
  WriteTableFile(*NullTable(), good.string());
  const std::vector<char> bytes = ReadBytes(good);
  ASSERT_EQ(bytes[FlagsOffset(0)], 1);
  ASSERT_EQ(bytes[FlagsOffset(2)], 0);
  ASSERT_EQ(bytes[kMapI + 1], 1);
  const std::filesystem::path path = dir / "t.clq";
  // Changes bytes, then recomputes the checksums so that only the contents
  // can refuse the file.
  auto changed = [&](auto&& change) {
    std::vector<char> copy = bytes;
    change(copy);
    PutChecksum(copy, 0, kHeaderEnd);
    PutChecksum(copy, kValuesI, kMapI - 8);
    PutChecksum(copy, kMapI, kMapI + 4);
    PutChecksum(copy, kValuesS, kMapS - 8);
    PutChecksum(copy, kMapS, kMapS + 4);
    WriteBytes(path, copy);
  };

  changed([](std::vector<char>& b) { b[FlagsOffset(2)] = 2; });
  ExpectFileError(path, "corrupt header: column d has unknown flags 2");
  changed([](std::vector<char>& b) { b[FlagsOffset(0)] = static_cast<char>(0x81); });
  ExpectFileError(path, "corrupt header: column i has unknown flags 129");
  changed([](std::vector<char>& b) { b[kMapI + 2] = 2; });
  ExpectFileError(path, "corrupt NULL map of column i: row 3 holds 2 (1 is NULL, 0 a value)");
  changed([](std::vector<char>& b) { b[kMapS + 1] = static_cast<char>(0xFF); });
  ExpectFileError(path, "corrupt NULL map of column s: row 2 holds 255");
  changed([](std::vector<char>& b) { std::memset(b.data() + kMapI, 0, 4); });
  ExpectFileError(path,
                  "corrupt NULL map of column i: the column is marked nullable but holds no NULL");
  changed([](std::vector<char>& b) { b[kValuesI + 4 * 3] = 1; });  // row 4's value
  ExpectFileError(path,
                  "corrupt NULL map of column i: row 4 is NULL but its value bytes are not zero");
  changed([](std::vector<char>& b) { b[kValuesS] = 'x'; });  // row 1's first byte
  ExpectFileError(path,
                  "corrupt NULL map of column s: row 1 is NULL but its value bytes are not zero");
  // Marking column d nullable makes the file too short for its map.
  changed([](std::vector<char>& b) { b[FlagsOffset(2)] = 1; });
  ExpectFileError(path,
                  "truncated: expected 12 bytes of NULL map and checksum of column d, found 0");
  // Clearing column s's flag leaves its map as bytes after the last column.
  changed([](std::vector<char>& b) { b[FlagsOffset(1)] = 0; });
  ExpectFileError(path, "corrupt: 12 bytes after the last column");

  // A flipped byte in a map or its checksum fails the checksum.
  for (const std::size_t offset : {kMapI + 1, kMapI + 4, kMapS + 11}) {
    std::vector<char> copy = bytes;
    copy[offset] = static_cast<char>(copy[offset] ^ 0x01);
    WriteBytes(path, copy);
    ExpectFileError(path, std::string("corrupt NULL map of column ") +
                              (offset < kValuesS ? "i" : "s") + " (checksum mismatch)");
  }
  // Cut anywhere in a map or its checksum.
  for (std::size_t size = kMapI; size < kMapI + 12; ++size) {
    WriteBytes(path, std::vector<char>(bytes.begin(), bytes.begin() + static_cast<long>(size)));
    ExpectFileError(path, "truncated");
  }
}

}  // namespace
}  // namespace clq
