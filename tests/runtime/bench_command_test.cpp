// `clq bench` run the way a user runs it: a small thesis run whose JSON must
// parse and whose supported queries must agree with the CPU reference, and
// argument errors with their exit codes and messages.
#include <gtest/gtest.h>

#include <cctype>
#include <string>

#include "tests/support/run_clq.hpp"

namespace clq {
namespace {

using testing::RunClq;

// A strict JSON syntax check (RFC 8259 grammar, no semantic limits), enough
// to prove the report is one well-formed value.
class JsonChecker {
 public:
  explicit JsonChecker(const std::string& text) : text_(text) {}
  bool Valid() {
    SkipSpace();
    if (!Value()) return false;
    SkipSpace();
    return pos_ == text_.size();
  }

 private:
  void SkipSpace() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_])))
      ++pos_;
  }
  bool Eat(char c) {
    SkipSpace();
    if (pos_ < text_.size() && text_[pos_] == c) {
      ++pos_;
      return true;
    }
    return false;
  }
  bool Literal(const std::string& word) {
    if (text_.compare(pos_, word.size(), word) != 0) return false;
    pos_ += word.size();
    return true;
  }
  bool String() {
    if (!Eat('"')) return false;
    while (pos_ < text_.size() && text_[pos_] != '"') {
      if (static_cast<unsigned char>(text_[pos_]) < 0x20) return false;
      pos_ += text_[pos_] == '\\' ? 2 : 1;
    }
    return Eat('"');
  }
  bool Number() {
    const std::size_t start = pos_;
    if (pos_ < text_.size() && text_[pos_] == '-') ++pos_;
    while (pos_ < text_.size() &&
           (std::isdigit(static_cast<unsigned char>(text_[pos_])) || text_[pos_] == '.' ||
            text_[pos_] == 'e' || text_[pos_] == 'E' || text_[pos_] == '+' || text_[pos_] == '-'))
      ++pos_;
    return pos_ > start;
  }
  bool Value() {
    SkipSpace();
    if (pos_ >= text_.size()) return false;
    const char c = text_[pos_];
    if (c == '{') {
      ++pos_;
      if (Eat('}')) return true;
      do {
        if (!String() || !Eat(':') || !Value()) return false;
      } while (Eat(','));
      return Eat('}');
    }
    if (c == '[') {
      ++pos_;
      if (Eat(']')) return true;
      do {
        if (!Value()) return false;
      } while (Eat(','));
      return Eat(']');
    }
    if (c == '"') return String();
    if (c == 't') return Literal("true");
    if (c == 'f') return Literal("false");
    if (c == 'n') return Literal("null");
    return Number();
  }
  const std::string& text_;
  std::size_t pos_ = 0;
};

std::size_t Count(const std::string& text, const std::string& needle) {
  std::size_t n = 0;
  for (std::size_t at = text.find(needle); at != std::string::npos; at = text.find(needle, at + 1))
    ++n;
  return n;
}

TEST(BenchCommandTest, ThesisJsonIsValidAndAgrees) {
  auto result = RunClq("bench --devices 0 --rows 1000 --suite thesis --repeat 1 --format json");
  ASSERT_EQ(result.exit_code, 0) << result.output;
  EXPECT_TRUE(JsonChecker(result.output).Valid()) << result.output;
  // Seven thesis queries on one device: each either agrees or is unsupported.
  EXPECT_EQ(Count(result.output, "\"query\":"), 7u) << result.output;
  const std::size_t agree = Count(result.output, "\"agrees\":true");
  const std::size_t unsupported = Count(result.output, "\"status\":\"unsupported\"");
  EXPECT_GE(agree, 5u) << result.output;  // projection, AVG, selection, two MAX
  EXPECT_EQ(agree + unsupported, 7u) << result.output;
  EXPECT_EQ(Count(result.output, "\"agrees\":false"), 0u) << result.output;
  EXPECT_EQ(Count(result.output, "\"status\":\"error\""), 0u) << result.output;
  EXPECT_NE(result.output.find("\"d2d_kernel_gbps\""), std::string::npos);
  EXPECT_NE(result.output.find("\"driver_version\""), std::string::npos);
  // tenktup2 has 0.6 N rows in the thesis joins.
  EXPECT_NE(result.output.find("\"tenktup2\":600"), std::string::npos) << result.output;
}

TEST(BenchCommandTest, TableAndCsvFormats) {
  auto table = RunClq("bench --devices 0 --rows 1K --suite wisconsin --repeat 1 --peers none");
  ASSERT_EQ(table.exit_code, 0) << table.output;
  EXPECT_NE(table.output.find("hot ms median [min-max]"), std::string::npos) << table.output;
  EXPECT_NE(table.output.find("sel1pct"), std::string::npos) << table.output;
  EXPECT_EQ(table.output.find(" NO "), std::string::npos) << table.output;
  auto csv = RunClq("bench --devices 0 --rows 1000 --repeat 1 --format csv --peers cpu");
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_EQ(csv.output.rfind("suite,query,rows,device", 0), 0u) << csv.output;
  EXPECT_EQ(Count(csv.output, "\n"), 8u) << csv.output;  // header + 7 queries
}

TEST(BenchCommandTest, QueriesSelectsQueriesOfTheSuites) {
  auto two = RunClq(
      "bench --devices 0 --rows 1K --repeat 1 --format csv --peers none "
      "--queries L14_max,L7_avg");
  ASSERT_EQ(two.exit_code, 0) << two.output;
  EXPECT_EQ(Count(two.output, "\n"), 3u) << two.output;  // header + 2 queries
  EXPECT_NE(two.output.find(",L7_avg,"), std::string::npos) << two.output;
  EXPECT_NE(two.output.find(",L14_max,"), std::string::npos) << two.output;
  // With --suite all, ids of either suite.
  auto both = RunClq(
      "bench --devices 0 --rows 1K --repeat 1 --format csv --peers none --suite all "
      "--queries sel1pct,L7_avg");
  ASSERT_EQ(both.exit_code, 0) << both.output;
  EXPECT_EQ(Count(both.output, "\n"), 3u) << both.output;
  auto unknown = RunClq("bench --rows 1K --queries L7_avg,L99");
  EXPECT_EQ(unknown.exit_code, 1);
  EXPECT_NE(unknown.output.find("no query 'L99' in the thesis suite"), std::string::npos)
      << unknown.output;
  EXPECT_NE(unknown.output.find("L14_max_real"), std::string::npos) << unknown.output;
}

TEST(BenchCommandTest, BadArgumentsFailClearly) {
  auto suite = RunClq("bench --suite nosuch");
  EXPECT_EQ(suite.exit_code, 1);
  EXPECT_NE(suite.output.find("unknown suite 'nosuch'"), std::string::npos) << suite.output;
  auto rows = RunClq("bench --rows 1000,12Q");
  EXPECT_EQ(rows.exit_code, 1);
  EXPECT_NE(rows.output.find("--rows: '12Q'"), std::string::npos) << rows.output;
  auto zero = RunClq("bench --rows 0");
  EXPECT_EQ(zero.exit_code, 1);
  EXPECT_NE(zero.output.find("at least 1 row"), std::string::npos) << zero.output;
  auto device = RunClq("bench --devices nosuch --rows 1000");
  EXPECT_EQ(device.exit_code, 1);
  EXPECT_NE(device.output.find("'nosuch' matches no device"), std::string::npos) << device.output;
  auto peers = RunClq("bench --peers cpu,oracle");
  EXPECT_EQ(peers.exit_code, 1);
  EXPECT_NE(peers.output.find("unknown peer 'oracle'"), std::string::npos) << peers.output;
  auto repeat = RunClq("bench --repeat 0");
  EXPECT_EQ(repeat.exit_code, 2) << repeat.output;
  auto format = RunClq("bench --format xml");
  EXPECT_EQ(format.exit_code, 2) << format.output;
}

// The tpch suite's arguments; its runs are tested where its data is made
// (tests/python/test_tpch.py).
TEST(BenchCommandTest, TpchArgumentsFailClearly) {
  auto no_dir = RunClq("bench --suite tpch");
  EXPECT_EQ(no_dir.exit_code, 1);
  EXPECT_NE(no_dir.output.find("--suite tpch needs --tpch-dir DIR"), std::string::npos)
      << no_dir.output;
  auto missing = RunClq("bench --suite tpch --tpch-dir /nonexistent/tpch");
  EXPECT_EQ(missing.exit_code, 1);
  EXPECT_NE(missing.output.find("--tpch-dir /nonexistent/tpch: no region.clq"), std::string::npos)
      << missing.output;
  auto rows = RunClq("bench --suite tpch --tpch-dir /tmp --rows 1000");
  EXPECT_EQ(rows.exit_code, 1);
  EXPECT_NE(rows.output.find("the tpch suite's size is its tables'"), std::string::npos)
      << rows.output;
  auto sf = RunClq("bench --suite general --sf 1");
  EXPECT_EQ(sf.exit_code, 1);
  EXPECT_NE(sf.output.find("--sf and --tpch-dir are for --suite tpch"), std::string::npos)
      << sf.output;
  auto query = RunClq("bench --suite tpch --tpch-dir /tmp --queries Q23");
  EXPECT_EQ(query.exit_code, 1);
  EXPECT_NE(query.output.find("no query 'Q23' in the tpch suite"), std::string::npos)
      << query.output;
}

}  // namespace
}  // namespace clq
