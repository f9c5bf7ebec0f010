// COUNT(DISTINCT x): the select becomes an aggregate over a derived table of
// its distinct (keys, x) pairs,
//   SELECT k, COUNT(DISTINCT x), SUM(v) FROM t WHERE w GROUP BY k
//   -> SELECT __g1, COUNT(__x), SUM(__p1)
//      FROM (SELECT k AS __g1, x AS __x, SUM(v) AS __p1 FROM t WHERE w
//            GROUP BY k, x) __cd GROUP BY __g1
// with the GROUP BY keys in the select list, HAVING and ORDER BY read from
// the derived table. Every COUNT(DISTINCT) must be of the same x. The other
// aggregates are computed per (keys, x) pair and combined: COUNT and SUM as
// the SUM of the pairs' (a COUNT over no pair 0), MIN and MAX as the MIN and
// MAX of the pairs', AVG as the SUM of the pairs' sums (REAL) over the SUM
// of their counts; MEDIAN and QUANTILE, which do not combine, are refused by name. An
// integer SUM whose total fits may still fail where a pair's partial sum
// does not, as SQLite's running sum may.
#include <optional>
#include <string>

#include "common/errors.hpp"
#include "sql/binder_internal.hpp"

namespace clq::sql::detail {
namespace {

struct DistinctCounts {
  const ast::Expr* argument = nullptr;  // the first COUNT(DISTINCT x)'s x
  const ast::Expr* quantile = nullptr;  // a MEDIAN or QUANTILE, which do not combine
  bool mismatch = false;
  std::size_t position = 0;
};

void Find(const ast::Expr& e, DistinctCounts& found) {
  if (e.kind == ast::ExprKind::kFunction) {
    if (!e.distinct) {
      if (e.function == AggregateFunction::kMedian || e.function == AggregateFunction::kQuantile)
        found.quantile = &e;
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

// An aggregate `function` of `argument` (none: COUNT(*)) at `at`'s text.
ast::Expr AggregateCall(AggregateFunction function, const char* name,
                        std::optional<ast::Expr> argument, const ast::Expr& at) {
  ast::Expr e;
  e.kind = ast::ExprKind::kFunction;
  e.function = function;
  e.name = name;
  e.position = at.position;
  e.op_position = at.op_position;
  e.end = at.end;
  if (argument) {
    e.height = argument->height + 1;
    e.children.push_back(std::move(*argument));
  }
  return e;
}

// The derived table's select and the partial aggregates it computes.
struct Partials {
  ast::Select& inner;
  const std::string& table;
  std::size_t count = 0;
  // Adds `partial` to the derived table's columns; returns its reference.
  ast::Expr Add(ast::Expr partial) {
    const std::string name = "__p" + std::to_string(++count);
    const std::size_t position = partial.position;
    ast::SelectItem item;
    item.expr = std::move(partial);
    item.alias = name;
    item.position = position;
    inner.items.push_back(std::move(item));
    return ColumnOf(table, name, position);
  }
};

// SUM(e), 0 where it is NULL (a COUNT over no pair).
ast::Expr SumOrZero(ast::Expr e, const ast::Expr& at) {
  ast::Expr sum = AggregateCall(AggregateFunction::kSum, "SUM", std::move(e), at);
  ast::Expr is_null = IsNull(sum, false);
  ast::Expr zero;
  zero.kind = ast::ExprKind::kLiteral;
  zero.literal = Value::Integer(0);
  zero.integer_literal = true;
  zero.position = zero.op_position = zero.end = at.position;
  ast::Expr chosen;
  chosen.kind = ast::ExprKind::kCase;
  chosen.has_else = true;
  chosen.position = chosen.op_position = at.position;
  chosen.end = at.end;
  chosen.height = is_null.height + 1;
  chosen.children.push_back(std::move(is_null));
  chosen.children.push_back(std::move(zero));
  chosen.children.push_back(std::move(sum));
  return chosen;
}

// The aggregate `e` (not DISTINCT) combined from its partials per pair.
ast::Expr Combined(const ast::Expr& e, Partials& partials) {
  switch (e.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return SumOrZero(partials.Add(e), e);
    case AggregateFunction::kSum:
    case AggregateFunction::kMin:
    case AggregateFunction::kMax:
      return AggregateCall(e.function, e.name.c_str(), partials.Add(e), e);
    case AggregateFunction::kAvg: {
      // The pairs' sums in REAL, as AVG sums where a total may pass 64 bits
      // (a DECIMAL's cast divides by its scale).
      ast::Expr real = Over(ast::ExprKind::kCast, e.children.at(0));
      real.cast_type = ValueType::kReal;
      ast::Expr sum =
          partials.Add(AggregateCall(AggregateFunction::kSum, "SUM", std::move(real), e));
      ast::Expr count =
          partials.Add(AggregateCall(AggregateFunction::kCount, "COUNT", e.children.at(0), e));
      return Binary(BinaryOp::kDivide,
                    AggregateCall(AggregateFunction::kSum, "SUM", std::move(sum), e),
                    AggregateCall(AggregateFunction::kSum, "SUM", std::move(count), e));
    }
    case AggregateFunction::kMedian:
    case AggregateFunction::kQuantile:
      break;
  }
  throw InternalError("an aggregate that does not combine beside COUNT(DISTINCT x)");
}

// `e` with each GROUP BY key (as written) read from the derived table,
// COUNT(DISTINCT x) as COUNT of its x column, and every other aggregate
// combined from its partials.
ast::Expr Rewrite(const ast::Expr& e, const std::vector<std::string>& keys, Partials& partials) {
  const std::string text = ast::ToString(e);
  for (std::size_t k = 0; k < keys.size(); ++k)
    if (text == keys[k]) return ColumnOf(partials.table, "__g" + std::to_string(k + 1), e.position);
  if (e.kind == ast::ExprKind::kFunction && e.distinct) {
    ast::Expr count = e;
    count.distinct = false;
    count.children = {ColumnOf(partials.table, "__x", e.position)};
    return count;
  }
  if (e.kind == ast::ExprKind::kFunction) return Combined(e, partials);
  ast::Expr out = e;
  if (e.kind == ast::ExprKind::kSubquery) return out;
  for (ast::Expr& child : out.children)
    child = Rewrite(child, keys, partials);
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
  if (found.mismatch)
    throw SqlError(
        "COUNT(DISTINCT x) is supported only when every COUNT(DISTINCT) of the "
        "SELECT is of the same x",
        found.position);
  if (found.quantile != nullptr)
    throw SqlError(
        std::string(found.quantile->function == AggregateFunction::kMedian ? "MEDIAN"
                                                                           : "QUANTILE") +
            " beside COUNT(DISTINCT x) is not supported",
        found.quantile->position);
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
  Partials partials{inner, table};
  for (const ast::SelectItem& item : select.items) {
    ast::SelectItem rewritten = item;
    if (item.kind != ast::SelectItem::Kind::kExpr)
      throw SqlError("SELECT * with COUNT(DISTINCT x) is not supported", item.position);
    rewritten.expr = Rewrite(item.expr, keys, partials);
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
  if (select.having) outer.having = Rewrite(*select.having, keys, partials);
  for (const ast::OrderItem& item : select.order_by)
    outer.order_by.push_back({Rewrite(item.expr, keys, partials), item.descending});
  outer.limit = select.limit;
  outer.offset = select.offset;
  // The derived table, now that the rewrites have added their partials.
  ast::FromItem from;
  from.table.name = table;
  from.table.alias = table;
  from.table.position = from.table.alias_position = select.position;
  from.table.subquery = std::make_shared<const ast::Select>(std::move(inner));
  outer.from.push_back(std::move(from));
  return outer;
}

}  // namespace clq::sql::detail
