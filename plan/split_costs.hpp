// The cost model of a query given several devices, after GDB's: a device's
// time for a query is a fixed cost (its kernel launches, reading the tables
// it reads whole, uploading what it does not hold) plus a cost per row of
// the table split or scanned. Per row, a device costs what the query's
// last run on it measured (the same plan shape over the same table), or,
// before one, the bytes each row reads at the device's measured read
// bandwidth (runtime/device_speed.hpp). The model chooses between running
// the query alone on one device and splitting it, in shares that let every
// device finish at the same time; a device whose fixed cost alone passes
// that time gets no share. So a small query runs where launches and
// transfers cost least, a CPU beside a GPU, and a large one splits in
// proportion to the devices' speeds.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/table.hpp"

namespace clq {

// Shares the model gives are of this many units in all.
inline constexpr std::uint32_t kShareUnits = 1024;

struct DeviceCost {
  double fixed_seconds = 0;
  double seconds_per_row = 0;
  double Seconds(double rows) const { return fixed_seconds + seconds_per_row * rows; }
};

// Each device's share of `rows` (kShareUnits in all) so that the last
// device finishes as early as the model allows; devices whose fixed cost
// passes that time get none. Not every share is zero.
std::vector<std::uint32_t> BalancedShares(const std::vector<DeviceCost>& costs, RowCount rows);

// The time the slowest device takes over its share of `rows` (devices of
// share 0 take none).
double SplitSeconds(const std::vector<DeviceCost>& costs, const std::vector<std::uint32_t>& shares,
                    RowCount rows);

// What the model chose: the devices that run the query and, where they are
// several, their shares; the estimates it compared.
struct DevicePlacement {
  std::vector<std::size_t> devices;   // in the devices' order; one: alone
  std::vector<std::uint32_t> shares;  // of `devices`, where they are several
  std::vector<double> alone_seconds;  // estimated, by device
  double split_seconds = 0;           // estimated, for the split's shares; 0: no split
  // The placement of the query's earlier runs, kept: the estimates did not
  // find another enough faster (plan/cost_model.hpp).
  bool kept = false;
  // "estimates: alone on device 0 1.2 ms, on device 1 0.4 ms; split
  // 0.95 ms", and "; the earlier runs' placement kept" where it was.
  std::string Describe() const;
};

// The placement of a query over `rows` rows on `alone.size()` devices:
// `alone` costs each device running every row, `split` its part of a split
// (which may upload a new slice); split only where `splits`, each device's
// part planned anew (`plan_seconds` each; device 0 holds a plan of the
// whole already).
DevicePlacement PlaceQuery(const std::vector<DeviceCost>& alone,
                           const std::vector<DeviceCost>& split, RowCount rows, bool splits,
                           double plan_seconds);

}  // namespace clq
