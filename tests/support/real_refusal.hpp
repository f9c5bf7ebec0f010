// Devices without fp64 refuse every query with a REAL value, before anything
// runs (plan/device_capabilities.hpp). The SQL tests run such queries there
// to check the refusal instead of an answer; these helpers say which
// queries those are, independently of the planner's own check, and whether
// an error is that refusal.
#pragma once

#include <exception>
#include <string>

#include "common/errors.hpp"
#include "sql/bound.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq::testing {

// Whether `select` has a REAL value anywhere: a REAL expression in its
// WHERE, group keys, HAVING or outputs, or a REAL aggregate or argument.
inline bool UsesReal(const sql::BoundSelect& select) {
  if (select.where && HasReal(*select.where)) return true;
  if (select.having && HasReal(*select.having)) return true;
  for (const sql::Expr& key : select.group_keys)
    if (HasReal(key)) return true;
  for (const sql::Aggregate& a : select.aggregates)
    if (a.type == sql::ValueType::kReal || (a.argument && HasReal(*a.argument))) return true;
  for (const sql::OutputColumn& output : select.outputs)
    if (HasReal(output.expr)) return true;
  return false;
}

// Whether `e` is a device's refusal of REAL for want of fp64.
inline bool IsFp64Refusal(const std::exception& e) {
  return dynamic_cast<const DeviceLimitError*>(&e) != nullptr &&
         std::string(e.what()).find(
             "lacks fp64 (cl_khr_fp64): REAL expressions cannot run there") != std::string::npos;
}

}  // namespace clq::testing
