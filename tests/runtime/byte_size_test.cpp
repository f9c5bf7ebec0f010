#include "common/byte_size.hpp"

#include <gtest/gtest.h>

namespace clq {
namespace {

TEST(ByteSizeTest, ParsesBinaryMultiples) {
  EXPECT_EQ(ParseByteSize("0"), 0u);
  EXPECT_EQ(ParseByteSize("1048576"), 1048576u);
  EXPECT_EQ(ParseByteSize("512B"), 512u);
  EXPECT_EQ(ParseByteSize("64K"), 64u << 10);
  EXPECT_EQ(ParseByteSize("64kib"), 64u << 10);
  EXPECT_EQ(ParseByteSize("512M"), 512ull << 20);
  EXPECT_EQ(ParseByteSize("8G"), 8ull << 30);
  EXPECT_EQ(ParseByteSize("8GB"), 8ull << 30);
  EXPECT_EQ(ParseByteSize("2T"), 2ull << 40);
}

TEST(ByteSizeTest, RefusesWhatIsNoSize) {
  for (const char* text : {"", "M", "12Q", "1.5G", "-1G", " 1G", "1G ", "99999999999999999999"})
    EXPECT_FALSE(ParseByteSize(text).has_value()) << text;
  // Past 64 bits once multiplied: refused, not wrapped to a small budget.
  EXPECT_FALSE(ParseByteSize("16777216T").has_value());
  EXPECT_EQ(ParseByteSize("16777215T"), 16777215ull << 40);
}

TEST(ByteSizeTest, SaturatesInsteadOfWrapping) {
  EXPECT_EQ(SaturatingMultiply(2147483647, 208), 446676598576u);
  EXPECT_EQ(SaturatingMultiply(1ull << 32, 1ull << 32), kSaturatedBytes);
  EXPECT_EQ(SaturatingMultiply(0, kSaturatedBytes), 0u);
  EXPECT_EQ(SaturatingAdd(kSaturatedBytes - 1, 1), kSaturatedBytes);
  EXPECT_EQ(SaturatingAdd(kSaturatedBytes, 1), kSaturatedBytes);
  EXPECT_EQ(SaturatingAdd(40, 2), 42u);
}

TEST(ByteSizeTest, FormatsForPeople) {
  EXPECT_EQ(FormatBytes(0), "0 B");
  EXPECT_EQ(FormatBytes(1023), "1023 B");
  EXPECT_EQ(FormatBytes(64ull << 20), "64.00 MiB");
  EXPECT_EQ(FormatBytes(8000000000ull), "7.45 GiB");
  EXPECT_EQ(FormatBytes(446676598576ull), "416.00 GiB");
  EXPECT_EQ(FormatBytes(kSaturatedBytes), "more than 16 EiB");
}

}  // namespace
}  // namespace clq
