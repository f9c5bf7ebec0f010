#include "plan/query_executor.hpp"

#include <chrono>
#include <numeric>
#include <optional>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "operators/subquery_materialize.hpp"
#include "plan/compiled_expressions.hpp"
#include "plan/physical_plan.hpp"
#include "plan/query_plan.hpp"
#include "runtime/profiler.hpp"

namespace clq {
namespace {

double SecondsSince(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
}

// The most runs a query that the device cannot hold whole is tried in
// (each attempt doubles them).
constexpr std::size_t kMostRuns = 1024;

// Whether `select` gives rows of one table (no join, GROUP BY or
// aggregate): parts of its rows merge (MergeRows).
bool RowsOfOneTable(const sql::BoundSelect& select) {
  return select.from.size() == 1 && select.group_keys.empty() && select.aggregates.empty();
}

// The FROM source with the most rows (the first of them).
std::size_t LargestSource(const sql::BoundSelect& select) {
  std::size_t largest = 0;
  for (std::size_t s = 1; s < select.from.size(); ++s)
    if (select.from[s].table->rows() > select.from[largest].table->rows()) largest = s;
  return largest;
}

}  // namespace

QueryExecutor::QueryExecutor(std::vector<Engine*> engines, const QueryOptions& options)
    : engines_(std::move(engines)), options_(options), cost_model_(engines_) {
  CLQ_CHECK(!engines_.empty(), "a query executor without a device");
}

sql::BoundSelect QueryExecutor::Materialized(const sql::BoundSelect& select, Profiler* profiler) {
  DerivedTables statement_tables;
  const bool outermost = derived_tables_ == nullptr;
  if (outermost) derived_tables_ = &statement_tables;
  try {
    sql::BoundSelect prepared = MaterializeSubqueries(
        select, [this](const sql::BoundSelect& s) { return Execute(s); }, options_.host_memory,
        profiler, derived_tables_);
    if (outermost) derived_tables_ = nullptr;
    return prepared;
  } catch (...) {
    if (outermost) derived_tables_ = nullptr;
    throw;
  }
}

QueryResult QueryExecutor::Execute(const sql::BoundSelect& select) {
  std::optional<sql::BoundSelect> prepared;
  if (!select.subqueries.empty()) prepared = Materialized(select, &engines_.front()->profiler());
  const sql::BoundSelect& planned = prepared ? *prepared : select;
  const Placed placed = Place(planned);
  if (placed.split) {
    const SplitPlan& split = *placed.split;
    std::vector<double> seconds;
    QueryResult result = ExecuteSplit(engines_, split, planned, options_, &seconds);
    std::vector<RowCount> rows;
    for (std::size_t i = 0; i < split.devices.size(); ++i) {
      const auto [begin, end] =
          PartRows(planned.from.at(split.source).table->rows(), i, split.shares);
      rows.push_back(end - begin);
    }
    if (placed.choice)
      cost_model_.Record(*placed.choice, split.devices, split.shares, rows, seconds);
    return result;
  }
  const auto start = std::chrono::steady_clock::now();
  QueryResult result;
  try {
    result = ExecuteAlone(planned, placed.device, *placed.alone);
  } catch (const DeviceLimitError&) {
    // The cost model placed it on another device, which cannot hold it:
    // the first device, as without the model, and that shape not there again.
    if (placed.device == 0 || !placed.choice) throw;
    cost_model_.Unable(*placed.choice, placed.device);
    return ExecuteAlone(planned, 0, Plan(*engines_.front(), planned));
  }
  if (placed.choice)
    cost_model_.Record(*placed.choice, {placed.device}, {}, {placed.choice->rows},
                       {SecondsSince(start)});
  return result;
}

QueryResult QueryExecutor::ExecuteAlone(const sql::BoundSelect& select, std::size_t device,
                                        const PhysicalPlan& plan) {
  try {
    return plan.Execute(*engines_.at(device));
  } catch (const DeviceLimitError& error) {
    if (!RowsOfOneTable(select) || select.from.front().table->rows() < 2) throw;
    return ExecuteInRuns(select, device, error);
  }
}

QueryResult QueryExecutor::ExecuteInRuns(const sql::BoundSelect& select, std::size_t device,
                                         const DeviceLimitError& error) {
  Engine& engine = *engines_.at(device);
  const TablePtr& table = select.from.front().table;
  std::string last = error.what();
  for (std::size_t runs = 2; runs <= kMostRuns && runs <= table->rows(); runs *= 2) {
    // Not kept for later queries: under a cap the runs do not stay resident.
    const std::vector<std::uint32_t> shares(runs, 1);
    std::vector<QueryResult> parts;
    std::uint64_t held = 0;  // bytes of the runs' rows so far
    try {
      for (std::size_t r = 0; r < runs; ++r) {
        const auto [begin, end] = PartRows(table->rows(), r, shares);
        const std::unique_ptr<sql::BoundSelect> part =
            PartOf(select, 0, SplitMerge::kRows, table->Slice(table->name(), begin, end - begin));
        parts.push_back(Plan(engine, *part).Execute(engine));
        held = SaturatingAdd(held, ResultBytes(parts.back()));
        CheckHostMemory(options_.host_memory,
                        "the rows of " + std::to_string(r + 1) + " runs of " + std::to_string(runs),
                        held);
      }
    } catch (const DeviceLimitError& run_error) {
      last = run_error.what();
      continue;  // smaller runs
    }
    const HostStage stage(engine.profiler(), "runs merged");
    return MergeRows(select, parts, options_.host_memory);
  }
  // rows >= 2 (ExecuteAlone): at least one attempt was made.
  throw DeviceLimitError(
      last + " (also in runs of the table's rows, down to " +
      std::to_string(table->rows() / std::min<RowCount>(kMostRuns, table->rows())) +
      " rows a run)");
}

PhysicalPlan QueryExecutor::Plan(Engine& engine, const sql::BoundSelect& select) {
  const HostStage stage(engine.profiler(), "plan");
  return PhysicalPlan(engine, options_, select);
}

QueryExecutor::Placed QueryExecutor::Place(const sql::BoundSelect& select) {
  Placed placed;
  split_tables_.Prune();
  const auto start = std::chrono::steady_clock::now();
  PhysicalPlan first = Plan(*engines_.front(), select);
  const double plan_seconds = SecondsSince(start);
  const std::size_t devices = engines_.size();
  if (devices == 1) {
    placed.alone.emplace(std::move(first));
    return placed;
  }
  SplitMerge merge = SplitMerge::kGroups;
  std::string why_not;
  const std::optional<std::size_t> source = SplitSource(select, first.root(), merge, why_not);
  const std::string of_devices = " of " + std::to_string(devices) + " alone: ";
  if (!options_.device_shares.measured) {
    if (source) {
      std::vector<std::size_t> all(devices);
      std::iota(all.begin(), all.end(), std::size_t{0});
      placed.split = PlanSplit(select, *source, merge, all,
                               GivenShares(options_.device_shares, devices), why_not);
      if (placed.split) return placed;
    }
    placed.why = "on device 0" + of_devices + why_not;
    placed.alone.emplace(std::move(first));
    return placed;
  }

  const std::size_t counted = source ? *source : LargestSource(select);
  placed.choice =
      cost_model_.Choose(select, first, counted, source.has_value(), plan_seconds, split_tables_);
  DevicePlacement& placement = placed.choice->placement;
  const std::string estimates = "the cost model's " + placement.Describe();
  std::optional<std::size_t> unable;  // a device that cannot plan its part
  if (placement.devices.size() > 1) {
    placed.split =
        PlanSplit(select, *source, merge, placement.devices, placement.shares, why_not, &unable);
    if (placed.split) {
      placed.why = "shares by the devices' measured speeds; " + estimates;
      return placed;
    }
    placement.devices = {0};
  } else if (placement.devices.front() != 0) {
    try {
      placed.alone.emplace(Plan(*engines_[placement.devices.front()], select));
    } catch (const DeviceLimitError& error) {
      unable = placement.devices.front();
      why_not = "device " + std::to_string(*unable) + " cannot run it (" + error.what() + ")";
      placement.devices = {0};
    }
  }
  // What a device cannot plan is not placed there again.
  if (unable) cost_model_.Unable(*placed.choice, *unable);
  placed.device = placement.devices.front();
  placed.why = "on device " + std::to_string(placed.device) + of_devices +
               (!why_not.empty() ? why_not
                : placement.kept ? std::string("it ran there before")
                                 : std::string("it finishes first there")) +
               "; " + estimates;
  if (placed.device == 0) placed.alone.emplace(std::move(first));
  return placed;
}

std::optional<SplitPlan> QueryExecutor::PlanSplit(const sql::BoundSelect& select,
                                                  std::size_t source, SplitMerge merge,
                                                  const std::vector<std::size_t>& devices,
                                                  const std::vector<std::uint32_t>& shares,
                                                  std::string& why_not,
                                                  std::optional<std::size_t>* unable) {
  SplitPlan split;
  split.source = source;
  split.merge = merge;
  split.devices = devices;
  split.shares = shares;
  const std::vector<TablePtr>& slices =
      split_tables_.Slices(select.from.at(source).table, split.shares);
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::size_t d = devices[i];
    split.parts.push_back(PartOf(select, source, merge, slices[i]));
    try {
      split.plans.push_back(Plan(*engines_.at(d), *split.parts.back()));
    } catch (const DeviceLimitError& error) {
      // Another device's capabilities (no fp64, say) refuse it.
      why_not = "device " + std::to_string(d) + " cannot run its part (" + error.what() + ")";
      if (unable != nullptr) *unable = d;
      return std::nullopt;
    }
    if (merge == SplitMerge::kGroups && split.plans.back().root().Mergeable() == nullptr) {
      // Another device's capabilities gave it another plan.
      why_not = "device " + std::to_string(d) + "'s plan of it does not merge from parts";
      return std::nullopt;
    }
  }
  return split;
}

// A query with subqueries is planned on their rows, so EXPLAIN runs them
// first (each is explained too) and then explains the query over them.
std::string QueryExecutor::Explain(const sql::BoundSelect& select) {
  std::string text;
  const sql::BoundSelect* planned = &select;
  std::optional<sql::BoundSelect> prepared;
  try {
    if (!select.subqueries.empty()) {
      for (std::size_t i = 0; i < select.subqueries.size(); ++i) {
        const sql::Subquery& subquery = select.subqueries[i];
        text += "subquery #" + std::to_string(i) + " (run first; " +
                (subquery.source ? "the rows of " + select.from[*subquery.source].alias
                                 : std::string("a scalar value")) +
                "):\n";
        text += IndentedListing(Explain(*subquery.select), 2);
      }
      prepared = Materialized(select, nullptr);
      planned = &*prepared;
      text += "query:\n";
    }
    const Placed placed = Place(*planned);
    if (!placed.why.empty()) text += placed.why + "\n";
    if (placed.split) return text + ExplainSplit(*placed.split, *planned);
    return text + placed.alone->Explain();
  } catch (const DeviceLimitError& error) {
    // What cannot run on devices is the answer to "how would it run".
    return text + std::string("not on the device: ") + error.what() + "\n";
  }
}

}  // namespace clq
