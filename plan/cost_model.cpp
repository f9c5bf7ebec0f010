#include "plan/cost_model.hpp"

#include <algorithm>
#include <limits>

#include "plan/query_plan.hpp"
#include "runtime/device_table.hpp"
#include "runtime/profiler.hpp"

namespace clq {
namespace {

// A new placement replaces the last one only where estimated faster by
// this factor: noise in what runs measure should not move slices.
constexpr double kNewPlacementGain = 0.9;
// The most query shapes the model keeps measurements of.
constexpr std::size_t kShapesMost = 4096;
// How much one slower run raises a device's measured seconds per row.
constexpr double kSlowerRunStep = 1.5;

// What the model keeps a query's measurements by: the table its rows are
// counted in and the nodes of its plan.
std::string ShapeOf(const sql::BoundSelect& select, std::size_t source, const PhysicalPlan& plan) {
  std::string shape = std::to_string(select.from.at(source).table->id()) + "\n";
  for (const PhysicalNode* node : plan.nodes())
    shape += node->Name() + ": " + node->Describe() + "\n";
  return shape;
}

}  // namespace

CostModel::Choice CostModel::Choose(const sql::BoundSelect& select, const PhysicalPlan& first,
                                    std::size_t counted, bool splits, double plan_seconds,
                                    const SplitTables& slices) {
  const std::size_t devices = engines_.size();
  const Table& table = *select.from.at(counted).table;
  Choice choice;
  choice.rows = table.rows();
  choice.shape = ShapeOf(select, counted, first);
  // A long session's many queries: forget them all rather than grow.
  if (shapes_.size() >= kShapesMost && !shapes_.contains(choice.shape)) shapes_.clear();
  ShapeRecord& record = shapes_[choice.shape];
  std::vector<double> upload_per_row;
  CostsOf(select, first, counted, record, choice.costs, upload_per_row);
  // Alone, a device uploads what it lacks of the table; a new split's
  // slices are uploaded whole, once for the runs to come.
  std::vector<DeviceCost> alone = choice.costs, split = choice.costs;
  std::vector<bool> holds(devices);
  for (std::size_t d = 0; d < devices; ++d) {
    holds[d] = Holds(d, select, counted, table);
    if (!holds[d]) alone[d].seconds_per_row += upload_per_row[d];
    split[d].seconds_per_row += upload_per_row[d] / static_cast<double>(record.runs + 1);
  }
  DevicePlacement& placement = choice.placement;
  placement = PlaceQuery(alone, split, choice.rows, splits, plan_seconds);
  // Whether each of `on` holds its slice of the table in `shares`.
  const auto slices_held = [&](const std::vector<std::size_t>& on,
                               const std::vector<std::uint32_t>& shares) {
    const std::vector<TablePtr>* parts = slices.Find(table, shares);
    std::vector<bool> held(on.size(), false);
    for (std::size_t i = 0; parts != nullptr && i < on.size(); ++i)
      held[i] = Holds(on[i], select, counted, *parts->at(i));
    return held;
  };
  // (A split kept needs a query that splits: the shape says so, and this
  // checks it.)
  if (!record.devices.empty() && (splits || record.devices.size() == 1) &&
      (record.devices != placement.devices || record.shares != placement.shares)) {
    double kept = 0;
    if (record.devices.size() == 1) {
      kept = placement.alone_seconds.at(record.devices.front());
    } else {
      const std::vector<bool> held = slices_held(record.devices, record.shares);
      std::vector<DeviceCost> last = choice.costs;
      std::vector<std::uint32_t> all(devices, 0);
      for (std::size_t i = 0; i < record.devices.size(); ++i) {
        const std::size_t d = record.devices[i];
        all.at(d) = record.shares[i];
        if (!held[i]) last[d].seconds_per_row += upload_per_row[d];
      }
      kept = SplitSeconds(last, all, choice.rows) +
             plan_seconds * static_cast<double>(record.devices.size());
    }
    const double chosen = placement.devices.size() > 1
                              ? placement.split_seconds
                              : placement.alone_seconds.at(placement.devices.front());
    if (chosen > kNewPlacementGain * kept) {
      placement.devices = record.devices;
      placement.shares = record.shares;
      placement.kept = true;
      if (record.devices.size() > 1) placement.split_seconds = kept;
    }
  }
  // What this run uploads, which Record tells from what the rows took.
  choice.upload_per_row.assign(devices, 0);
  const std::vector<bool> held = placement.devices.size() > 1
                                     ? slices_held(placement.devices, placement.shares)
                                     : std::vector<bool>{holds[placement.devices.front()]};
  for (std::size_t i = 0; i < placement.devices.size(); ++i)
    if (!held[i])
      choice.upload_per_row[placement.devices[i]] = upload_per_row[placement.devices[i]];
  return choice;
}

void CostModel::Record(const Choice& choice, const std::vector<std::size_t>& devices,
                       const std::vector<std::uint32_t>& shares, const std::vector<RowCount>& rows,
                       const std::vector<double>& seconds) {
  ShapeRecord& record = shapes_[choice.shape];
  ++record.runs;
  record.devices = devices;
  record.shares = shares;
  std::vector<std::optional<double>>& measured = record.seconds_per_row;
  measured.resize(engines_.size());
  for (std::size_t i = 0; i < devices.size(); ++i) {
    const std::size_t d = devices[i];
    if (rows[i] == 0) continue;
    const double part_rows = static_cast<double>(rows[i]);
    // What the rows took beyond the fixed cost and the uploads modeled; at
    // least a quarter of the run, so that a fixed cost modeled too high
    // cannot make the rows free.
    const double modeled = choice.costs[d].fixed_seconds + choice.upload_per_row[d] * part_rows;
    const double now = std::max(seconds[i] - modeled, seconds[i] / 4) / part_rows;
    // A run may pay once for what later runs do not (a driver building a
    // kernel at its first launch): a slower run raises the estimate only by
    // a step, a faster one lowers it at once.
    measured[d] = measured[d] ? std::min(now, *measured[d] * kSlowerRunStep) : now;
  }
}

void CostModel::Unable(const Choice& choice, std::size_t device) {
  ShapeRecord& record = shapes_[choice.shape];
  record.seconds_per_row.resize(engines_.size());
  record.seconds_per_row.at(device) = std::numeric_limits<double>::infinity();
  record.devices = {0};
  record.shares.clear();
}

void CostModel::MeasureSpeeds() {
  if (!speeds_.empty()) return;
  // One device after another: PoCL 5 aborts when two of its devices build
  // one kernel at the same time (its cache of loaded kernels loses count).
  // Kept only once every device is measured: a failure leaves none.
  std::vector<DeviceSpeed> speeds;
  for (Engine* engine : engines_) {
    const HostStage stage(engine->profiler(), "device speed measured");
    speeds.push_back(MeasureDeviceSpeed(*engine));
  }
  speeds_ = std::move(speeds);
}

bool CostModel::Holds(std::size_t d, const sql::BoundSelect& select, std::size_t source,
                      const Table& table) const {
  for (const auto& [s, c] : ColumnsRead(select))
    if (s == source && !engines_[d]->tables().Holds(table, c)) return false;
  return true;
}

void CostModel::CostsOf(const sql::BoundSelect& select, const PhysicalPlan& first,
                        std::size_t source, const ShapeRecord& record,
                        std::vector<DeviceCost>& compute, std::vector<double>& upload_per_row) {
  MeasureSpeeds();
  std::size_t launches = 0;
  for (const PhysicalNode* node : first.nodes())
    launches += node->Kernels().always().size();
  const std::vector<std::uint64_t> bytes = ReadBytesPerRow(select);
  const std::vector<std::pair<std::size_t, std::size_t>> columns = ColumnsRead(select);
  for (std::size_t d = 0; d < engines_.size(); ++d) {
    const DeviceSpeed& speed = speeds_[d];
    const DeviceTableCache& tables = engines_[d]->tables();
    DeviceCost cost;
    cost.fixed_seconds = static_cast<double>(launches) * speed.launch_seconds;
    // Each device reads the other tables whole, and uploads what it lacks.
    for (std::size_t s = 0; s < select.from.size(); ++s)
      if (s != source)
        cost.fixed_seconds += static_cast<double>(bytes[s]) *
                              static_cast<double>(select.from[s].table->rows()) /
                              speed.read_bytes_per_second;
    for (const auto& [s, c] : columns) {
      const Table& table = *select.from.at(s).table;
      if (s == source || tables.Holds(table, c)) continue;
      const Column& column = table.column(c);
      cost.fixed_seconds += (column.type().width + (column.nullable() ? 1.0 : 0.0)) *
                            static_cast<double>(table.rows()) / speed.upload_bytes_per_second;
    }
    const std::optional<double> measured =
        d < record.seconds_per_row.size() ? record.seconds_per_row[d] : std::nullopt;
    cost.seconds_per_row =
        measured.value_or(static_cast<double>(bytes.at(source)) / speed.read_bytes_per_second);
    compute.push_back(cost);
    upload_per_row.push_back(tables.residency() == TableResidency::kHostView
                                 ? 0
                                 : static_cast<double>(bytes.at(source)) /
                                       speed.upload_bytes_per_second);
  }
}

}  // namespace clq
