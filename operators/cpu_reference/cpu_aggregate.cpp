#include "operators/cpu_reference/cpu_aggregate.hpp"

#include "operators/cpu_reference/cpu_aggregate_functions.hpp"
#include "operators/cpu_reference/cpu_filter.hpp"
#include "operators/cpu_reference/cpu_group.hpp"
#include "runtime/errors.hpp"

namespace clq::cpu_reference {

GroupedRows AggregateRows(const sql::BoundSelect& select, const JoinedRows& rows) {
  const EvalContext context = ContextOf(select.from, rows);
  GroupedRows result;
  std::vector<std::size_t> group_of_row;
  if (select.group_keys.empty()) {
    result.groups = 1;
    group_of_row.assign(rows.size, 0);
  } else {
    std::vector<ValueVector> keys;
    for (const sql::Expr& key : select.group_keys)
      keys.push_back(Evaluate(key, context));
    Grouping grouping = GroupRows(keys, rows.size);
    result.groups = grouping.groups();
    for (const ValueVector& key : keys)
      result.keys.push_back(Gather(key, grouping.first_row));
    group_of_row = std::move(grouping.group_of_row);
  }
  for (const sql::Aggregate& aggregate : select.aggregates) {
    if (aggregate.function == sql::AggregateFunction::kCountStar) {
      result.aggregates.push_back(
          ComputeAggregate(aggregate, nullptr, group_of_row, result.groups));
      continue;
    }
    CLQ_CHECK(aggregate.argument.has_value(), "aggregate without an argument");
    const ValueVector argument = Evaluate(*aggregate.argument, context);
    result.aggregates.push_back(
        ComputeAggregate(aggregate, &argument, group_of_row, result.groups));
  }
  return result;
}

EvalContext ContextOf(const GroupedRows& groups) {
  EvalContext context;
  context.rows = groups.groups;
  context.group_keys = &groups.keys;
  context.aggregates = &groups.aggregates;
  return context;
}

GroupedRows ApplyHaving(const sql::BoundSelect& select, GroupedRows groups) {
  if (!select.having) return groups;
  const std::vector<Position> kept = TruePositions(Evaluate(*select.having, ContextOf(groups)));
  if (kept.size() == groups.groups) return groups;
  GroupedRows result;
  result.groups = kept.size();
  for (const ValueVector& key : groups.keys)
    result.keys.push_back(Gather(key, kept));
  for (const ValueVector& value : groups.aggregates)
    result.aggregates.push_back(Gather(value, kept));
  return result;
}

}  // namespace clq::cpu_reference
