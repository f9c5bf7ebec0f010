// Aggregation without grouping: COUNT, SUM, MIN, MAX (AVG is SUM and COUNT)
// of expressions over the rows of a relation where an optional predicate is
// true, in one fused pass (kernel vm_aggregate): each work-group folds one or
// several tiles (more on larger inputs, see TilesPerGroup in aggregation.cpp)
// and reduces them in local memory, then vm_aggregate_merge reduces the partials
// (tree on GPUs, serial within a group on CPUs) down to one per aggregate.
// Integer sums are exact int64; an overflow raises the query's status.
// Blocks for the final read of the results.
#pragma once

#include <algorithm>
#include <cstddef>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "operators/device_program.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"
#include "operators/relation.hpp"

namespace clq {

struct AggregateSpec {
  std::uint32_t operation = 0;       // VM_AGG_* (kernels_cl/vm_shared.h)
  std::optional<std::size_t> entry;  // the argument's program entry; none for COUNT(*)
  // VM_AGG_SUM_I only: a total past int64 is returned (AggregateValue::
  // wide_total) instead of raising "integer overflow" (SQL's AVG, whose
  // result is REAL, never overflows: SQLite averages such totals as REAL).
  bool total_may_exceed_int64 = false;
};

struct AggregateValue {
  std::int64_t bits = 0;    // int64 value, or the bits of a double for _R operations
  std::uint64_t count = 0;  // rows that contributed; 0 means the aggregate is NULL (but COUNT: 0)
  // An integer SUM's exact total rounded to double, when it does not fit
  // int64 (only with AggregateSpec::total_may_exceed_int64; bits is then 0),
  // or a grouped integer AVG's total summed as doubles.
  std::optional<double> wide_total;
  double real() const;
};

// Whether a SUM of `rows` integers within `range` provably stays inside
// int64 in any order of addition (false for an unknown range).
bool SumFitsInt64(const std::optional<IntRange>& range, RowCount rows);

// `rows_bound`: the most rows the relation can have, which decides whether
// an integer SUM runs as two 32-bit halves (SplitForDevice); the relation's
// own row count when absent. A plan passes its bound, so that the kernels it
// explains are the ones that run.
std::vector<AggregateValue> Aggregate(QueryContext& context, Relation& relation,
                                      const DeviceProgram& program,
                                      std::optional<std::size_t> predicate_entry,
                                      const std::vector<AggregateSpec>& aggregates,
                                      std::optional<RowCount> rows_bound = std::nullopt);

// The kernels Aggregate launches over `rows_bound` rows (at most that many
// unless `exact`).
KernelSet AggregateKernels(const Engine& engine, const QueryOptions& options,
                           const ExpressionProgram& program,
                           std::optional<std::size_t> predicate_entry,
                           const std::vector<AggregateSpec>& aggregates, RowCount rows_bound,
                           bool exact);

// `items` in consecutive passes of at most `per_pass` each.
template <typename T>
std::vector<std::vector<T>> InPasses(const std::vector<T>& items, std::size_t per_pass) {
  std::vector<std::vector<T>> passes;
  for (std::size_t begin = 0; begin < items.size(); begin += per_pass) {
    const std::size_t end = std::min(begin + per_pass, items.size());
    passes.emplace_back(items.begin() + static_cast<std::ptrdiff_t>(begin),
                        items.begin() + static_cast<std::ptrdiff_t>(end));
  }
  return passes;
}

// The device's view of an aggregation over `rows` rows: an integer SUM
// that the range analysis cannot bound becomes its two 32-bit halves
// (split[a]; specs[first_spec[a]] is the first of aggregate a's specs), in
// passes of at most VM_MAX_AGGREGATES. Throws DeviceLimitError past
// VM_MAX_AGGREGATES aggregates.
struct DeviceAggregates {
  std::vector<AggregateSpec> specs;
  std::vector<std::size_t> first_spec;
  std::vector<bool> split;
  std::vector<std::vector<AggregateSpec>> passes;
};
DeviceAggregates SplitForDevice(const ExpressionProgram& program, RowCount rows,
                                const std::vector<AggregateSpec>& aggregates);

// What an aggregation pass over `aggregates` runs: vm_aggregate_columns (no
// interpreter: no predicate, no NULL, every argument COUNT(*) or a bare
// column), vm_aggregate_short_real (no interpreter: no predicate, no NULL,
// every argument COUNT(*) or ExpressionProgram::IsShortReal; not when
// options.short_real is kOff) or vm_aggregate on `machine`.
struct AggregateKernelChoice {
  enum class Kernel { kInterpreter, kColumns, kShortReal };
  Kernel kernel = Kernel::kInterpreter;
  VmMachine machine;  // the interpreter's, when it runs
  // "vm_aggregate_columns" or "vm_aggregate_short_real"; empty for the
  // interpreter (DeviceProgram::VmKernel on `machine`).
  std::string_view DirectKernelName() const;
  // "aggregate columns", "aggregate (short REAL)" or the machine's stage name.
  std::string StageName() const;
};
AggregateKernelChoice ChooseAggregateKernel(const ExpressionProgram& program,
                                            std::optional<std::size_t> predicate_entry,
                                            const std::vector<AggregateSpec>& aggregates,
                                            const QueryOptions& options);

}  // namespace clq
