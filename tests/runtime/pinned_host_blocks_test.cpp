// Pinned host blocks for table columns: the allocator's minimum and budget,
// columns built under it, and uploads from them (one transfer from memory
// pinned by the engine's own context, the staged copy from memory another
// context pinned), checked value by value on every device under test.
#include "runtime/pinned_host_blocks.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstdlib>
#include <optional>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "runtime/device_table.hpp"
#include "runtime/engine.hpp"
#include "storage/table.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class PinnedHostBlocksTest : public DeviceTest {};

TEST_P(PinnedHostBlocksTest, KeepsToTheMinimumAndTheBudget) {
  Engine& e = engine();
  constexpr std::uint64_t kBlock = 8192;
  const HostBlockAllocator allocate = PinnedHostBlocks(e.context(), e.queue(), 4096, 3 * kBlock);
  EXPECT_FALSE(allocate(ColumnType::Int32(), 4095).has_value()) << "below the minimum";
  std::vector<HostBlock> held;
  for (int i = 0; i < 3; ++i) {
    std::optional<HostBlock> block = allocate(ColumnType::Int32(), kBlock);
    ASSERT_TRUE(block.has_value()) << "block " << i << " is within the budget";
    EXPECT_EQ(block->pinned_for, static_cast<const void*>(e.context()()));
    EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block->data) % kHostBlockAlignment, 0u);
    for (std::uint64_t b = 0; b < kBlock; ++b)
      block->data[b] = static_cast<std::byte>((b + i) & 0xff);
    held.push_back(std::move(*block));
  }
  EXPECT_FALSE(allocate(ColumnType::Int32(), kBlock).has_value()) << "past the budget";
  EXPECT_FALSE(allocate(ColumnType::Int32(), 1).has_value());
  // The blocks are distinct memory: each kept its own bytes.
  for (int i = 0; i < 3; ++i)
    for (std::uint64_t b = 0; b < kBlock; ++b)
      ASSERT_EQ(held[i].data[b], static_cast<std::byte>((b + i) & 0xff)) << i << ", " << b;
  held.pop_back();  // its last holder lets go: the budget has room again
  EXPECT_TRUE(allocate(ColumnType::Int32(), kBlock).has_value());
}

// A table of 100,001 rows (INT32, INT64, DOUBLE, CHAR(5)) whose columns
// come from `allocate`, uploaded through a copying cache and read back.
void ExpectUploadsRoundTrip(Engine& e, const HostBlockAllocator& allocate,
                            const void* expected_pinned_for) {
  constexpr RowCount kRows = 100'001;
  const Schema schema{{"i", ColumnType::Int32()},
                      {"l", ColumnType::Int64()},
                      {"d", ColumnType::Double()},
                      {"s", ColumnType::Char(5)}};
  TablePtr table;
  {
    const ScopedHostBlockAllocator installed(allocate);
    TableBuilder builder("pinned", schema, kRows);
    auto* i = builder.column_values<std::int32_t>(0);
    auto* l = builder.column_values<std::int64_t>(1);
    auto* d = builder.column_values<double>(2);
    for (RowCount r = 0; r < kRows; ++r) {
      i[r] = static_cast<std::int32_t>(r * 2654435761u);
      l[r] = static_cast<std::int64_t>(r) * -3'000'000'007LL;
      d[r] = static_cast<double>(r) / 7.0;
      builder.SetString(3, r, std::to_string(r % 100'000));
    }
    table = builder.Finish();
  }
  for (const Column& c : table->columns())
    EXPECT_EQ(c.shared_data()->pinned_for(), expected_pinned_for) << c.name();
  DeviceTableCache cache(e, std::uint64_t{1} << 30, TableResidency::kCopy);
  for (std::size_t c = 0; c < schema.size(); ++c) {
    const Column& column = table->column(c);
    std::vector<std::byte> back(column.byte_size());
    e.Download(cache.Column(table, c, 0), 0, back.size(), back.data(), "test download");
    ASSERT_EQ(0, std::memcmp(back.data(), column.bytes(), back.size())) << column.name();
  }
  // Installed only for its scope: later columns use the heap again.
  TableBuilder after("after", schema, 1);
  EXPECT_EQ(after.Finish()->column(0).shared_data()->pinned_for(), nullptr);
}

TEST_P(PinnedHostBlocksTest, ColumnsPinnedByTheEngineUploadWhole) {
  Engine& e = engine();
  ExpectUploadsRoundTrip(e, PinnedHostBlocks(e.context(), e.queue(), 0, std::uint64_t{1} << 30),
                         e.context()());
}

// Memory another context pinned is ordinary memory to this engine, which
// must not take the one-transfer path for it (it stages instead).
TEST_P(PinnedHostBlocksTest, ColumnsPinnedByAnotherContextStillUpload) {
  Engine& e = engine();
  const cl::Context other(e.device());
  const cl::CommandQueue other_queue(other, e.device());
  ExpectUploadsRoundTrip(e, PinnedHostBlocks(other, other_queue, 0, std::uint64_t{1} << 30),
                         other());
}

TEST_P(PinnedHostBlocksTest, OverTheBudgetColumnsUseTheHeap) {
  Engine& e = engine();
  ExpectUploadsRoundTrip(e, PinnedHostBlocks(e.context(), e.queue(), 0, 1000), nullptr);
}

TEST_P(PinnedHostBlocksTest, TablesArePinnedWhereTheEngineCopiesThem) {
  Engine& e = engine();
  const bool copies = DefaultTableResidency(e) == TableResidency::kCopy;
  EXPECT_EQ(static_cast<bool>(PinnedTableMemoryFor(e, Choice::kAuto)), copies);
  EXPECT_FALSE(static_cast<bool>(PinnedTableMemoryFor(e, Choice::kOff)));
  EXPECT_TRUE(static_cast<bool>(PinnedTableMemoryFor(e, Choice::kOn)));
}

// Numeric columns of at least the minimum are pinned; CHAR columns and small
// ones are not (forced on, so that CPU devices run this too).
TEST_P(PinnedHostBlocksTest, TablesPinNumericColumnsOfTheMinimumSize) {
  Engine& e = engine();
  const HostBlockAllocator allocate = PinnedTableMemoryFor(e, Choice::kOn);
  ASSERT_TRUE(static_cast<bool>(allocate));
  for (const ColumnType type : {ColumnType::Int32(), ColumnType::Int64(), ColumnType::Double()}) {
    const std::optional<HostBlock> block = allocate(type, kPinnedTableMinimumBytes);
    ASSERT_TRUE(block.has_value()) << type.ToString();
    EXPECT_EQ(block->pinned_for, static_cast<const void*>(e.context()()));
    EXPECT_FALSE(allocate(type, kPinnedTableMinimumBytes - kHostBlockAlignment).has_value())
        << type.ToString() << " below the minimum";
  }
  EXPECT_FALSE(allocate(ColumnType::Char(52), 4 * kPinnedTableMinimumBytes).has_value());
}

CLQ_INSTANTIATE_DEVICE_TESTS(PinnedHostBlocksTest);

}  // namespace
}  // namespace clq
