// Runs a bound SELECT on one device and returns its result on the host: the
// physical plan (plan/physical_plan.hpp) built for the query and executed.
// Given several devices, a query whose result merges from parts of the rows
// runs on all of them, each over its part of the largest table
// (plan/device_split.hpp); any other query, and the subqueries' first
// runs, on the first.
//
// Throws InvalidInputError for runtime errors of the query (integer
// overflow), DeviceLimitError for what the device cannot hold, DeviceError for
// OpenCL failures. Blocking; not thread-safe (a split query runs a thread
// per device, each on its own engine, and joins them before it returns).
#pragma once

#include <vector>

#include "common/options.hpp"
#include "operators/query_result.hpp"
#include "plan/device_split.hpp"
#include "plan/physical_plan.hpp"
#include "runtime/engine.hpp"
#include "sql/bound.hpp"

namespace clq {

class QueryExecutor {
 public:
  explicit QueryExecutor(Engine& engine, const QueryOptions& options = {})
      : engines_{&engine}, options_(options) {}
  // On `engines` (at least one; the first runs what does not split).
  QueryExecutor(std::vector<Engine*> engines, const QueryOptions& options);

  QueryResult Execute(const sql::BoundSelect& select);
  // EXPLAIN: the plan Execute would run, with its kernels and programs. A
  // query's subqueries are run (their rows decide its plan) and explained.
  std::string Explain(const sql::BoundSelect& select);

 private:
  // The plan of `select` on `engine`, its building a host stage of the profile.
  PhysicalPlan Plan(Engine& engine, const sql::BoundSelect& select);
  // The plans of `select` (without subqueries) on every device, each over
  // its part of the rows, where it splits over several; nullopt, with the
  // reason in `why_not`, where it runs on the first device alone (`first`:
  // its plan there).
  std::optional<SplitPlan> PlanSplit(const sql::BoundSelect& select, const PhysicalPlan& first,
                                     std::string& why_not);

  std::vector<Engine*> engines_;
  QueryOptions options_;
  SplitTables split_tables_;
};

}  // namespace clq
