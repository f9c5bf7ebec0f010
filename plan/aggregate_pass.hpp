// How an ungrouped aggregation is cut into expression programs: which
// aggregates share a program (UngroupedAggregateGroups), and what one pass
// compiles (CompileAggregatePass). Shared by the executor and EXPLAIN, so
// that EXPLAIN lists the programs the executor runs.
#pragma once

#include <cstdint>
#include <optional>
#include <vector>

#include "operators/aggregation.hpp"
#include "operators/expression_program.hpp"
#include "sql/bound.hpp"

namespace clq {

// The SQL value of an aggregate from its reduced device value.
sql::Value AggregateResult(const sql::Aggregate& a, const AggregateValue& v);

// The VM aggregate operation computing (part of) a SQL aggregate; throws
// DeviceLimitError for functions the device does not run in this position.
std::uint32_t AggregateOperation(const sql::Aggregate& a);
bool IsQuantile(const sql::Aggregate& a);
// COUNT(*), and COUNT of a TEXT argument: CHAR columns and text literals are
// never NULL, so both count rows and need no device argument.
bool CountsRows(const sql::Aggregate& a);

// The arguments the device evaluates, in aggregate order (not COUNT(*)'s).
std::vector<const sql::Expr*> DeviceArguments(const sql::BoundSelect& select);

// The aggregates (indexes into select.aggregates) in groups, each group one
// program: with the WHERE fused (the planner already checked the predicate
// and every argument fit one program) or without arguments, one group of all;
// otherwise groups whose arguments read at most VM_MAX_SLOTS columns together
// (BatchByColumns), aggregates without a device argument in the first. A
// group runs in passes of at most VM_MAX_AGGREGATES (InPasses).
std::vector<std::vector<std::size_t>> UngroupedAggregateGroups(
    const sql::BoundSelect& select, const std::vector<const sql::Expr*>& arguments, bool fused);

// The program of one aggregation pass: the fused WHERE, if any, and the
// arguments of the aggregates `pass` (indexes into select.aggregates),
// compiled into `program` (empty, over the pass's input relation).
struct AggregatePass {
  ExpressionProgram program;
  std::optional<std::size_t> predicate_entry;
  std::vector<AggregateSpec> specs;           // of the pass's aggregates but quantiles
  std::vector<std::size_t> spec_of;           // by aggregate index: its spec
  std::vector<std::size_t> quantile_entries;  // by aggregate index: a quantile's argument
};

AggregatePass CompileAggregatePass(ExpressionProgram program, const sql::BoundSelect& select,
                                   const std::optional<sql::Expr>& predicate,
                                   const std::vector<std::size_t>& pass);

}  // namespace clq
