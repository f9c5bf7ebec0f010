// Runs the SQL test files of tests/sql_files/ (format: sql_test_file.hpp) on
// every device under test: one test per (file, device), named after the
// file's path. A failing record is reported as file:line with its SQL, the
// expected and the actual values; every failing record of a file is reported.
//
// Expected results come from SQLite, never from clq: scripts/make_sql_tests.py
// rewrites the expected blocks (see its header).
//
// Features: a file that starts with `# requires: join, order_by` runs only
// when every feature it names is in kFeaturesAvailable; otherwise it is
// skipped (GTEST_SKIP) naming the missing features. The features are listed
// in kSqlFeatures (sql_test_file.hpp): join, group_by, distinct, order_by,
// median, and two the device rejects by design today, cross_join and
// text_expr. Enable a feature here, in
// kFeaturesAvailable, once the device executor supports it. For a trial run
// without editing this list, CLQ_SQL_FEATURES="join,group_by" (or "all")
// adds features for one run.
//
// SqlFileCpuTest runs every file, whatever it requires, on the CPU reference
// (operators/cpu_reference), which has every feature: so the files
// themselves are checked even before the device executor can run them.
//
// Files are found under $CLQ_TEST_DATA/sql_files (CLQ_TEST_DATA is set by
// ctest; without it, the tests/ folder of this source file).
#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <filesystem>
#include <functional>
#include <iostream>
#include <optional>
#include <string>
#include <tuple>
#include <vector>

#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_executor.hpp"
#include "plan/query_executor.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "sql/sql_error_format.hpp"
#include "storage/catalog.hpp"
#include "storage/csv.hpp"
#include "tests/sql/sql_test_file.hpp"
#include "tests/support/device_fixture.hpp"
#include "tests/support/real_refusal.hpp"
#include "wisconsin/dataset.hpp"

namespace clq::sql_test {
namespace {

// The features of kSqlFeatures that the device executor supports in this
// build. Add each one as it lands.
const std::vector<std::string> kFeaturesAvailable = {"join", "group_by", "distinct", "order_by",
                                                     "median"};

std::vector<std::string> FeaturesAvailable() {
  std::vector<std::string> features = kFeaturesAvailable;
  const char* extra = std::getenv("CLQ_SQL_FEATURES");
  if (extra == nullptr) return features;
  std::string list = extra;
  std::replace(list.begin(), list.end(), ',', ' ');
  for (const std::string& f : SplitWords(list)) {
    if (f == "all") return kSqlFeatures;
    features.push_back(f);
  }
  return features;
}

std::filesystem::path TestDataDir() {
  const char* data = std::getenv("CLQ_TEST_DATA");
  if (data != nullptr && *data != '\0') return data;
  return std::filesystem::path(__FILE__).parent_path().parent_path();
}

std::filesystem::path SqlFilesDir() {
  return TestDataDir() / "sql_files";
}

std::vector<std::string> DiscoverTestFiles() {
  std::vector<std::string> files;
  const std::filesystem::path root = SqlFilesDir();
  std::error_code error;
  if (!std::filesystem::is_directory(root, error)) return files;
  for (const auto& entry : std::filesystem::recursive_directory_iterator(root)) {
    if (entry.is_regular_file() && entry.path().extension() == ".test")
      files.push_back(std::filesystem::relative(entry.path(), root).generic_string());
  }
  std::sort(files.begin(), files.end());
  return files;
}

using FileAndDevice = std::tuple<std::string, std::size_t>;

class SqlFileTest : public ::testing::TestWithParam<FileAndDevice> {};

// The message of a failed statement; SQL errors with line and column.
std::string ErrorMessage(const std::string& sql, const std::exception& e) {
  if (const auto* sql_error = dynamic_cast<const SqlError*>(&e))
    return sql::FormatSqlError(sql, *sql_error);
  return e.what();
}

// A hint for an error that means the file needs a `# requires:` line.
std::string MissingFeatureHint(const std::string& message) {
  if (message.find("not available in this build yet") == std::string::npos) return "";
  return "\n  (the device executor lacks a feature: does the file need a `# requires:` line?)";
}

// A query's result, or nullopt where the executor refused the query as it
// must (REAL on a device without fp64): nothing to compare.
using Executor = std::function<std::optional<QueryResult>(const sql::BoundSelect&)>;

// Runs every record of `file` with `execute`, reporting each failure.
void RunFile(const std::filesystem::path& path, const TestFile& file, const Executor& execute) {
  Catalog catalog;
  AddWisconsinTables(catalog, file.rows);
  int failures = 0;
  for (const Record& record : file.records) {
    const std::string where = path.string() + ":" + std::to_string(record.line);
    if (record.kind == Record::Kind::kLoad) {
      const std::string csv = (path.parent_path() / record.csv).string();
      try {
        std::optional<Schema> schema;
        if (!record.schema.empty()) schema = ParseSchema(record.schema);
        catalog.Add(ImportCsv(csv, record.table, schema));
      } catch (const std::exception& e) {
        FAIL() << where << ": cannot load " << csv << ": " << e.what();
      }
      continue;
    }
    if (failures >= 20) break;
    QueryResult result;
    std::string error;
    try {
      const sql::ast::Statement statement = sql::Parse(record.sql);
      const sql::BoundStatement bound = sql::Bind(statement, catalog, record.sql);
      std::optional<QueryResult> answer = execute(bound.select);
      if (!answer) continue;  // refused, as it must be
      result = std::move(*answer);
    } catch (const std::exception& e) {
      error = ErrorMessage(record.sql, e);
    }
    std::string problem;
    switch (record.kind) {
      case Record::Kind::kStatementOk:
        if (!error.empty()) problem = "failed: " + error + MissingFeatureHint(error);
        break;
      case Record::Kind::kStatementError:
        if (error.empty()) {
          problem = "succeeded, expected an error containing '" + record.error_text + "'";
        } else if (error.find(record.error_text) == std::string::npos) {
          problem = "failed with\n" + error + "\n  expected a message containing '" +
                    record.error_text + "'";
        }
        break;
      case Record::Kind::kQuery:
        if (!error.empty()) {
          problem = "failed: " + error + MissingFeatureHint(error);
        } else {
          problem = CheckResult(record, result);
        }
        break;
      case Record::Kind::kLoad:
        break;
    }
    if (!problem.empty()) {
      ++failures;
      ADD_FAILURE_AT(path.string().c_str(), record.line)
          << where << ":\n  " << record.sql << "\n  " << problem;
    }
  }
}

TEST_P(SqlFileTest, Records) {
  const auto& [relative, device] = GetParam();
  const std::filesystem::path path = SqlFilesDir() / relative;
  TestFile file;
  try {
    file = ReadTestFile(path.string());
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  const std::vector<std::string> available = FeaturesAvailable();
  std::string missing;
  for (const std::string& f : file.requires_features)
    if (std::find(available.begin(), available.end(), f) == available.end())
      missing += (missing.empty() ? "" : ", ") + f;
  if (!missing.empty()) GTEST_SKIP() << relative << " requires " << missing << ", not available";
  Engine& engine = testing::TestEngine(device);
  QueryExecutor executor(engine);
  std::size_t refused = 0;
  RunFile(path, file, [&](const sql::BoundSelect& select) -> std::optional<QueryResult> {
    if (engine.info().fp64 || !testing::UsesReal(select)) return executor.Execute(select);
    // Without fp64 a REAL query is refused, with the capability named.
    try {
      (void)executor.Execute(select);
    } catch (const std::exception& e) {
      if (!testing::IsFp64Refusal(e)) throw;
      ++refused;
      return std::nullopt;
    }
    throw InternalError("a REAL query ran on a device without fp64");
  });
  if (refused > 0)
    std::cout << "[ sql files  ] " << relative << ": " << refused
              << " REAL queries refused as they must be (the device lacks fp64)\n";
}

// Every file, whatever it requires, on the CPU reference (which has every
// feature): checks the files themselves, and the CPU reference against SQLite.
class SqlFileCpuTest : public ::testing::TestWithParam<std::string> {};

TEST_P(SqlFileCpuTest, Records) {
  const std::filesystem::path path = SqlFilesDir() / GetParam();
  TestFile file;
  try {
    file = ReadTestFile(path.string());
  } catch (const std::exception& e) {
    FAIL() << e.what();
  }
  RunFile(path, file, [](const sql::BoundSelect& select) -> std::optional<QueryResult> {
    return ExecuteOnCpu(select);
  });
}

std::string FileName(const std::string& relative) {
  std::string name;
  for (char c : relative.substr(0, relative.size() - 5))
    name += std::isalnum(static_cast<unsigned char>(c)) ? c : '_';
  return name;
}

std::string CpuTestName(const ::testing::TestParamInfo<std::string>& param) {
  return FileName(param.param);
}

INSTANTIATE_TEST_SUITE_P(Files, SqlFileCpuTest, ::testing::ValuesIn(DiscoverTestFiles()),
                         CpuTestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SqlFileCpuTest);

std::string TestName(const ::testing::TestParamInfo<FileAndDevice>& info) {
  return FileName(std::get<0>(info.param)) + "_" +
         testing::TestDeviceName(
             ::testing::TestParamInfo<std::size_t>(std::get<1>(info.param), info.index));
}

INSTANTIATE_TEST_SUITE_P(Files, SqlFileTest,
                         ::testing::Combine(::testing::ValuesIn(DiscoverTestFiles()),
                                            ::testing::ValuesIn(testing::TestDeviceIndices())),
                         TestName);
GTEST_ALLOW_UNINSTANTIATED_PARAMETERIZED_TEST(SqlFileTest);

TEST(SqlFilesTest, FilesExist) {
  EXPECT_GE(DiscoverTestFiles().size(), 10u) << "no SQL test files under " << SqlFilesDir();
}

}  // namespace
}  // namespace clq::sql_test
