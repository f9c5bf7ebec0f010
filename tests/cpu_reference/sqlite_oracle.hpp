// SQLite as a test oracle for the CPU reference: an in-memory database that
// loads clq tables (INT32/INT64 as INTEGER, DOUBLE as REAL, CHAR(n) as TEXT
// without its padding) and runs SQL into a QueryResult typed like the bound
// query's outputs, reporting any value whose SQLite type differs.
#pragma once

#include <sqlite3.h>

#include <cstdint>
#include <string>
#include <vector>

#include "operators/cpu_reference/value_vector.hpp"
#include "operators/query_result.hpp"
#include "sql/bound.hpp"
#include "storage/table.hpp"

namespace clq::cpu_reference_test {

struct OracleAnswer {
  QueryResult result;
  std::string error;  // SQLite's error, or a type mismatch; empty when fine
};

class SqliteOracle {
 public:
  SqliteOracle() {
    if (sqlite3_open(":memory:", &db_) != SQLITE_OK) throw std::runtime_error("sqlite3_open");
    // clq's LIKE is case-sensitive (sql/like_pattern.hpp), SQLite's only so.
    Execute("PRAGMA case_sensitive_like = ON");
  }
  ~SqliteOracle() { sqlite3_close(db_); }
  SqliteOracle(const SqliteOracle&) = delete;
  SqliteOracle& operator=(const SqliteOracle&) = delete;

  void Load(const Table& table) {
    std::string create = "CREATE TABLE " + table.name() + "(";
    std::string insert = "INSERT INTO " + table.name() + " VALUES(";
    for (std::size_t c = 0; c < table.columns().size(); ++c) {
      const Column& column = table.column(c);
      create += (c > 0 ? ", " : "") + column.name() + " " + SqlType(column.type());
      insert += c > 0 ? ", ?" : "?";
    }
    Execute(create + ")");
    Execute("BEGIN");
    sqlite3_stmt* statement = Prepare(insert + ")");
    for (RowCount r = 0; r < table.rows(); ++r) {
      for (std::size_t c = 0; c < table.columns().size(); ++c) {
        const Column& column = table.column(c);
        const int slot = static_cast<int>(c) + 1;
        if (column.IsNull(r)) {
          sqlite3_bind_null(statement, slot);
          continue;
        }
        switch (column.type().type) {
          case DataType::kInt32:
          case DataType::kInt64:
            sqlite3_bind_int64(statement, slot, column.IntegerAt(r));
            break;
          case DataType::kDouble:
            sqlite3_bind_double(statement, slot, column.RealAt(r));
            break;
          case DataType::kChar: {
            const std::string_view s = column.StringAt(r);
            sqlite3_bind_text(statement, slot, s.data(), static_cast<int>(s.size()),
                              SQLITE_TRANSIENT);
            break;
          }
        }
      }
      if (sqlite3_step(statement) != SQLITE_DONE) throw std::runtime_error(sqlite3_errmsg(db_));
      sqlite3_reset(statement);
    }
    sqlite3_finalize(statement);
    Execute("COMMIT");
  }

  // Runs `sql` to the end, for queries clq rejects; SQLite's error, or empty.
  std::string ErrorOf(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK)
      return sqlite3_errmsg(db_);
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    }
    std::string error = rc == SQLITE_DONE ? "" : sqlite3_errmsg(db_);
    sqlite3_finalize(statement);
    return error;
  }

  // Runs `sql`; column c of the answer has type types[c] (the bound output's).
  OracleAnswer Query(const std::string& sql, const std::vector<sql::ValueType>& types) {
    OracleAnswer answer;
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK) {
      answer.error = sqlite3_errmsg(db_);
      return answer;
    }
    if (static_cast<std::size_t>(sqlite3_column_count(statement)) != types.size()) {
      answer.error = "column count differs from the bound query";
      sqlite3_finalize(statement);
      return answer;
    }
    std::vector<std::vector<sql::Value>> columns(types.size());
    // A CASE whose branches mix INTEGER and REAL is REAL in clq (the SQL
    // standard's type, sql/binder_internal.hpp CaseResultType); SQLite keeps
    // each row's branch type, so there an INTEGER stands for the REAL.
    const bool has_case = sql.find("CASE") != std::string::npos;
    int rc;
    while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
      for (std::size_t c = 0; c < types.size(); ++c) {
        sql::Value v = ReadValue(statement, static_cast<int>(c));
        if (has_case && v.type == sql::ValueType::kInteger && types[c] == sql::ValueType::kReal)
          v = sql::Value::Real(static_cast<double>(v.integer));
        if (!v.is_null() && v.type != types[c] && answer.error.empty()) {
          answer.error = "column " + std::to_string(c) + " is " + cpu_reference::TypeName(v.type) +
                         " in SQLite, " + cpu_reference::TypeName(types[c]) + " in the bound query";
        }
        columns[c].push_back(v);
      }
    }
    if (rc != SQLITE_DONE) answer.error = sqlite3_errmsg(db_);
    sqlite3_finalize(statement);
    answer.result.rows = columns.empty() ? 0 : columns[0].size();
    for (std::size_t c = 0; c < types.size(); ++c)
      answer.result.columns.push_back(ToColumn("c" + std::to_string(c), types[c], columns[c]));
    return answer;
  }

 private:
  static const char* SqlType(ColumnType type) {
    switch (type.type) {
      case DataType::kInt32:
      case DataType::kInt64:
        return "INTEGER";
      case DataType::kDouble:
        return "REAL";
      case DataType::kChar:
        return "TEXT";
    }
    return "";
  }

  static sql::Value ReadValue(sqlite3_stmt* statement, int c) {
    switch (sqlite3_column_type(statement, c)) {
      case SQLITE_INTEGER:
        return sql::Value::Integer(sqlite3_column_int64(statement, c));
      case SQLITE_FLOAT:
        return sql::Value::Real(sqlite3_column_double(statement, c));
      case SQLITE_TEXT: {
        const auto* text = reinterpret_cast<const char*>(sqlite3_column_text(statement, c));
        return sql::Value::Text(
            std::string(text, static_cast<std::size_t>(sqlite3_column_bytes(statement, c))));
      }
      default:
        return sql::Value::Null();
    }
  }

  // Values of one type (mismatches already reported) as a result column.
  static ResultColumn ToColumn(std::string name, sql::ValueType type,
                               const std::vector<sql::Value>& values) {
    ResultColumn column;
    column.name = std::move(name);
    column.type = type;
    const std::size_t n = values.size();
    column.nulls.assign(n, 0);
    std::size_t width = 1;
    for (const sql::Value& v : values)
      width = std::max(width, v.text.size());
    if (type == sql::ValueType::kText) {
      column.text_width = static_cast<std::uint32_t>(width);
      column.text.assign(n * width, '\0');
    }
    for (std::size_t i = 0; i < n; ++i) {
      const sql::Value& v = values[i];
      if (v.is_null() || v.type != type) column.nulls[i] = 1;
      switch (type) {
        case sql::ValueType::kInteger:
          column.integers.push_back(v.integer);
          break;
        case sql::ValueType::kReal:
          column.reals.push_back(v.real);
          break;
        case sql::ValueType::kText:
          std::copy(v.text.begin(), v.text.end(), column.text.begin() + i * width);
          break;
        case sql::ValueType::kNull:
          break;
      }
    }
    return column;
  }

  void Execute(const std::string& sql) {
    char* message = nullptr;
    if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
      const std::string text = message != nullptr ? message : "?";
      sqlite3_free(message);
      throw std::runtime_error(text + " in " + sql);
    }
  }

  sqlite3_stmt* Prepare(const std::string& sql) {
    sqlite3_stmt* statement = nullptr;
    if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK)
      throw std::runtime_error(sqlite3_errmsg(db_));
    return statement;
  }

  sqlite3* db_ = nullptr;
};

}  // namespace clq::cpu_reference_test
