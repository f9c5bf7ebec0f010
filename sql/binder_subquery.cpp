// Subqueries. Each becomes an uncorrelated SELECT the query runs first
// (BoundSelect::subqueries): a derived table in FROM, or a scalar value.
//
// Correlated and IN subqueries are decorrelated here, on the syntax tree,
// before the select is bound (the classic rewrites into joins):
//   x IN (SELECT e FROM ... WHERE w)       -> join (SELECT DISTINCT e AS __k0 ...) d ON x = d.__k0
//   EXISTS (SELECT ... WHERE i = o AND w)  -> join (SELECT DISTINCT i AS __k1 ... WHERE w) d
//                                             ON o = d.__k1
//   a < (SELECT agg FROM ... WHERE i = o AND w)
//                                          -> join (SELECT i AS __k1, agg AS __v ... WHERE w
//                                             GROUP BY i) d ON o = d.__k1, and a < d.__v
//   NOT EXISTS (SELECT ... WHERE i = o AND w)
//                                          -> LEFT JOIN (SELECT DISTINCT i AS __k1 ... WHERE w) d
//                                             ON o = d.__k1, and d.__k1 IS NULL (an anti join)
//   [NOT] EXISTS (... WHERE i = o AND j <> p AND w)
//                                          -> [LEFT] JOIN (SELECT i AS __k1, MIN(j) AS __min,
//                                             MAX(j) AS __max ... WHERE w AND j IS NOT NULL
//                                             GROUP BY i) d ON o = d.__k1, and
//                                             EXISTS: d.__min <> p OR d.__max <> p;
//                                             NOT EXISTS: d.__k1 IS NULL OR (d.__min = p AND
//                                             d.__max = p) OR p IS NULL
// DISTINCT keeps a semi join from multiplying rows. Each must be a conjunct
// of the WHERE clause's top level, where dropping a row without a match is
// what the predicate does; a correlation must be an equality of an inner and
// an outer expression (and, in [NOT] EXISTS, at most one inequality <>).
// Where those do not hold (a correlated NOT IN, COUNT of a correlated
// group, a correlation under OR) the binder says so.
#include <algorithm>

#include "common/errors.hpp"
#include "sql/binder_internal.hpp"

namespace clq::sql::detail {

namespace {

// The names one SELECT's FROM clause brings into scope.
struct Scope {
  std::vector<std::string> aliases;
  std::vector<std::vector<std::string>> columns;  // per FROM item; empty: unknown (any name)
};

std::vector<std::string> OutputNames(const ast::Select& select) {
  std::vector<std::string> names;
  for (const ast::SelectItem& item : select.items) {
    if (item.kind != ast::SelectItem::Kind::kExpr) return {};
    if (item.alias) {
      names.push_back(*item.alias);
    } else if (item.expr.kind == ast::ExprKind::kColumn) {
      names.push_back(item.expr.name);
    } else {
      names.push_back({});
    }
  }
  return names;
}

bool Contains(const std::vector<std::string>& names, std::string_view name) {
  return std::any_of(names.begin(), names.end(),
                     [&](const std::string& n) { return IdentifierEquals(n, name); });
}

enum Side : unsigned { kNeither = 0, kInner = 1, kOuter = 2, kBoth = 3 };

ast::Expr Equality(ast::Expr left, ast::Expr right) {
  return Binary(BinaryOp::kEqual, std::move(left), std::move(right));
}

ast::Expr Aggregate(AggregateFunction function, ast::Expr argument) {
  ast::Expr e = Over(ast::ExprKind::kFunction, std::move(argument));
  e.function = function;
  return e;
}

// A correlated NOT EXISTS: `NOT EXISTS (...)` at the top of a WHERE.
const ast::Expr* NotExistsSubquery(const ast::Expr& c) {
  if (c.kind != ast::ExprKind::kUnary || c.unary_op != ast::UnaryOperator::kNot) return nullptr;
  const ast::Expr& child = c.children.at(0);
  if (child.kind != ast::ExprKind::kSubquery || child.subquery_kind != ast::SubqueryKind::kExists)
    return nullptr;
  return &child;
}

bool HasAggregate(const ast::Expr& e) {
  if (e.kind == ast::ExprKind::kFunction) return true;
  return std::any_of(e.children.begin(), e.children.end(), HasAggregate);
}

bool CountsRows(const ast::Expr& e) {
  if (e.kind == ast::ExprKind::kFunction &&
      (e.function == AggregateFunction::kCount || e.function == AggregateFunction::kCountStar))
    return true;
  return std::any_of(e.children.begin(), e.children.end(), CountsRows);
}

}  // namespace

void SplitAnd(const ast::Expr& e, std::vector<const ast::Expr*>& out) {
  if (e.kind == ast::ExprKind::kBinary && e.binary_op == BinaryOp::kAnd) {
    SplitAnd(e.children[0], out);
    SplitAnd(e.children[1], out);
  } else {
    out.push_back(&e);
  }
}

ast::Expr AndAll(std::vector<ast::Expr> parts) {
  ast::Expr result = std::move(parts.at(0));
  for (std::size_t i = 1; i < parts.size(); ++i) {
    ast::Expr both;
    both.kind = ast::ExprKind::kBinary;
    both.binary_op = BinaryOp::kAnd;
    both.position = result.position;
    both.op_position = parts[i].position;
    both.end = std::max(result.end, parts[i].end);
    both.height = std::max(result.height, parts[i].height) + 1;
    both.children.push_back(std::move(result));
    both.children.push_back(std::move(parts[i]));
    result = std::move(both);
  }
  return result;
}

ast::Expr Binary(BinaryOp op, ast::Expr left, ast::Expr right) {
  ast::Expr e;
  e.kind = ast::ExprKind::kBinary;
  e.binary_op = op;
  e.position = left.position;
  e.op_position = left.position;
  e.end = std::max(left.end, right.end);
  e.height = std::max(left.height, right.height) + 1;
  e.children.push_back(std::move(left));
  e.children.push_back(std::move(right));
  return e;
}

ast::Expr Over(ast::ExprKind kind, ast::Expr child) {
  ast::Expr e;
  e.kind = kind;
  e.position = e.op_position = child.position;
  e.end = child.end;
  e.height = child.height + 1;
  e.children.push_back(std::move(child));
  return e;
}

ast::Expr IsNull(ast::Expr value, bool negated) {
  ast::Expr e = Over(ast::ExprKind::kIsNull, std::move(value));
  e.negated = negated;
  return e;
}

ast::Expr ColumnOf(const std::string& table, const std::string& column, std::size_t position) {
  ast::Expr e;
  e.kind = ast::ExprKind::kColumn;
  e.qualifier = table;
  e.name = column;
  e.position = e.op_position = e.end = position;
  return e;
}

const ast::CommonTable* Binder::FindCommonTable(std::string_view name) const {
  for (const ast::CommonTable& table : with_)
    if (IdentifierEquals(table.name, name)) return &table;
  return nullptr;
}

BoundSelect Binder::BindChild(const ast::Select& select) const {
  Binder child(catalog_, sql_);
  child.with_ = with_;
  child.generated_selects_ = generated_selects_;
  return child.BindSelect(select);
}

Expr Binder::BindScalarSubquery(const ast::Expr& expr, const ExprContext& context) {
  if (expr.subquery_kind == ast::SubqueryKind::kExists) {
    // Not a top-level conjunct (or under NOT): uncorrelated, it is
    // (SELECT COUNT(*) ...) > 0.
    ast::Select counted = *expr.subquery;
    ast::SelectItem count;
    count.expr.kind = ast::ExprKind::kFunction;
    count.expr.function = AggregateFunction::kCountStar;
    count.expr.position = count.expr.op_position = expr.position;
    count.position = expr.position;
    counted.items = {std::move(count)};
    counted.order_by.clear();
    if (!counted.group_by.empty() || counted.having || counted.limit)
      throw SqlError(
          "EXISTS over a grouped or limited subquery is supported only as a condition "
          "ANDed at the top of WHERE",
          expr.op_position);
    std::shared_ptr<BoundSelect> select;
    try {
      select = std::make_shared<BoundSelect>(BindChild(counted));
    } catch (const SqlError& error) {
      throw SqlError(std::string("EXISTS here must be uncorrelated (only an [NOT] EXISTS ANDed at "
                                 "the top of WHERE becomes a join): ") +
                         error.what(),
                     expr.op_position);
    }
    Expr value;
    value.kind = Expr::Kind::kSubqueryValue;
    value.index = select_.subqueries.size();
    value.type = ValueType::kInteger;
    value.position = expr.position;
    select_.subqueries.push_back(Subquery{std::move(select), std::nullopt});
    return MakeBoolean(BinaryOp::kGreater, std::move(value), MakeConstant(Value::Integer(0), 0),
                       expr.position);
  }
  std::shared_ptr<BoundSelect> select;
  try {
    select = std::make_shared<BoundSelect>(BindChild(*expr.subquery));
  } catch (const SqlError& error) {
    if (expr.subquery_kind != ast::SubqueryKind::kIn) throw;
    throw SqlError(std::string(expr.negated ? "NOT IN" : "IN") +
                       " (subquery) here must be uncorrelated (only a top-level IN becomes a "
                       "join): " +
                       error.what(),
                   expr.op_position);
  }
  if (select->visible_outputs != 1)
    throw SqlError("a scalar or IN subquery must select one column, not " +
                       std::to_string(select->visible_outputs),
                   expr.position);
  Expr value;
  value.kind = Expr::Kind::kSubqueryValue;
  value.index = select_.subqueries.size();
  value.type = select->outputs[0].expr.type;
  value.logical = select->outputs[0].expr.logical;
  value.position = expr.position;
  const bool list = expr.subquery_kind == ast::SubqueryKind::kIn;
  select_.subqueries.push_back(Subquery{std::move(select), std::nullopt, list});
  if (!list) return value;
  // x [NOT] IN (subquery), as an IN list of the subquery's values.
  Expr in;
  in.kind = Expr::Kind::kInList;
  in.type = ValueType::kInteger;
  in.negated = expr.negated;
  in.position = expr.position;
  in.children.push_back(BindExpr(expr.children.at(0), context));
  in.children.push_back(std::move(value));
  TypeComparison(in.children, expr.op_position);
  if (in.children[1].kind != Expr::Kind::kSubqueryValue)
    throw SqlError(
        "the subquery's values need another scale or type than the value they are "
        "compared with; CAST one of them",
        expr.op_position);
  const ValueType a = in.children[0].type, b = in.children[1].type;
  if (a != ValueType::kNull && b != ValueType::kNull &&
      (a == ValueType::kText) != (b == ValueType::kText))
    throw SqlError(std::string("cannot compare ") + ValueTypeName(a) + " with " + ValueTypeName(b),
                   expr.op_position);
  return in;
}

void Binder::BindDerived(const ast::TableRef& ref, const ast::Select& select,
                         const std::vector<std::string>& column_aliases, bool generated) {
  std::shared_ptr<BoundSelect> inner;
  if (generated) {
    std::shared_ptr<BoundSelect>& same = (*generated_selects_)[ast::ToString(select)];
    if (!same) same = std::make_shared<BoundSelect>(BindChild(select));
    inner = same;
  } else {
    inner = std::make_shared<BoundSelect>(BindChild(select));
  }
  const std::size_t columns = inner->visible_outputs;
  if (!column_aliases.empty() && column_aliases.size() != columns)
    throw SqlError("the derived table '" + ref.alias.value_or(ref.name) + "' has " +
                       std::to_string(columns) + " columns but " +
                       std::to_string(column_aliases.size()) + " names",
                   ref.alias_position);
  Schema schema;
  for (std::size_t c = 0; c < columns; ++c) {
    const Expr& e = inner->outputs[c].expr;
    ColumnSpec spec;
    spec.name = column_aliases.empty() ? inner->outputs[c].name : column_aliases[c];
    for (const ColumnSpec& earlier : schema)
      if (IdentifierEquals(earlier.name, spec.name))
        throw SqlError("the derived table '" + ref.alias.value_or(ref.name) +
                           "' has two columns named '" + spec.name +
                           "'; name its columns with AS alias (a, b, ...)",
                       ref.alias_position);
    // The placeholder's types; the rows come when the subquery runs (a CHAR's
    // width with them).
    spec.type = StoredTypeOf(e.type, e.logical, 1);
    spec.nullable = true;
    schema.push_back(std::move(spec));
  }
  const std::string alias = ref.alias.value_or(ref.name);
  for (const Source& earlier : sources_)
    if (IdentifierEquals(earlier.alias, alias))
      throw SqlError("table alias '" + alias + "' is used twice in FROM", ref.alias_position);
  derived_schemas_.push_back(schema);
  Source source{alias, alias, &derived_schemas_.back(), true, generated};
  sources_.push_back(std::move(source));
  select_.from.push_back(TableRef{TableBuilder(alias, schema, 0).Finish(), alias});
  select_.subqueries.push_back(Subquery{std::move(inner), select_.from.size() - 1});
}

ast::Select Binder::Decorrelate(const ast::Select& original) {
  if (!original.where) return original;
  std::vector<const ast::Expr*> conjuncts;
  SplitAnd(*original.where, conjuncts);
  auto is_subquery_conjunct = [](const ast::Expr& c) {
    if (c.kind == ast::ExprKind::kSubquery) return c.subquery_kind != ast::SubqueryKind::kScalar;
    if (NotExistsSubquery(c)) return true;
    return c.kind == ast::ExprKind::kBinary && c.children.size() == 2 &&
           (c.children[0].kind == ast::ExprKind::kSubquery ||
            c.children[1].kind == ast::ExprKind::kSubquery);
  };
  if (std::none_of(conjuncts.begin(), conjuncts.end(),
                   [&](const ast::Expr* c) { return is_subquery_conjunct(*c); }))
    return original;

  ast::Select select = original;
  std::vector<ast::Expr> where;

  // The scope of a subquery: its FROM tables' aliases and column names.
  auto scope_of = [&](const ast::Select& inner) {
    Scope scope;
    for (const ast::FromItem& item : inner.from) {
      const ast::TableRef& ref = item.table;
      scope.aliases.push_back(ref.alias.value_or(ref.name));
      std::vector<std::string> names = ref.column_aliases;
      if (names.empty() && ref.subquery) names = OutputNames(*ref.subquery);
      if (names.empty()) {
        if (const ast::CommonTable* common = FindCommonTable(ref.name)) {
          names = common->column_aliases.empty() ? OutputNames(*common->select)
                                                 : common->column_aliases;
        } else if (const Schema* schema = catalog_.FindSchema(ref.name)) {
          for (const ColumnSpec& spec : *schema)
            names.push_back(spec.name);
        }
      }
      scope.columns.push_back(std::move(names));
    }
    return scope;
  };
  // Which scope's columns an expression reads (a nested subquery counts as
  // the inner one's).
  auto side_of = [&](const ast::Expr& e, const Scope& scope, auto&& self) -> unsigned {
    if (e.kind == ast::ExprKind::kSubquery) {
      unsigned side = kNeither;
      for (const ast::Expr& child : e.children)
        side |= self(child, scope, self);
      return side | kInner;
    }
    if (e.kind == ast::ExprKind::kColumn) {
      if (!e.qualifier.empty()) return Contains(scope.aliases, e.qualifier) ? kInner : kOuter;
      for (const std::vector<std::string>& names : scope.columns)
        if (names.empty() || Contains(names, e.name)) return kInner;
      return kOuter;
    }
    unsigned side = kNeither;
    for (const ast::Expr& child : e.children)
      side |= self(child, scope, self);
    return side;
  };

  // Splits a subquery's WHERE: conditions on its own rows stay in it,
  // conditions on the outer rows only move out, and each correlation
  // (inner = outer) becomes a key of the derived table.
  struct Correlated {
    std::vector<ast::Expr> inner_keys, outer_keys, inner_where, outer_where;
    // An [NOT] EXISTS's one `inner <> outer` correlation, if any.
    std::optional<ast::Expr> inner_other, outer_other;
  };
  auto split_correlation = [&](const ast::Select& inner, const ast::Expr& at,
                               bool allow_not_equal) {
    Correlated out;
    if (!inner.where) return out;
    const Scope scope = scope_of(inner);
    std::vector<const ast::Expr*> parts;
    SplitAnd(*inner.where, parts);
    for (const ast::Expr* part : parts) {
      const unsigned side = side_of(*part, scope, side_of);
      if ((side & kOuter) == 0) {
        out.inner_where.push_back(*part);
        continue;
      }
      if (side == kOuter) {
        out.outer_where.push_back(*part);
        continue;
      }
      if (part->kind == ast::ExprKind::kBinary && part->binary_op == BinaryOp::kEqual) {
        const unsigned left = side_of(part->children[0], scope, side_of);
        const unsigned right = side_of(part->children[1], scope, side_of);
        if (left == kInner && right == kOuter) {
          out.inner_keys.push_back(part->children[0]);
          out.outer_keys.push_back(part->children[1]);
          continue;
        }
        if (left == kOuter && right == kInner) {
          out.inner_keys.push_back(part->children[1]);
          out.outer_keys.push_back(part->children[0]);
          continue;
        }
      }
      if (allow_not_equal && !out.inner_other && part->kind == ast::ExprKind::kBinary &&
          part->binary_op == BinaryOp::kNotEqual) {
        const unsigned left = side_of(part->children[0], scope, side_of);
        const unsigned right = side_of(part->children[1], scope, side_of);
        if ((left == kInner && right == kOuter) || (left == kOuter && right == kInner)) {
          out.inner_other = part->children[left == kInner ? 0 : 1];
          out.outer_other = part->children[left == kInner ? 1 : 0];
          continue;
        }
      }
      throw SqlError(
          std::string("a correlated subquery's condition must be an equality of an inner and an "
                      "outer expression") +
              (allow_not_equal ? " (or, once in an EXISTS, an inequality <>)" : "") +
              ", ANDed with the others (this one is not)",
          part->position != 0 ? part->position : at.position);
    }
    return out;
  };

  // An [NOT] EXISTS correlated by `i <> o` too: per key, the least and the
  // greatest non-NULL i (as __min, __max), since a NULL i differs from
  // nothing.
  auto min_max_of = [](ast::Select inner, Correlated& correlation) {
    const ast::Expr& value = *correlation.inner_other;
    inner.distinct = false;
    inner.items.clear();
    for (const auto& [function, name] : {std::pair{AggregateFunction::kMin, "__min"},
                                         std::pair{AggregateFunction::kMax, "__max"}}) {
      ast::SelectItem item;
      item.expr = Aggregate(function, value);
      item.expr.name = function == AggregateFunction::kMin ? "MIN" : "MAX";
      item.alias = name;
      item.position = value.position;
      inner.items.push_back(std::move(item));
    }
    inner.group_by = correlation.inner_keys;
    correlation.inner_where.push_back(IsNull(value, true));
    return inner;
  };
  auto differs = [](const std::string& alias, const ast::Expr& outer, std::size_t at) {
    return Binary(BinaryOp::kOr, Binary(BinaryOp::kNotEqual, ColumnOf(alias, "__min", at), outer),
                  Binary(BinaryOp::kNotEqual, ColumnOf(alias, "__max", at), outer));
  };

  // Joins the derived table `inner` (its keys added as __k1, __k2, ...) on
  // the correlation's keys: in the WHERE, or as a LEFT JOIN's ON (`outer`).
  auto add_derived = [&](ast::Select inner, const Correlated& correlation, std::size_t position,
                         bool outer = false) -> std::string {
    const std::string alias = "__sq" + std::to_string(++generated_tables_);
    std::vector<ast::Expr> on;
    std::vector<ast::Expr>& conditions = outer ? on : where;
    for (std::size_t k = 0; k < correlation.inner_keys.size(); ++k) {
      ast::SelectItem item;
      item.expr = correlation.inner_keys[k];
      item.alias = "__k" + std::to_string(k + 1);
      item.position = position;
      inner.items.push_back(std::move(item));
      conditions.push_back(Equality(correlation.outer_keys[k],
                                    ColumnOf(alias, "__k" + std::to_string(k + 1), position)));
    }
    std::vector<ast::Expr> inner_where = correlation.inner_where;
    if (std::optional<ast::Expr> domain =
            SubqueryDomain(original, correlation.inner_keys, correlation.outer_keys))
      inner_where.push_back(std::move(*domain));
    inner.where.reset();
    if (!inner_where.empty()) inner.where = AndAll(std::move(inner_where));
    for (const ast::Expr& e : correlation.outer_where)
      conditions.push_back(e);
    ast::FromItem from;
    if (outer) {
      from.left_outer = true;
      from.on = AndAll(std::move(on));
    }
    from.table.name = alias;
    from.table.alias = alias;
    from.table.position = from.table.alias_position = position;
    from.table.subquery = std::make_shared<const ast::Select>(std::move(inner));
    from.table.generated = true;
    select.from.push_back(std::move(from));
    return alias;
  };

  for (const ast::Expr* conjunct : conjuncts) {
    const ast::Expr& c = *conjunct;
    if (c.kind == ast::ExprKind::kSubquery && c.subquery_kind != ast::SubqueryKind::kScalar &&
        !c.negated) {
      const ast::Select& sub = *c.subquery;
      const bool exists = c.subquery_kind == ast::SubqueryKind::kExists;
      const bool aggregated =
          !sub.group_by.empty() || sub.having ||
          std::any_of(sub.items.begin(), sub.items.end(), [](const ast::SelectItem& i) {
            return i.kind == ast::SelectItem::Kind::kExpr && HasAggregate(i.expr);
          });
      if (sub.limit)
        throw SqlError("LIMIT in an IN or EXISTS subquery is not supported", c.position);
      Correlated correlation = split_correlation(sub, c, exists);
      if (aggregated && !correlation.inner_keys.empty())
        throw SqlError(
            "a correlated subquery with GROUP BY or aggregates under IN or EXISTS "
            "is not supported",
            c.position);
      ast::Select inner = sub;
      inner.distinct = true;
      inner.order_by.clear();
      inner.items.clear();
      if (exists) {
        if (aggregated)
          throw SqlError("EXISTS over an aggregated subquery is not supported", c.position);
        if (correlation.inner_keys.empty()) {
          // Uncorrelated: true for every row or for none; a join has no key.
          throw SqlError(
              "an uncorrelated EXISTS is not supported (write the condition as "
              "(SELECT COUNT(*) ...) > 0)",
              c.position);
        }
      } else {
        if (sub.items.size() != 1 || sub.items[0].kind != ast::SelectItem::Kind::kExpr)
          throw SqlError("an IN subquery must select one column", c.position);
        ast::SelectItem value = sub.items[0];
        value.alias = "__k0";
        inner.items.push_back(std::move(value));
      }
      if (correlation.inner_other) {
        // EXISTS (... AND i <> o): some row of the key has an i other
        // than o, which its least or its greatest i shows.
        ast::Select grouped = min_max_of(std::move(inner), correlation);
        const std::string alias = add_derived(std::move(grouped), correlation, c.position);
        where.push_back(differs(alias, *correlation.outer_other, c.position));
        continue;
      }
      const std::string alias = add_derived(std::move(inner), correlation, c.position);
      if (!exists) where.push_back(Equality(c.children[0], ColumnOf(alias, "__k0", c.position)));
      continue;
    }
    if (const ast::Expr* not_exists = NotExistsSubquery(c)) {
      // NOT EXISTS, correlated: a LEFT JOIN with the keys that have rows
      // (an anti join), keeping the rows that found none. Uncorrelated, it
      // stays a COUNT(*) subquery (BindScalarSubquery).
      const ast::Select& sub = *not_exists->subquery;
      Correlated correlation = split_correlation(sub, *not_exists, true);
      if (correlation.inner_keys.empty()) {
        if (correlation.inner_other)
          throw SqlError(
              "a NOT EXISTS correlated by <> alone is not supported (it needs an equality too)",
              not_exists->position);
        where.push_back(c);
        continue;
      }
      if (sub.limit || !sub.group_by.empty() || sub.having ||
          std::any_of(sub.items.begin(), sub.items.end(), [](const ast::SelectItem& i) {
            return i.kind == ast::SelectItem::Kind::kExpr && HasAggregate(i.expr);
          }))
        throw SqlError(
            "a correlated NOT EXISTS over GROUP BY, aggregates or LIMIT is not supported",
            not_exists->position);
      ast::Select inner = sub;
      inner.items.clear();
      inner.order_by.clear();
      const std::size_t at = not_exists->position;
      if (correlation.inner_other) {
        // No row of the key, or all of its i equal to o (a NULL o differs
        // from nothing).
        ast::Select grouped = min_max_of(std::move(inner), correlation);
        const std::string alias = add_derived(std::move(grouped), correlation, at, true);
        std::vector<ast::Expr> same;
        same.push_back(Equality(ColumnOf(alias, "__min", at), *correlation.outer_other));
        same.push_back(Equality(ColumnOf(alias, "__max", at), *correlation.outer_other));
        where.push_back(Binary(BinaryOp::kOr,
                               Binary(BinaryOp::kOr, IsNull(ColumnOf(alias, "__k1", at), false),
                                      AndAll(std::move(same))),
                               IsNull(*correlation.outer_other, false)));
        continue;
      }
      inner.distinct = true;
      const std::string alias = add_derived(std::move(inner), correlation, at, true);
      where.push_back(IsNull(ColumnOf(alias, "__k1", at), false));
      continue;
    }
    if (c.kind == ast::ExprKind::kBinary && c.children.size() == 2 &&
        c.binary_op != BinaryOp::kAnd && c.binary_op != BinaryOp::kOr) {
      const int at = c.children[1].kind == ast::ExprKind::kSubquery   ? 1
                     : c.children[0].kind == ast::ExprKind::kSubquery ? 0
                                                                      : -1;
      if (at >= 0 && c.children[at].subquery_kind == ast::SubqueryKind::kScalar) {
        const ast::Select& sub = *c.children[at].subquery;
        Correlated correlation = split_correlation(sub, c.children[at], false);
        if (!correlation.inner_keys.empty()) {
          if (sub.items.size() != 1 || sub.items[0].kind != ast::SelectItem::Kind::kExpr ||
              !HasAggregate(sub.items[0].expr) || !sub.group_by.empty() || sub.having || sub.limit)
            throw SqlError(
                "a correlated scalar subquery must select one aggregate, without GROUP BY, "
                "HAVING or LIMIT",
                c.children[at].position);
          if (CountsRows(sub.items[0].expr))
            throw SqlError(
                "COUNT in a correlated scalar subquery is not supported (a key without rows "
                "would count 0)",
                c.children[at].position);
          ast::Select inner = sub;
          inner.items.clear();
          inner.order_by.clear();
          ast::SelectItem value = sub.items[0];
          value.alias = "__v";
          inner.items.push_back(std::move(value));
          for (const ast::Expr& key : correlation.inner_keys)
            inner.group_by.push_back(key);
          const std::string alias =
              add_derived(std::move(inner), correlation, c.children[at].position);
          ast::Expr replaced = c;
          replaced.children[at] = ColumnOf(alias, "__v", c.children[at].position);
          where.push_back(std::move(replaced));
          continue;
        }
      }
    }
    where.push_back(c);
  }
  select.where = AndAll(std::move(where));
  return select;
}

}  // namespace clq::sql::detail
