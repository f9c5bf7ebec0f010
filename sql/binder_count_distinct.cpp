// COUNT(DISTINCT x): the select becomes an aggregate over a derived table of
// its distinct (keys, x) pairs,
//   SELECT k, COUNT(DISTINCT x) FROM t WHERE w GROUP BY k
//   -> SELECT __g1, COUNT(__x) FROM (SELECT k AS __g1, x AS __x FROM t WHERE w
//                                     GROUP BY k, x) __cd GROUP BY __g1
// with the GROUP BY keys in the select list, HAVING and ORDER BY read from
// the derived table. Every aggregate of the select must then be
// COUNT(DISTINCT x) of the same x; other mixes are refused by name.
#include "common/errors.hpp"
#include "sql/binder_internal.hpp"

namespace clq::sql::detail {
namespace {

struct DistinctCounts {
  const ast::Expr* argument = nullptr;  // the first COUNT(DISTINCT x)'s x
  bool other_aggregate = false;
  bool mismatch = false;
  std::size_t position = 0;
};

void Find(const ast::Expr& e, DistinctCounts& found) {
  if (e.kind == ast::ExprKind::kFunction) {
    if (!e.distinct) {
      found.other_aggregate = true;
    } else if (found.argument == nullptr) {
      found.argument = &e.children.at(0);
      found.position = e.position;
    } else if (ast::ToString(*found.argument) != ast::ToString(e.children.at(0))) {
      found.mismatch = true;
    }
    return;
  }
  if (e.kind == ast::ExprKind::kSubquery) return;
  for (const ast::Expr& child : e.children)
    Find(child, found);
}

// `e` with each GROUP BY key (as written) read from the derived table, and
// COUNT(DISTINCT x) as COUNT of its x column.
ast::Expr Rewrite(const ast::Expr& e, const std::vector<std::string>& keys,
                  const std::string& table) {
  const std::string text = ast::ToString(e);
  for (std::size_t k = 0; k < keys.size(); ++k)
    if (text == keys[k]) return ColumnOf(table, "__g" + std::to_string(k + 1), e.position);
  if (e.kind == ast::ExprKind::kFunction && e.distinct) {
    ast::Expr count = e;
    count.distinct = false;
    count.children = {ColumnOf(table, "__x", e.position)};
    return count;
  }
  ast::Expr out = e;
  if (e.kind == ast::ExprKind::kSubquery) return out;
  for (ast::Expr& child : out.children)
    child = Rewrite(child, keys, table);
  return out;
}

}  // namespace

ast::Select Binder::RewriteCountDistinct(const ast::Select& select) {
  DistinctCounts found;
  for (const ast::SelectItem& item : select.items)
    if (item.kind == ast::SelectItem::Kind::kExpr) Find(item.expr, found);
  if (select.having) Find(*select.having, found);
  for (const ast::OrderItem& item : select.order_by)
    Find(item.expr, found);
  if (found.argument == nullptr) return select;
  if (found.other_aggregate || found.mismatch)
    throw SqlError(
        "COUNT(DISTINCT x) is supported only when every aggregate of the SELECT is "
        "COUNT(DISTINCT x) of the same x",
        found.position);
  if (select.distinct)
    throw SqlError("SELECT DISTINCT with COUNT(DISTINCT x) is not supported", found.position);

  const std::string table = "__cd" + std::to_string(++generated_tables_);
  ast::Select inner;
  inner.position = select.position;
  inner.from = select.from;
  inner.where = select.where;
  std::vector<std::string> keys;
  for (std::size_t k = 0; k < select.group_by.size(); ++k) {
    ast::SelectItem item;
    item.expr = select.group_by[k];
    item.alias = "__g" + std::to_string(k + 1);
    item.position = select.group_by[k].position;
    inner.items.push_back(std::move(item));
    inner.group_by.push_back(select.group_by[k]);
    keys.push_back(ast::ToString(select.group_by[k]));
  }
  ast::SelectItem value;
  value.expr = *found.argument;
  value.alias = "__x";
  value.position = found.position;
  inner.items.push_back(std::move(value));
  inner.group_by.push_back(*found.argument);

  ast::Select outer;
  outer.position = select.position;
  ast::FromItem from;
  from.table.name = table;
  from.table.alias = table;
  from.table.position = from.table.alias_position = select.position;
  from.table.subquery = std::make_shared<const ast::Select>(std::move(inner));
  outer.from.push_back(std::move(from));
  for (const ast::SelectItem& item : select.items) {
    ast::SelectItem rewritten = item;
    if (item.kind != ast::SelectItem::Kind::kExpr)
      throw SqlError("SELECT * with COUNT(DISTINCT x) is not supported", item.position);
    rewritten.expr = Rewrite(item.expr, keys, table);
    // The output keeps the name its text gave it.
    if (!rewritten.alias) {
      if (item.expr.kind == ast::ExprKind::kColumn)
        rewritten.alias = item.expr.name;
      else
        rewritten.alias = sql_.substr(item.expr.position, item.expr.end - item.expr.position);
    }
    outer.items.push_back(std::move(rewritten));
  }
  for (std::size_t k = 0; k < select.group_by.size(); ++k)
    outer.group_by.push_back(ColumnOf(table, "__g" + std::to_string(k + 1), select.position));
  if (select.having) outer.having = Rewrite(*select.having, keys, table);
  for (const ast::OrderItem& item : select.order_by)
    outer.order_by.push_back({Rewrite(item.expr, keys, table), item.descending});
  outer.limit = select.limit;
  outer.offset = select.offset;
  return outer;
}

}  // namespace clq::sql::detail
