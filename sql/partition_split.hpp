// One query over a table split into partitions (Dask's), as a partial query
// that runs on every partition and the rule that combines the partials.
//
// The partitioned table appears once in FROM; every other table is whole
// on every worker (broadcast), so a join with it is a join per partition.
// Supported shapes:
//  - without aggregates: the partial query computes every output (and each
//    ORDER BY expression not among them) of its partition's rows, already
//    sorted and cut to LIMIT + OFFSET rows when there is a LIMIT; the
//    combine concatenates, applies DISTINCT again, sorts, and cuts;
//  - with aggregates (GROUP BY or not): each output is a GROUP BY key or
//    one aggregate of COUNT, SUM, MIN, MAX and AVG; the partial query
//    groups the partition (AVG as a SUM and a COUNT) and the combine
//    groups the partials (COUNT and SUM add, MIN and MAX again, AVG is the
//    sum over the count), then sorts and cuts. HAVING, DISTINCT with
//    aggregates, MEDIAN/QUANTILE and expressions over aggregates are
//    refused with a message saying so.
// The statement is bound against `catalog` first, so a wrong query fails
// with the same SqlError as a local one.
#pragma once

#include <cstddef>
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "storage/catalog.hpp"

namespace clq::sql {

struct PartitionPlan {
  enum class Combine : std::uint8_t { kRows, kKey, kCount, kSum, kMin, kMax, kAvg };
  struct Output {
    std::string name;  // the query's output name
    Combine combine = Combine::kRows;
    std::size_t column = 0;        // partial column p<column>
    std::size_t count_column = 0;  // kAvg: the partial COUNT
    bool visible = true;           // false: an ORDER BY expression only
  };
  std::string partial_sql;  // its columns are named p0, p1, ...
  std::size_t partial_columns = 0;
  bool aggregated = false;
  bool distinct = false;
  std::vector<std::size_t> group_columns;              // the partial columns that are GROUP BY keys
  std::vector<Output> outputs;                         // in the query's order, hidden ones last
  std::vector<std::pair<std::size_t, bool>> order_by;  // output index, descending
  std::optional<std::uint64_t> limit;
  std::uint64_t offset = 0;
};

PartitionPlan SplitForPartitions(std::string_view sql_text, Catalog& catalog,
                                 std::string_view partitioned_table);

}  // namespace clq::sql
