// Runs a bound SELECT on one device and returns its result on the host: the
// physical plan (plan/physical_plan.hpp) built for the query and executed.
//
// Throws InvalidInputError for runtime errors of the query (integer
// overflow), DeviceLimitError for what the device cannot hold, DeviceError for
// OpenCL failures. Blocking; not thread-safe (one engine, one thread).
#pragma once

#include "common/options.hpp"
#include "operators/query_result.hpp"
#include "plan/physical_plan.hpp"
#include "runtime/engine.hpp"
#include "sql/bound.hpp"

namespace clq {

class QueryExecutor {
 public:
  explicit QueryExecutor(Engine& engine, const QueryOptions& options = {})
      : engine_(engine), options_(options) {}

  QueryResult Execute(const sql::BoundSelect& select);
  // EXPLAIN: the plan Execute would run, with its kernels and programs. A
  // query's subqueries are run (their rows decide its plan) and explained.
  std::string Explain(const sql::BoundSelect& select);

 private:
  // The plan of `select`, its building a host stage of the profile.
  PhysicalPlan Plan(const sql::BoundSelect& select);

  Engine& engine_;
  QueryOptions options_;
};

}  // namespace clq
