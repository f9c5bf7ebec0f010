// HAVING on the device, over the groups a GROUP BY made, before anything is
// downloaded: the groups' keys (each gathered at its group's first row) and
// aggregates (values and counts) form a relation of one row per group; HAVING
// is compiled over it, each group key and aggregate a column (an aggregate
// over no non-NULL input NULL, through a CASE on its count); the selection
// keeps the groups where it is true, and their keys' first rows and
// aggregates are gathered. Only the groups HAVING keeps then reach the host,
// which evaluates the outputs, ORDER BY and LIMIT (plan/host_rows.hpp): a
// HAVING that keeps few of many groups no longer costs a host value per
// group.
//
// Planned when every aggregate HAVING reads is one the device holds as it
// is: COUNT, an INTEGER SUM/MIN/MAX (DECIMALs included), a MIN/MAX of REALs;
// and the program compiles for the device. Otherwise the host evaluates
// HAVING as before (AVG, a REAL SUM, a quantile: their host form divides or
// turns NaN into NULL).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "operators/expression_program.hpp"
#include "operators/group_by.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"
#include "plan/compiled_expressions.hpp"
#include "sql/bound.hpp"

namespace clq {

class GroupHaving {
 public:
  // `key_types`: the GROUP BY's key vectors; `operations`: each aggregate's
  // device operation. nullopt when the HAVING stays on the host.
  static std::optional<GroupHaving> Plan(const Engine& engine, const QueryOptions& options,
                                         const sql::BoundSelect& select,
                                         const std::vector<ValueVectorType>& key_types,
                                         const std::vector<std::uint32_t>& operations,
                                         RowCount max_groups);

  // Launched only when there are groups.
  const KernelSet& kernels() const { return kernels_; }
  // The program, for EXPLAIN.
  std::string Listing(const sql::BoundSelect& select) const;

  // Keeps the groups of `groups` where HAVING is true (`keys`: the key
  // vectors the GROUP BY read, indexed by its input positions).
  void Filter(QueryContext& context, const std::vector<VectorView>& keys,
              GroupByResult& groups) const;

 private:
  GroupHaving(ExpressionProgram program, std::size_t entry)
      : program_(std::move(program)), entry_(entry) {}

  // The relation's columns, in order: a group key, or an aggregate's values
  // or counts.
  struct Column {
    enum class Kind : std::uint8_t { kKey, kValues, kCounts };
    Kind kind = Kind::kKey;
    std::size_t index = 0;  // the key's, or the aggregate's
  };
  std::vector<Column> columns_;
  ExpressionProgram program_;
  std::size_t entry_ = 0;
  KernelSet kernels_;
};

}  // namespace clq
