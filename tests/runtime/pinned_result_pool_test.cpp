// The pool of pinned result blocks: its minimum, rounding to granules, best
// fit, the cap on free blocks, blocks that outlive the pool's owner, and the
// engine options that create it. Blocks are small here (granules of 64 KiB)
// so that every device under test runs this.
#include "runtime/pinned_result_pool.hpp"

#include <gtest/gtest.h>

#include <cstdint>
#include <cstring>
#include <memory>
#include <thread>
#include <vector>

#include "common/errors.hpp"
#include "common/options.hpp"
#include "operators/query_result.hpp"
#include "runtime/engine.hpp"
#include "tests/support/device_fixture.hpp"

namespace clq {
namespace {

using namespace clq::testing;  // NOLINT: test helpers

constexpr std::uint64_t kGranule = std::uint64_t{64} << 10;
constexpr std::uint64_t kMinimum = std::uint64_t{4} << 10;

class PinnedResultPoolTest : public DeviceTest {
 protected:
  std::shared_ptr<PinnedResultPool> Pool(std::uint64_t kept_bytes) {
    return std::make_shared<PinnedResultPool>(engine().context(), engine().device(), kept_bytes,
                                              kMinimum, kGranule);
  }
};

TEST_P(PinnedResultPoolTest, LendsAlignedBlocksOfTheMinimumAndMore) {
  const auto pool = Pool(16 * kGranule);
  EXPECT_EQ(pool->Take(kMinimum - 1), nullptr) << "below the minimum";
  void* block = pool->Take(kMinimum);
  ASSERT_NE(block, nullptr);
  EXPECT_EQ(reinterpret_cast<std::uintptr_t>(block) % 64, 0u);
  EXPECT_TRUE(pool->Lent(block));
  std::memset(block, 0x5a, kGranule);  // rounded up to a granule: all of it is ours
  EXPECT_EQ(pool->stats().lent_bytes, kGranule);
  int other = 0;
  EXPECT_FALSE(pool->Give(&other)) << "not a block of the pool";
  EXPECT_TRUE(pool->Give(block));
  EXPECT_FALSE(pool->Lent(block));
  EXPECT_FALSE(pool->Give(block)) << "given back already";
  const PinnedResultPool::Stats stats = pool->stats();
  EXPECT_EQ(stats.pinned, 1u);
  EXPECT_EQ(stats.lent_blocks, 0u);
  EXPECT_EQ(stats.free_blocks, 1u);
  EXPECT_EQ(stats.free_bytes, kGranule);
}

TEST_P(PinnedResultPoolTest, ReusesTheBestFittingFreeBlock) {
  const auto pool = Pool(16 * kGranule);
  void* one = pool->Take(kGranule);
  void* three = pool->Take(3 * kGranule);
  void* four = pool->Take(4 * kGranule);
  ASSERT_NE(one, nullptr);
  ASSERT_NE(three, nullptr);
  ASSERT_NE(four, nullptr);
  pool->Give(four);
  pool->Give(one);
  pool->Give(three);
  EXPECT_EQ(pool->Take(kGranule / 2), one) << "the smallest block that fits";
  EXPECT_EQ(pool->Take(2 * kGranule + 1), three);
  // The 4-granule block would waste more than half for one granule.
  void* fresh = pool->Take(kGranule);
  EXPECT_NE(fresh, four);
  EXPECT_EQ(pool->Take(4 * kGranule), four);
  const PinnedResultPool::Stats stats = pool->stats();
  EXPECT_EQ(stats.pinned, 4u);
  EXPECT_EQ(stats.reused, 3u);
  EXPECT_EQ(stats.lent_blocks, 4u);
  EXPECT_EQ(stats.free_blocks, 0u);
  for (void* block : {one, three, four, fresh})
    EXPECT_TRUE(pool->Give(block));
}

TEST_P(PinnedResultPoolTest, UnpinsFreeBlocksPastTheCapLeastRecentlyFreedFirst) {
  const auto pool = Pool(2 * kGranule);
  void* a = pool->Take(kGranule);
  void* b = pool->Take(kGranule);
  void* c = pool->Take(kGranule);
  pool->Give(a);
  pool->Give(b);
  pool->Give(c);
  PinnedResultPool::Stats stats = pool->stats();
  EXPECT_EQ(stats.free_blocks, 2u);
  EXPECT_EQ(stats.free_bytes, 2 * kGranule);
  EXPECT_EQ(stats.unpinned, 1u);
  // `a` was unpinned; `b` and `c` are reused.
  void* first = pool->Take(kGranule);
  void* second = pool->Take(kGranule);
  EXPECT_TRUE((first == b && second == c) || (first == c && second == b));
  pool->Give(first);
  pool->Give(second);

  const auto none_kept = Pool(0);
  void* block = none_kept->Take(kGranule);
  none_kept->Give(block);
  stats = none_kept->stats();
  EXPECT_EQ(stats.free_blocks, 0u);
  EXPECT_EQ(stats.unpinned, 1u);
  EXPECT_EQ(none_kept->Take(kGranule) != nullptr, true);
  EXPECT_EQ(none_kept->stats().pinned, 2u) << "nothing was kept to reuse";
}

// A result column holds the pool through its allocator: the column lives on
// after everyone else let go of the pool, and gives its block back last.
TEST_P(PinnedResultPoolTest, ColumnsKeepThePoolAlive) {
  auto pool = Pool(16 * kGranule);
  const std::weak_ptr<PinnedResultPool> watch = pool;
  ResultVector<std::int64_t> values{UninitialisedAllocator<std::int64_t>(pool)};
  values.resize(kGranule / sizeof(std::int64_t));
  EXPECT_TRUE(pool->Lent(values.data()));
  for (std::size_t i = 0; i < values.size(); ++i)
    values[i] = static_cast<std::int64_t>(i) * 3;
  pool.reset();
  EXPECT_FALSE(watch.expired());
  ResultVector<std::int64_t> moved = std::move(values);
  const ResultVector<std::int64_t> copy = moved;  // ordinary memory
  EXPECT_EQ(copy.get_allocator().pool(), nullptr);
  for (std::size_t i = 0; i < moved.size(); ++i)
    ASSERT_EQ(moved[i], static_cast<std::int64_t>(i) * 3) << i;
  EXPECT_EQ(copy, moved);
  EXPECT_EQ(watch.lock()->stats().lent_blocks, 1u);
  moved = ResultVector<std::int64_t>();
  EXPECT_TRUE(watch.expired());
}

TEST_P(PinnedResultPoolTest, TakesAndGivesFromSeveralThreads) {
  const auto pool = Pool(4 * kGranule);
  std::vector<std::thread> threads;
  for (int t = 0; t < 4; ++t) {
    threads.emplace_back([&pool, t] {
      for (int i = 0; i < 20; ++i) {
        auto* block = static_cast<unsigned char*>(pool->Take(kGranule * (1 + (i + t) % 2)));
        if (block == nullptr) continue;
        std::memset(block, t, kGranule);
        pool->Give(block);
      }
    });
  }
  for (std::thread& thread : threads)
    thread.join();
  const PinnedResultPool::Stats stats = pool->stats();
  EXPECT_EQ(stats.lent_blocks, 0u);
  EXPECT_LE(stats.free_bytes, 4 * kGranule);
  EXPECT_EQ(stats.pinned, stats.unpinned + stats.free_blocks);
}

// pinned_results: auto on devices that stage transfers (not CPUs), or forced;
// pinned_results_kept caps the free blocks.
TEST_P(PinnedResultPoolTest, EnginesHaveAPoolWhereTheOptionsSay) {
  const DeviceHandle& device = TestDevice(GetParam());
  EngineOptions options = TestEngineOptions();
  options.pinned_results = Choice::kAuto;
  EXPECT_EQ(Engine(device, options).result_pool() != nullptr,
            engine().info().kind != DeviceKind::kCpu);
  options.pinned_results = Choice::kOff;
  EXPECT_EQ(Engine(device, options).result_pool(), nullptr);
  options.pinned_results = Choice::kOn;
  options.pinned_results_kept = std::uint64_t{3} << 20;
  const Engine forced(device, options);
  ASSERT_NE(forced.result_pool(), nullptr);
  EXPECT_EQ(forced.result_pool()->kept_bytes(), std::uint64_t{3} << 20);
  EXPECT_EQ(forced.result_pool()->minimum_bytes(), PinnedResultPool::kMinimumBytes);
  EXPECT_EQ(forced.result_pool()->context()(), forced.context()());
}

TEST(PinnedResultOptionsTest, ParsesTheChoiceAndTheCap) {
  Options options;
  options.Set("pinned_results=on");
  EXPECT_EQ(options.engine.pinned_results, Choice::kOn);
  options.Set("pinned_results_kept=512M");
  EXPECT_EQ(options.engine.pinned_results_kept, std::uint64_t{512} << 20);
  options.Set("pinned_results_kept=0");
  EXPECT_EQ(options.engine.pinned_results_kept, std::uint64_t{0});
  options.Set("pinned_results_kept=auto");
  EXPECT_FALSE(options.engine.pinned_results_kept.has_value());
  EXPECT_THROW(options.Set("pinned_results_kept=lots"), InvalidInputError);
  EXPECT_THROW(options.Set("pinned_results=maybe"), InvalidInputError);
}

CLQ_INSTANTIATE_DEVICE_TESTS(PinnedResultPoolTest);

}  // namespace
}  // namespace clq
