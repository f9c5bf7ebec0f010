#include "storage/catalog.hpp"

namespace clq {

void Catalog::Add(std::string name, Schema schema, Factory factory) {
  if (Entry* existing = Find(name)) {
    *existing = Entry{std::move(name), std::move(schema), std::move(factory), nullptr};
    return;
  }
  entries_.push_back(Entry{std::move(name), std::move(schema), std::move(factory), nullptr});
}

void Catalog::Add(TablePtr table) {
  std::string name = table->name();
  Schema schema = table->schema();
  Add(std::move(name), std::move(schema), [table] { return table; });
}

Catalog::Entry* Catalog::Find(std::string_view name) {
  for (Entry& e : entries_)
    if (IdentifierEquals(e.name, name)) return &e;
  return nullptr;
}

const Catalog::Entry* Catalog::Find(std::string_view name) const {
  for (const Entry& e : entries_)
    if (IdentifierEquals(e.name, name)) return &e;
  return nullptr;
}

bool Catalog::Contains(std::string_view name) const {
  return Find(name) != nullptr;
}

const Schema* Catalog::FindSchema(std::string_view name) const {
  const Entry* e = Find(name);
  return e != nullptr ? &e->schema : nullptr;
}

TablePtr Catalog::Get(std::string_view name) {
  Entry* e = Find(name);
  if (e == nullptr) throw InvalidInputError("no table named " + std::string(name));
  if (!e->table) {
    e->table = e->factory();
    CLQ_CHECK(e->table != nullptr && e->table->schema().size() == e->schema.size(),
              "table factory for " + e->name + " returned a different schema");
  }
  return e->table;
}

std::vector<std::string> Catalog::Names() const {
  std::vector<std::string> names;
  for (const Entry& e : entries_)
    names.push_back(e.name);
  return names;
}

}  // namespace clq
