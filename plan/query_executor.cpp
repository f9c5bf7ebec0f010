#include "plan/query_executor.hpp"

#include "common/errors.hpp"
#include "plan/physical_plan.hpp"

namespace clq {

QueryResult QueryExecutor::Execute(const sql::BoundSelect& select) {
  return PhysicalPlan(engine_, options_, select).Execute(engine_);
}

std::string QueryExecutor::Explain(const sql::BoundSelect& select) const {
  try {
    return PhysicalPlan(engine_, options_, select).Explain();
  } catch (const DeviceLimitError& error) {
    // What cannot run on devices is the answer to "how would it run".
    return std::string("not on the device: ") + error.what() + "\n";
  }
}

}  // namespace clq
