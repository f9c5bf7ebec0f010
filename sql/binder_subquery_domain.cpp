// The keys a decorrelated subquery can meet (a semi-join reduction, after
// the "magic sets" of unnesting): a derived table joined to the outer rows
// on `inner = outer` only needs the keys the outer rows have, so its rows are
// first restricted to
//   inner IN (SELECT outer FROM <outer tables> WHERE <their conditions>)
// where the outer tables are the one `outer` reads and, joined to it by
// equalities, those with no more rows than it, and the conditions are the
// outer WHERE's that read only those tables and hold no correlated
// subquery. Those rows are a superset of the outer rows that reach the
// join, so every key they can meet keeps its rows: a join, a LEFT JOIN (an
// anti join) and a grouped aggregate per key give the same answer. A
// subquery over a large table (TPC-H Q21's two over lineitem, Q17's, Q20's)
// then groups the few keys a selective outer query has, not every key.
//
// Taken only where it can pay: the outer tables are catalog tables joined
// without LEFT JOIN, and some condition besides the equalities between
// tables filters them (else every key would be kept).
#include <algorithm>
#include <bit>
#include <cstdint>
#include <optional>

#include "sql/binder_internal.hpp"

namespace clq::sql::detail {

namespace {

struct TableScope {
  std::vector<std::string> aliases;
  std::vector<const Schema*> schemas;
};

bool HasColumn(const Schema& schema, std::string_view name) {
  return std::any_of(schema.begin(), schema.end(),
                     [&](const ColumnSpec& spec) { return IdentifierEquals(spec.name, name); });
}

// The FROM item a column names, if exactly one.
std::optional<std::size_t> Resolve(const TableScope& scope, const ast::Expr& column) {
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < scope.aliases.size(); ++i) {
    const bool match = column.qualifier.empty()
                           ? HasColumn(*scope.schemas[i], column.name)
                           : IdentifierEquals(scope.aliases[i], column.qualifier);
    if (!match) continue;
    if (found) return std::nullopt;
    found = i;
  }
  return found;
}

// The FROM items an expression reads (a bit each), or none where it reads a
// name outside them or holds a subquery.
std::optional<std::uint64_t> TablesOf(const TableScope& scope, const ast::Expr& e) {
  if (e.kind == ast::ExprKind::kSubquery) return std::nullopt;
  std::uint64_t tables = 0;
  if (e.kind == ast::ExprKind::kColumn) {
    const std::optional<std::size_t> item = Resolve(scope, e);
    if (!item) return std::nullopt;
    tables |= std::uint64_t{1} << *item;
  }
  for (const ast::Expr& child : e.children) {
    const std::optional<std::uint64_t> inner = TablesOf(scope, child);
    if (!inner) return std::nullopt;
    tables |= *inner;
  }
  return tables;
}

// The catalog tables of a FROM clause without subqueries, WITH names or
// outer joins, at most 64.
std::optional<TableScope> CatalogScope(const std::vector<ast::FromItem>& from,
                                       const Catalog& catalog,
                                       const std::vector<ast::CommonTable>& with) {
  if (from.empty() || from.size() > 64) return std::nullopt;
  TableScope scope;
  for (const ast::FromItem& item : from) {
    const ast::TableRef& ref = item.table;
    if (item.left_outer || ref.subquery) return std::nullopt;
    if (std::any_of(with.begin(), with.end(),
                    [&](const ast::CommonTable& t) { return IdentifierEquals(t.name, ref.name); }))
      return std::nullopt;
    const Schema* schema = catalog.FindSchema(ref.name);
    if (!schema) return std::nullopt;
    scope.aliases.push_back(ref.alias.value_or(ref.name));
    scope.schemas.push_back(schema);
  }
  return scope;
}

// `x IN (SELECT ...)` over catalog tables whose every name is its own: it
// filters the outer rows the same wherever it is copied.
bool IsSelfContainedIn(const ast::Expr& c, const Catalog& catalog,
                       const std::vector<ast::CommonTable>& with) {
  if (c.kind != ast::ExprKind::kSubquery || c.subquery_kind != ast::SubqueryKind::kIn || c.negated)
    return false;
  const ast::Select& sub = *c.subquery;
  if (sub.distinct || !sub.group_by.empty() || sub.having || sub.limit || sub.offset ||
      sub.items.size() != 1 || sub.items[0].kind != ast::SelectItem::Kind::kExpr)
    return false;
  const std::optional<TableScope> scope = CatalogScope(sub.from, catalog, with);
  if (!scope) return false;
  for (const ast::FromItem& item : sub.from)
    if (item.on && !TablesOf(*scope, *item.on)) return false;
  if (sub.where && !TablesOf(*scope, *sub.where)) return false;
  return TablesOf(*scope, sub.items[0].expr).has_value();
}

bool IsColumnEquality(const ast::Expr& c) {
  return c.kind == ast::ExprKind::kBinary && c.binary_op == BinaryOp::kEqual &&
         c.children[0].kind == ast::ExprKind::kColumn &&
         c.children[1].kind == ast::ExprKind::kColumn;
}

}  // namespace

std::optional<ast::Expr> Binder::SubqueryDomain(const ast::Select& outer,
                                                const std::vector<ast::Expr>& inner_keys,
                                                const std::vector<ast::Expr>& outer_keys) {
  const std::optional<TableScope> scope = CatalogScope(outer.from, catalog_, with_);
  if (!scope) return std::nullopt;

  // The first key that is a column on both sides.
  std::size_t key = inner_keys.size();
  std::size_t home = 0;
  for (std::size_t k = 0; k < inner_keys.size() && key == inner_keys.size(); ++k) {
    if (inner_keys[k].kind != ast::ExprKind::kColumn ||
        outer_keys[k].kind != ast::ExprKind::kColumn)
      continue;
    if (const std::optional<std::size_t> item = Resolve(*scope, outer_keys[k])) {
      key = k;
      home = *item;
    }
  }
  if (key == inner_keys.size()) return std::nullopt;

  // The outer conditions that read only its tables: the WHERE's and the
  // inner joins' ON, without subqueries other than self-contained INs.
  struct Condition {
    const ast::Expr* expr;
    std::uint64_t tables;
  };
  std::vector<Condition> conditions;
  std::vector<const ast::Expr*> parts;
  if (outer.where) SplitAnd(*outer.where, parts);
  for (const ast::FromItem& item : outer.from)
    if (item.on) SplitAnd(*item.on, parts);
  for (const ast::Expr* part : parts) {
    std::optional<std::uint64_t> tables;
    if (IsSelfContainedIn(*part, catalog_, with_)) {
      tables = TablesOf(*scope, part->children.at(0));
    } else {
      tables = TablesOf(*scope, *part);
    }
    if (tables) conditions.push_back({part, *tables});
  }

  // The key's table, and those an equality joins to it with no more rows.
  auto rows_of = [&](std::size_t item) {
    return catalog_.Get(outer.from[item].table.name)->rows();
  };
  const RowCount home_rows = rows_of(home);
  std::uint64_t chosen = std::uint64_t{1} << home;
  for (bool grew = true; grew;) {
    grew = false;
    for (const Condition& c : conditions) {
      if (!IsColumnEquality(*c.expr) || std::popcount(c.tables) != 2) continue;
      const std::uint64_t other = c.tables & ~chosen;
      if (other == 0 || other == c.tables) continue;
      const auto item = static_cast<std::size_t>(std::countr_zero(other));
      if (rows_of(item) > home_rows) continue;
      chosen |= other;
      grew = true;
    }
  }
  std::vector<ast::Expr> where;
  bool filters = false;
  for (const Condition& c : conditions) {
    if ((c.tables & ~chosen) != 0) continue;
    where.push_back(*c.expr);
    if (!(IsColumnEquality(*c.expr) && std::popcount(c.tables) == 2)) filters = true;
  }
  if (!filters) return std::nullopt;

  ast::Select domain;
  domain.position = outer.position;
  ast::SelectItem item;
  item.expr = outer_keys[key];
  item.position = outer_keys[key].position;
  domain.items.push_back(std::move(item));
  for (std::size_t i = 0; i < outer.from.size(); ++i) {
    if ((chosen >> i & 1) == 0) continue;
    ast::FromItem from;
    from.table = outer.from[i].table;
    domain.from.push_back(std::move(from));
  }
  domain.where = AndAll(std::move(where));

  ast::Expr in = Over(ast::ExprKind::kSubquery, inner_keys[key]);
  in.subquery_kind = ast::SubqueryKind::kIn;
  in.subquery = std::make_shared<const ast::Select>(std::move(domain));
  return in;
}

}  // namespace clq::sql::detail
