// Where a query given several devices runs, by the cost model of
// plan/split_costs.hpp, with what it has learned of earlier queries: each
// device's speed (measured once, runtime/device_speed.hpp), and for each
// query shape (the table its rows are counted in and its plan's nodes)
// each device's measured seconds per row, the placement that ran last and
// the runs so far. A placement is kept unless another is estimated faster
// by enough (a new split moves the slices the devices hold), and a new
// split's uploads count once for the runs of the query to come, which the
// runs so far foretell. Not thread-safe.
#pragma once

#include <map>
#include <optional>
#include <string>
#include <vector>

#include "plan/device_split.hpp"
#include "plan/physical_plan.hpp"
#include "plan/split_costs.hpp"
#include "runtime/device_speed.hpp"
#include "runtime/engine.hpp"
#include "sql/bound.hpp"

namespace clq {

class CostModel {
 public:
  explicit CostModel(std::vector<Engine*> engines) : engines_(std::move(engines)) {}

  // What the model chose for one query, and what recording its run needs.
  struct Choice {
    DevicePlacement placement;
    std::string shape;
    RowCount rows = 0;                   // of the table split or scanned most
    std::vector<DeviceCost> costs;       // by device, without uploads of that table
    std::vector<double> upload_per_row;  // by device: of that table, in this run
  };

  // The placement of `select` (planned on the first device as `first`, in
  // `plan_seconds`) whose rows are counted in source `counted`, split only
  // where `splits`; `slices` are the slices the devices may hold.
  Choice Choose(const sql::BoundSelect& select, const PhysicalPlan& first, std::size_t counted,
                bool splits, double plan_seconds, const SplitTables& slices);
  // Keeps what the run of `choice` measured: the placement that ran it
  // (`devices`, and their `shares` where several), and `seconds` by device
  // over `rows` rows each. Choose alone changes nothing of a shape's
  // record, so that EXPLAIN leaves the placements of later runs as they
  // were.
  void Record(const Choice& choice, const std::vector<std::size_t>& devices,
              const std::vector<std::uint32_t>& shares, const std::vector<RowCount>& rows,
              const std::vector<double>& seconds);
  // Device `device` cannot run `choice`'s query (its capabilities refuse
  // the plan): the query's shape is not placed there again, and runs on
  // the first device.
  void Unable(const Choice& choice, std::size_t device);

 private:
  struct ShapeRecord {
    std::vector<std::optional<double>> seconds_per_row;  // by device
    std::vector<std::size_t> devices;                    // the placement that ran last
    std::vector<std::uint32_t> shares;
    std::uint64_t runs = 0;
  };
  // Each device's costs of `select` over the rows of `source`: launches,
  // the other tables and the rows (`compute`), and the upload of a row of
  // that table where the device must make it (`upload_per_row`; 0 on
  // devices that read host memory in place).
  void CostsOf(const sql::BoundSelect& select, const PhysicalPlan& first, std::size_t source,
               const ShapeRecord& record, std::vector<DeviceCost>& compute,
               std::vector<double>& upload_per_row);
  // Whether device `d` holds every column `select` reads of source
  // `source`, as `table` (the source's table, or a slice of it).
  bool Holds(std::size_t d, const sql::BoundSelect& select, std::size_t source,
             const Table& table) const;
  void MeasureSpeeds();

  std::vector<Engine*> engines_;
  std::vector<DeviceSpeed> speeds_;  // by device, measured on first use
  std::map<std::string, ShapeRecord> shapes_;
};

}  // namespace clq
