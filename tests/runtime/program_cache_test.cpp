#include "runtime/program_cache.hpp"
#include "host/environment_options.hpp"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "runtime/engine.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/temp_dir.hpp"

namespace clq {
namespace {

TEST(ProgramCacheTest, MissThenHit) {
  testing::TempDir dir;
  ProgramCache cache(dir.path());
  EXPECT_FALSE(cache.Load("key-a").has_value());
  cache.Store("key-a", {1, 2, 3, 4});
  auto loaded = cache.Load("key-a");
  ASSERT_TRUE(loaded.has_value());
  EXPECT_EQ(*loaded, (std::vector<unsigned char>{1, 2, 3, 4}));
  EXPECT_FALSE(cache.Load("key-b").has_value());
}

TEST(ProgramCacheTest, CorruptTruncatedAndForeignEntriesMiss) {
  testing::TempDir dir;
  ProgramCache cache(dir.path());
  const std::vector<unsigned char> binary(1000, 7);
  cache.Store("key", binary);
  const auto path = cache.PathFor("key");

  // Flip one payload byte.
  {
    std::fstream file(path, std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-10, std::ios::end);
    file.put(8);
  }
  EXPECT_FALSE(cache.Load("key").has_value());

  // Truncate.
  cache.Store("key", binary);
  std::filesystem::resize_file(path, std::filesystem::file_size(path) - 1);
  EXPECT_FALSE(cache.Load("key").has_value());

  // Garbage.
  { std::ofstream(path, std::ios::binary | std::ios::trunc) << "not a cache file"; }
  EXPECT_FALSE(cache.Load("key").has_value());

  // An entry written for another key at the same path (a hash collision).
  cache.Store("other", binary);
  std::filesystem::rename(cache.PathFor("other"), path);
  EXPECT_FALSE(cache.Load("key").has_value());
}

TEST(ProgramCacheTest, DisabledCacheNeverHits) {
  ProgramCache cache{std::filesystem::path()};
  EXPECT_FALSE(cache.enabled());
  cache.Store("key", {1});
  EXPECT_FALSE(cache.Load("key").has_value());
}

TEST(ProgramCacheTest, UnwritableDirectoryIsSilent) {
  ProgramCache cache("/proc/clq-cannot-exist");
  cache.Store("key", {1});
  EXPECT_FALSE(cache.Load("key").has_value());
}

class EngineCacheTest : public testing::DeviceTest {};

TEST_P(EngineCacheTest, SecondEngineLoadsFromCacheAndCorruptEntryIsRebuilt) {
  testing::TempDir dir;
  const DeviceHandle handle = DiscoverDevices().at(GetParam());
  EngineOptions options = OptionsFromEnvironment().engine;
  options.cache_directory = dir.path();

  Engine first(handle, options);
  EXPECT_FALSE(first.build_report().from_cache);
  if (first.build_report().driver_caches_kernels) {
    // PoCL: clq stores nothing (exporting the binary would compile every
    // kernel); a second engine builds from source through PoCL's cache.
    EXPECT_TRUE(first.build_report().cache_file.empty());
    EXPECT_TRUE(std::filesystem::is_empty(dir.path()));
    Engine second(handle, options);
    EXPECT_FALSE(second.build_report().from_cache);
    (void)second.kernel("bandwidth_copy");
    return;
  }
  ASSERT_TRUE(std::filesystem::exists(first.build_report().cache_file));

  Engine second(handle, options);
  EXPECT_TRUE(second.build_report().from_cache);

  // Corrupt the entry: the next engine rebuilds from source and works.
  {
    std::fstream file(second.build_report().cache_file,
                      std::ios::in | std::ios::out | std::ios::binary);
    file.seekp(-1, std::ios::end);
    file.put('\x55');
    file.seekp(-2, std::ios::end);
    file.put('\x2a');
  }
  Engine third(handle, options);
  EXPECT_FALSE(third.build_report().from_cache);
  (void)third.kernel("bandwidth_copy");

  options.use_program_cache = false;
  Engine uncached(handle, options);
  EXPECT_FALSE(uncached.build_report().from_cache);
  EXPECT_TRUE(uncached.build_report().cache_file.empty());
}

CLQ_INSTANTIATE_DEVICE_TESTS(EngineCacheTest);

}  // namespace
}  // namespace clq
