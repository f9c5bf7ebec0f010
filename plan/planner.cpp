#include "plan/planner.hpp"

#include "plan/aggregate_node.hpp"
#include "plan/device_capabilities.hpp"
#include "plan/distinct_node.hpp"
#include "plan/filter_node.hpp"
#include "plan/group_by_node.hpp"
#include "plan/join_node.hpp"
#include "plan/limit_node.hpp"
#include "plan/output_node.hpp"
#include "plan/query_plan.hpp"
#include "plan/scan_node.hpp"
#include "plan/sort_node.hpp"

namespace clq {
namespace {

// A source's scan, filtered by the conjuncts pushed down to it.
std::unique_ptr<RowNode> SourceRows(const Engine& engine, const QueryOptions& options,
                                    const sql::BoundSelect& select, const SourcePlan& source) {
  std::unique_ptr<RowNode> rows = std::make_unique<ScanNode>(engine, select, source.source);
  if (source.filters.empty()) return rows;
  return std::make_unique<FilterNode>(engine, options, select, std::move(rows), source.filters,
                                      "WHERE of " + select.from[source.source].alias);
}

// FROM and WHERE: the first source, each join in order, the residual filter.
std::unique_ptr<RowNode> JoinedRows(const Engine& engine, const QueryOptions& options,
                                    const QueryPlan& plan) {
  const sql::BoundSelect& select = *plan.select;
  const std::size_t start = plan.join_edges.empty() ? 0 : plan.join_edges.front().left_source;
  std::unique_ptr<RowNode> rows = SourceRows(engine, options, select, plan.sources[start]);
  for (const JoinEdge& edge : plan.join_edges) {
    std::unique_ptr<RowNode> incoming =
        SourceRows(engine, options, select, plan.sources[edge.right_source]);
    rows = std::make_unique<HashJoinNode>(engine, options, select, std::move(rows),
                                          std::move(incoming), edge);
  }
  if (!plan.residual.empty())
    rows = std::make_unique<FilterNode>(engine, options, select, std::move(rows), plan.residual,
                                        "joined rows");
  return rows;
}

}  // namespace

std::unique_ptr<ResultNode> BuildPhysicalPlan(const Engine& engine, const QueryOptions& options,
                                              const sql::BoundSelect& select) {
  // Before any node compiles a program for what the device cannot run.
  CheckDeviceCapabilities(engine.info(), select);
  const QueryPlan plan = PlanQuery(select);
  switch (plan.aggregation) {
    case AggregationMode::kUngrouped:
      if (plan.fused_aggregate) {
        return std::make_unique<AggregateNode>(engine, options, select,
                                               std::make_unique<ScanNode>(engine, select, 0), true,
                                               AndAll(plan.sources[0].filters));
      }
      return std::make_unique<AggregateNode>(
          engine, options, select, JoinedRows(engine, options, plan), false, std::nullopt);
    case AggregationMode::kGrouped:
      return std::make_unique<GroupByNode>(engine, options, select,
                                           JoinedRows(engine, options, plan));
    case AggregationMode::kNone:
      break;
  }
  std::unique_ptr<RowNode> rows = JoinedRows(engine, options, plan);
  if (select.distinct)
    rows = std::make_unique<DistinctNode>(engine, options, select, std::move(rows));
  if (!select.order_by.empty())
    rows = std::make_unique<SortNode>(engine, options, select, std::move(rows));
  if (select.offset > 0 || select.limit)
    rows = std::make_unique<LimitNode>(std::move(rows), select.offset, select.limit);
  return std::make_unique<OutputNode>(engine, options, select, std::move(rows));
}

}  // namespace clq
