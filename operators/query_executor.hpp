// Runs a bound SELECT on one device and returns its result on the host.
//
// The pipeline (operators/query_plan.hpp decides its shape):
//   filters pushed to each table -> hash joins -> residual filters
//   -> ungrouped aggregation (fused with the filter for one table)
//      | grouped aggregation -> HAVING
//      | output expressions
//   -> DISTINCT -> ORDER BY (LIMIT as top-k) -> LIMIT/OFFSET -> download.
// Intermediates stay on the device as row ids and device vectors; only the
// final result (and a few counts) cross to the host.
//
// Throws InvalidInputError for runtime errors of the query (integer
// overflow), DeviceLimitError for what the device cannot hold, DeviceError for
// OpenCL failures. Blocking; not thread-safe (one engine, one thread).
#pragma once

#include "host/sql/bound.hpp"
#include "operators/query_context.hpp"
#include "operators/query_plan.hpp"
#include "operators/query_result.hpp"
#include "operators/row_set.hpp"
#include "runtime/engine.hpp"

namespace clq {

class QueryExecutor {
 public:
  explicit QueryExecutor(Engine& engine, const QueryOptions& options = {})
      : engine_(engine), options_(options) {}

  QueryResult Execute(const sql::BoundSelect& select);

 private:
  RowSet BuildRowSet(const QueryPlan& plan, QueryContext& context);
  QueryResult ExecuteRows(const QueryPlan& plan, QueryContext& context);
  QueryResult ExecuteUngrouped(const QueryPlan& plan, QueryContext& context);
  QueryResult ExecuteGrouped(const QueryPlan& plan, QueryContext& context);

  Engine& engine_;
  QueryOptions options_;
};

}  // namespace clq
