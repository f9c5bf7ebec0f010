#include "operators/cpu_reference/cpu_executor.hpp"

#include <algorithm>
#include <cstring>
#include <numeric>
#include <optional>
#include <span>
#include <string>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_aggregate.hpp"
#include "operators/cpu_reference/cpu_from_where.hpp"
#include "operators/cpu_reference/cpu_sort.hpp"
#include "operators/cpu_reference/expression_eval.hpp"
#include "operators/subquery_materialize.hpp"

namespace clq {
namespace {

using cpu_reference::Position;
using cpu_reference::ValueVector;

// Holds the outputs of `rows` rows (or groups) to the budget: each output's
// values (a TEXT value a 16-byte view) and NULL flags, the row's position,
// and its result values.
void CheckOutputs(const sql::BoundSelect& select, std::size_t rows, std::uint64_t host_memory) {
  const std::uint64_t per_row = select.outputs.size() * (sizeof(std::string_view) + 1) +
                                sizeof(Position) + select.visible_outputs * 9;
  CheckHostMemory(host_memory, "the result (" + std::to_string(rows) + " rows)",
                  SaturatingMultiply(rows, per_row));
}

// The values of `v` at `positions` as a result column.
ResultColumn ToResultColumn(const std::string& name, const ValueVector& v,
                            std::span<const Position> positions) {
  ResultColumn column;
  column.name = name;
  column.type = v.type;
  const std::size_t n = positions.size();
  bool any_null = false;
  for (Position p : positions)
    any_null = any_null || v.nulls[p] != 0;
  if (any_null || v.type == sql::ValueType::kNull) {
    column.nulls.resize(n);
    for (std::size_t i = 0; i < n; ++i)
      column.nulls[i] = v.nulls[positions[i]];
  }
  switch (v.type) {
    case sql::ValueType::kInteger:
      column.integers.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        column.integers[i] = v.integers[positions[i]];
      break;
    case sql::ValueType::kReal:
      column.reals.resize(n);
      for (std::size_t i = 0; i < n; ++i)
        column.reals[i] = v.reals[positions[i]];
      break;
    case sql::ValueType::kText: {
      std::size_t width = 1;
      for (Position p : positions)
        width = std::max(width, v.texts[p].size());
      column.text_width = static_cast<std::uint32_t>(width);
      column.text.assign(n * width, '\0');
      for (std::size_t i = 0; i < n; ++i) {
        const std::string_view s = v.texts[positions[i]];
        if (!s.empty()) std::memcpy(column.text.data() + i * width, s.data(), s.size());
      }
      break;
    }
    case sql::ValueType::kNull:
      break;
  }
  return column;
}

}  // namespace

// Which outputs are evaluated on which rows, as the devices do (the
// README's promise: an expression raises only on the rows it must run on):
//  - an aggregate without GROUP BY is one row, neither sorted nor made
//    distinct; its outputs are evaluated only if OFFSET and LIMIT keep it;
//  - with GROUP BY, every output is evaluated for every group HAVING keeps;
//  - otherwise the ORDER BY keys (and, with DISTINCT, the visible outputs)
//    are evaluated for every row, and the other outputs only for the rows
//    OFFSET and LIMIT keep.
QueryResult ExecuteOnCpu(const sql::BoundSelect& select, std::uint64_t host_memory) {
  if (!select.subqueries.empty()) {
    return ExecuteOnCpu(
        MaterializeSubqueries(
            select, [&](const sql::BoundSelect& s) { return ExecuteOnCpu(s, host_memory); },
            host_memory),
        host_memory);
  }
  CLQ_CHECK(select.visible_outputs <= select.outputs.size(), "more visible outputs than outputs");
  CLQ_CHECK(!select.distinct || select.visible_outputs == select.outputs.size(),
            "hidden ORDER BY outputs with DISTINCT");
  const cpu_reference::JoinedRows rows = cpu_reference::EvaluateFromWhere(select, host_memory);
  std::optional<cpu_reference::GroupedRows> groups;
  if (select.aggregated) {
    groups = cpu_reference::ApplyHaving(select, cpu_reference::AggregateRows(select, rows));
  } else {
    CLQ_CHECK(select.group_keys.empty() && select.aggregates.empty() && !select.having,
              "grouping in a query that is not aggregated");
  }
  const std::size_t count = groups ? groups->groups : rows.size;
  CheckOutputs(select, count, host_memory);
  const bool one_row = select.aggregated && select.group_keys.empty();
  const cpu_reference::EvalContext all_rows =
      groups ? cpu_reference::ContextOf(*groups) : cpu_reference::ContextOf(select.from, rows);

  // Outputs evaluated for every row before sorting; the others stay empty.
  std::vector<ValueVector> outputs(select.outputs.size());
  std::vector<bool> evaluated(select.outputs.size(), false);
  auto evaluate_all = [&](std::size_t c) {
    if (evaluated[c]) return;
    outputs[c] = cpu_reference::Evaluate(select.outputs[c].expr, all_rows);
    evaluated[c] = true;
  };
  if (groups && !one_row) {
    for (std::size_t c = 0; c < select.outputs.size(); ++c)
      evaluate_all(c);
  }
  std::vector<Position> positions(count);
  std::iota(positions.begin(), positions.end(), Position{0});
  if (!one_row) {
    if (select.distinct) {
      for (std::size_t c = 0; c < select.visible_outputs; ++c)
        evaluate_all(c);
      positions = cpu_reference::DistinctPositions(
          std::span<const ValueVector>(outputs.data(), select.visible_outputs), count);
    }
    for (const sql::OrderKey& key : select.order_by) {
      CLQ_CHECK(key.expr.kind == sql::Expr::Kind::kOutputRef, "ORDER BY key is not an output");
      evaluate_all(key.expr.index);
    }
    cpu_reference::SortPositions(outputs, select.order_by, positions);
  }

  const std::size_t begin =
      static_cast<std::size_t>(std::min<std::uint64_t>(select.offset, positions.size()));
  std::size_t end = positions.size();
  if (select.limit)
    end = begin + static_cast<std::size_t>(std::min<std::uint64_t>(*select.limit, end - begin));
  const std::span<const Position> kept(positions.data() + begin, end - begin);

  QueryResult result;
  result.rows = kept.size();
  std::vector<Position> identity(kept.size());
  std::iota(identity.begin(), identity.end(), Position{0});
  for (std::size_t c = 0; c < select.visible_outputs; ++c) {
    if (evaluated[c]) {
      result.columns.push_back(ToResultColumn(select.outputs[c].name, outputs[c], kept));
      continue;
    }
    // Evaluated on the kept rows only.
    ValueVector values;
    if (groups) {
      cpu_reference::GroupedRows kept_groups;
      kept_groups.groups = kept.size();
      for (const ValueVector& k : groups->keys)
        kept_groups.keys.push_back(cpu_reference::Gather(k, kept));
      for (const ValueVector& a : groups->aggregates)
        kept_groups.aggregates.push_back(cpu_reference::Gather(a, kept));
      values =
          cpu_reference::Evaluate(select.outputs[c].expr, cpu_reference::ContextOf(kept_groups));
    } else {
      values = cpu_reference::Evaluate(
          select.outputs[c].expr,
          cpu_reference::ContextOf(select.from, cpu_reference::SelectRows(rows, kept)));
    }
    result.columns.push_back(ToResultColumn(select.outputs[c].name, values, identity));
  }
  SetLogicalTypes(OutputLogicalTypes(select), result);
  return result;
}

}  // namespace clq
