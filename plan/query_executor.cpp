#include "plan/query_executor.hpp"

#include <optional>
#include "common/errors.hpp"

#include "operators/subquery_materialize.hpp"
#include "plan/physical_plan.hpp"

namespace clq {

QueryResult QueryExecutor::Execute(const sql::BoundSelect& select) {
  if (!select.subqueries.empty()) {
    const sql::BoundSelect prepared = MaterializeSubqueries(
        select, [this](const sql::BoundSelect& s) { return Execute(s); }, options_.host_memory,
        &engine_.profiler());
    return Plan(prepared).Execute(engine_);
  }
  return Plan(select).Execute(engine_);
}

PhysicalPlan QueryExecutor::Plan(const sql::BoundSelect& select) {
  const HostStage stage(engine_.profiler(), "plan");
  return PhysicalPlan(engine_, options_, select);
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
        std::string inner = Explain(*subquery.select);
        for (std::size_t at = 0; at < inner.size();) {
          const std::size_t end = inner.find('\n', at);
          text += "  " + inner.substr(at, end == std::string::npos ? end : end - at + 1);
          at = end == std::string::npos ? inner.size() : end + 1;
        }
      }
      prepared = MaterializeSubqueries(
          select, [this](const sql::BoundSelect& s) { return Execute(s); }, options_.host_memory);
      planned = &*prepared;
      text += "query:\n";
    }
    return text + PhysicalPlan(engine_, options_, *planned).Explain();
  } catch (const DeviceLimitError& error) {
    // What cannot run on devices is the answer to "how would it run".
    return text + std::string("not on the device: ") + error.what() + "\n";
  }
}

}  // namespace clq
