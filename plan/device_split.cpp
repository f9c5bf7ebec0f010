#include "plan/device_split.hpp"

#include <exception>
#include <thread>

#include "common/errors.hpp"
#include "plan/streamed_groups.hpp"
#include "runtime/profiler.hpp"

namespace clq {

std::optional<std::size_t> SplitSource(const sql::BoundSelect& select, const ResultNode& root,
                                       std::string& why_not) {
  if (root.Mergeable() == nullptr) {
    why_not =
        "its result does not merge from parts of the rows (only a GROUP BY or an ungrouped "
        "aggregate of COUNT, MIN, MAX and integer SUM or AVG of columns does)";
    return std::nullopt;
  }
  std::optional<std::size_t> largest;
  for (std::size_t s = 0; s < select.from.size(); ++s) {
    if (select.from[s].outer) continue;
    if (!largest || select.from[s].table->rows() > select.from[*largest].table->rows()) largest = s;
  }
  if (!largest) why_not = "every table it reads is the nullable side of a LEFT JOIN";
  return largest;
}

std::vector<std::uint32_t> DeviceShares(const std::vector<std::uint32_t>& shares,
                                        std::size_t devices) {
  if (shares.empty()) return std::vector<std::uint32_t>(devices, 1);
  if (shares.size() != devices)
    throw InvalidInputError("device_shares gives " + std::to_string(shares.size()) +
                            " shares for " + std::to_string(devices) + " devices");
  return shares;
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
  auto& [kept, slices] = slices_[{table->id(), shares}];
  if (slices.empty()) {
    kept = table;
    for (std::size_t p = 0; p < shares.size(); ++p) {
      const auto [begin, end] = PartRows(table->rows(), p, shares);
      slices.push_back(table->Slice(table->name(), begin, end - begin));
    }
  }
  return slices;
}

QueryResult ExecuteSplit(const std::vector<Engine*>& engines, const SplitPlan& split,
                         const QueryOptions& options) {
  const std::size_t devices = engines.size();
  CLQ_CHECK(split.plans.size() == devices, "a split without a plan per device");
  std::vector<std::optional<StreamedGroups>> groups(devices);
  std::vector<std::exception_ptr> errors(devices);
  const auto run = [&](std::size_t d) {
    try {
      const MergeableResult* root = split.plans[d].root().Mergeable();
      CLQ_CHECK(root != nullptr, "a split plan whose result does not merge");
      ExecutionContext context(*engines[d], options);
      groups[d].emplace(root->NoGroups());
      root->AddGroups(context, *groups[d]);
    } catch (...) {
      errors[d] = std::current_exception();
    }
  };
  {
    std::vector<std::jthread> others;
    for (std::size_t d = 1; d < devices; ++d)
      others.emplace_back(run, d);
    run(0);
  }  // the threads join here
  for (const std::exception_ptr& error : errors)
    if (error) std::rethrow_exception(error);
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
    text += (d == 0 ? "" : ", ") + std::string("device ") + std::to_string(d) + ": rows [" +
            std::to_string(begin) + ", " + std::to_string(end) + ")";
  }
  std::string shares;
  for (const std::uint32_t share : split.shares)
    shares += (shares.empty() ? "" : ":") + std::to_string(share);
  text += "; shares " + shares + "); each device runs its plan over its rows of " + table.alias +
          (select.from.size() > 1 ? " and every row of the other tables" : "") +
          ", on its own thread; their groups merged on the host in the devices' order\n";
  for (std::size_t d = 0; d < devices; ++d) {
    text += "device " + std::to_string(d) + ":\n";
    const std::string plan = split.plans[d].Explain();
    for (std::size_t at = 0; at < plan.size();) {
      const std::size_t end = plan.find('\n', at);
      const std::size_t stop = end == std::string::npos ? plan.size() : end + 1;
      text += "  " + plan.substr(at, stop - at);
      at = stop;
    }
  }
  return text;
}

}  // namespace clq
