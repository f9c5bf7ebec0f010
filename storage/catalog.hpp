// The tables a statement can name. Entries are lazy: a table is registered
// with its schema and a factory, and materialised (generated or loaded) the
// first time a statement uses it, so `--rows 100000000` does not generate
// tables a query never reads. Names are case-insensitive.
//
// Not thread-safe.
#pragma once

#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "storage/table.hpp"

namespace clq {

class Catalog {
 public:
  using Factory = std::function<TablePtr()>;

  // Registers (or replaces) a table. The factory's table must have `schema`.
  void Add(std::string name, Schema schema, Factory factory);
  void Add(TablePtr table);

  bool Contains(std::string_view name) const;
  // The schema of a table, without materialising it.
  const Schema* FindSchema(std::string_view name) const;
  // The table, materialised on first use; throws InvalidInputError when unknown.
  TablePtr Get(std::string_view name);
  // Registered names as given, in registration order.
  std::vector<std::string> Names() const;

 private:
  struct Entry {
    std::string name;
    Schema schema;
    Factory factory;
    TablePtr table;
  };
  Entry* Find(std::string_view name);
  const Entry* Find(std::string_view name) const;
  std::vector<Entry> entries_;
};

}  // namespace clq
