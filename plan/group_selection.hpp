// Which groups of a GROUP BY reach the host, decided on the device: HAVING,
// and ORDER BY ... LIMIT (or a LIMIT alone). The groups' keys (each gathered
// at its group's first row) and aggregates (values and counts) form a
// relation of one row per group; HAVING and the ORDER BY keys are compiled
// over it, each group key and aggregate a column (an aggregate over no
// non-NULL input NULL, through a CASE on its count). HAVING keeps the groups
// where it is true; then top-k (operators/top_k.hpp) keeps the first
// OFFSET + LIMIT groups of the ORDER BY, in that order (a LIMIT alone: the
// first groups). Only those groups are downloaded; the host evaluates the
// outputs and orders and cuts them again (plan/host_rows.hpp), which keeps
// the rows and their order: the host's sort is stable, as top-k is, and the
// groups it sees are the first ones of the same order. A HAVING that keeps
// few of many groups, or a top-k, no longer costs a host value per group.
// Where nothing is left for the host but the download (no DISTINCT; no
// ORDER BY, or top-k ran; outputs the device computes), the outputs are
// projected over the kept groups too and downloaded as the result.
//
// Each step is planned when every aggregate it reads is one the device
// holds as it is (COUNT, an INTEGER SUM/MIN/MAX, DECIMALs included, a MIN or
// MAX of REALs) and its program compiles for the device; the ORDER BY step
// also needs no DISTINCT and a HAVING on the device or none. Otherwise the
// host does that step as before (AVG, a REAL SUM and quantiles are divided
// or turned from NaN into NULL there).
#pragma once

#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "operators/expression_program.hpp"
#include "operators/group_by.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"
#include "operators/query_result.hpp"
#include "operators/top_k.hpp"
#include "plan/compiled_expressions.hpp"
#include "sql/bound.hpp"

namespace clq {

class GroupSelection {
 public:
  // `key_types`: the GROUP BY's key vectors; `operations`: each aggregate's
  // device operation; `max_groups`: a bound of the groups. nullopt when
  // every step stays on the host.
  static std::optional<GroupSelection> Plan(const Engine& engine, const QueryOptions& options,
                                            const sql::BoundSelect& select,
                                            const std::vector<ValueVectorType>& key_types,
                                            const std::vector<std::uint32_t>& operations,
                                            RowCount max_groups);

  bool having() const { return having_entry_.has_value(); }
  // ORDER BY ... LIMIT or a LIMIT alone ran: the groups left are the first
  // OFFSET + LIMIT.
  bool limits() const { return limit_.has_value(); }
  // Launched only when there are groups.
  const KernelSet& kernels() const { return kernels_; }
  // "HAVING, top-10 of at most ... groups: ...".
  std::string Describe() const;
  // The program, for EXPLAIN.
  std::string Listing(const sql::BoundSelect& select) const;

  // The outputs are computed on the device too: Apply returns the result.
  bool outputs() const { return !outputs_.empty(); }

  // Keeps the groups of `groups` the steps select, in their order (`keys`:
  // the key vectors the GROUP BY read, indexed by its input positions); with
  // outputs(), also the query's result.
  // `check_host_memory(groups)` runs before the outputs are downloaded.
  std::optional<QueryResult> Apply(QueryContext& context, const std::vector<VectorView>& keys,
                                   GroupByResult& groups,
                                   const std::function<void(RowCount)>& check_host_memory) const;

 private:
  GroupSelection(ExpressionProgram program) : program_(std::move(program)) {}

  // The relation's columns, in order: a group key, or an aggregate's values
  // or counts.
  struct Column {
    enum class Kind : std::uint8_t { kKey, kValues, kCounts };
    Kind kind = Kind::kKey;
    std::size_t index = 0;  // the key's, or the aggregate's
  };
  std::vector<Column> columns_;
  ExpressionProgram program_;
  std::optional<std::size_t> having_entry_;
  std::optional<RowCount> limit_;           // OFFSET + LIMIT groups kept
  std::vector<std::size_t> order_entries_;  // the ORDER BY keys' entries
  std::vector<bool> descending_;
  std::optional<TopKPlan> top_k_;  // with ORDER BY
  // Each visible output: a relation column as it is, or a program entry.
  struct Output {
    bool column = false;
    std::size_t index = 0;
  };
  std::vector<Output> outputs_;
  const sql::BoundSelect* select_ = nullptr;
  std::uint64_t offset_ = 0;  // groups the result skips (after the limit's)
  KernelSet kernels_;
};

}  // namespace clq
