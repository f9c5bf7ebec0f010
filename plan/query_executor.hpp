// Runs a bound SELECT on one device and returns its result on the host: the
// physical plan (plan/physical_plan.hpp) built for the query and executed.
// Given several devices, the cost model (plan/split_costs.hpp) places each
// query: a query whose result merges from parts of the rows splits over
// the devices in shares balanced by their measured speeds
// (plan/device_split.hpp), or runs alone on the device that finishes it
// first; what it measures of each run refines its next estimate of the
// same query. With shares given (QueryOptions::device_shares), a query that
// merges from parts splits in them and any other runs on the first device.
// Subqueries are placed as queries of their own.
//
// Throws InvalidInputError for runtime errors of the query (integer
// overflow), DeviceLimitError for what the device cannot hold, DeviceError for
// OpenCL failures. Blocking; not thread-safe (a split query runs a thread
// per device, each on its own engine, and joins them before it returns).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "common/options.hpp"
#include "operators/query_result.hpp"
#include "operators/subquery_materialize.hpp"
#include "plan/cost_model.hpp"
#include "plan/device_split.hpp"
#include "plan/physical_plan.hpp"
#include "runtime/engine.hpp"
#include "sql/bound.hpp"

namespace clq {

class QueryExecutor {
 public:
  explicit QueryExecutor(Engine& engine, const QueryOptions& options = {})
      : engines_{&engine}, options_(options), cost_model_(engines_) {}
  // On `engines` (at least one; the first runs what does not split).
  QueryExecutor(std::vector<Engine*> engines, const QueryOptions& options);

  QueryResult Execute(const sql::BoundSelect& select);
  // EXPLAIN: the plan Execute would run, with its kernels and programs. A
  // query's subqueries are run (their rows decide its plan) and explained.
  std::string Explain(const sql::BoundSelect& select);

 private:
  // How a query (without subqueries) runs: split, or alone on one device.
  struct Placed {
    std::optional<SplitPlan> split;
    std::size_t device = 0;                   // alone: where
    std::optional<PhysicalPlan> alone;        // alone: its plan there
    std::string why;                          // EXPLAIN's line above the plan(s)
    std::optional<CostModel::Choice> choice;  // where the cost model placed it
  };
  Placed Place(const sql::BoundSelect& select);
  // `select` with its subqueries run and put in place (MaterializeSubqueries),
  // each derived table of the statement made once (derived_tables_).
  sql::BoundSelect Materialized(const sql::BoundSelect& select, Profiler* profiler);
  // Runs `plan` of `select` on device `device`; where the device cannot
  // hold it and it gives the rows of one table, in runs (ExecuteInRuns).
  QueryResult ExecuteAlone(const sql::BoundSelect& select, std::size_t device,
                           const PhysicalPlan& plan);
  // The rows of one table (no join, GROUP BY or aggregate) that device
  // `device` cannot hold in one pass (`error`): the table's rows in runs,
  // each planned and run on the device (sorted, made distinct, filtered),
  // and the runs' rows merged on the host (MergeRows) into one pass's
  // answer. Runs halve until they fit; DeviceLimitError where none does.
  QueryResult ExecuteInRuns(const sql::BoundSelect& select, std::size_t device,
                            const DeviceLimitError& error);
  // The plan of `select` on `engine`, its building a host stage of the profile.
  PhysicalPlan Plan(Engine& engine, const sql::BoundSelect& select);
  // The plans of `select` on `devices` (engine indexes) in `shares`, each
  // over its part of source `source`; nullopt, with the reason in `why_not`,
  // where a device's plan of its part does not merge, or a device cannot
  // plan it at all (DeviceLimitError: that device in `unable`).
  std::optional<SplitPlan> PlanSplit(const sql::BoundSelect& select, std::size_t source,
                                     SplitMerge merge, const std::vector<std::size_t>& devices,
                                     const std::vector<std::uint32_t>& shares, std::string& why_not,
                                     std::optional<std::size_t>* unable = nullptr);

  std::vector<Engine*> engines_;
  QueryOptions options_;
  SplitTables split_tables_;
  CostModel cost_model_;
  // The derived tables of the statement being executed (Execute of the
  // outermost select owns them), so that one bound select shared by two
  // places runs once.
  DerivedTables* derived_tables_ = nullptr;
};

}  // namespace clq
