// SUBSTRING on devices, against SQLite: comparisons the binder turns into
// LIKE and byte ranges, and outputs cut on the host, on Wisconsin tables of
// several tiles (a tail tile part full) whose CHAR(52) values fill their
// width, with the output gathered on the device and on the host; and what
// devices cannot run, refused by SUBSTRING's name (a join on SUBSTRINGs
// is refused before, as a join on TEXT).
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "common/errors.hpp"
#include "plan/query_executor.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "storage/catalog.hpp"
#include "storage/table.hpp"
#include "tests/cpu_reference/sqlite_oracle.hpp"
#include "tests/support/device_fixture.hpp"
#include "wisconsin/dataset.hpp"

namespace clq::sql_test {
namespace {

constexpr RowCount kRows = 5000;  // tiles of 1024 rows, the last part full

class SubstringDeviceTest : public testing::DeviceTest {};

// SQL both clq and SQLite read (SQLite's substr has clq's semantics).
const std::vector<std::string> kQueries = {
    "SELECT unique1, SUBSTRING(stringu1, 1, 7), SUBSTR(stringu2, 50), SUBSTRING(string4, 4, 2) "
    "FROM tenktup1 WHERE unique2 < 3000",
    "SELECT unique1, SUBSTRING(stringu1, -3, 2), SUBSTRING(stringu2, 5, -3), "
    "SUBSTRING(SUBSTRING(stringu1, 3), 2, 3), SUBSTRING(stringu1, 53) FROM tenktup1 WHERE "
    "unique1 % 7 = 3",
    "SELECT SUBSTRING(stringu1, 2, 6) FROM tenktup1",
    "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, 5, 1) = 'B'",
    "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, 6, 2) IN ('AB', 'BA', 'HC', 'ZZZ')",
    "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, 1, 6) NOT IN ('AAAAAB', 'AAAAHC') "
    "AND unique2 < 400",
    "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, 1, 5) = 'AAAAH'",
    "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, 1, 5) <> 'AAAAH' AND unique2 < 2000",
    "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, 6) = 'BCxxxxxxxxxxxxxxxxxxxxxxxxxxx"
    "xxxxxxxxxxxxxxxxxx'",
    "SELECT COUNT(*) FROM tenktup1 WHERE SUBSTRING(stringu1, 50, 3) = 'xxx'",
    "SELECT COUNT(*) FROM tenktup1 WHERE SUBSTRING(stringu1, 51) = 'xx'",
    "SELECT COUNT(*) FROM tenktup1 WHERE SUBSTRING(stringu1, 52, 5) = 'x'",
    "SELECT COUNT(*) FROM tenktup1 WHERE SUBSTRING(stringu1, 53) = ''",
    "SELECT COUNT(*) FROM tenktup1 WHERE SUBSTRING(stringu1, -2) = 'xx'",
    "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, -52, 6) IN ('AAAABA', 'AAAAHC')",
    "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, -55, 8) = 'AAAAB'",
    "SELECT COUNT(*) FROM tenktup1 WHERE SUBSTRING(stringu1, -60, 8) = ''",
    "SELECT COUNT(*) FROM tenktup1 WHERE SUBSTRING(stringu1, 53, 2) <> ''",
    "SELECT COUNT(*), SUM(unique1) FROM tenktup1 WHERE SUBSTRING(string4, 1, 1) IN ('A', 'V') AND "
    "SUBSTRING(stringu2, 0, 4) <> 'AAA'",
    "SELECT string4, COUNT(*) FROM tenktup1 WHERE SUBSTRING(stringu1, 7, 1) <> 'A' GROUP BY "
    "string4",
    "SELECT SUBSTRING(string4, 1, 1), COUNT(*) FROM tenktup1 GROUP BY string4",
    "SELECT k, COUNT(*), SUM(u) FROM (SELECT SUBSTRING(stringu1, 6, 1) AS k, unique1 AS u FROM "
    "tenktup1 WHERE SUBSTRING(stringu1, 5, 2) IN ('AA', 'AB', 'BA')) AS d GROUP BY k",
};

TEST_P(SubstringDeviceTest, AgreesWithSqlite) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  cpu_reference_test::SqliteOracle oracle;
  oracle.Load(*catalog.Get(kTenktup1));
  for (const Choice gather : {Choice::kOff, Choice::kOn}) {
    QueryOptions options;
    options.host_gather = gather;
    QueryExecutor executor(engine(), options);
    for (const std::string& sql : kQueries) {
      SCOPED_TRACE(sql);
      const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
      std::vector<sql::ValueType> types;
      for (std::size_t c = 0; c < bound.select.visible_outputs; ++c)
        types.push_back(bound.select.outputs[c].expr.type);
      const cpu_reference_test::OracleAnswer expected = oracle.Query(sql, types);
      ASSERT_EQ(expected.error, "");
      QueryResult actual;
      ASSERT_NO_THROW(actual = executor.Execute(bound.select));
      EXPECT_EQ(CompareResults(expected.result, actual, {.ignore_row_order = true}), "");
      EXPECT_GT(expected.result.rows, 0u);
    }
  }
}

// The standard form, and SQL whose every comparison is a pattern.
TEST_P(SubstringDeviceTest, FromForForm) {
  Catalog catalog;
  AddWisconsinTables(catalog, kRows);
  QueryExecutor executor(engine());
  const auto run = [&](const std::string& sql) {
    return executor.Execute(sql::Bind(sql::Parse(sql), catalog, sql).select);
  };
  EXPECT_EQ(CompareResults(run("SELECT unique1, SUBSTR(stringu1, 3, 4) FROM tenktup1 WHERE "
                               "SUBSTR(stringu1, 5, 2) IN ('AB', 'BA')"),
                           run("SELECT unique1, SUBSTRING(stringu1 FROM 3 FOR 4) FROM tenktup1 "
                               "WHERE SUBSTRING(stringu1 FROM 5 FOR 2) IN ('AB', 'BA')"),
                           {.ignore_row_order = true}),
            "");
}

TEST_P(SubstringDeviceTest, RefusedByName) {
  Catalog catalog;
  AddWisconsinTables(catalog, 100);
  QueryExecutor executor(engine());
  for (const std::string sql : {
           "SELECT SUBSTRING(stringu1, 1, 2) AS k, COUNT(*) FROM tenktup1 GROUP BY k",
           "SELECT unique1 FROM tenktup1 ORDER BY SUBSTRING(stringu1, 2, 3) LIMIT 3",
           "SELECT DISTINCT SUBSTRING(string4, 1, 1) FROM tenktup1",
           "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, -2, -1) = 'x'",
           "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, 2, 2) = '_A'",
           "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, 1, 2) < 'AB'",
           "SELECT unique1 FROM tenktup1 WHERE SUBSTRING(stringu1, 1, 2) = SUBSTRING(stringu2, 1, "
           "2)",
           "SELECT CASE WHEN unique1 < 5 THEN SUBSTRING(stringu1, 1, 2) ELSE 'x' END FROM tenktup1",
       }) {
    SCOPED_TRACE(sql);
    try {
      (void)executor.Execute(sql::Bind(sql::Parse(sql), catalog, sql).select);
      ADD_FAILURE() << "ran on the device";
    } catch (const DeviceLimitError& e) {
      EXPECT_NE(std::string(e.what()).find("SUBSTRING"), std::string::npos) << e.what();
    } catch (const std::exception& e) {
      ADD_FAILURE() << "not refused by SUBSTRING's name: " << e.what();
    }
  }
}

// Strings of 0 to 12 bytes over "abc" in CHAR(12), some NULL, 3000 rows
// (two full tiles and a part): every start from -14 to 14 with no length
// and lengths -3 to 13, as an output (gathered on the device, and whole on
// the host) and compared with literals, against SQLite.
TEST_P(SubstringDeviceTest, EveryWindowAgreesWithSqlite) {
  constexpr RowCount kShortRows = 3000;
  TableBuilder builder("r", {{"id", ColumnType::Int32()}, {"s", ColumnType::Char(12), true}},
                       kShortRows);
  std::uint64_t state = 0x2545F4914F6CDD1D;
  const auto next = [&state](std::uint64_t bound) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return state % bound;
  };
  for (RowCount r = 0; r < kShortRows; ++r) {
    builder.column_values<std::int32_t>(0)[r] = static_cast<std::int32_t>(r);
    if (next(10) == 0) {
      builder.SetNull(1, r);
      continue;
    }
    std::string value(next(13), 'a');
    for (char& c : value)
      c = static_cast<char>('a' + next(3));
    builder.SetString(1, r, value);
  }
  Catalog catalog;
  const TablePtr table = builder.Finish();
  catalog.Add(table);
  cpu_reference_test::SqliteOracle oracle;
  oracle.Load(*table);
  QueryExecutor executor(engine());
  int compared = 0;
  for (std::int64_t start = -14; start <= 14; ++start) {
    for (std::int64_t length = -4; length <= 13; ++length) {
      const std::string call = "SUBSTRING(s, " + std::to_string(start) +
                               (length < -3 ? std::string() : ", " + std::to_string(length)) + ")";
      for (const std::string& sql : {
               "SELECT id, " + call + " FROM r WHERE id % 3 = 1",
               "SELECT " + call + " FROM r",
               "SELECT id FROM r WHERE " + call + " IN ('ab', 'c', '', 'abca', 'bb')",
               "SELECT id FROM r WHERE " + call + " <> 'a'",
           }) {
        SCOPED_TRACE(sql);
        const sql::BoundStatement bound = sql::Bind(sql::Parse(sql), catalog, sql);
        std::vector<sql::ValueType> types;
        for (std::size_t c = 0; c < bound.select.visible_outputs; ++c)
          types.push_back(bound.select.outputs[c].expr.type);
        const cpu_reference_test::OracleAnswer expected = oracle.Query(sql, types);
        ASSERT_EQ(expected.error, "");
        QueryResult actual;
        try {
          actual = executor.Execute(bound.select);
        } catch (const DeviceLimitError& e) {
          // A negative start with a negative length, compared: refused.
          EXPECT_TRUE(start < 0 && length < 0 && length >= -3) << e.what();
          continue;
        }
        EXPECT_EQ(CompareResults(expected.result, actual, {.ignore_row_order = true}), "");
        ++compared;
      }
    }
  }
  EXPECT_GT(compared, 1900);
}

CLQ_INSTANTIATE_DEVICE_TESTS(SubstringDeviceTest);

}  // namespace
}  // namespace clq::sql_test
