// One query on several devices. Where the plan's result merges from parts
// (a GROUP BY or an ungrouped aggregate whose aggregates combine exactly:
// MergeableResult, plan/streamed_groups.hpp), the largest table the query
// reads is split by rows into one contiguous range per device, in the
// devices' order. Each device runs the plan built for it over its range of
// that table and every row of the others (a join's other side is
// broadcast: every device holds it whole), on a thread of its own; the
// devices' groups are then merged on the host in the devices' order, so
// that groups keep the order of their first appearance and the answer is
// the one device's answer.
//
// The rows of one table (a SELECT without GROUP BY, aggregates or DISTINCT
// over a single table; under ORDER BY, only with OFFSET + LIMIT at most
// kMergedRowsMost) split too: each device returns its part's rows,
// with its hidden ORDER BY keys and at most OFFSET + LIMIT of them; the
// host concatenates them in the devices' order, or, under ORDER BY, merges
// the devices' sorted rows by their keys (ties to the earlier device, that
// is to the earlier row, as the stable sort of one device orders them),
// then applies OFFSET and LIMIT.
//
// Each device's plan is built for the statement with the split table
// replaced by that device's rows of it, so that its EXPLAIN and its bounds
// are those of its part. The split table is never the nullable side of a
// LEFT JOIN: its rows without a match would be kept by every device. Each
// device's range of a table is one slice (Table::Slice) kept for later
// queries, so what a device uploads of it stays resident. Rows are split
// in the shares the cost model measures (plan/split_costs.hpp), which may
// leave devices out, or evenly, or in the shares QueryOptions::device_shares
// gives (a GPU beside a CPU does most of the work).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <utility>
#include <vector>

#include "plan/physical_plan.hpp"

namespace clq {

// The most rows (OFFSET + LIMIT) an ORDER BY over split rows keeps: the
// host merges the devices' sorted rows one value at a time, so a sort of
// more rows runs on the first device alone.
inline constexpr std::uint64_t kMergedRowsMost = 65536;

// How the devices' parts of a split query merge.
enum class SplitMerge {
  kGroups,  // the root's groups (MergeableResult)
  kRows,    // the result rows, concatenated or merged by the ORDER BY keys
};

// Which FROM source of `select` the devices split, for a plan whose root is
// `root`, and how the parts merge (`merge`); nullopt, with the reason in
// `why_not`, where the query runs on the first device alone.
std::optional<std::size_t> SplitSource(const sql::BoundSelect& select, const ResultNode& root,
                                       SplitMerge& merge, std::string& why_not);

// A device's part of `select` with source `source` replaced by `slice`:
// for merged rows, every output returned (the hidden ORDER BY keys too) and
// at most OFFSET + LIMIT rows, from the first.
std::unique_ptr<sql::BoundSelect> PartOf(const sql::BoundSelect& select, std::size_t source,
                                         SplitMerge merge, const TablePtr& slice);

// The rows of `select` from the devices' results of their parts (PartOf),
// in the devices' order: concatenated, or merged by the ORDER BY keys; then
// OFFSET and LIMIT, and the visible outputs. Held to `host_memory`.
QueryResult MergeRows(const sql::BoundSelect& select, const std::vector<QueryResult>& parts,
                      std::uint64_t host_memory);

// The shares of `devices` devices that `shares` gives (InvalidInputError
// where it names another count of devices), or even ones.
std::vector<std::uint32_t> GivenShares(const DeviceShares& shares, std::size_t devices);

// The rows [begin, end) of part `part` of `rows` split in `shares`: part p
// ends at rows x (the shares up to p) / (all the shares), rounded down.
std::pair<RowCount, RowCount> PartRows(RowCount rows, std::size_t part,
                                       const std::vector<std::uint32_t>& shares);

// Each table's slices by device, one set a table, kept so that devices
// find their parts resident in later queries, while the table lives
// elsewhere (a session that replaces its tables does not keep the old
// ones' rows). Not thread-safe.
class SplitTables {
 public:
  // `table`'s rows in a slice per share (PartRows).
  const std::vector<TablePtr>& Slices(const TablePtr& table,
                                      const std::vector<std::uint32_t>& shares);
  // The slices made for `table` in `shares` before; null where none were.
  const std::vector<TablePtr>* Find(const Table& table,
                                    const std::vector<std::uint32_t>& shares) const;
  // Drops the slices of tables no longer held elsewhere (Slices does too).
  void Prune();

 private:
  // By table id (never reused) and shares: the table, watched, and its
  // slices, which share its columns' memory.
  std::map<std::pair<std::uint64_t, std::vector<std::uint32_t>>,
           std::pair<std::weak_ptr<const Table>, std::vector<TablePtr>>>
      slices_;
};

// A query's plans on several devices, each over its part of one table.
struct SplitPlan {
  std::size_t source = 0;                  // the FROM source split by rows
  SplitMerge merge = SplitMerge::kGroups;  // how the devices' parts merge
  std::vector<std::size_t> devices;        // the engines that run it, in order
  std::vector<std::uint32_t> shares;       // each one's share of the rows
  // By device: the statement with that source replaced by the device's
  // slice of it, and its plan on the device (which refers to it).
  std::vector<std::unique_ptr<sql::BoundSelect>> parts;
  std::vector<PhysicalPlan> plans;
};

// Runs `split.plans[i]` on `engines[split.devices[i]]`, every device on its
// own thread, and merges the devices' groups in order into the result of
// plans[0], or their rows into the result of `select`; `seconds`, where
// given, receives each device's wall time for its part. Throws the first
// device's error, in the devices' order.
QueryResult ExecuteSplit(const std::vector<Engine*>& engines, const SplitPlan& split,
                         const sql::BoundSelect& select, const QueryOptions& options,
                         std::vector<double>* seconds = nullptr);

// EXPLAIN of a split of `select`: the split, then each device's plan.
std::string ExplainSplit(const SplitPlan& split, const sql::BoundSelect& select);

}  // namespace clq
