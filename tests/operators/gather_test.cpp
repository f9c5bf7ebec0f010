#include "operators/gather.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <cstring>
#include <random>
#include <vector>

#include "operators/relation.hpp"
#include "tests/support/device_fixture.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

class GatherTest : public DeviceTest {};

// Random ids into [0, rows), repeats included.
std::vector<std::uint32_t> RandomIds(std::size_t n, RowCount rows, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<std::uint32_t> ids(n);
  for (auto& id : ids)
    id = static_cast<std::uint32_t>(rng() % rows);
  return ids;
}

std::vector<char> DownloadBytes(Engine& e, const DeviceVector& v) {
  std::vector<char> bytes(v.byte_size());
  if (!bytes.empty()) e.Download(v.values.get(), 0, bytes.size(), bytes.data(), "test download");
  return bytes;
}

// Every column of a Wisconsin table (13 INT32, 3 CHAR(52)) gathered at once
// and one by one, across tablets, against the host rows. 13 INT32 columns
// need two launches of the 8-column kernel; a repeated column and a column
// list out of schema order check that results land in the list's order.
TEST_P(GatherTest, ColumnsTogetherMatchHostRowsAcrossTablets) {
  Engine& e = engine();
  const ScopedTabletRows small(e, 1000);
  const TablePtr t = GenerateWisconsinTable("gathered", 5'003);
  TableRelation relation(e, t);
  ASSERT_GT(relation.tablets().size(), 4u);
  const RowCount tile = e.tuning().tile_size();
  std::vector<std::size_t> columns;
  for (std::size_t c = t->columns().size(); c-- > 0;)
    columns.push_back(c);
  columns.push_back(3);
  for (std::size_t n : {std::size_t{0}, std::size_t{1}, static_cast<std::size_t>(tile - 1),
                        static_cast<std::size_t>(tile + 1), std::size_t{12'345}}) {
    const std::vector<std::uint32_t> ids = RandomIds(n, t->rows(), n + 1);
    const RowIds device_ids = UploadRowIds(e, ids);
    std::vector<DeviceVector> together = GatherColumns(e, relation, columns, device_ids);
    ASSERT_EQ(together.size(), columns.size());
    for (std::size_t j = 0; j < columns.size(); ++j) {
      const Column& column = t->column(columns[j]);
      const std::size_t width = column.type().width;
      EXPECT_EQ(together[j].type.width, width);
      EXPECT_EQ(together[j].size, n);
      const auto got = DownloadBytes(e, together[j]);
      const auto alone = DownloadBytes(e, GatherColumn(e, relation, columns[j], device_ids));
      ASSERT_EQ(got.size(), n * width);
      EXPECT_EQ(got, alone) << "column " << columns[j] << " ids " << n;
      const char* host = reinterpret_cast<const char*>(column.bytes());
      for (std::size_t i = 0; i < n; ++i)
        ASSERT_EQ(std::memcmp(got.data() + i * width, host + ids[i] * width, width), 0)
            << "column " << columns[j] << " row " << i << " of " << n;
    }
  }
}

// Columns with NULL maps (a vector relation) keep their NULLs.
TEST_P(GatherTest, NullMapsFollowTheirRows) {
  Engine& e = engine();
  VectorRelation relation;
  const RowCount rows = 3 * e.tuning().tile_size() + 5;
  std::vector<std::vector<std::int32_t>> values(10);
  std::vector<std::vector<std::uint8_t>> nulls(10);
  for (std::size_t c = 0; c < values.size(); ++c) {
    for (RowCount r = 0; r < rows; ++r) {
      values[c].push_back(static_cast<std::int32_t>(r * 31 + c));
      nulls[c].push_back(static_cast<std::uint8_t>((r + c) % 3 == 0));
    }
    DeviceVector v = UploadValues(e, ColumnType::Int32(), values[c]);
    if (c % 2 == 0) {
      v.nulls = e.pool().Acquire(rows, "test NULL map");
      e.Upload(v.nulls.get(), 0, rows, nulls[c].data(), "test NULL map");
    }
    relation.Add("c" + std::to_string(c), std::move(v));
  }
  const std::vector<std::uint32_t> ids = RandomIds(2 * rows, rows, 9);
  std::vector<std::size_t> columns(values.size());
  for (std::size_t c = 0; c < columns.size(); ++c)
    columns[c] = c;
  std::vector<DeviceVector> got = GatherColumns(e, relation, columns, UploadRowIds(e, ids));
  for (std::size_t c = 0; c < columns.size(); ++c) {
    const auto v = DownloadValues<std::int32_t>(e, got[c]);
    ASSERT_EQ(got[c].has_nulls(), c % 2 == 0);
    std::vector<std::uint8_t> z(ids.size());
    if (got[c].has_nulls()) e.Download(got[c].nulls.get(), 0, z.size(), z.data(), "test NULL map");
    for (std::size_t i = 0; i < ids.size(); ++i) {
      ASSERT_EQ(v[i], values[c][ids[i]]) << "column " << c << " row " << i;
      if (c % 2 == 0) {
        ASSERT_EQ(z[i], nulls[c][ids[i]]) << "column " << c << " row " << i;
      }
    }
  }
}

CLQ_INSTANTIATE_DEVICE_TESTS(GatherTest);

}  // namespace
}  // namespace clq
