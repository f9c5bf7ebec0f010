// Host tables and the host-memory budget: a table that does not fit is
// refused before any of it is allocated, whether built, read from a table
// file or imported from CSV, and the columns that exist count as held.
#include <gtest/gtest.h>

#include <cstring>

#include <fstream>
#include <string>

#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "storage/csv.hpp"
#include "storage/table.hpp"
#include "storage/table_file.hpp"
#include "tests/support/temp_dir.hpp"

namespace clq {
namespace {

using testing::TempDir;

const Schema kSchema = {
    {"id", ColumnType::Int32()}, {"total", ColumnType::Int64()}, {"name", ColumnType::Char(20)}};

TEST(TableMemoryTest, TableBytesComeFromTheSchema) {
  EXPECT_EQ(RowWidth(kSchema), 32u);
  EXPECT_EQ(TableBytes(kSchema, 1000), 32000u);
  EXPECT_EQ(TableBytes(kSchema, 0), 0u);
  const Schema wide(64, ColumnSpec{"c", ColumnType::Char(kMaxCharWidth)});
  EXPECT_EQ(TableBytes(wide, kMaxTableRows), kMaxTableRows * 64 * kMaxCharWidth);
}

// The rows of kMaxTableRows take 128 GiB here: refused at once, nothing
// allocated.
TEST(TableMemoryTest, ATableThatDoesNotFitIsRefusedBeforeAllocating) {
  const std::uint64_t held = HeldHostMemory();
  try {
    TableBuilder builder("huge", kSchema, kMaxTableRows, held + (1ull << 30));
    FAIL() << "built";
  } catch (const ResourceLimitError& error) {
    const std::string message = error.what();
    EXPECT_NE(message.find("table huge (4294967295 rows of 32 bytes) needs 128.00 GiB"),
              std::string::npos)
        << message;
  }
  EXPECT_EQ(HeldHostMemory(), held);
  EXPECT_THROW(TableBuilder("too many", kSchema, kMaxTableRows + 1, kUnlimitedHostMemory),
               InvalidInputError);
}

TEST(TableMemoryTest, ColumnsCountAsHeldWhileTheyLive) {
  const std::uint64_t held = HeldHostMemory();
  {
    TableBuilder builder("t", kSchema, 1000, held + TableBytes(kSchema, 1000) + 4096);
    const TablePtr table = builder.Finish();
    EXPECT_GE(HeldHostMemory(), held + TableBytes(kSchema, 1000));
    // A second one does not fit beside it.
    EXPECT_THROW(TableBuilder("u", kSchema, 1000, held + TableBytes(kSchema, 1000) + 4096),
                 ResourceLimitError);
  }
  EXPECT_EQ(HeldHostMemory(), held);
}

TEST(TableMemoryTest, ATableFileIsCheckedBeforeItsColumnsAreRead) {
  const TempDir dir;
  const std::string path = (dir / "t.clq").string();
  {
    TableBuilder builder("t", kSchema, 5000);
    // Zeros: values the reader accepts (empty strings, 0.0), not whatever
    // fresh memory holds.
    for (std::size_t c = 0; c < kSchema.size(); ++c)
      std::memset(builder.column_data(c), 0, 5000 * kSchema[c].type.width);
    WriteTableFile(*builder.Finish(), path);
  }
  const std::uint64_t held = HeldHostMemory();
  EXPECT_THROW(ReadTableFile(path, "t", held + 100000), ResourceLimitError);
  EXPECT_EQ(ReadTableFile(path, "t", held + 200000)->rows(), 5000u);
}

TEST(TableMemoryTest, ACsvFileAndTheTableBesideItAreChecked) {
  const TempDir dir;
  const std::string path = (dir / "t.csv").string();
  {
    std::ofstream csv(path);
    csv << "id,name\n";
    for (int i = 0; i < 1000; ++i)
      csv << i << ",name" << i << "\n";
  }
  const std::uint64_t file = std::filesystem::file_size(path);
  const std::uint64_t held = HeldHostMemory();
  // The text alone does not fit.
  try {
    ImportCsv(path, "t", std::nullopt, held + file / 2);
    FAIL() << "imported";
  } catch (const ResourceLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("reading " + path + " whole needs"), std::string::npos)
        << error.what();
  }
  // The text fits, the table beside it (1000 rows of 4 + 7 bytes) does not.
  try {
    ImportCsv(path, "t", std::nullopt, held + file + 5000);
    FAIL() << "imported";
  } catch (const ResourceLimitError& error) {
    EXPECT_NE(std::string(error.what()).find("table t (1000 rows of 11 bytes) beside the"),
              std::string::npos)
        << error.what();
  }
  EXPECT_EQ(ImportCsv(path, "t", std::nullopt, held + file + 20000)->rows(), 1000u);
}

}  // namespace
}  // namespace clq
