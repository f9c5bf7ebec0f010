#include "host/bench_sqlite.hpp"

#include <sqlite3.h>

#include "common/errors.hpp"

namespace clq {
namespace {

const char* SqlType(ColumnType type) {
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

}  // namespace

SqlitePeer::SqlitePeer() {
  if (sqlite3_open(":memory:", &db_) != SQLITE_OK) {
    sqlite3_close(db_);
    db_ = nullptr;
    throw InvalidInputError("SQLite: cannot open an in-memory database");
  }
  // clq's LIKE is case-sensitive; SQLite's only so.
  Execute("PRAGMA case_sensitive_like = ON");
}

SqlitePeer::~SqlitePeer() {
  sqlite3_close(db_);
}

void SqlitePeer::Execute(const std::string& sql) {
  char* message = nullptr;
  if (sqlite3_exec(db_, sql.c_str(), nullptr, nullptr, &message) != SQLITE_OK) {
    const std::string text = message ? message : "unknown error";
    sqlite3_free(message);
    throw InvalidInputError("SQLite: " + text);
  }
}

void SqlitePeer::Load(const Table& table) {
  const std::string name = LowercaseIdentifier(table.name());
  if (!loaded_.insert(name).second) return;
  std::string create = "CREATE TABLE " + name + "(";
  std::string insert = "INSERT INTO " + name + " VALUES(";
  for (std::size_t c = 0; c < table.columns().size(); ++c) {
    create += (c > 0 ? ", " : "") + table.column(c).name() + " " + SqlType(table.column(c).type());
    insert += c > 0 ? ", ?" : "?";
  }
  Execute(create + ")");
  Execute("BEGIN");
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, (insert + ")").c_str(), -1, &statement, nullptr) != SQLITE_OK)
    throw InvalidInputError(std::string("SQLite: ") + sqlite3_errmsg(db_));
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
          sqlite3_bind_text(statement, slot, s.data(), static_cast<int>(s.size()), SQLITE_STATIC);
          break;
        }
      }
    }
    const int rc = sqlite3_step(statement);
    sqlite3_reset(statement);
    if (rc != SQLITE_DONE) {
      sqlite3_finalize(statement);
      throw InvalidInputError(std::string("SQLite: ") + sqlite3_errmsg(db_));
    }
  }
  sqlite3_finalize(statement);
  Execute("COMMIT");
}

RowCount SqlitePeer::Run(const std::string& sql) {
  sqlite3_stmt* statement = nullptr;
  if (sqlite3_prepare_v2(db_, sql.c_str(), -1, &statement, nullptr) != SQLITE_OK)
    throw InvalidInputError(std::string("SQLite: ") + sqlite3_errmsg(db_));
  RowCount rows = 0;
  int rc;
  const int columns = sqlite3_column_count(statement);
  std::uint64_t checksum = 0;  // read every value, as a client would
  while ((rc = sqlite3_step(statement)) == SQLITE_ROW) {
    ++rows;
    for (int c = 0; c < columns; ++c) {
      if (sqlite3_column_type(statement, c) == SQLITE_TEXT) {
        checksum += static_cast<std::uint64_t>(sqlite3_column_bytes(statement, c));
      } else {
        checksum += static_cast<std::uint64_t>(sqlite3_column_int64(statement, c));
      }
    }
  }
  last_checksum_ = checksum;
  sqlite3_finalize(statement);
  if (rc != SQLITE_DONE) throw InvalidInputError(std::string("SQLite: ") + sqlite3_errmsg(db_));
  return rows;
}

}  // namespace clq
