// ColumnData::ValuesUnique: true only where no two values are equal, over
// negative ranges and at the INT64 extremes; false without a scan where the
// range is too wide for its bitmap. ColumnData::DistinctValues: the count of
// distinct values under the same bitmap, none where the range is too wide.
#include <gtest/gtest.h>

#include <cstdint>
#include <limits>
#include <optional>
#include <vector>

#include "storage/table.hpp"

namespace clq {
namespace {

template <typename T>
bool Unique(const std::vector<T>& values) {
  ColumnData data(sizeof(T) == 4 ? ColumnType::Int32() : ColumnType::Int64(), values.size());
  T* out = reinterpret_cast<T*>(data.data());
  for (std::size_t i = 0; i < values.size(); ++i)
    out[i] = values[i];
  const bool first = data.ValuesUnique();
  EXPECT_EQ(data.ValuesUnique(), first) << "a second call answers differently";
  return first;
}

TEST(ValuesUnique, TellsRepeatedValuesWhereverTheySit) {
  std::vector<std::int32_t> permutation(5000);
  for (std::int32_t i = 0; i < 5000; ++i)
    permutation[i] = (i * 7919) % 5000 - 2500;  // negative values too
  EXPECT_TRUE(Unique(permutation));
  for (const std::size_t at : {std::size_t{0}, std::size_t{2499}, std::size_t{4999}}) {
    std::vector<std::int32_t> repeated = permutation;
    repeated[at] = permutation[(at + 1234) % 5000];
    EXPECT_FALSE(Unique(repeated)) << at;
  }
  EXPECT_TRUE(Unique(std::vector<std::int32_t>{std::numeric_limits<std::int32_t>::min(),
                                               std::numeric_limits<std::int32_t>::min() + 3}));
  EXPECT_TRUE(Unique(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max() - 1,
                                               std::numeric_limits<std::int64_t>::max()}));
  EXPECT_FALSE(Unique(std::vector<std::int64_t>{7, 7}));
  // Sparse: 3 values over a range of 2^40; unique, but not worth a bitmap.
  EXPECT_FALSE(Unique(std::vector<std::int64_t>{0, std::int64_t{1} << 40, 5}));
  EXPECT_FALSE(Unique(std::vector<std::int32_t>{}));
}

template <typename T>
std::optional<RowCount> Distinct(const std::vector<T>& values) {
  ColumnData data(sizeof(T) == 4 ? ColumnType::Int32() : ColumnType::Int64(), values.size());
  T* out = reinterpret_cast<T*>(data.data());
  for (std::size_t i = 0; i < values.size(); ++i)
    out[i] = values[i];
  const std::optional<RowCount> first = data.DistinctValues();
  EXPECT_EQ(data.DistinctValues(), first) << "a second call answers differently";
  return first;
}

TEST(DistinctValues, CountsEachValueOnce) {
  // TPC-H's order keys: 4 lineitems per key, keys spread over 4x their count.
  std::vector<std::int32_t> keys;
  for (std::int32_t k = 0; k < 3000; ++k)
    for (int copy = 0; copy < 4; ++copy)
      keys.push_back(k * 4 - 5000);
  EXPECT_EQ(Distinct(keys), RowCount{3000});
  EXPECT_EQ(Distinct(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::max(), 3,
                                               std::numeric_limits<std::int64_t>::max()}),
            std::nullopt)
      << "a range past 8 values a row";
  EXPECT_EQ(Distinct(std::vector<std::int64_t>{std::numeric_limits<std::int64_t>::min(),
                                               std::numeric_limits<std::int64_t>::min() + 1,
                                               std::numeric_limits<std::int64_t>::min()}),
            RowCount{2});
  EXPECT_EQ(Distinct(std::vector<std::int32_t>{9, 9, 9, 9}), RowCount{1});
  EXPECT_EQ(Distinct(std::vector<std::int32_t>{}), RowCount{0});
}

}  // namespace
}  // namespace clq
