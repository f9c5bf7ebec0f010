// SUBSTRING: its semantics (against DuckDB's answers), its syntax and
// errors, and the binder's rewrite of its comparisons into LIKE and byte
// ranges, checked by evaluating both forms on many strings.
#include "sql/substring.hpp"

#include <gtest/gtest.h>

#include <optional>
#include <sstream>
#include <string>
#include <vector>

#include "operators/scalar_eval.hpp"
#include "sql/expr_equality.hpp"
#include "tests/sql_frontend/bind_helpers.hpp"

namespace clq::sql {
namespace {

// SUBSTRING('hello', start, length) as DuckDB 2.0.1 answers it (SQLite's
// substr agrees on every one), for start -7..7 (rows) and length none, then
// -7..7 (columns); '-' is the empty string.
constexpr const char* kHello =
    "-7: hello - - - - - - - - - - h he hel hell hello\n"
    "-6: hello - - - - - - - - - h he hel hell hello hello\n"
    "-5: hello - - - - - - - - h he hel hell hello hello hello\n"
    "-4: ello h h h h h h h - e el ell ello ello ello ello\n"
    "-3: llo he he he he he he e - l ll llo llo llo llo llo\n"
    "-2: lo hel hel hel hel hel el l - l lo lo lo lo lo lo\n"
    "-1: o hell hell hell hell ell ll l - o o o o o o o\n"
    " 0: hello - - - - - - - - - h he hel hell hello hello\n"
    " 1: hello - - - - - - - - h he hel hell hello hello hello\n"
    " 2: ello h h h h h h h - e el ell ello ello ello ello\n"
    " 3: llo he he he he he he e - l ll llo llo llo llo llo\n"
    " 4: lo hel hel hel hel hel el l - l lo lo lo lo lo lo\n"
    " 5: o hell hell hell hell ell ll l - o o o o o o o\n"
    " 6: - hello hello hello ello llo lo o - - - - - - - -\n"
    " 7: - hello hello ello llo lo o - - - - - - - - -\n";

TEST(SubstringTest, AgreesWithDuckDb) {
  std::istringstream table(kHello);
  std::string line;
  int rows = 0;
  while (std::getline(table, line)) {
    std::istringstream words(line);
    std::string start_text;
    words >> start_text;
    const std::int64_t start = std::stoll(start_text);
    for (int column = 0; column < 16; ++column) {
      std::string expected;
      ASSERT_TRUE(words >> expected) << line;
      if (expected == "-") expected.clear();
      std::optional<std::int64_t> length;
      if (column > 0) length = column - 8;
      EXPECT_EQ(Substring("hello", start, length), expected)
          << "start " << start << " length " << (length ? std::to_string(*length) : "none");
    }
    ++rows;
  }
  EXPECT_EQ(rows, 15);
}

// DuckDB's answers at the ends of the range: without a length it counts
// kSubstringMax bytes, which from the lowest start stops short of the end.
TEST(SubstringTest, Limits) {
  EXPECT_EQ(Substring("hello", kSubstringMax, kSubstringMax), "");
  EXPECT_EQ(Substring("hello", kSubstringMin, kSubstringMax), "hell");
  EXPECT_EQ(Substring("hello", kSubstringMin, std::nullopt), "hell");
  EXPECT_EQ(Substring("hello", 1, kSubstringMax), "hello");
  EXPECT_EQ(Substring("hello", 3, kSubstringMin), "he");
  EXPECT_EQ(Substring("hello", kSubstringMin, kSubstringMin), "");
  EXPECT_EQ(Substring("hello", kSubstringMax, kSubstringMin), "hello");
  EXPECT_EQ(Substring("", 0, std::nullopt), "");
}

// Where FixedSubstringWindow gives a window, it is SUBSTRING on every string.
TEST(SubstringTest, FixedWindowIsSubstring) {
  const std::string text = "abcdefgh";
  for (std::int64_t start = -3; start <= 10; ++start) {
    for (std::int64_t l = -11; l <= 11; ++l) {
      const std::optional<std::int64_t> length =
          l == 11 ? std::nullopt : std::optional<std::int64_t>(l);
      const auto window = FixedSubstringWindow(start, length);
      EXPECT_EQ(window.has_value(), start >= 0);
      if (!window) continue;
      for (std::size_t size = 0; size <= text.size(); ++size) {
        const std::string value = text.substr(0, size);
        std::string expected;
        if (window->begin < size)
          expected = value.substr(window->begin, window->length.value_or(value.size()));
        EXPECT_EQ(Substring(value, start, length), expected)
            << "start " << start << " length " << l << " of '" << value << "'";
      }
    }
  }
}

std::unique_ptr<testing::CountingCatalog> Catalog() {
  auto catalog = std::make_unique<testing::CountingCatalog>();
  catalog->Add("t", {{"s", ColumnType::Char(12), true}, {"n", ColumnType::Int32()}});
  return catalog;
}

// The WHERE of `SELECT s FROM t WHERE <condition>`, bound.
Expr BoundWhere(const std::string& condition) {
  auto catalog = Catalog();
  return *testing::BindSql(*catalog, "SELECT s FROM t WHERE " + condition).select.where;
}

// 1 true, 0 false, -1 NULL of `e` with s = `value` (none: NULL).
int Truth(const Expr& e, const std::optional<std::string>& value) {
  const Value v =
      EvaluateScalar(e, [&](const Expr&) { return value ? Value::Text(*value) : Value::Null(); });
  if (v.is_null()) return -1;
  return IsTrue(v) ? 1 : 0;
}

std::string Quoted(const std::string& text) {
  return "'" + text + "'";
}

// Every comparison of SUBSTRING(s, start, length) with a literal, bound
// (and rewritten into LIKE and ranges where it can be), gives on every
// string what SUBSTRING itself gives; those with a start >= 0 and no
// wildcard past the first byte, or a negative start, a length >= 0 (or
// none) and no wildcard, hold no SUBSTRING any more.
TEST(SubstringTest, ComparisonsBoundAsPatternsAgree) {
  const std::vector<std::string> values = {"",    "a",  "ab",          "abc",      "abcd", "hello",
                                           "a%b", "%_", "_",           "xyz%_q",   "ell",  "el",
                                           "b",   "bc", "hello world", "abcabcab", "lo",   "llo"};
  const std::vector<std::string> literals = {"",    "a",   "b",  "ab", "bc",  "abc",   "el",
                                             "ell", "o",   "%",  "_",  "%b",  "a%",    "_q",
                                             "%_",  "llo", "lo", "ld", "bca", "abcab", "hello"};
  std::vector<std::optional<std::string>> rows(values.begin(), values.end());
  rows.push_back(std::nullopt);
  int lowered = 0;
  for (std::int64_t start = -8; start <= 8; ++start) {
    for (std::int64_t l = -2; l <= 8; ++l) {
      const std::optional<std::int64_t> length =
          l == 8 ? std::nullopt : std::optional<std::int64_t>(l);
      const std::string call = "SUBSTRING(s, " + std::to_string(start) +
                               (length ? ", " + std::to_string(*length) : std::string()) + ")";
      const auto expect = [&](const std::optional<std::string>& value,
                              const std::vector<std::string>& items, bool negated) {
        if (!value) return -1;
        const std::string cut(Substring(*value, start, length));
        bool found = false;
        for (const std::string& item : items)
          found = found || cut == item;
        return found != negated ? 1 : 0;
      };
      for (const std::string& literal : literals) {
        for (const bool negated : {false, true}) {
          const std::string condition = call + (negated ? " <> " : " = ") + Quoted(literal);
          const Expr where = BoundWhere(condition);
          const bool wildcard = literal.find_first_of("%_") != std::string::npos;
          const bool pattern =
              start >= 0 ? !(wildcard && start > 1) : !wildcard && (!length || *length >= 0);
          if (pattern) {
            EXPECT_FALSE(ContainsKind(where, Expr::Kind::kSubstring)) << condition;
            ++lowered;
          }
          for (const auto& value : rows)
            EXPECT_EQ(Truth(where, value), expect(value, {literal}, negated))
                << condition << " on " << (value ? Quoted(*value) : "NULL") << ": "
                << where.ToString();
        }
      }
      for (const bool negated : {false, true}) {
        const std::vector<std::string> items = {"ab", "", "hello", "el", "%"};
        const std::string condition =
            call + (negated ? " NOT IN " : " IN ") + "('ab', '', 'hello', 'el', '%')";
        const Expr where = BoundWhere(condition);
        if (start >= 0 && start <= 1) {
          EXPECT_FALSE(ContainsKind(where, Expr::Kind::kSubstring)) << condition;
        }
        for (const auto& value : rows)
          EXPECT_EQ(Truth(where, value), expect(value, items, negated))
              << condition << " on " << (value ? Quoted(*value) : "NULL") << ": "
              << where.ToString();
        // A NULL item: true where an item matches, else NULL (NOT IN: false, else NULL).
        const Expr with_null = BoundWhere(call + (negated ? " NOT IN " : " IN ") + "('ab', NULL)");
        for (const auto& value : rows) {
          const int matched = expect(value, {"ab"}, false);
          const int want = matched == -1 ? -1 : matched == 1 ? (negated ? 0 : 1) : -1;
          EXPECT_EQ(Truth(with_null, value), want) << call << " IN ('ab', NULL)";
        }
      }
    }
  }
  EXPECT_GT(lowered, 3000);
}

TEST(SubstringTest, BindsAndFolds) {
  auto catalog = Catalog();
  const auto output = [&](const std::string& item) {
    return testing::BindSql(*catalog, "SELECT " + item + " FROM t").select.outputs.at(0).expr;
  };
  EXPECT_EQ(output("SUBSTRING(s FROM 2 FOR 3)").ToString(), "SUBSTRING(#0.0, 2, 3)");
  EXPECT_EQ(output("SUBSTRING(s FROM 2)").ToString(), "SUBSTRING(#0.0, 2)");
  EXPECT_EQ(output("substr(s, 1 + 1, 2 * 3)").ToString(), "SUBSTRING(#0.0, 2, 6)");
  EXPECT_EQ(output("SUBSTRING(s, -2)").ToString(), "SUBSTRING(#0.0, -2)");
  EXPECT_EQ(output("SUBSTRING(s, -2)").type, ValueType::kText);
  EXPECT_EQ(output("SUBSTRING('hello' FROM 2 FOR 3)").constant.text, "ell");
  EXPECT_EQ(output("SUBSTRING(NULL, 1)").type, ValueType::kNull);
  EXPECT_EQ(output("SUBSTRING(s, NULL, 2)").type, ValueType::kNull);
  EXPECT_EQ(output("SUBSTRING(s, 1, NULL)").type, ValueType::kNull);
  // NULL exactly where s is: IS NULL and COUNT read s.
  EXPECT_EQ(BoundWhere("SUBSTRING(s, 2, 1) IS NULL").ToString(), "(#0.0 IS NULL)");
  // A comparison with NULL is NULL, whatever the rewrite.
  EXPECT_EQ(Truth(BoundWhere("SUBSTRING(s, 2, 1) = NULL"), "abc"), -1);
  // A literal longer than the length never matches, but is NULL where s is.
  const Expr longer = BoundWhere("SUBSTRING(s, 1, 2) = 'abc'");
  EXPECT_EQ(Truth(longer, "abc"), 0);
  EXPECT_EQ(Truth(longer, std::nullopt), -1);
  // Beyond the longest stored string a pattern is not made: the host
  // compares (and devices refuse).
  const Expr far = BoundWhere("SUBSTRING(s, 4294967295, 1) = 'a'");
  EXPECT_TRUE(ContainsKind(far, Expr::Kind::kSubstring));
  EXPECT_EQ(Truth(far, "abc"), 0);
  const Expr far_end = BoundWhere("SUBSTRING(s, -4294967296, 2) = 'a'");
  EXPECT_TRUE(ContainsKind(far_end, Expr::Kind::kSubstring));
  EXPECT_EQ(Truth(far_end, "abc"), 0);
  EXPECT_FALSE(ContainsKind(BoundWhere("SUBSTRING(s, 4096, 1) = 'a'"), Expr::Kind::kSubstring));
}

TEST(SubstringTest, Errors) {
  auto catalog = Catalog();
  const auto error = [&](const std::string& item) {
    return testing::BindError(*catalog, "SELECT " + item + " FROM t").second;
  };
  EXPECT_EQ(error("SUBSTRING(n, 1)"), "SUBSTRING needs TEXT, not INTEGER");
  EXPECT_EQ(error("SUBSTRING(s, n)"), "SUBSTRING's start must be an integer constant");
  EXPECT_EQ(error("SUBSTRING(s, 1, n)"), "SUBSTRING's length must be an integer constant");
  EXPECT_EQ(error("SUBSTRING(s, 1.5)"), "SUBSTRING's start must be an integer constant");
  EXPECT_EQ(error("SUBSTRING(s, '1')"), "SUBSTRING's start must be an integer constant");
  EXPECT_EQ(error("SUBSTRING(s, 4294967296)"),
            "SUBSTRING's start 4294967296 is out of range (from -4294967296 to 4294967295)");
  EXPECT_EQ(error("SUBSTRING(s, 1, -4294967297)"),
            "SUBSTRING's length -4294967297 is out of range (from -4294967296 to 4294967295)");
  EXPECT_EQ(error("SUBSTRING(s)"),
            "SUBSTRING takes a string and a start: SUBSTRING(x, start[, length])");
  EXPECT_EQ(error("SUBSTR(s)"), "SUBSTR takes a string and a start: SUBSTR(x, start[, length])");
  EXPECT_EQ(error("SUBSTRING()"), "SUBSTRING takes a string and a start");
  EXPECT_EQ(error("SUBSTRING(s, 1, 2, 3)"), "SUBSTRING takes at most three arguments");
  EXPECT_EQ(error("SUBSTRING(s FOR 2)"),
            "SUBSTRING(x FOR n) needs a start: SUBSTRING(x FROM 1 FOR n)");
  EXPECT_NE(error("SUBSTR(s FROM 2)").find("syntax error"), std::string::npos);
  EXPECT_NE(error("SUBSTRING(s FROM 2, 3)").find("syntax error"), std::string::npos);
  EXPECT_EQ(error("SUBSTRING(s, 1) + 1"), "cannot apply '+' to TEXT and INTEGER");
}

}  // namespace
}  // namespace clq::sql
