// The select list, GROUP BY, HAVING and ORDER BY, and the rewrite that turns
// an aggregated query's outputs and HAVING into expressions over group keys
// and aggregates.
#include <cstdint>
#include <limits>

#include "common/errors.hpp"
#include "sql/binder_internal.hpp"
#include "sql/expr_equality.hpp"

namespace clq::sql::detail {

std::string Binder::Text(const ast::Expr& expr) const {
  if (expr.position >= sql_.size() || expr.end <= expr.position) return {};
  return std::string(sql_.substr(expr.position, expr.end - expr.position));
}

void Binder::BindSelectList(const std::vector<ast::SelectItem>& items) {
  for (const ast::SelectItem& item : items) {
    switch (item.kind) {
      case ast::SelectItem::Kind::kStar:
        if (sources_.empty()) throw SqlError("SELECT * requires a FROM clause", item.position);
        for (std::size_t s = 0; s < sources_.size(); ++s)
          if (!sources_[s].generated) ExpandStar(s, item.position);
        break;
      case ast::SelectItem::Kind::kTableStar:
        ExpandStar(FindSource(item.qualifier, item.position, nullptr), item.position);
        break;
      case ast::SelectItem::Kind::kExpr: {
        Expr bound = BindExpr(item.expr, Context(Clause::kSelect));
        std::string name;
        if (item.alias) {
          name = *item.alias;
        } else if (item.expr.kind == ast::ExprKind::kColumn &&
                   bound.kind == Expr::Kind::kColumnRef) {
          name = (*sources_[bound.source].schema)[bound.index].name;
        } else {
          name = Text(item.expr);
        }
        select_.outputs.push_back(OutputColumn{std::move(name), std::move(bound)});
        output_aliases_.push_back(item.alias);
        break;
      }
    }
  }
}

void Binder::ExpandStar(std::size_t source, std::size_t position) {
  const Schema& schema = *sources_[source].schema;
  for (std::size_t c = 0; c < schema.size(); ++c) {
    Expr column;
    column.kind = Expr::Kind::kColumnRef;
    column.source = source;
    column.index = c;
    column.type = ValueTypeOf(schema[c].type);
    column.logical = schema[c].type.logical;
    column.position = position;
    select_.outputs.push_back(OutputColumn{schema[c].name, std::move(column)});
    output_aliases_.push_back(std::nullopt);
  }
}

std::optional<std::size_t> Binder::SelectPosition(const ast::Expr& term, const char* clause) const {
  // SQLite's rule: an integer literal of at most 2^31 - 1 under any unary
  // signs names a position (`-1` is refused, `+2` is the second column); a
  // larger literal is a constant expression.
  const ast::Expr* node = &term;
  bool negative = false;
  while (node->kind == ast::ExprKind::kUnary && node->unary_op != ast::UnaryOperator::kNot) {
    if (node->unary_op == ast::UnaryOperator::kMinus) negative = !negative;
    node = &node->children[0];
  }
  if (node->kind != ast::ExprKind::kLiteral || !node->integer_literal ||
      node->literal.type != ValueType::kInteger ||
      node->literal.integer > std::numeric_limits<std::int32_t>::max())
    return std::nullopt;
  const std::int64_t position = negative ? -node->literal.integer : node->literal.integer;
  const std::size_t count = select_.visible_outputs;
  if (position < 1 || static_cast<std::uint64_t>(position) > count) {
    throw SqlError(std::string(clause) + " position " + std::to_string(position) +
                       " is out of range (the select list has " + std::to_string(count) +
                       (count == 1 ? " column)" : " columns)"),
                   term.position);
  }
  return static_cast<std::size_t>(position - 1);
}

void Binder::BindGroupBy(const std::vector<ast::Expr>& terms) {
  for (const ast::Expr& term : terms) {
    Expr key;
    if (const std::optional<std::size_t> position = SelectPosition(term, "GROUP BY")) {
      key = select_.outputs[*position].expr;
      if (ContainsKind(key, Expr::Kind::kAggregateRef)) {
        throw SqlError("aggregate functions are not allowed in GROUP BY (select list item " +
                           std::to_string(*position + 1) + " contains one)",
                       term.position);
      }
      key.position = term.position;
    } else {
      key = BindExpr(term, Context(Clause::kGroupBy));
    }
    bool duplicate = false;
    for (const Expr& existing : select_.group_keys)
      duplicate |= StructurallyEqual(existing, key);
    if (!duplicate) select_.group_keys.push_back(std::move(key));
  }
}

void Binder::BindHaving(const ast::Select& select) {
  if (select.having) select_.having = BindCondition(*select.having, Context(Clause::kHaving));
}

void Binder::BindOrderBy(const std::vector<ast::OrderItem>& items) {
  for (const ast::OrderItem& item : items) {
    const ast::Expr& term = item.expr;
    std::optional<std::size_t> target;
    // A term that is exactly an output alias names that output, even where
    // a FROM column has the same name.
    if (term.kind == ast::ExprKind::kColumn && term.qualifier.empty()) {
      for (std::size_t i = 0; i < output_aliases_.size(); ++i) {
        if (!output_aliases_[i] || !IdentifierEquals(*output_aliases_[i], term.name)) continue;
        if (target) throw SqlError("output alias '" + term.name + "' is ambiguous", term.position);
        target = i;
      }
    }
    if (!target) target = SelectPosition(term, "ORDER BY");
    if (!target) {
      Expr bound = BindExpr(term, Context(Clause::kOrderBy));
      for (std::size_t i = 0; i < select_.outputs.size() && !target; ++i)
        if (StructurallyEqual(select_.outputs[i].expr, bound)) target = i;
      if (!target) {
        if (select_.distinct) {
          throw SqlError("for SELECT DISTINCT, ORDER BY terms must appear in the select list",
                         term.position);
        }
        select_.outputs.push_back(OutputColumn{Text(term), std::move(bound)});
        target = select_.outputs.size() - 1;
      }
    }
    Expr ref;
    ref.kind = Expr::Kind::kOutputRef;
    ref.index = *target;
    ref.type = select_.outputs[*target].expr.type;
    ref.logical = select_.outputs[*target].expr.logical;
    ref.position = term.position;
    select_.order_by.push_back(OrderKey{std::move(ref), item.descending});
  }
}

void Binder::RewriteAggregated() {
  for (OutputColumn& output : select_.outputs)
    output.expr = RewriteOverGroups(std::move(output.expr));
  if (select_.having) select_.having = RewriteOverGroups(std::move(*select_.having));
}

// Top-down, so that the largest subexpression equal to a group key is the
// one replaced: with GROUP BY a + b, the output (a + b) * 2 becomes #g0 * 2.
Expr Binder::RewriteOverGroups(Expr expr) const {
  if (expr.kind == Expr::Kind::kAggregateRef) return expr;
  for (std::size_t i = 0; i < select_.group_keys.size(); ++i) {
    if (!StructurallyEqual(expr, select_.group_keys[i])) continue;
    Expr ref;
    ref.kind = Expr::Kind::kGroupRef;
    ref.index = i;
    ref.type = select_.group_keys[i].type;
    ref.logical = select_.group_keys[i].logical;
    ref.position = expr.position;
    return ref;
  }
  if (expr.kind == Expr::Kind::kColumnRef) {
    throw SqlError("column '" + ColumnName(expr.source, expr.index) +
                       "' must appear in GROUP BY or be used in an aggregate function",
                   expr.position);
  }
  for (Expr& child : expr.children)
    child = RewriteOverGroups(std::move(child));
  return expr;
}

}  // namespace clq::sql::detail
