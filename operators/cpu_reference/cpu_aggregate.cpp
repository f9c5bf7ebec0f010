#include "operators/cpu_reference/cpu_aggregate.hpp"

#include <algorithm>
#include <optional>

#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_aggregate_functions.hpp"
#include "operators/cpu_reference/cpu_filter.hpp"
#include "operators/cpu_reference/cpu_group.hpp"

namespace clq::cpu_reference {

GroupedRows AggregateRows(const sql::BoundSelect& select, const JoinedRows& rows) {
  std::optional<GroupTable> table;
  if (!select.group_keys.empty()) {
    std::vector<sql::ValueType> key_types;
    for (const sql::Expr& key : select.group_keys)
      key_types.push_back(key.type);
    table.emplace(key_types);
  }
  std::vector<AggregateState> states;
  states.reserve(select.aggregates.size());
  for (const sql::Aggregate& aggregate : select.aggregates)
    states.emplace_back(aggregate);

  // Without group keys there is one group, even over no rows.
  std::size_t groups = table ? 0 : 1;
  std::vector<std::size_t> group_of_row;
  std::vector<ValueVector> keys;
  for (std::size_t begin = 0; begin < rows.size; begin += kBatchRows) {
    const std::size_t count = std::min(kBatchRows, rows.size - begin);
    const EvalContext context = ContextOf(select.from, rows, begin, count);
    if (table) {
      keys.clear();
      for (const sql::Expr& key : select.group_keys)
        keys.push_back(Evaluate(key, context));
      table->Assign(keys, group_of_row);
      groups = table->groups();
    } else {
      group_of_row.assign(count, 0);
    }
    for (std::size_t a = 0; a < states.size(); ++a) {
      const sql::Aggregate& aggregate = select.aggregates[a];
      if (aggregate.function == sql::AggregateFunction::kCountStar) {
        states[a].Add(nullptr, group_of_row, groups);
        continue;
      }
      const ValueVector argument = Evaluate(*aggregate.argument, context);
      states[a].Add(&argument, group_of_row, groups);
    }
  }

  GroupedRows result;
  result.groups = groups;
  if (table) result.keys = table->keys();
  for (AggregateState& state : states)
    result.aggregates.push_back(state.Finish(groups));
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
