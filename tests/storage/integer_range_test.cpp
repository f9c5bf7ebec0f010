// ColumnData::IntegerRange scans in parts on several threads: the range must
// be the whole column's wherever its extremes sit, against a plain
// std::minmax_element over the same values.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdint>
#include <limits>
#include <random>

#include "storage/table.hpp"

namespace clq {
namespace {

template <typename T>
void ExpectWholeRange(RowCount rows, RowCount min_at, RowCount max_at, std::uint32_t seed) {
  ColumnData data(sizeof(T) == 4 ? ColumnType::Int32() : ColumnType::Int64(), rows);
  T* values = reinterpret_cast<T*>(data.data());
  std::mt19937_64 rng(seed);
  std::uniform_int_distribution<T> middle(-1000000, 1000000);
  for (RowCount i = 0; i < rows; ++i)
    values[i] = middle(rng);
  if (rows > 0) {
    values[min_at] = std::numeric_limits<T>::min() + 1;
    values[max_at] = std::numeric_limits<T>::max() - 1;
  }
  const std::optional<IntRange> range = data.IntegerRange();
  ASSERT_TRUE(range.has_value());
  if (rows == 0) return;
  const auto [lo, hi] = std::minmax_element(values, values + rows);
  EXPECT_EQ(range->min, static_cast<std::int64_t>(*lo)) << rows << " rows";
  EXPECT_EQ(range->max, static_cast<std::int64_t>(*hi)) << rows << " rows";
}

TEST(IntegerRange, CoversEveryPartOfTheColumn) {
  // 4M rows a part at least: 9M rows make two or more parts, and the
  // extremes go to the first row, the last row and rows inside later parts.
  const RowCount big = 9'000'003;
  ExpectWholeRange<std::int32_t>(big, big - 1, 0, 1);
  ExpectWholeRange<std::int32_t>(big, 0, big - 1, 2);
  ExpectWholeRange<std::int32_t>(big, 4'500'001, 8'999'000, 3);
  ExpectWholeRange<std::int64_t>(big, 8'000'000, 4'194'304, 4);
  ExpectWholeRange<std::int32_t>(1, 0, 0, 5);
  ExpectWholeRange<std::int32_t>(0, 0, 0, 6);
}

}  // namespace
}  // namespace clq
