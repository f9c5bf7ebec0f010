#include "plan/query_executor.hpp"

#include <optional>
#include "common/errors.hpp"

#include "operators/subquery_materialize.hpp"
#include "plan/compiled_expressions.hpp"
#include "plan/physical_plan.hpp"

namespace clq {

QueryExecutor::QueryExecutor(std::vector<Engine*> engines, const QueryOptions& options)
    : engines_(std::move(engines)), options_(options) {
  CLQ_CHECK(!engines_.empty(), "a query executor without a device");
}

QueryResult QueryExecutor::Execute(const sql::BoundSelect& select) {
  std::optional<sql::BoundSelect> prepared;
  if (!select.subqueries.empty())
    prepared = MaterializeSubqueries(
        select, [this](const sql::BoundSelect& s) { return Execute(s); }, options_.host_memory,
        &engines_.front()->profiler());
  const sql::BoundSelect& planned = prepared ? *prepared : select;
  const PhysicalPlan first = Plan(*engines_.front(), planned);
  std::string why_not;
  if (const std::optional<SplitPlan> split = PlanSplit(planned, first, why_not))
    return ExecuteSplit(engines_, *split, planned, options_);
  return first.Execute(*engines_.front());
}

PhysicalPlan QueryExecutor::Plan(Engine& engine, const sql::BoundSelect& select) {
  const HostStage stage(engine.profiler(), "plan");
  return PhysicalPlan(engine, options_, select);
}

std::optional<SplitPlan> QueryExecutor::PlanSplit(const sql::BoundSelect& select,
                                                  const PhysicalPlan& first, std::string& why_not) {
  if (engines_.size() == 1) return std::nullopt;
  SplitMerge merge = SplitMerge::kGroups;
  const std::optional<std::size_t> source = SplitSource(select, first.root(), merge, why_not);
  if (!source) return std::nullopt;
  SplitPlan split;
  split.source = *source;
  split.merge = merge;
  split.shares = DeviceShares(options_.device_shares, engines_.size());
  const std::vector<TablePtr>& slices =
      split_tables_.Slices(select.from.at(*source).table, split.shares);
  for (std::size_t d = 0; d < engines_.size(); ++d) {
    split.parts.push_back(PartOf(select, *source, merge, slices[d]));
    split.plans.push_back(Plan(*engines_[d], *split.parts.back()));
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
      prepared = MaterializeSubqueries(
          select, [this](const sql::BoundSelect& s) { return Execute(s); }, options_.host_memory);
      planned = &*prepared;
      text += "query:\n";
    }
    const PhysicalPlan first = Plan(*engines_.front(), *planned);
    std::string why_not;
    if (const std::optional<SplitPlan> split = PlanSplit(*planned, first, why_not))
      return text + ExplainSplit(*split, *planned);
    if (engines_.size() > 1)
      text += "on device 0 of " + std::to_string(engines_.size()) + " alone: " + why_not + "\n";
    return text + first.Explain();
  } catch (const DeviceLimitError& error) {
    // What cannot run on devices is the answer to "how would it run".
    return text + std::string("not on the device: ") + error.what() + "\n";
  }
}

}  // namespace clq
