// INTEGER against REAL compared exactly (operators/int_real_compare): the
// order against an 80-bit long double, which holds every int64 and every
// double exactly. The rewrites of comparisons with constants are checked
// against SQLite through tests/sql_files/basics/where.test.
#include "operators/int_real_compare.hpp"

#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <random>
#include <vector>

namespace clq {
namespace {

int Sign(long double a, long double b) {
  return a < b ? -1 : a > b ? 1 : 0;
}
int Sign(int c) {
  return c < 0 ? -1 : c > 0 ? 1 : 0;
}

std::vector<std::int64_t> Integers() {
  std::vector<std::int64_t> values = {0,
                                      1,
                                      -1,
                                      (std::int64_t{1} << 53),
                                      (std::int64_t{1} << 53) + 1,
                                      -(std::int64_t{1} << 53) - 1,
                                      std::numeric_limits<std::int64_t>::max(),
                                      std::numeric_limits<std::int64_t>::max() - 1,
                                      std::numeric_limits<std::int64_t>::min(),
                                      std::numeric_limits<std::int64_t>::min() + 1};
  std::mt19937_64 random(7);
  for (int i = 0; i < 200; ++i) {
    const std::int64_t v = static_cast<std::int64_t>(random());
    values.push_back(v);
    values.push_back(v >> (random() % 64));
  }
  return values;
}

std::vector<double> RealsNear(std::int64_t i) {
  const double d = static_cast<double>(i);
  return {d,
          std::nextafter(d, INFINITY),
          std::nextafter(d, -INFINITY),
          d + 0.5,
          d - 0.5,
          9223372036854775808.0,
          -9223372036854775808.0,
          std::nextafter(-9223372036854775808.0, -INFINITY),
          std::numeric_limits<double>::infinity(),
          -std::numeric_limits<double>::infinity()};
}

TEST(IntRealCompareTest, OrdersLikeExactArithmetic) {
  static_assert(std::numeric_limits<long double>::digits >= 64, "needs x87 long double");
  for (const std::int64_t i : Integers()) {
    for (const double r : RealsNear(i)) {
      EXPECT_EQ(Sign(CompareIntegerWithReal(i, r)),
                Sign(static_cast<long double>(i), static_cast<long double>(r)))
          << i << " vs " << r;
    }
  }
}

TEST(IntRealCompareTest, RangesWithin2To53ConvertExactly) {
  const std::int64_t limit = std::int64_t{1} << 53;
  EXPECT_TRUE(ConvertsToRealExactly(IntRange{-limit, limit}));
  EXPECT_FALSE(ConvertsToRealExactly(IntRange{0, limit + 1}));
  EXPECT_FALSE(ConvertsToRealExactly(IntRange{-limit - 1, 0}));
  EXPECT_FALSE(ConvertsToRealExactly(std::nullopt));
}

}  // namespace
}  // namespace clq
