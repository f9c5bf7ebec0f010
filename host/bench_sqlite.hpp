// The SQLite peer of `clq bench`: an in-memory SQLite database holding the
// same generated rows as the engine's catalog (INT32 as INTEGER, CHAR(n) as
// TEXT without its padding), timing a query as prepare + stepping through
// every result row on the host. Tables are loaded on first use, by name.
//
// Owns its sqlite3 handle. Not thread-safe.
#pragma once

#include <cstdint>
#include <set>
#include <string>

#include "storage/table.hpp"

struct sqlite3;

namespace clq {

class SqlitePeer {
 public:
  SqlitePeer();
  ~SqlitePeer();
  SqlitePeer(const SqlitePeer&) = delete;
  SqlitePeer& operator=(const SqlitePeer&) = delete;

  // Loads `table` under its name unless a table of that name is loaded.
  void Load(const Table& table);
  // Runs `sql` to completion; returns the number of result rows. Throws
  // InvalidInputError with SQLite's message when it fails.
  RowCount Run(const std::string& sql);

 private:
  void Execute(const std::string& sql);
  sqlite3* db_ = nullptr;
  std::set<std::string> loaded_;
  std::uint64_t last_checksum_ = 0;  // keeps the value reads from being optimised away
};

}  // namespace clq
