#include "operators/constant_division.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace clq {
namespace {

TEST(ConstantDivisionTest, MatchesTruncatingDivision) {
  std::mt19937_64 rng(99);
  std::vector<std::int64_t> divisors{2,
                                     3,
                                     5,
                                     7,
                                     10,
                                     100,
                                     1000,
                                     641,
                                     1 << 20,
                                     1000003,
                                     -2,
                                     -3,
                                     -7,
                                     -100,
                                     -1000003,
                                     (1ll << 61) + 17,
                                     -(1ll << 61) - 3};
  for (int i = 0; i < 200; ++i) {
    std::int64_t d = static_cast<std::int64_t>(rng() >> (rng() % 62));
    if (d < 2) d = 2;
    divisors.push_back(d);
    divisors.push_back(-d);
  }
  const std::int64_t edge[] = {0,
                               1,
                               -1,
                               99,
                               100,
                               101,
                               -99,
                               -100,
                               -101,
                               std::numeric_limits<std::int64_t>::max(),
                               std::numeric_limits<std::int64_t>::min(),
                               std::numeric_limits<std::int64_t>::min() + 1};
  for (std::int64_t d : divisors) {
    const auto magic = DivisionMagicFor(d);
    if (!magic) {
      EXPECT_GE(d < 0 ? -d : d, 1ll << 62) << d;
      continue;
    }
    for (std::int64_t n : edge)
      ASSERT_EQ(DivideByMagic(n, *magic), n / d) << n << " / " << d;
    for (int i = 0; i < 2000; ++i) {
      const auto n = static_cast<std::int64_t>(rng()) >> (rng() % 63);
      ASSERT_EQ(DivideByMagic(n, *magic), n / d) << n << " / " << d;
    }
  }
  EXPECT_FALSE(DivisionMagicFor(0));
  EXPECT_FALSE(DivisionMagicFor(1));
  EXPECT_FALSE(DivisionMagicFor(-1));
  EXPECT_FALSE(DivisionMagicFor(std::numeric_limits<std::int64_t>::min()));
}

}  // namespace
}  // namespace clq

namespace clq {
namespace {

TEST(ConstantDivisionTest, NarrowMagicMatchesTruncatingDivision) {
  std::mt19937_64 random(7);
  std::vector<std::int64_t> divisors = {
      2,        3, 5, 7, 10, 100, 641, 1000, 65535, 65536, 65537, (1ll << 30) + 1, (1ll << 31) - 1,
      1ll << 30};
  for (int i = 0; i < 200; ++i)
    divisors.push_back(static_cast<std::int64_t>(random() % ((1ull << 31) - 2)) + 2);
  const std::size_t positive = divisors.size();
  for (std::size_t i = 0; i < positive; ++i)
    divisors.push_back(-divisors[i]);
  std::vector<std::int32_t> dividends = {
      0, 1, -1, 2, -2, 99, 100, 101, -100, INT32_MAX, INT32_MAX - 1, -INT32_MAX, -INT32_MAX + 1};
  for (int i = 0; i < 2000; ++i) {
    auto v = static_cast<std::int32_t>(random());
    if (v == INT32_MIN) v = 0;
    dividends.push_back(v);
  }
  for (const std::int64_t d : divisors) {
    const auto magic = DivisionMagic32For(d);
    ASSERT_TRUE(magic) << d;
    ASSERT_LT(magic->magic, 1ll << 32) << d;
    for (const std::int32_t n : dividends)
      ASSERT_EQ(DivideByMagic32(n, *magic), n / d) << n << " / " << d;
    // Near the multiples of d, where rounding errors would show.
    for (std::int64_t k : {1ll, 2ll, 3ll, 1000ll}) {
      for (std::int64_t delta = -1; delta <= 1; ++delta) {
        const std::int64_t n = k * (d < 0 ? -d : d) + delta;
        if (n > INT32_MAX) continue;
        ASSERT_EQ(DivideByMagic32(static_cast<std::int32_t>(n), *magic), n / d) << n << " / " << d;
        ASSERT_EQ(DivideByMagic32(static_cast<std::int32_t>(-n), *magic), -n / d)
            << -n << " / " << d;
      }
    }
  }
  EXPECT_FALSE(DivisionMagic32For(1));
  EXPECT_FALSE(DivisionMagic32For(0));
  EXPECT_FALSE(DivisionMagic32For(1ll << 31));
}

}  // namespace
}  // namespace clq
