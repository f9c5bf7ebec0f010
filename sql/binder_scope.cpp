// Name resolution: columns, table qualifiers and output aliases, with the
// error messages (and "did you mean" suggestions) for names that do not
// resolve.
#include "common/errors.hpp"
#include "sql/binder_internal.hpp"
#include "sql/expr_equality.hpp"

namespace clq::sql::detail {
namespace {

std::optional<std::size_t> FindColumn(const Schema& schema, std::string_view name) {
  for (std::size_t i = 0; i < schema.size(); ++i)
    if (IdentifierEquals(schema[i].name, name)) return i;
  return std::nullopt;
}

// "t1", "t1 and t2", "t1, t2 and t3".
std::string ListNames(const std::vector<std::string>& names) {
  std::string text;
  for (std::size_t i = 0; i < names.size(); ++i) {
    if (i > 0) text += i + 1 == names.size() ? " and " : ", ";
    text += names[i];
  }
  return text;
}

}  // namespace

Expr Binder::BindColumn(const ast::Expr& column, const ExprContext& context) {
  Expr bound;
  bound.kind = Expr::Kind::kColumnRef;
  bound.position = column.position;

  if (!column.qualifier.empty()) {
    bound.source = FindSource(column.qualifier, column.position, &context);
    const Source& source = sources_[bound.source];
    const std::optional<std::size_t> index = FindColumn(*source.schema, column.name);
    if (!index) {
      std::vector<std::string> names;
      for (const ColumnSpec& spec : *source.schema)
        names.push_back(spec.name);
      throw SqlError("table '" + source.alias + "' has no column named '" + column.name + "'" +
                         DidYouMean(column.name, names),
                     column.position);
    }
    bound.index = *index;
    bound.type = ValueTypeOf((*source.schema)[*index].type);
    bound.logical = (*source.schema)[*index].type.logical;
    return bound;
  }

  std::vector<std::size_t> visible;   // sources in scope holding the name
  std::optional<std::size_t> hidden;  // a source joined after this ON clause holding it
  for (std::size_t s = 0; s < sources_.size(); ++s) {
    if (!FindColumn(*sources_[s].schema, column.name)) continue;
    if (s < context.visible_sources) {
      visible.push_back(s);
    } else if (!hidden) {
      hidden = s;
    }
  }
  if (visible.size() > 1) {
    std::vector<std::string> tables;
    for (std::size_t s : visible)
      tables.push_back(sources_[s].alias);
    throw SqlError("column '" + column.name + "' is ambiguous: it exists in " + ListNames(tables),
                   column.position);
  }
  if (visible.size() == 1) {
    bound.source = visible[0];
    bound.index = *FindColumn(*sources_[bound.source].schema, column.name);
    bound.type = ValueTypeOf((*sources_[bound.source].schema)[bound.index].type);
    bound.logical = (*sources_[bound.source].schema)[bound.index].type.logical;
    return bound;
  }
  if (std::optional<Expr> alias = BindAlias(column, context)) return std::move(*alias);
  if (hidden) {
    throw SqlError("ON clause cannot refer to column '" + column.name + "' of '" +
                       sources_[*hidden].alias + "', which is joined after it",
                   column.position);
  }
  std::string message = "no column named '" + column.name + "'" +
                        DidYouMean(column.name, ColumnCandidates(context.visible_sources));
  if (!context.allow_aliases && IsOutputAlias(column.name))
    message +=
        std::string(" (output aliases cannot be used in ") + ClauseName(context.clause) + ")";
  throw SqlError(message, column.position);
}

std::size_t Binder::FindSource(std::string_view qualifier, std::size_t position,
                               const ExprContext* context) const {
  for (std::size_t s = 0; s < sources_.size(); ++s) {
    if (!IdentifierEquals(sources_[s].alias, qualifier)) continue;
    if (context != nullptr && s >= context->visible_sources) {
      throw SqlError(
          "ON clause cannot refer to '" + sources_[s].alias + "', which is joined after it",
          position);
    }
    return s;
  }
  for (const Source& source : sources_) {
    if (IdentifierEquals(source.table_name, qualifier)) {
      throw SqlError("no table named '" + std::string(qualifier) + "' in FROM (it is aliased as '" +
                         source.alias + "')",
                     position);
    }
  }
  std::vector<std::string> aliases;
  for (const Source& source : sources_)
    aliases.push_back(source.alias);
  throw SqlError(
      "no table named '" + std::string(qualifier) + "' in FROM" + DidYouMean(qualifier, aliases),
      position);
}

std::optional<Expr> Binder::BindAlias(const ast::Expr& column, const ExprContext& context) {
  if (!context.allow_aliases || !column.qualifier.empty()) return std::nullopt;
  std::optional<std::size_t> found;
  for (std::size_t i = 0; i < output_aliases_.size(); ++i) {
    if (!output_aliases_[i] || !IdentifierEquals(*output_aliases_[i], column.name)) continue;
    if (found) throw SqlError("output alias '" + column.name + "' is ambiguous", column.position);
    found = i;
  }
  if (!found) return std::nullopt;
  Expr bound = select_.outputs[*found].expr;
  bound.position = column.position;
  if (ContainsKind(bound, Expr::Kind::kAggregateRef)) {
    if (context.in_aggregate)
      throw SqlError(
          "aggregate functions cannot be nested (output '" + column.name + "' contains one)",
          column.position);
    if (!context.allow_aggregates)
      throw SqlError(std::string("aggregate functions are not allowed in ") +
                         ClauseName(context.clause) + " (output '" + column.name +
                         "' contains one)",
                     column.position);
  }
  return bound;
}

bool Binder::IsOutputAlias(std::string_view name) const {
  if (ast_select_ == nullptr) return false;
  for (const ast::SelectItem& item : ast_select_->items)
    if (item.alias && IdentifierEquals(*item.alias, name)) return true;
  return false;
}

std::string Binder::ColumnName(std::size_t source, std::size_t column) const {
  const std::string& name = (*sources_[source].schema)[column].name;
  return sources_.size() > 1 ? sources_[source].alias + "." + name : name;
}

std::vector<NameCandidate> Binder::ColumnCandidates(std::size_t visible_sources) const {
  std::vector<NameCandidate> candidates;
  for (std::size_t s = 0; s < visible_sources; ++s) {
    for (const ColumnSpec& spec : *sources_[s].schema) {
      std::size_t holders = 0;
      for (std::size_t other = 0; other < visible_sources; ++other)
        if (FindColumn(*sources_[other].schema, spec.name)) ++holders;
      candidates.push_back(
          {spec.name, holders > 1 ? sources_[s].alias + "." + spec.name : spec.name});
    }
  }
  return candidates;
}

}  // namespace clq::sql::detail
