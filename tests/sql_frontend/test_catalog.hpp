// Small catalogs for the SQL front-end tests: two toy tables, and the four
// Wisconsin relations with the benchmark's 16-column schema (3 rows each;
// the binder only needs schemas, but tables are real so that binding
// materialises them). Each factory counts its calls, so tests can check that
// a failed bind generates nothing.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "storage/catalog.hpp"
#include "storage/table.hpp"

namespace clq::testing {

inline TablePtr BuildTable(const std::string& name, const Schema& schema) {
  constexpr RowCount kRows = 3;
  TableBuilder builder(name, schema, kRows);
  for (std::size_t c = 0; c < schema.size(); ++c) {
    for (RowCount row = 0; row < kRows; ++row) {
      const auto value = static_cast<std::int32_t>(row + c);
      switch (schema[c].type.type) {
        case DataType::kInt32:
          builder.column_values<std::int32_t>(c)[row] = value;
          break;
        case DataType::kInt64:
          builder.column_values<std::int64_t>(c)[row] = value;
          break;
        case DataType::kDouble:
          builder.column_values<double>(c)[row] = value + 0.5;
          break;
        case DataType::kChar:
          builder.SetString(c, row, std::string(1, static_cast<char>('A' + value % 26)));
          break;
      }
    }
  }
  return builder.Finish();
}

struct CountingCatalog {
  Catalog catalog;
  std::shared_ptr<int> materialised = std::make_shared<int>(0);

  void Add(const std::string& name, const Schema& schema) {
    catalog.Add(name, schema, [name, schema, counter = materialised] {
      ++*counter;
      return BuildTable(name, schema);
    });
  }
};

// t1(a INT32, b INT64, c DOUBLE, s CHAR(8)) and t2(a INT32, d INT32).
inline std::unique_ptr<CountingCatalog> ToyCatalog() {
  auto result = std::make_unique<CountingCatalog>();
  result->Add("t1", {{"a", ColumnType::Int32()},
                     {"b", ColumnType::Int64()},
                     {"c", ColumnType::Double()},
                     {"s", ColumnType::Char(8)}});
  result->Add("t2", {{"a", ColumnType::Int32()}, {"d", ColumnType::Int32()}});
  return result;
}

inline Schema WisconsinSchema() {
  Schema schema;
  for (const char* name :
       {"unique1", "unique2", "two", "four", "ten", "twenty", "onePercent", "tenPercent",
        "twentyPercent", "fiftyPercent", "unique3", "evenOnePercent", "oddOnePercent"})
    schema.push_back({name, ColumnType::Int32()});
  for (const char* name : {"stringu1", "stringu2", "string4"})
    schema.push_back({name, ColumnType::Char(52)});
  return schema;
}

inline std::unique_ptr<CountingCatalog> WisconsinCatalog() {
  auto result = std::make_unique<CountingCatalog>();
  for (const char* name : {"tenktup1", "tenktup2", "onektup", "bprime"})
    result->Add(name, WisconsinSchema());
  return result;
}

}  // namespace clq::testing
