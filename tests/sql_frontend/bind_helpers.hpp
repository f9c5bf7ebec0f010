// Parse-and-bind helpers for the binder tests.
#pragma once

#include <gtest/gtest.h>

#include <string>
#include <utility>
#include <vector>

#include "common/errors.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "tests/sql_frontend/test_catalog.hpp"

namespace clq::testing {

inline sql::BoundStatement BindSql(CountingCatalog& catalog, const std::string& sql) {
  return sql::Bind(sql::Parse(sql), catalog.catalog, sql);
}

// {offset, message} of the SqlError that parsing and binding `sql` throws.
inline std::pair<std::size_t, std::string> BindError(CountingCatalog& catalog,
                                                     const std::string& sql) {
  try {
    BindSql(catalog, sql);
  } catch (const SqlError& e) {
    return {e.offset(), e.what()};
  }
  ADD_FAILURE() << "no error for: " << sql;
  return {0, ""};
}

inline std::vector<std::string> OutputStrings(const sql::BoundSelect& select) {
  std::vector<std::string> texts;
  for (const sql::OutputColumn& output : select.outputs)
    texts.push_back(output.expr.ToString());
  return texts;
}

inline std::vector<std::string> OutputNames(const sql::BoundSelect& select) {
  std::vector<std::string> names;
  for (const sql::OutputColumn& output : select.outputs)
    names.push_back(output.name);
  return names;
}

inline std::vector<sql::ValueType> OutputTypes(const sql::BoundSelect& select) {
  std::vector<sql::ValueType> types;
  for (const sql::OutputColumn& output : select.outputs)
    types.push_back(output.expr.type);
  return types;
}

}  // namespace clq::testing
