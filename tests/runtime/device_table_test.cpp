#include "runtime/device_table.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <cstdlib>
#include <vector>

#include "runtime/engine.hpp"
#include "storage/table.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class DeviceTableTest : public DeviceTest {};

std::vector<std::int32_t> Download(Engine& e, const cl::Buffer& buffer, RowCount rows) {
  std::vector<std::int32_t> values(rows);
  e.Download(buffer, 0, rows * sizeof(std::int32_t), values.data(), "test download");
  return values;
}

// A kernel binds several columns of one table before it is launched; when
// fetching a later one evicts an earlier one, the earlier buffer must keep
// its values for whoever holds it (the pool used to hand the evicted buffer
// straight to the upload that evicted it: a silent wrong result).
TEST_P(DeviceTableTest, EvictedColumnKeepsItsValuesForItsHolder) {
  Engine& e = engine();
  constexpr RowCount kRows = 100'000;
  Schema schema{{"x", ColumnType::Int32()}, {"y", ColumnType::Int32()}};
  TableBuilder builder("two_columns", schema, kRows);
  auto* x = builder.column_values<std::int32_t>(0);
  auto* y = builder.column_values<std::int32_t>(1);
  for (RowCount i = 0; i < kRows; ++i) {
    x[i] = static_cast<std::int32_t>(i);
    y[i] = -static_cast<std::int32_t>(i) - 1;
  }
  const TablePtr table = builder.Finish();
  // Room for one column only (its buffer's size class, not more).
  const std::uint64_t column_bytes = e.pool().Acquire(kRows * 4, "size probe").capacity();
  DeviceTableCache cache(e, column_bytes, TableResidency::kCopy);
  const cl::Buffer held_x = cache.Column(table, 0, 0);
  const cl::Buffer held_y = cache.Column(table, 1, 0);  // evicts x
  EXPECT_EQ(cache.resident_bytes(), column_bytes);
  const std::vector<std::int32_t> got_x = Download(e, held_x, kRows);
  const std::vector<std::int32_t> got_y = Download(e, held_y, kRows);
  for (RowCount i = 0; i < kRows; ++i) {
    ASSERT_EQ(got_x[i], x[i]) << "row " << i;
    ASSERT_EQ(got_y[i], y[i]) << "row " << i;
  }
  // x comes back on demand, evicting y, and y's holder still reads y.
  const cl::Buffer again_x = cache.Column(table, 0, 0);
  EXPECT_EQ(Download(e, again_x, kRows), got_x);
  EXPECT_EQ(Download(e, held_y, kRows), got_y);
}

// Host views (the default on CPU devices): the buffers read the host column
// itself, at every tablet's offset; they cost no budget (a budget of 1 byte
// evicts nothing); a held view, fetched again from the cache, still reads its
// values after the cache, the table and every other owner of the host data
// are gone.
TEST_P(DeviceTableTest, HostViewsReadTheHostColumnsAndKeepThemAlive) {
  Engine& e = engine();
  constexpr RowCount kRows = 10'000;
  std::vector<std::int32_t> want(kRows);
  cl::Buffer held;
  {
    Schema schema{{"x", ColumnType::Int32()}, {"y", ColumnType::Int64()}};
    TableBuilder builder("views", schema, kRows);
    auto* x = builder.column_values<std::int32_t>(0);
    auto* y = builder.column_values<std::int64_t>(1);
    for (RowCount i = 0; i < kRows; ++i) {
      x[i] = static_cast<std::int32_t>(i * 7 - 3);
      y[i] = static_cast<std::int64_t>(i) << 33;
      want[i] = x[i];
    }
    TablePtr table = builder.Finish();
    DeviceTableCache cache(e, 1, TableResidency::kHostView);
    const std::vector<Tablet> tablets = cache.Tablets(*table);
    for (std::size_t t = 0; t < tablets.size(); ++t) {
      const std::vector<std::int32_t> got = Download(e, cache.Column(table, 0, t), tablets[t].rows);
      for (RowCount i = 0; i < tablets[t].rows; ++i)
        ASSERT_EQ(got[i], want[tablets[t].begin + i]) << "tablet " << t << ", row " << i;
      std::vector<std::int64_t> wide(tablets[t].rows);
      e.Download(cache.Column(table, 1, t), 0, wide.size() * sizeof(std::int64_t), wide.data(),
                 "test download");
      for (RowCount i = 0; i < tablets[t].rows; ++i)
        ASSERT_EQ(wide[i], static_cast<std::int64_t>(tablets[t].begin + i) << 33)
            << "tablet " << t << ", row " << i;
    }
    EXPECT_EQ(cache.resident_bytes(), 0u);
    held = cache.Column(table, 0, 0);  // a hit: the entry's view
    cache.Clear();
    table.reset();
  }
  const std::vector<std::int32_t> got = Download(e, held, std::min<RowCount>(kRows, 1000));
  for (RowCount i = 0; i < got.size(); ++i)
    ASSERT_EQ(got[i], want[i]) << "row " << i;
}

// A table of many tablets streams: each tablet's upload goes on the
// transfer queue and the kernels' queue waits for it, while the budget holds
// about two tablets of each column, so every fetch evicts a buffer whose
// copy may still be queued. Every tablet must arrive whole, into the right
// place, even when the table (and its host memory, but for what the
// transfers hold) is gone before the device has read it.
TEST_P(DeviceTableTest, StreamedTabletsArriveWhileOlderOnesAreEvicted) {
  Engine& e = engine();
  constexpr RowCount kRows = 1'000'003, kTabletRows = 10'016;
  std::vector<std::int32_t> want_x(kRows);
  std::vector<std::int64_t> want_y(kRows);
  DeviceBuffer got_x = e.pool().Acquire(kRows * 4, "test x");
  DeviceBuffer got_y = e.pool().Acquire(kRows * 8, "test y");
  {
    Schema schema{{"x", ColumnType::Int32()}, {"y", ColumnType::Int64()}};
    TableBuilder builder("streamed", schema, kRows);
    auto* x = builder.column_values<std::int32_t>(0);
    auto* y = builder.column_values<std::int64_t>(1);
    for (RowCount i = 0; i < kRows; ++i) {
      want_x[i] = x[i] = static_cast<std::int32_t>(i * 2654435761u);
      want_y[i] = y[i] = (static_cast<std::int64_t>(i) << 31) - 5;
    }
    TablePtr table = builder.Finish();
    const std::uint64_t budget =
        2 * (BufferPool::SizeClass(kTabletRows * 4) + BufferPool::SizeClass(kTabletRows * 8));
    DeviceTableCache cache(e, budget, TableResidency::kCopy, kTabletRows);
    const std::vector<Tablet> tablets = cache.Tablets(*table);
    ASSERT_EQ(tablets.size(), 100u);
    for (std::size_t t = 0; t < tablets.size(); ++t) {
      e.Copy(cache.Column(table, 0, t), 0, got_x.get(), tablets[t].begin * 4, tablets[t].rows * 4,
             "test copy");
      e.Copy(cache.Column(table, 1, t), 0, got_y.get(), tablets[t].begin * 8, tablets[t].rows * 8,
             "test copy");
      EXPECT_LE(cache.resident_bytes(), budget);
    }
    table.reset();
  }
  std::vector<std::int32_t> x(kRows);
  std::vector<std::int64_t> y(kRows);
  e.Download(got_x.get(), 0, kRows * 4, x.data(), "test download");
  e.Download(got_y.get(), 0, kRows * 8, y.data(), "test download");
  for (RowCount i = 0; i < kRows; ++i) {
    ASSERT_EQ(x[i], want_x[i]) << "row " << i;
    ASSERT_EQ(y[i], want_y[i]) << "row " << i;
  }
}

TEST_P(DeviceTableTest, CpuDevicesViewTheirTablesGpusCopy) {
  Engine& e = engine();
  if (e.info().kind != DeviceKind::kCpu) {
    EXPECT_EQ(e.tables().residency(), TableResidency::kCopy);
  } else {
    EXPECT_EQ(e.tables().residency(), TableResidency::kHostView);
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(DeviceTableTest);

}  // namespace
}  // namespace clq
