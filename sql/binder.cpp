#include "sql/binder.hpp"

#include "common/errors.hpp"
#include "sql/binder_internal.hpp"
#include "sql/common_conjuncts.hpp"
#include "sql/name_suggestion.hpp"

namespace clq::sql {
namespace detail {

const char* ClauseName(Clause clause) {
  switch (clause) {
    case Clause::kSelect:
      return "the select list";
    case Clause::kWhere:
      return "WHERE";
    case Clause::kOn:
      return "ON";
    case Clause::kGroupBy:
      return "GROUP BY";
    case Clause::kHaving:
      return "HAVING";
    case Clause::kOrderBy:
      return "ORDER BY";
  }
  return "?";
}

Binder::Binder(Catalog& catalog, std::string_view sql) : catalog_(catalog), sql_(sql) {}

ExprContext Binder::Context(Clause clause) const {
  ExprContext context;
  context.clause = clause;
  context.visible_sources = sources_.size();
  context.allow_aggregates =
      clause == Clause::kSelect || clause == Clause::kHaving || clause == Clause::kOrderBy;
  context.allow_aliases =
      clause == Clause::kGroupBy || clause == Clause::kHaving || clause == Clause::kOrderBy;
  return context;
}

BoundStatement Binder::BindStatement(const ast::Statement& statement) {
  with_ = statement.with;
  BoundStatement bound;
  bound.explain = statement.explain;
  bound.select = BindSelect(statement.select);
  bound.text = std::string(sql_);
  return bound;
}

BoundSelect Binder::BindSelect(const ast::Select& original) {
  const ast::Select select = Decorrelate(RewriteCountDistinct(original));
  ast_select_ = &select;
  BindFrom(select.from);
  BindWhere(select);
  BindSelectList(select.items);
  select_.visible_outputs = select_.outputs.size();
  select_.distinct = select.distinct;
  BindGroupBy(select.group_by);
  BindHaving(select);
  BindOrderBy(select.order_by);
  select_.aggregated = !select_.group_keys.empty() || !select_.aggregates.empty();
  if (select_.having && !select_.aggregated) {
    throw SqlError("HAVING requires GROUP BY or an aggregate function", select.having->position);
  }
  if (select_.aggregated) RewriteAggregated();
  if (select.limit) select_.limit = BindCount(*select.limit, "LIMIT");
  if (select.offset) select_.offset = BindCount(*select.offset, "OFFSET");

  // Only now, with the statement known to be valid, materialise its tables
  // (a correlated subquery's keys have asked for the row counts of the outer
  // tables already: sql/binder_subquery_domain.cpp).
  for (std::size_t i = 0; i < sources_.size(); ++i)
    if (!sources_[i].derived) select_.from[i].table = catalog_.Get(sources_[i].table_name);
  ast_select_ = nullptr;
  return std::move(select_);
}

void Binder::BindFrom(const std::vector<ast::FromItem>& from) {
  for (const ast::FromItem& item : from) {
    const ast::TableRef& ref = item.table;
    if (ref.subquery) {
      BindDerived(ref, *ref.subquery, ref.column_aliases, ref.generated);
      continue;
    }
    if (const ast::CommonTable* common = FindCommonTable(ref.name)) {
      BindDerived(ref, *common->select,
                  ref.column_aliases.empty() ? common->column_aliases : ref.column_aliases, false);
      continue;
    }
    const Schema* schema = catalog_.FindSchema(ref.name);
    if (schema == nullptr) {
      throw SqlError("no table named '" + ref.name + "'" + DidYouMean(ref.name, catalog_.Names()),
                     ref.position);
    }
    Source source{ref.alias.value_or(ref.name), ref.name, schema};
    for (const Source& earlier : sources_) {
      if (!IdentifierEquals(earlier.alias, source.alias)) continue;
      if (ref.alias) {
        throw SqlError("table alias '" + source.alias + "' is used twice in FROM",
                       ref.alias_position);
      }
      throw SqlError("table '" + ref.name + "' appears twice in FROM; give each an alias",
                     ref.position);
    }
    sources_.push_back(std::move(source));
    select_.from.push_back(TableRef{nullptr, sources_.back().alias});
  }
}

void Binder::BindWhere(const ast::Select& select) {
  std::vector<Expr> conditions;
  for (std::size_t i = 0; i < select.from.size(); ++i) {
    if (!select.from[i].on) continue;
    ExprContext context = Context(Clause::kOn);
    context.visible_sources = i + 1;
    Expr condition = BindCondition(*select.from[i].on, context);
    if (select.from[i].left_outer) {
      select_.from.at(i).outer = true;
      select_.from.at(i).on = FactorCommonConjuncts(std::move(condition));
    } else {
      conditions.push_back(std::move(condition));
    }
  }
  if (select.where) conditions.push_back(BindCondition(*select.where, Context(Clause::kWhere)));
  for (Expr& condition : conditions) {
    if (!select_.where) {
      select_.where = std::move(condition);
      continue;
    }
    Expr both;
    both.kind = Expr::Kind::kBinary;
    both.binary_op = BinaryOp::kAnd;
    both.type = ValueType::kInteger;
    both.position = select_.where->position;
    both.children.push_back(std::move(*select_.where));
    both.children.push_back(std::move(condition));
    select_.where = std::move(both);
  }
  if (select_.where)
    select_.where = AddImpliedSourceConjuncts(FactorCommonConjuncts(std::move(*select_.where)));
}

Expr Binder::BindCondition(const ast::Expr& condition, const ExprContext& context) {
  Expr bound = BindExpr(condition, context);
  if (bound.type == ValueType::kText) {
    throw SqlError(std::string(ClauseName(context.clause)) + " condition must be numeric, not TEXT",
                   condition.position);
  }
  return bound;
}

std::uint64_t Binder::BindCount(const ast::Expr& count, const char* clause) const {
  const ast::Expr* node = &count;
  bool negative = false;
  while (node->kind == ast::ExprKind::kUnary && node->unary_op != ast::UnaryOperator::kNot) {
    if (node->unary_op == ast::UnaryOperator::kMinus) negative = !negative;
    node = &node->children[0];
  }
  if (node->kind != ast::ExprKind::kLiteral || node->literal.type != ValueType::kInteger) {
    throw SqlError(std::string(clause) + " must be a non-negative integer constant",
                   count.position);
  }
  if (negative && node->literal.integer != 0)
    throw SqlError(std::string(clause) + " must not be negative", count.position);
  return static_cast<std::uint64_t>(node->literal.integer);
}

}  // namespace detail

BoundStatement Bind(const ast::Statement& statement, Catalog& catalog, std::string_view sql_text) {
  return detail::Binder(catalog, sql_text).BindStatement(statement);
}

}  // namespace clq::sql
