#include "plan/split_costs.hpp"

#include <algorithm>
#include <cmath>
#include <cstdio>
#include <numeric>

namespace clq {
namespace {

// A device measured infinitely fast would take every row in one share.
constexpr double kLeastSecondsPerRow = 1e-15;

std::string Milliseconds(double seconds) {
  char text[32];
  std::snprintf(text, sizeof(text), "%.3g ms", seconds * 1e3);
  return text;
}

}  // namespace

std::vector<std::uint32_t> BalancedShares(const std::vector<DeviceCost>& costs, RowCount rows) {
  const std::size_t n = costs.size();
  std::vector<std::size_t> by_fixed(n);
  std::iota(by_fixed.begin(), by_fixed.end(), std::size_t{0});
  std::stable_sort(by_fixed.begin(), by_fixed.end(), [&](std::size_t a, std::size_t b) {
    return costs[a].fixed_seconds < costs[b].fixed_seconds;
  });
  const auto per_row = [&](std::size_t d) {
    return std::max(costs[d].seconds_per_row, kLeastSecondsPerRow);
  };
  // Water filling: the k devices of least fixed cost all finish at time
  // `finish`, where their rows, (finish - fixed) / per row each, add up to
  // `rows`; a device joins while that time passes its fixed cost.
  double finish = 0;
  double inverse_sum = 0, fixed_over_rate = 0;
  std::size_t used = 0;
  for (std::size_t k = 0; k < n; ++k) {
    const std::size_t d = by_fixed[k];
    if (k > 0 && finish <= costs[d].fixed_seconds) break;
    inverse_sum += 1 / per_row(d);
    fixed_over_rate += costs[d].fixed_seconds / per_row(d);
    finish = (static_cast<double>(rows) + fixed_over_rate) / inverse_sum;
    used = k + 1;
  }
  std::vector<double> part(n, 0);
  for (std::size_t k = 0; k < used; ++k) {
    const std::size_t d = by_fixed[k];
    part[d] = std::max(0.0, (finish - costs[d].fixed_seconds) / per_row(d));
  }
  const double total = std::accumulate(part.begin(), part.end(), 0.0);
  std::vector<std::uint32_t> shares(n, 0);
  if (total <= 0) {
    shares[by_fixed.front()] = kShareUnits;
    return shares;
  }
  std::uint32_t given = 0;
  for (std::size_t d = 0; d < n; ++d) {
    shares[d] = static_cast<std::uint32_t>(std::lround(part[d] / total * kShareUnits));
    given += shares[d];
  }
  // Rounding may leave the units a few over or under: the largest share
  // takes the difference.
  const std::size_t largest =
      static_cast<std::size_t>(std::max_element(part.begin(), part.end()) - part.begin());
  shares[largest] = shares[largest] + kShareUnits - given;
  return shares;
}

double SplitSeconds(const std::vector<DeviceCost>& costs, const std::vector<std::uint32_t>& shares,
                    RowCount rows) {
  const double units = std::accumulate(shares.begin(), shares.end(), 0.0);
  double slowest = 0;
  for (std::size_t d = 0; d < costs.size(); ++d)
    if (shares[d] > 0)
      slowest = std::max(slowest, costs[d].Seconds(static_cast<double>(rows) * shares[d] / units));
  return slowest;
}

DevicePlacement PlaceQuery(const std::vector<DeviceCost>& alone,
                           const std::vector<DeviceCost>& split, RowCount rows, bool splits,
                           double plan_seconds) {
  DevicePlacement placement;
  std::size_t fastest = 0;
  for (std::size_t d = 0; d < alone.size(); ++d) {
    // Device 0 has its plan; another is planned for the query first.
    placement.alone_seconds.push_back(alone[d].Seconds(static_cast<double>(rows)) +
                                      (d == 0 ? 0 : plan_seconds));
    if (placement.alone_seconds[d] < placement.alone_seconds[fastest]) fastest = d;
  }
  placement.devices = {fastest};
  if (!splits) return placement;
  const std::vector<std::uint32_t> shares = BalancedShares(split, rows);
  std::vector<std::size_t> devices;
  std::vector<std::uint32_t> used;
  for (std::size_t d = 0; d < shares.size(); ++d)
    if (shares[d] > 0) {
      devices.push_back(d);
      used.push_back(shares[d]);
    }
  if (devices.size() < 2) return placement;
  // Every device that takes part plans its part, one after another.
  placement.split_seconds =
      SplitSeconds(split, shares, rows) + plan_seconds * static_cast<double>(devices.size());
  if (placement.split_seconds < placement.alone_seconds[fastest]) {
    placement.devices = std::move(devices);
    placement.shares = std::move(used);
  }
  return placement;
}

std::string DevicePlacement::Describe() const {
  std::string text = "estimates: alone on ";
  for (std::size_t d = 0; d < alone_seconds.size(); ++d)
    text += (d == 0 ? "" : ", on ") + std::string("device ") + std::to_string(d) + " " +
            Milliseconds(alone_seconds[d]);
  if (split_seconds > 0) text += "; split " + Milliseconds(split_seconds);
  if (kept) text += "; the earlier runs' placement kept";
  return text;
}

}  // namespace clq
