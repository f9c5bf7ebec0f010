// A join past the device's memory, partitioned: a hash join in the manner
// of GRACE, with the host's memory as its spill. Where a node's input is a
// join of two tables (each scanned, perhaps filtered; perhaps a filter over
// the join) on integer columns, and what the join and the node above it
// take in device buffers would pass a quarter of the device's memory, both
// tables' rows are partitioned on the host by a hash of their key, into
// partitions whose share fits. The input then runs once per partition with
// each table replaced by that partition's rows of it (ExecutionContext::
// sources), and the node combines what each partition leaves, as it does
// for the chunks of a streamed table (plan/streamed_input.hpp).
//
// Rows whose keys are equal fall in one partition, so every match of the
// join is found in exactly one; a LEFT JOIN's row without a match has none
// in its partition either, and is kept there once. A NULL key, stored as
// zero, falls with the zeros and matches there what it matched in one pass
// (nothing). Within a partition, rows keep their table order.
//
// Each table is laid out once per run: a pass over its key counts each
// partition's rows, and each column the query reads is copied into
// partition order when first read (one pass over the column, in table
// order, each thread writing forward in one stream per partition, rather
// than a gather per partition, whose reads would touch a cache line per
// value); a partition's table is a slice of those copies. Only the columns
// the query reads are copied, and the copies are freed, on the host and on
// the device, when the last partition is done.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>

#include "common/errors.hpp"
#include "plan/physical_node.hpp"

namespace clq {

class JoinPartitions {
 public:
  // How `child`'s join partitions when its device buffers, with
  // `row_bytes` more per joined row for the node above, would pass a
  // quarter of the device's memory (QueryOptions::join_partitions);
  // nullopt when it need not or cannot (not one join of two tables on
  // integer columns of one logical type).
  static std::optional<JoinPartitions> Plan(const Engine& engine, const QueryOptions& options,
                                            const sql::BoundSelect& select, const RowNode& child,
                                            std::uint64_t row_bytes);

  std::size_t partitions() const { return partitions_; }
  // Whether the estimate is within the device's memory, so that one pass
  // may fit: the node tries one first and partitions only when it ends in
  // a DeviceLimitError (the estimate is a bound, not a measure).
  bool one_pass_first() const { return one_pass_first_; }

  // What a node over the join runs: `one_pass` where `partitions` holds
  // none; `partitioned` where it holds some, after `one_pass` where one
  // pass may fit and ends in a DeviceLimitError.
  template <typename Run, typename Partitioned>
  static auto OnePassOrPartitioned(const std::optional<JoinPartitions>& partitions,
                                   const Run& one_pass, const Partitioned& partitioned) {
    if (!partitions) return one_pass();
    if (partitions->one_pass_first()) {
      try {
        return one_pass();
      } catch (const DeviceLimitError&) {
        // Past the device's memory after all: a partition at a time.
      }
    }
    return partitioned();
  }
  // "the join partitioned on the host into N partitions by a hash of ...".
  std::string Describe(const sql::BoundSelect& select) const;

  // Runs `child` once per partition, in order, handing each partition's
  // rows to `consume`.
  void ForEach(ExecutionContext& context, const RowNode& child, const sql::BoundSelect& select,
               const std::function<void(RowSet& rows)>& consume) const;

 private:
  std::size_t partitions_ = 0;
  bool one_pass_first_ = false;
  // The joined tables' sources and key columns: left, then right.
  std::size_t sources_[2] = {0, 0};
  std::size_t keys_[2] = {0, 0};
};

}  // namespace clq
