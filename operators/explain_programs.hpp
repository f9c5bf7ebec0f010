// EXPLAIN's listing of the expression programs a plan runs, compiled as the
// executor compiles them: each table's WHERE (one program per pass of at
// most VM_MAX_SLOTS columns), computed join keys, the residual filter on
// joined rows, computed outputs, DISTINCT and ORDER BY keys, group keys and
// aggregate arguments, and ungrouped aggregations (fused with the WHERE or
// not, one program per group and pass). Each listing names the machine its
// launches pick (DeviceProgram::MachineFor, ChooseAggregateKernel) on
// `engine`'s device, and a filter whose leading range test runs alone first.
#pragma once

#include <string>

#include "operators/query_plan.hpp"

namespace clq {

// Empty when the plan runs no expression program.
std::string ExplainPrograms(const QueryPlan& plan, const Engine& engine,
                            const QueryOptions& options);

}  // namespace clq
