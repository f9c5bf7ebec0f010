// Measures the transfer and memory ceilings of one device: host->device and
// device->host from pageable and from pinned host memory, a device copy by
// kernel and by clEnqueueCopyBuffer, and a read-only reduction. Every query
// benchmark is judged against these numbers.
//
// Transfers are timed by the host clock around blocking calls (what a user
// waits for); kernels and device copies by profiling events. Copies count
// bytes read plus bytes written. Each measurement is checked once (the copy's
// words, the reduction's sum) so that a fast wrong kernel cannot report a
// number. Uses bandwidth_copy and bandwidth_sum (kernels_cl/bandwidth.cl).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "runtime/engine.hpp"

namespace clq {

struct BandwidthOptions {
  std::uint64_t min_bytes = 1ULL << 20;
  std::uint64_t max_bytes = 1ULL << 30;  // capped by the device's allocation limit
  std::uint32_t repeats = 5;
};

struct BandwidthSample {
  std::string test;        // "h2d-pinned", "d2d-kernel", ...
  std::uint64_t size = 0;  // buffer size in bytes
  double median_gbps = 0;  // GB/s = 1e9 bytes per second, of the bytes counted
  double best_gbps = 0;
};

struct BandwidthReport {
  std::vector<std::string> tests;  // in display order
  std::vector<std::uint64_t> sizes;
  std::vector<BandwidthSample> samples;
  // The highest median over all sizes, per test.
  double Peak(const std::string& test) const;
};

BandwidthReport MeasureBandwidth(Engine& engine, const BandwidthOptions& options);

// The largest buffer size MeasureBandwidth uses on this device for `options`.
std::uint64_t BandwidthSizeLimit(const DeviceInfo& info, const BandwidthOptions& options);

}  // namespace clq
