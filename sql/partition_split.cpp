#include "sql/partition_split.hpp"

#include <algorithm>
#include <limits>

#include "common/errors.hpp"
#include "sql/ast.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"

namespace clq::sql {
namespace {

using Combine = PartitionPlan::Combine;

[[noreturn]] void Refuse(const std::string& what) {
  throw InvalidInputError("across partitions: " + what);
}

ast::Expr Column(std::string qualifier, std::string name) {
  ast::Expr e;
  e.kind = ast::ExprKind::kColumn;
  e.qualifier = std::move(qualifier);
  e.name = std::move(name);
  return e;
}

ast::Expr AggregateCall(AggregateFunction function, const char* name, const ast::Expr* argument) {
  ast::Expr e;
  e.kind = ast::ExprKind::kFunction;
  e.function = function;
  e.name = name;
  if (argument != nullptr) e.children.push_back(*argument);
  e.height = argument != nullptr ? argument->height + 1 : 1;
  return e;
}

ast::Expr Integer(std::int64_t value) {
  ast::Expr e;
  e.kind = ast::ExprKind::kLiteral;
  e.literal = Value::Integer(value);
  e.integer_literal = true;
  return e;
}

// The select list with every * expanded into its columns.
std::vector<ast::Expr> ExpandItems(const ast::Select& select, Catalog& catalog) {
  std::vector<ast::Expr> items;
  auto add_table = [&](const ast::TableRef& ref) {
    const Schema* schema = catalog.FindSchema(ref.name);
    CLQ_CHECK(schema != nullptr, "a bound table without a schema");
    for (const ColumnSpec& column : *schema)
      items.push_back(Column(ref.alias.value_or(ref.name), column.name));
  };
  for (const ast::SelectItem& item : select.items) {
    switch (item.kind) {
      case ast::SelectItem::Kind::kExpr:
        items.push_back(item.expr);
        break;
      case ast::SelectItem::Kind::kStar:
        for (const ast::FromItem& from : select.from)
          add_table(from.table);
        break;
      case ast::SelectItem::Kind::kTableStar:
        for (const ast::FromItem& from : select.from)
          if (IdentifierEquals(from.table.alias.value_or(from.table.name), item.qualifier))
            add_table(from.table);
        break;
    }
  }
  return items;
}

// The select item an ORDER BY or GROUP BY term names: a position, an alias,
// or an expression written as the item is.
std::optional<std::size_t> ItemOf(const ast::Expr& term, const ast::Select& select,
                                  const std::vector<ast::Expr>& items) {
  if (term.kind == ast::ExprKind::kLiteral && term.integer_literal &&
      term.literal.type == ValueType::kInteger && term.literal.integer >= 1 &&
      static_cast<std::uint64_t>(term.literal.integer) <= items.size())
    return static_cast<std::size_t>(term.literal.integer - 1);
  if (term.kind == ast::ExprKind::kColumn && term.qualifier.empty()) {
    std::size_t position = 0;
    for (const ast::SelectItem& item : select.items) {
      if (item.kind != ast::SelectItem::Kind::kExpr) return std::nullopt;  // positions shift
      if (item.alias && IdentifierEquals(*item.alias, term.name)) return position;
      ++position;
    }
  }
  const std::string text = ast::ToString(term);
  for (std::size_t i = 0; i < items.size(); ++i)
    if (ast::ToString(items[i]) == text) return i;
  return std::nullopt;
}

}  // namespace

PartitionPlan SplitForPartitions(std::string_view sql_text, Catalog& catalog,
                                 std::string_view partitioned_table) {
  ast::Statement statement = Parse(sql_text);
  if (statement.explain) Refuse("EXPLAIN runs on one connection, not across partitions");
  const BoundStatement bound = Bind(statement, catalog, sql_text);
  const BoundSelect& b = bound.select;
  const ast::Select& select = statement.select;
  // A subquery would run on each partition's rows alone.
  if (!b.subqueries.empty() || !statement.with.empty())
    Refuse("subqueries and WITH tables are not supported (each partition would see its own rows)");

  std::size_t uses = 0;
  for (const ast::FromItem& from : select.from)
    uses += IdentifierEquals(from.table.name, partitioned_table) ? 1 : 0;
  if (uses != 1)
    Refuse("the partitioned table " + std::string(partitioned_table) +
           " must appear exactly once in FROM (it appears " + std::to_string(uses) + " times)");
  // A LEFT JOIN's kept row without matches would appear once per partition
  // of its joined table.
  for (const ast::FromItem& from : select.from)
    if (from.left_outer && IdentifierEquals(from.table.name, partitioned_table))
      Refuse("the partitioned table " + std::string(partitioned_table) +
             " cannot be the right side of a LEFT JOIN (a row without matches would appear "
             "once per partition)");

  PartitionPlan plan;
  plan.limit = b.limit;
  plan.offset = b.offset;
  plan.distinct = select.distinct;
  plan.aggregated = b.aggregated;
  const std::vector<ast::Expr> items = ExpandItems(select, catalog);
  CLQ_CHECK(items.size() == b.visible_outputs,
            "the expanded select list and the bound outputs differ");

  ast::Statement partial;
  partial.select.from = select.from;
  partial.select.where = select.where;
  auto add_partial = [&](ast::Expr expr) {
    ast::SelectItem item;
    item.expr = std::move(expr);
    item.alias = "p" + std::to_string(plan.partial_columns++);
    partial.select.items.push_back(std::move(item));
    return plan.partial_columns - 1;
  };

  if (!b.aggregated) {
    for (std::size_t i = 0; i < items.size(); ++i)
      plan.outputs.push_back({b.outputs[i].name, Combine::kRows, add_partial(items[i]), 0, true});
    for (const ast::OrderItem& order : select.order_by) {
      std::optional<std::size_t> output = ItemOf(order.expr, select, items);
      if (!output) {
        output = plan.outputs.size();
        plan.outputs.push_back({"order key " + std::to_string(*output), Combine::kRows,
                                add_partial(order.expr), 0, false});
      }
      plan.order_by.emplace_back(*output, order.descending);
    }
    partial.select.distinct = select.distinct;
    if (b.limit) {
      // Each partition keeps the rows that can reach the cut: LIMIT + OFFSET.
      for (const auto& [output, descending] : plan.order_by)
        partial.select.order_by.push_back(
            {Integer(static_cast<std::int64_t>(plan.outputs[output].column + 1)), descending});
      const std::uint64_t keep = std::min<std::uint64_t>(
          *b.limit + std::min<std::uint64_t>(b.offset, std::numeric_limits<std::int64_t>::max()),
          std::numeric_limits<std::int64_t>::max());
      partial.select.limit = Integer(static_cast<std::int64_t>(keep));
    }
  } else {
    if (select.having) Refuse("HAVING is not combined across partitions yet");
    if (select.distinct) Refuse("DISTINCT with aggregates is not combined across partitions yet");
    std::vector<ast::Expr> keys;
    for (const ast::Expr& term : select.group_by) {
      const std::optional<std::size_t> item = ItemOf(term, select, items);
      keys.push_back(item ? items[*item] : term);
      plan.group_columns.push_back(add_partial(keys.back()));
    }
    for (std::size_t i = 0; i < items.size(); ++i) {
      const ast::Expr& e = items[i];
      const std::string name = b.outputs[i].name;
      const std::string text = ast::ToString(e);
      const auto key = std::find_if(keys.begin(), keys.end(),
                                    [&](const ast::Expr& k) { return ast::ToString(k) == text; });
      if (key != keys.end()) {
        plan.outputs.push_back({name, Combine::kKey,
                                plan.group_columns[static_cast<std::size_t>(key - keys.begin())], 0,
                                true});
        continue;
      }
      if (e.kind != ast::ExprKind::kFunction)
        Refuse("output " + name +
               " is neither a GROUP BY key nor one aggregate; across partitions each output "
               "of an aggregate query is one of those");
      const ast::Expr* argument = e.children.empty() ? nullptr : &e.children[0];
      switch (e.function) {
        case AggregateFunction::kCountStar:
        case AggregateFunction::kCount:
          plan.outputs.push_back({name, Combine::kCount, add_partial(e), 0, true});
          break;
        case AggregateFunction::kSum:
          plan.outputs.push_back({name, Combine::kSum, add_partial(e), 0, true});
          break;
        case AggregateFunction::kMin:
          plan.outputs.push_back({name, Combine::kMin, add_partial(e), 0, true});
          break;
        case AggregateFunction::kMax:
          plan.outputs.push_back({name, Combine::kMax, add_partial(e), 0, true});
          break;
        case AggregateFunction::kAvg: {
          const std::size_t sum =
              add_partial(AggregateCall(AggregateFunction::kSum, "SUM", argument));
          const std::size_t count =
              add_partial(AggregateCall(AggregateFunction::kCount, "COUNT", argument));
          plan.outputs.push_back({name, Combine::kAvg, sum, count, true});
          break;
        }
        default:
          Refuse("output " + name + ": MEDIAN and QUANTILE are not combined across partitions");
      }
    }
    for (const ast::OrderItem& order : select.order_by) {
      const std::optional<std::size_t> output = ItemOf(order.expr, select, items);
      if (!output)
        Refuse("ORDER BY " + ast::ToString(order.expr) +
               ": across partitions an aggregate query orders by its outputs only");
      plan.order_by.emplace_back(*output, order.descending);
    }
    partial.select.group_by = keys;
  }
  plan.partial_sql = ast::ToString(partial);
  return plan;
}

}  // namespace clq::sql
