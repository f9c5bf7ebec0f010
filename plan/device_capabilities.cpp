#include "plan/device_capabilities.hpp"

#include <optional>

#include "common/errors.hpp"
#include "plan/compiled_expressions.hpp"

namespace clq {
namespace {

using sql::Expr;
using sql::ValueType;

constexpr const char* kFp64 = "fp64 (cl_khr_fp64)";
constexpr const char* kInt64Atomics = "64-bit atomics (cl_khr_int64_base_atomics)";

// The outermost REAL expression in `e` (`e` itself, or one inside it). The
// group and aggregate references of a HAVING or an aggregated query's
// outputs are checked where they point.
const Expr* OutermostReal(const Expr& e) {
  if (e.type == ValueType::kReal) return &e;
  for (const Expr& child : e.children)
    if (const Expr* real = OutermostReal(child)) return real;
  return nullptr;
}

std::string AggregateText(const sql::BoundSelect& select, const sql::Aggregate& a) {
  return std::string(sql::AggregateName(a.function)) + "(" +
         (a.argument ? ExpressionText(select, *a.argument) : "*") + ")";
}

// The text of the first expression of `select` with a REAL value, if any.
std::optional<std::string> FirstReal(const sql::BoundSelect& select) {
  const auto in = [&](const std::optional<Expr>& e) -> std::optional<std::string> {
    if (!e) return std::nullopt;
    if (const Expr* real = OutermostReal(*e)) return ExpressionText(select, *real);
    return std::nullopt;
  };
  if (auto text = in(select.where)) return text;
  for (const sql::TableRef& ref : select.from)
    if (auto text = in(ref.on)) return text;
  for (const Expr& key : select.group_keys)
    if (auto text = in(key)) return text;
  for (const sql::Aggregate& a : select.aggregates)
    if (a.type == ValueType::kReal || (a.argument && OutermostReal(*a.argument)))
      return AggregateText(select, a);
  // Also where the host would compute the REAL value (a HAVING, an output
  // of aggregates): one rule a user can predict, named by the output's text.
  if (select.having && OutermostReal(*select.having)) return "HAVING";
  for (const sql::OutputColumn& output : select.outputs)
    if (OutermostReal(output.expr)) return output.name;
  return std::nullopt;
}

}  // namespace

std::vector<DeviceShortfall> DeviceShortfalls(const DeviceInfo& device) {
  std::vector<DeviceShortfall> shortfalls;
  if (!device.fp64) shortfalls.push_back({kFp64, "REAL queries refused"});
  if (!device.int64_atomics)
    shortfalls.push_back(
        {kInt64Atomics, "GROUP BY and DISTINCT sort; joins without cuckoo tables"});
  if (device.loop_iteration_limit != 0)
    shortfalls.push_back(
        {"uncapped loops (at most " + std::to_string(device.loop_iteration_limit) +
             " iterations a work-item, llvmpipe)",
         "GROUP BY and DISTINCT sort; top-k in groups of at most 4096 rows; joins without the "
         "dense multimap"});
  return shortfalls;
}

void CheckDeviceCapabilities(const DeviceInfo& device, const sql::BoundSelect& select) {
  if (device.fp64) return;
  if (const std::optional<std::string> real = FirstReal(select))
    throw DeviceLimitError("device '" + device.name + "' lacks " + kFp64 +
                           ": REAL expressions cannot run there (" + *real + ")");
}

}  // namespace clq
