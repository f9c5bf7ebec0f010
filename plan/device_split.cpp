#include "plan/device_split.hpp"

#include <algorithm>
#include <chrono>
#include <exception>
#include <thread>
#include <unordered_set>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "plan/compiled_expressions.hpp"
#include "plan/distinct_node.hpp"
#include "plan/host_rows.hpp"
#include "plan/streamed_groups.hpp"
#include "runtime/profiler.hpp"

namespace clq {

namespace {

// The most rows the plan's DISTINCT under `node` gives, where it bounds them.
std::optional<std::uint64_t> DistinctRowsMost(const PhysicalNode& node) {
  if (const auto* distinct = dynamic_cast<const DistinctNode*>(&node)) return distinct->MostRows();
  for (const PhysicalNode* child : node.children())
    if (const std::optional<std::uint64_t> most = DistinctRowsMost(*child)) return most;
  return std::nullopt;
}

}  // namespace

std::optional<std::size_t> SplitSource(const sql::BoundSelect& select, const ResultNode& root,
                                       SplitMerge& merge, std::string& why_not) {
  if (root.Mergeable() != nullptr) {
    merge = SplitMerge::kGroups;
    std::optional<std::size_t> largest;
    for (std::size_t s = 0; s < select.from.size(); ++s) {
      if (select.from[s].outer) continue;
      if (!largest || select.from[s].table->rows() > select.from[*largest].table->rows())
        largest = s;
    }
    if (!largest) why_not = "every table it reads is the nullable side of a LEFT JOIN";
    return largest;
  }
  // The rows of one table keep one device's order when concatenated or
  // merged by their keys; a join's rows come in an order of its own. So do
  // its DISTINCT rows, each first in the earliest part that holds it, with
  // the later parts' equal rows dropped.
  if (select.group_keys.empty() && select.aggregates.empty() && select.from.size() == 1) {
    // The host merges sorted rows, and drops equal DISTINCT rows, value by
    // value, far slower than a device does: only the first rows of a
    // top-k, or a DISTINCT of few rows.
    const bool few = select.limit && *select.limit <= kMergedRowsMost &&
                     select.offset <= kMergedRowsMost - *select.limit;
    if (select.distinct) {
      const std::optional<std::uint64_t> most = DistinctRowsMost(root);
      if (few || (most && *most <= kMergedRowsMost)) {
        merge = SplitMerge::kRows;
        return 0;
      }
      why_not = "DISTINCT of rows its plan does not bound to " + std::to_string(kMergedRowsMost) +
                ", without a LIMIT (or with OFFSET + LIMIT past that): the host would compare "
                "every row the devices return";
      return std::nullopt;
    }
    if (select.order_by.empty() || few) {
      merge = SplitMerge::kRows;
      return 0;
    }
    why_not = "ORDER BY without a LIMIT (or with OFFSET + LIMIT past " +
              std::to_string(kMergedRowsMost) +
              " rows): the host would merge every row the devices sort";
    return std::nullopt;
  }
  why_not =
      "its result does not merge from parts of the rows (only a GROUP BY or an ungrouped "
      "aggregate of COUNT, MIN, MAX and integer SUM or AVG of columns does, or the rows of one "
      "table)";
  return std::nullopt;
}

std::unique_ptr<sql::BoundSelect> PartOf(const sql::BoundSelect& select, std::size_t source,
                                         SplitMerge merge, const TablePtr& slice) {
  auto part = std::make_unique<sql::BoundSelect>(select);
  part->from.at(source).table = slice;
  if (merge == SplitMerge::kRows) {
    part->visible_outputs = part->outputs.size();
    if (part->limit)
      *part->limit = *part->limit > ~std::uint64_t{0} - part->offset ? ~std::uint64_t{0}
                                                                     : *part->limit + part->offset;
    part->offset = 0;
  }
  return part;
}

namespace {

// `to`'s rows from `order`'s [first, first + to's rows): (part, row) of
// the parts' column `o`; `to` is sized, its text `to.text_width` wide.
void GatherValues(ResultColumn& to, const std::vector<QueryResult>& parts, std::size_t o,
                  const std::vector<std::pair<std::size_t, RowCount>>& order, RowCount first) {
  const RowCount rows = to.rows();
  for (RowCount i = 0; i < rows; ++i) {
    const auto [p, row] = order[first + i];
    const ResultColumn& from = parts[p].columns[o];
    if (!to.nulls.empty())
      to.nulls[i] = from.IsNull(row) || from.type == sql::ValueType::kNull ? 1 : 0;
    if (from.type == sql::ValueType::kNull) continue;  // the part's values are all NULL
    switch (to.type) {
      case sql::ValueType::kInteger:
        to.integers[i] = from.integers[row];
        break;
      case sql::ValueType::kReal:
        to.reals[i] = from.reals[row];
        break;
      case sql::ValueType::kText:
        std::copy_n(from.text.data() + row * from.text_width, from.text_width,
                    to.text.data() + i * to.text_width);
        break;
      case sql::ValueType::kNull:
        break;
    }
  }
}

}  // namespace

// MergeRows checks the host memory of its order and DISTINCT keys this
// often (in rows taken), counting a key this much beside its bytes.
constexpr std::size_t kCheckedRows = 65536;
constexpr std::uint64_t kSetEntryBytes = 64;

QueryResult MergeRows(const sql::BoundSelect& select, const std::vector<QueryResult>& parts,
                      std::uint64_t host_memory) {
  // The result's first OFFSET + LIMIT rows, as (part, row) in order.
  const std::uint64_t wanted =
      select.limit ? std::min(*select.limit, ~std::uint64_t{0} - select.offset) + select.offset
                   : ~std::uint64_t{0};
  std::vector<std::pair<std::size_t, RowCount>> order;
  // DISTINCT: the visible outputs of every row taken (EncodeKeyValue).
  std::unordered_set<std::string> seen;
  std::uint64_t seen_bytes = 0;  // the keys, and about a set entry's own
  const auto take = [&](std::size_t p, RowCount r) {
    if (select.distinct) {
      std::string key;
      for (std::size_t o = 0; o < select.visible_outputs; ++o)
        EncodeKeyValue(parts[p].columns.at(o).ValueAt(r), key);
      const std::uint64_t bytes = key.size() + kSetEntryBytes;
      if (!seen.insert(std::move(key)).second) return;
      seen_bytes += bytes;
    }
    order.emplace_back(p, r);
    if (order.size() % kCheckedRows == 0)
      CheckHostMemory(
          host_memory, "the order of the merged rows (" + std::to_string(order.size()) + " rows)",
          SaturatingAdd(SaturatingMultiply(order.size(), sizeof(order[0])), seen_bytes));
  };
  if (select.order_by.empty()) {
    for (std::size_t p = 0; p < parts.size() && order.size() < wanted; ++p)
      for (RowCount r = 0; r < parts[p].rows && order.size() < wanted; ++r)
        take(p, r);
  } else {
    // Each part is in key order; the earlier part wins a tie (equal
    // DISTINCT rows tie: the earlier part's is taken).
    const auto before = [&](std::size_t p, RowCount a, std::size_t q, RowCount b) {
      return OrderedBefore(select.order_by, [&](std::size_t o) {
        return CompareResultValues(parts[p].columns.at(o), a, parts[q].columns.at(o), b);
      });
    };
    // The parts with rows left, in a heap whose top holds the next row.
    std::vector<RowCount> next(parts.size(), 0);
    const auto after = [&](std::size_t p, std::size_t q) {
      if (before(q, next[q], p, next[p])) return true;
      return !before(p, next[p], q, next[q]) && p > q;
    };
    std::vector<std::size_t> heap;
    for (std::size_t p = 0; p < parts.size(); ++p)
      if (parts[p].rows > 0) heap.push_back(p);
    std::make_heap(heap.begin(), heap.end(), after);
    while (order.size() < wanted && !heap.empty()) {
      std::pop_heap(heap.begin(), heap.end(), after);
      const std::size_t p = heap.back();
      take(p, next[p]++);
      if (next[p] < parts[p].rows)
        std::push_heap(heap.begin(), heap.end(), after);
      else
        heap.pop_back();
    }
  }
  const RowCount first =
      static_cast<RowCount>(std::min<std::uint64_t>(select.offset, order.size()));
  const RowCount kept = static_cast<RowCount>(order.size()) - first;
  QueryResult result;
  result.rows = kept;
  for (std::size_t o = 0; o < select.visible_outputs; ++o) {
    // A part whose values are all NULL may type the column kNull: the
    // others' type.
    const ResultColumn* model = &parts.front().columns.at(o);
    for (const QueryResult& part : parts)
      if (model->type == sql::ValueType::kNull) model = &part.columns.at(o);
    ResultColumn column;
    column.name = model->name;
    column.type = model->type;
    column.logical = model->logical;
    // NULL bytes where some part's value may be NULL, or where they count
    // the rows; dropped again where none is.
    bool nulls = false;
    for (const QueryResult& part : parts) {
      const ResultColumn& from = part.columns.at(o);
      CLQ_CHECK(from.type == column.type || from.type == sql::ValueType::kNull,
                "parts of a merge whose column types differ");
      column.text_width = std::max(column.text_width, from.text_width);
      nulls = nulls || !from.nulls.empty() || from.type != column.type;
    }
    const bool counted_by_nulls = column.type == sql::ValueType::kNull ||
                                  (column.type == sql::ValueType::kText && column.text_width == 0);
    CheckHostMemory(host_memory, "the devices' rows merged (" + std::to_string(kept) + " rows)",
                    SaturatingMultiply(kept, std::max<std::uint64_t>(column.text_width, 8) + 1));
    if (nulls || counted_by_nulls) column.nulls.assign(kept, 0);
    switch (column.type) {
      case sql::ValueType::kInteger:
        column.integers.resize(kept);
        break;
      case sql::ValueType::kReal:
        column.reals.resize(kept);
        break;
      case sql::ValueType::kText:
        column.text.assign(kept * column.text_width, '\0');
        break;
      case sql::ValueType::kNull:
        break;
    }
    GatherValues(column, parts, o, order, first);
    if (!counted_by_nulls &&
        std::find(column.nulls.begin(), column.nulls.end(), 1) == column.nulls.end())
      column.nulls.clear();
    result.columns.push_back(std::move(column));
  }
  return result;
}

std::vector<std::uint32_t> GivenShares(const DeviceShares& shares, std::size_t devices) {
  if (shares.given.empty()) return std::vector<std::uint32_t>(devices, 1);
  if (shares.given.size() != devices)
    throw InvalidInputError("device_shares gives " + std::to_string(shares.given.size()) +
                            " shares for " + std::to_string(devices) + " devices");
  return shares.given;
}

std::pair<RowCount, RowCount> PartRows(RowCount rows, std::size_t part,
                                       const std::vector<std::uint32_t>& shares) {
  std::uint64_t total = 0, before = 0;
  for (std::size_t p = 0; p < shares.size(); ++p) {
    total += shares[p];
    if (p < part) before += shares[p];
  }
  // rows < 2^32 and total <= 1000 per device: the products fit 64 bits.
  const auto end_of = [&](std::uint64_t up_to) {
    return static_cast<RowCount>(static_cast<std::uint64_t>(rows) * up_to / total);
  };
  return {end_of(before), end_of(before + shares.at(part))};
}

const std::vector<TablePtr>& SplitTables::Slices(const TablePtr& table,
                                                 const std::vector<std::uint32_t>& shares) {
  Prune();
  auto& [watched, slices] = slices_[{table->id(), shares}];
  if (slices.empty()) {
    // One set of slices a table: those of other shares go (the devices'
    // copies of them are evicted as the devices need room).
    std::erase_if(slices_, [&](const auto& entry) {
      return entry.first.first == table->id() && entry.first.second != shares;
    });
    watched = table;
    for (std::size_t p = 0; p < shares.size(); ++p) {
      const auto [begin, end] = PartRows(table->rows(), p, shares);
      slices.push_back(table->Slice(table->name(), begin, end - begin));
    }
  }
  return slices;
}

void SplitTables::Prune() {
  std::erase_if(slices_, [](const auto& entry) { return entry.second.first.expired(); });
}

const std::vector<TablePtr>* SplitTables::Find(const Table& table,
                                               const std::vector<std::uint32_t>& shares) const {
  const auto found = slices_.find({table.id(), shares});
  return found == slices_.end() ? nullptr : &found->second.second;
}

QueryResult ExecuteSplit(const std::vector<Engine*>& all_engines, const SplitPlan& split,
                         const sql::BoundSelect& select, const QueryOptions& options,
                         std::vector<double>* seconds) {
  const std::size_t devices = split.devices.size();
  CLQ_CHECK(split.plans.size() == devices, "a split without a plan per device");
  std::vector<Engine*> engines;
  for (const std::size_t d : split.devices)
    engines.push_back(all_engines.at(d));
  std::vector<double> part_seconds(devices, 0);
  std::vector<std::optional<StreamedGroups>> groups(devices);
  std::vector<QueryResult> rows(devices);
  std::vector<std::exception_ptr> errors(devices);
  const auto run = [&](std::size_t d) {
    const auto start = std::chrono::steady_clock::now();
    try {
      if (split.merge == SplitMerge::kRows) {
        rows[d] = split.plans[d].Execute(*engines[d]);
      } else {
        const MergeableResult* root = split.plans[d].root().Mergeable();
        CLQ_CHECK(root != nullptr, "a split plan whose result does not merge");
        ExecutionContext context(*engines[d], options);
        groups[d].emplace(root->NoGroups());
        root->AddGroups(context, *groups[d]);
      }
    } catch (...) {
      errors[d] = std::current_exception();
    }
    part_seconds[d] =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  };
  {
    std::vector<std::jthread> others;
    for (std::size_t d = 1; d < devices; ++d)
      others.emplace_back(run, d);
    run(0);
  }  // the threads join here
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
  if (seconds != nullptr) *seconds = part_seconds;
  if (split.merge == SplitMerge::kRows) {
    const HostStage stage(engines[0]->profiler(), "devices' rows merged");
    return MergeRows(select, rows, options.host_memory);
  }
  StreamedGroups& merged = *groups[0];
  {
    const HostStage stage(engines[0]->profiler(), "devices' groups merged");
    for (std::size_t d = 1; d < devices; ++d)
      merged.Merge(*groups[d]);
  }
  ExecutionContext context(*engines[0], options);
  QueryResult result = split.plans[0].root().Mergeable()->Finish(context, merged);
  split.plans[0].SetOutputTypes(result);
  return result;
}

std::string ExplainSplit(const SplitPlan& split, const sql::BoundSelect& select) {
  const sql::TableRef& table = select.from.at(split.source);
  const std::size_t devices = split.plans.size();
  std::string text =
      "split over " + std::to_string(devices) + " devices by rows of " + table.alias + " (";
  for (std::size_t d = 0; d < devices; ++d) {
    const auto [begin, end] = PartRows(table.table->rows(), d, split.shares);
    text += (d == 0 ? "" : ", ") + std::string("device ") + std::to_string(split.devices[d]) +
            ": rows [" + std::to_string(begin) + ", " + std::to_string(end) + ")";
  }
  std::string shares;
  for (const std::uint32_t share : split.shares)
    shares += (shares.empty() ? "" : ":") + std::to_string(share);
  text += "; shares " + shares + "); each device runs its plan over its rows of " + table.alias +
          (select.from.size() > 1 ? " and every row of the other tables" : "") +
          ", on its own thread; " +
          (split.merge == SplitMerge::kGroups
               ? std::string("their groups merged on the host in the devices' order")
               : std::string("their rows (each device's first OFFSET + LIMIT, hidden ORDER BY "
                             "keys too) ") +
                     (select.distinct ? "less those an earlier device gave, " : "") +
                     (select.order_by.empty() ? "concatenated on the host in the devices' order"
                                              : "merged on the host by the ORDER BY keys, ties "
                                                "to the earlier device") +
                     (select.limit || select.offset > 0 ? ", then OFFSET and LIMIT" : "")) +
          "\n";
  for (std::size_t d = 0; d < devices; ++d)
    text += "device " + std::to_string(split.devices[d]) + ":\n" +
            IndentedListing(split.plans[d].Explain(), 2);
  return text;
}

}  // namespace clq
