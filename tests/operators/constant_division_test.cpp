#include "operators/constant_division.hpp"

#include <gtest/gtest.h>

#include <limits>
#include <random>

namespace clq {
namespace {

TEST(ConstantDivisionTest, MatchesTruncatingDivision) {
  std::mt19937_64 rng(99);
  std::vector<std::int64_t> divisors{2, 3, 5, 7, 10, 100, 1000, 641, 1 << 20, 1000003,
                                     -2, -3, -7, -100, -1000003, (1ll << 61) + 17, -(1ll << 61) - 3};
  for (int i = 0; i < 200; ++i) {
    std::int64_t d = static_cast<std::int64_t>(rng() >> (rng() % 62));
    if (d < 2) d = 2;
    divisors.push_back(d);
    divisors.push_back(-d);
  }
  const std::int64_t edge[] = {0, 1, -1, 99, 100, 101, -99, -100, -101,
                               std::numeric_limits<std::int64_t>::max(),
                               std::numeric_limits<std::int64_t>::min(),
                               std::numeric_limits<std::int64_t>::min() + 1};
  for (std::int64_t d : divisors) {
    const auto magic = DivisionMagicFor(d);
    if (!magic) {
      EXPECT_GE(d < 0 ? -d : d, 1ll << 62) << d;
      continue;
    }
    for (std::int64_t n : edge) ASSERT_EQ(DivideByMagic(n, *magic), n / d) << n << " / " << d;
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
