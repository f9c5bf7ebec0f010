#include "sql/like_pattern.hpp"

#include <gtest/gtest.h>

#include <string>

namespace clq::sql {
namespace {

TEST(LikePatternTest, Matches) {
  EXPECT_TRUE(LikeMatches("", ""));
  EXPECT_TRUE(LikeMatches("", "%"));
  EXPECT_TRUE(LikeMatches("", "%%"));
  EXPECT_FALSE(LikeMatches("", "_"));
  EXPECT_FALSE(LikeMatches("a", ""));
  EXPECT_TRUE(LikeMatches("abc", "abc"));
  EXPECT_FALSE(LikeMatches("abc", "ABC"));  // case-sensitive
  EXPECT_TRUE(LikeMatches("abc", "a%"));
  EXPECT_TRUE(LikeMatches("abc", "%c"));
  EXPECT_TRUE(LikeMatches("abc", "%b%"));
  EXPECT_TRUE(LikeMatches("abc", "_b_"));
  EXPECT_FALSE(LikeMatches("abc", "_b"));
  EXPECT_TRUE(LikeMatches("abc", "a%%c"));
  EXPECT_TRUE(LikeMatches("abcbc", "a%bc"));  // backtracks into the '%'
  EXPECT_TRUE(LikeMatches("special requests", "%special%requests%"));
  EXPECT_FALSE(LikeMatches("requests special", "%special%requests%"));
  EXPECT_TRUE(LikeMatches("aXbXc", "%X%X%"));
  EXPECT_FALSE(LikeMatches("aXbc", "%X%X%"));
  EXPECT_TRUE(LikeMatches("ab", "%_"));
  EXPECT_TRUE(LikeMatches("ab", "_%_"));
  EXPECT_FALSE(LikeMatches("a", "_%_"));
  EXPECT_TRUE(LikeMatches("%_", "%_"));
}

// One backtrack point: a long value against many '%' stays fast.
TEST(LikePatternTest, ManyWildcardsAreNotExponential) {
  const std::string value(20000, 'a');
  EXPECT_FALSE(LikeMatches(value, "%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%b"));
  EXPECT_TRUE(LikeMatches(value, "%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%a%"));
}

TEST(LikePatternTest, Classification) {
  EXPECT_EQ(LikeExactText("abc"), "abc");
  EXPECT_EQ(LikeExactText(""), "");
  EXPECT_FALSE(LikeExactText("a_c"));
  EXPECT_EQ(LikePrefix("PROMO%"), "PROMO");
  EXPECT_EQ(LikePrefix("PROMO%%"), "PROMO");
  EXPECT_EQ(LikePrefix("%"), "");
  EXPECT_FALSE(LikePrefix("PROMO"));
  EXPECT_FALSE(LikePrefix("%BRASS"));
  EXPECT_FALSE(LikePrefix("a_%"));
  EXPECT_FALSE(LikePrefix("a%b"));
  EXPECT_EQ(PrefixUpperBound("abc"), "abd");
  EXPECT_EQ(PrefixUpperBound("ab\xff"), "ac");
  EXPECT_EQ(PrefixUpperBound("a\xff\xff"), "b");
  EXPECT_FALSE(PrefixUpperBound(""));
  EXPECT_FALSE(PrefixUpperBound("\xff\xff"));
  EXPECT_EQ(PrefixUpperBound(std::string("a\x7f", 2)), "a\x80");
}

}  // namespace
}  // namespace clq::sql
