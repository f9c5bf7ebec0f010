#include "common/host_memory.hpp"

#include <gtest/gtest.h>

#include <string>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "common/options.hpp"
#include "host/available_memory.hpp"

namespace clq {
namespace {

// The message of the ResourceLimitError `check` throws, or "" when none.
template <typename F>
std::string RefusalOf(F&& check) {
  try {
    check();
  } catch (const ResourceLimitError& error) {
    return error.what();
  }
  return "";
}

TEST(HostMemoryTest, PassesWhatFitsWithWhatIsHeld) {
  const std::uint64_t held = HeldHostMemory();
  EXPECT_NO_THROW(CheckHostMemory(held + 1000, "a step", 1000));
  EXPECT_NO_THROW(CheckHostMemory(kUnlimitedHostMemory, "a step", 1ull << 50));
  EXPECT_THROW(CheckHostMemory(held + 1000, "a step", 1001), ResourceLimitError);
}

TEST(HostMemoryTest, RefusalNamesWhatHowMuchTheBudgetAndTheOption) {
  const std::uint64_t held = HeldHostMemory();
  const std::string message = RefusalOf([&] {
    CheckHostMemory(held + (64ull << 20), "the join's result (1000000000 matched rows)",
                    8000000000ull);
  });
  EXPECT_NE(message.find("the join's result (1000000000 matched rows) needs 7.45 GiB of host "
                         "memory"),
            std::string::npos)
      << message;
  EXPECT_NE(message.find(FormatBytes(held + (64ull << 20)) + " budget"), std::string::npos)
      << message;
  EXPECT_NE(message.find("--option host_memory=SIZE"), std::string::npos) << message;
}

TEST(HostMemoryTest, HeldMemoryCountsAgainstTheBudget) {
  const std::uint64_t held = HeldHostMemory();
  AddHeldHostMemory(1 << 20);
  const std::string message =
      RefusalOf([&] { CheckHostMemory(held + (1 << 20) + 100, "a step", 200); });
  ReleaseHeldHostMemory(1 << 20);
  EXPECT_NE(message.find("more than the 100 B left of the"), std::string::npos) << message;
  EXPECT_NE(message.find("tables hold " + FormatBytes(held + (1 << 20))), std::string::npos)
      << message;
  EXPECT_EQ(HeldHostMemory(), held);
}

// A size past 64 bits is refused whatever the budget: it cannot be
// allocated, and wrapping it would pass a check it must fail.
TEST(HostMemoryTest, SaturatedSizesAreAlwaysRefused) {
  EXPECT_THROW(CheckHostMemory(kUnlimitedHostMemory, "a step", kSaturatedBytes),
               ResourceLimitError);
  EXPECT_NE(RefusalOf([] {
              CheckHostMemory(kUnlimitedHostMemory, "a step", kSaturatedBytes);
            }).find("more than 16 EiB"),
            std::string::npos);
}

TEST(HostMemoryTest, TheOptionTakesSizesAndUnlimited) {
  Options options;
  EXPECT_EQ(options.query.host_memory, kUnlimitedHostMemory);
  options.Set("host_memory=64M");
  EXPECT_EQ(options.query.host_memory, 64ull << 20);
  options.Set("host_memory", "8G");
  EXPECT_EQ(options.query.host_memory, 8ull << 30);
  options.Set("host_memory=unlimited");
  EXPECT_EQ(options.query.host_memory, kUnlimitedHostMemory);
  for (const char* bad : {"host_memory=0", "host_memory=12Q", "host_memory=", "host_memory=-1"})
    EXPECT_THROW(options.Set(bad), InvalidInputError) << bad;
  try {
    options.Set("host_memory=lots");
  } catch (const InvalidInputError& error) {
    EXPECT_NE(std::string(error.what()).find("a size such as 512M"), std::string::npos)
        << error.what();
  }
}

// The edge's default: some memory, and no more than the machine has.
TEST(HostMemoryTest, AvailableMemoryIsSomeOfThePhysicalMemory) {
  const std::uint64_t available = AvailableHostMemory();
  EXPECT_GT(available, 0u);
  EXPECT_LT(available, kUnlimitedHostMemory);
}

}  // namespace
}  // namespace clq
