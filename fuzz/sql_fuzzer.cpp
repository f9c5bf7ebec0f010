// libFuzzer target for the SQL front end: statement splitting, the parser,
// the binder (against the Wisconsin relations and a small table of every
// column type) and the formatting of a SQL error with its line, column and
// caret, as `clq query` runs them; a statement that binds is also planned
// (PlanQuery) and run by the CPU reference, when its FROM's cross product
// is small. A user error (a clq::Error other than InternalError) is an
// expected outcome; an InternalError, any other exception, or a sanitizer's
// report is a finding.
//
// Build (clang only): cmake -S . -B build-fuzz -G Ninja -DCLQ_FUZZ=ON
//   -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
//   && cmake --build build-fuzz --target sql_fuzzer
// Run: build-fuzz/fuzz/sql_fuzzer -max_total_time=60 -dict=fuzz/sql.dict
//   fuzz/corpus/sql  (new inputs go into the corpus folder; copy it first
//   to keep the checked-in seeds small)
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <exception>
#include <iostream>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_executor.hpp"
#include "plan/query_plan.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "sql/sql_error_format.hpp"
#include "sql/statement_split.hpp"
#include "storage/catalog.hpp"
#include "storage/table.hpp"
#include "wisconsin/dataset.hpp"

namespace {

// nums (k, a INT32, b INT64, d DOUBLE, s CHAR(4)), as the SQL test files'
// table of the column types the Wisconsin relations lack.
clq::TablePtr TypesTable() {
  const clq::Schema schema{{"k", clq::ColumnType::Int32()},
                           {"a", clq::ColumnType::Int32()},
                           {"b", clq::ColumnType::Int64()},
                           {"d", clq::ColumnType::Double()},
                           {"s", clq::ColumnType::Char(4)}};
  constexpr clq::RowCount kRows = 4;
  clq::TableBuilder builder("nums", schema, kRows);
  for (clq::RowCount r = 0; r < kRows; ++r) {
    builder.column_values<std::int32_t>(0)[r] = static_cast<std::int32_t>(r);
    builder.column_values<std::int32_t>(1)[r] = static_cast<std::int32_t>(r) - 1;
    builder.column_values<std::int64_t>(2)[r] = static_cast<std::int64_t>(r) << 40;
    builder.column_values<double>(3)[r] = 0.5 * static_cast<double>(r);
    char* text = builder.column_values<char>(4) + r * 4;
    text[0] = static_cast<char>('a' + r);
  }
  return builder.Finish();
}

clq::Catalog& FuzzCatalog() {
  static clq::Catalog* catalog = [] {
    auto* c = new clq::Catalog();
    clq::AddWisconsinTables(*c, 40);
    c->Add(TypesTable());
    return c;
  }();
  return *catalog;
}

[[noreturn]] void Finding(std::string_view what, std::string_view sql) {
  std::cerr << "sql_fuzzer: " << what << "\n  SQL: " << sql << "\n";
  std::abort();
}

// The CPU reference joins by nested loops where no equality connects two
// tables: cap the rows it could produce, so that an input runs in
// milliseconds.
bool SmallEnoughToRun(const clq::sql::BoundSelect& select) {
  constexpr double kMostRows = 1e5;
  double rows = 1;
  for (const clq::sql::TableRef& ref : select.from)
    rows *= static_cast<double>(std::max<clq::RowCount>(ref.table->rows(), 1));
  return rows <= kMostRows;
}

void Check(std::string_view script, const clq::sql::StatementText& statement) {
  try {
    const clq::sql::ast::Statement parsed = clq::sql::Parse(statement.text);
    const clq::sql::BoundStatement bound = clq::sql::Bind(parsed, FuzzCatalog(), statement.text);
    clq::PlanQuery(bound.select);
    if (SmallEnoughToRun(bound.select)) clq::ExecuteOnCpu(bound.select);
  } catch (const clq::InternalError& e) {
    Finding(e.what(), statement.text);
  } catch (const clq::SqlError& e) {
    const std::size_t at =
        e.offset() == std::string::npos ? e.offset() : statement.offset + e.offset();
    const std::string formatted = clq::sql::FormatSqlError(script, clq::SqlError(e.what(), at));
    if (formatted.empty()) Finding("an empty error message", statement.text);
  } catch (const clq::Error&) {
    // A user error other than SQL's (a device limit named at bind time).
  } catch (const std::exception& e) {
    Finding(std::string("unexpected exception: ") + e.what(), statement.text);
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  const std::string_view script(reinterpret_cast<const char*>(data), size);
  for (const clq::sql::StatementText& statement : clq::sql::SplitStatements(script))
    Check(script, statement);
  return 0;
}
