// The planner: turns a bound SELECT into the tree of physical nodes
// (plan/physical_plan.hpp) from the decisions of PlanQuery (which filters
// run on which table, the join order, fusing).
#pragma once

#include <memory>

#include "plan/physical_node.hpp"

namespace clq {

std::unique_ptr<ResultNode> BuildPhysicalPlan(const Engine& engine, const QueryOptions& options,
                                              const sql::BoundSelect& select);

}  // namespace clq
