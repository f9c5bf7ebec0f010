#include "plan/aggregate_pass.hpp"

#include <algorithm>
#include <cmath>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "plan/row_set.hpp"

namespace clq {

using sql::AggregateFunction;
using sql::ValueType;

namespace {

// Infinities of both signs sum to NaN: NULL, as in SQLite.
sql::Value RealOrNull(double value) {
  return std::isnan(value) ? sql::Value::Null() : sql::Value::Real(value);
}

}  // namespace

sql::Value AggregateResult(const sql::Aggregate& a, const AggregateValue& v) {
  const bool real = a.argument && a.argument->type == ValueType::kReal;
  switch (a.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return sql::Value::Integer(static_cast<std::int64_t>(v.count));
    case AggregateFunction::kAvg:
      if (v.count == 0) return sql::Value::Null();
      return RealOrNull((real ? v.real() : v.wide_total.value_or(static_cast<double>(v.bits))) /
                        static_cast<double>(v.count));
    default:
      if (v.count == 0 || a.type == ValueType::kNull) return sql::Value::Null();
      return real ? RealOrNull(v.real()) : sql::Value::Integer(v.bits);
  }
}

std::uint32_t AggregateOperation(const sql::Aggregate& a) {
  const bool real = a.argument && a.argument->type == ValueType::kReal;
  switch (a.function) {
    case AggregateFunction::kCountStar:
    case AggregateFunction::kCount:
      return VM_AGG_COUNT;
    case AggregateFunction::kSum:
    case AggregateFunction::kAvg:
      return real ? VM_AGG_SUM_R : VM_AGG_SUM_I;
    case AggregateFunction::kMin:
      return real ? VM_AGG_MIN_R : VM_AGG_MIN_I;
    case AggregateFunction::kMax:
      return real ? VM_AGG_MAX_R : VM_AGG_MAX_I;
    default:
      break;
  }
  throw DeviceLimitError(std::string(sql::AggregateName(a.function)) +
                         " is not supported in this position yet");
}

bool IsQuantile(const sql::Aggregate& a) {
  return a.function == AggregateFunction::kMedian || a.function == AggregateFunction::kQuantile;
}

bool CountsRows(const sql::Aggregate& a) {
  return a.function == AggregateFunction::kCountStar ||
         (a.function == AggregateFunction::kCount && a.argument &&
          a.argument->type == ValueType::kText);
}

std::vector<const sql::Expr*> DeviceArguments(const sql::BoundSelect& select) {
  std::vector<const sql::Expr*> arguments;
  for (const sql::Aggregate& a : select.aggregates)
    if (a.argument && !CountsRows(a)) arguments.push_back(&*a.argument);
  return arguments;
}

std::vector<std::vector<std::size_t>> UngroupedAggregateGroups(
    const sql::BoundSelect& select, const std::vector<const sql::Expr*>& arguments, bool fused) {
  std::vector<std::vector<std::size_t>> groups;
  if (fused || arguments.empty()) {
    groups.emplace_back();
    for (std::size_t i = 0; i < select.aggregates.size(); ++i)
      groups.back().push_back(i);
    return groups;
  }
  for (const std::vector<const sql::Expr*>& batch : BatchByColumns(arguments)) {
    groups.emplace_back();
    for (std::size_t i = 0; i < select.aggregates.size(); ++i) {
      const sql::Aggregate& a = select.aggregates[i];
      const bool in_batch = a.argument && !CountsRows(a) &&
                            std::find(batch.begin(), batch.end(), &*a.argument) != batch.end();
      const bool no_argument = !a.argument || CountsRows(a);
      if (in_batch || (no_argument && groups.size() == 1)) groups.back().push_back(i);
    }
  }
  return groups;
}

AggregatePass CompileAggregatePass(ExpressionProgram program, const sql::BoundSelect& select,
                                   const std::optional<sql::Expr>& predicate,
                                   const std::vector<std::size_t>& pass) {
  AggregatePass compiled{std::move(program),
                         std::nullopt,
                         {},
                         std::vector<std::size_t>(select.aggregates.size(), 0),
                         std::vector<std::size_t>(select.aggregates.size(), 0)};
  if (predicate) compiled.predicate_entry = compiled.program.AddPredicate(*predicate);
  for (const std::size_t i : pass) {
    const sql::Aggregate& a = select.aggregates[i];
    if (IsQuantile(a)) {
      compiled.quantile_entries[i] = compiled.program.AddValue(*a.argument);
      continue;
    }
    AggregateSpec spec;
    spec.operation = AggregateOperation(a);
    spec.total_may_exceed_int64 = a.function == AggregateFunction::kAvg;
    if (a.argument && !CountsRows(a)) spec.entry = compiled.program.AddValue(*a.argument);
    compiled.spec_of[i] = compiled.specs.size();
    compiled.specs.push_back(spec);
  }
  return compiled;
}

}  // namespace clq
