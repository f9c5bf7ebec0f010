#include "common/parallel_ranges.hpp"

#include <gtest/gtest.h>

#include <algorithm>
#include <atomic>
#include <mutex>
#include <stdexcept>
#include <utility>
#include <vector>

namespace clq {
namespace {

// The parts of one ParallelRanges call, sorted.
std::vector<std::pair<std::size_t, std::size_t>> PartsOf(std::size_t count, std::size_t min,
                                                         std::size_t align) {
  std::mutex mutex;
  std::vector<std::pair<std::size_t, std::size_t>> parts;
  ParallelRanges(count, min, align, [&](std::size_t begin, std::size_t end) {
    std::lock_guard<std::mutex> lock(mutex);
    parts.emplace_back(begin, end);
  });
  std::sort(parts.begin(), parts.end());
  return parts;
}

TEST(ParallelRangesTest, PartsCoverTheRangeOnceAlignedAndNotTooSmall) {
  for (const std::size_t count : {std::size_t{0}, std::size_t{1}, std::size_t{999},
                                  std::size_t{1000}, std::size_t{4097}, std::size_t{100003}}) {
    for (const std::size_t align : {std::size_t{1}, std::size_t{64}}) {
      const auto parts = PartsOf(count, 1000, align);
      if (count == 0) {
        EXPECT_TRUE(parts.empty());
        continue;
      }
      ASSERT_FALSE(parts.empty());
      std::size_t next = 0;
      for (const auto& [begin, end] : parts) {
        EXPECT_EQ(begin, next) << count;
        EXPECT_LT(begin, end) << count;
        EXPECT_EQ(begin % align, 0u) << count;
        next = end;
      }
      EXPECT_EQ(next, count);
      EXPECT_LE(parts.size(), 8u);
      if (parts.size() > 1) {
        for (std::size_t i = 0; i + 1 < parts.size(); ++i)
          EXPECT_GE(parts[i].second - parts[i].first, 1000u - align) << count;
      }
      if (count < 2000) {
        EXPECT_EQ(parts.size(), 1u) << count;
      }
    }
  }
}

TEST(ParallelRangesTest, EveryElementIsVisitedExactlyOnce) {
  std::vector<std::atomic<int>> visits(1u << 20);
  ParallelRanges(visits.size(), 1u << 12, 16, [&](std::size_t begin, std::size_t end) {
    for (std::size_t i = begin; i < end; ++i)
      visits[i].fetch_add(1);
  });
  EXPECT_TRUE(std::all_of(visits.begin(), visits.end(), [](const auto& v) { return v == 1; }));
}

TEST(ParallelRangesTest, AThrowingPartIsRethrownAfterEveryPartFinished) {
  for (const std::size_t failing : {std::size_t{0}, std::size_t{1} << 19}) {
    std::atomic<std::size_t> visited{0};
    EXPECT_THROW(ParallelRanges(std::size_t{1} << 20, std::size_t{1} << 12, 1,
                                [&](std::size_t begin, std::size_t end) {
                                  visited += end - begin;
                                  if (begin <= failing && failing < end)
                                    throw std::runtime_error("part failed");
                                }),
                 std::runtime_error);
    EXPECT_EQ(visited.load(), std::size_t{1} << 20);  // the other parts still ran
  }
}

}  // namespace
}  // namespace clq
