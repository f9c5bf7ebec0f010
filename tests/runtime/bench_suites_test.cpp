// The bench suites are data: every query must bind against the Wisconsin
// catalog, constants must scale with N, and unknown names must be rejected.
#include "host/bench_suites.hpp"

#include <gtest/gtest.h>

#include <cstdlib>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "wisconsin/dataset.hpp"

namespace clq {
namespace {

TEST(BenchSuitesTest, EveryQueryBinds) {
  Catalog catalog;
  AddWisconsinTables(catalog, 1000);
  const std::vector<BenchQuery> queries = BenchQueries("all", 1000);
  EXPECT_EQ(queries.size(), 33u);
  for (const BenchQuery& q : queries) {
    EXPECT_NO_THROW(sql::Bind(sql::Parse(q.sql), catalog, q.sql)) << q.id << ": " << q.sql;
  }
}

TEST(BenchSuitesTest, WisconsinConstantsScaleWithN) {
  const std::vector<BenchQuery> at_10k = BenchQueries("wisconsin", 10000);
  EXPECT_NE(at_10k[0].sql.find("BETWEEN 0 AND 99"), std::string::npos) << at_10k[0].sql;
  EXPECT_NE(at_10k[1].sql.find("BETWEEN 792 AND 1791"), std::string::npos) << at_10k[1].sql;
  EXPECT_NE(at_10k[2].sql.find("< 1000"), std::string::npos) << at_10k[2].sql;
  const std::vector<BenchQuery> at_1m = BenchQueries("wisconsin", 1000000);
  EXPECT_NE(at_1m[1].sql.find("BETWEEN 79200 AND 179199"), std::string::npos) << at_1m[1].sql;
}

TEST(BenchSuitesTest, ThesisKeepsConstantsAndUsesSmallerTenktup2) {
  for (const BenchQuery& q : BenchQueries("thesis", 1000000)) {
    if (q.id == "L8_selection") {
      EXPECT_NE(q.sql.find("unique1 < 6000"), std::string::npos);
    }
    const bool join = q.id == "L11_join" || q.id == "L13_combined";
    EXPECT_EQ(q.tenktup2_fraction, join ? 0.6 : 1.0) << q.id;
  }
  EXPECT_EQ(Tenktup2Rows(1000, 0.6), 600u);
  EXPECT_EQ(Tenktup2Rows(1, 0.6), 1u);
  EXPECT_EQ(Tenktup2Rows(1000, 1.0), 1000u);
  EXPECT_EQ(DefaultBenchRows("thesis").size(), 4u);
}

TEST(BenchSuitesTest, UnknownSuiteThrows) {
  EXPECT_THROW(BenchQueries("nosuch", 1000), InvalidInputError);
}

// The tpch suite is the files of tests/tpch/queries, embedded at build time.
TEST(BenchSuitesTest, TpchIsTheQueryFiles) {
  const std::vector<BenchQuery> queries = BenchQueries("tpch", 1000);
  ASSERT_EQ(queries.size(), 22u);
  const char* data = std::getenv("CLQ_TEST_DATA");
  for (std::size_t i = 0; i < queries.size(); ++i) {
    const BenchQuery& q = queries[i];
    EXPECT_EQ(q.suite, "tpch");
    EXPECT_EQ(q.id, "Q" + std::to_string(i + 1));
    EXPECT_FALSE(q.title.empty()) << q.id;
    EXPECT_FALSE(q.sql.ends_with(";")) << q.id;
    if (data == nullptr) continue;
    const std::string name = (i < 9 ? "q0" : "q") + std::to_string(i + 1) + ".sql";
    std::ifstream file(std::string(data) + "/tpch/queries/" + name);
    ASSERT_TRUE(file) << name;
    std::stringstream text;
    text << file.rdbuf();
    EXPECT_TRUE(text.str().starts_with(q.sql)) << name;
  }
  EXPECT_EQ(queries[0].title, "pricing summary report");
  // "all" stays the generated suites: tpch needs its tables' directory.
  for (const BenchQuery& q : BenchQueries("all", 1000))
    EXPECT_NE(q.suite, "tpch");
}

}  // namespace
}  // namespace clq
