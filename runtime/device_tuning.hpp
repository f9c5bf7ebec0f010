// Per-device kernel geometry. Kernels are compiled with these values as -D
// options (WG_SIZE, IPT), so local arrays are sized statically and a tile
// (WG_SIZE * IPT consecutive elements) is the unit every operator works on.
//
// GPUs want several elements per work-item (more independent loads in flight,
// fewer work-groups); PoCL runs a work-group as a loop over work-items and
// vectorises across them, so it wants one element per work-item and large
// groups (DESIGN.md). CLQ_WG_SIZE and CLQ_IPT override the choice, for
// experiments and for tests that force odd geometries.
#pragma once

#include <cstdint>
#include <string>

#include "runtime/device_info.hpp"

namespace clq {

struct DeviceTuning {
  std::uint32_t work_group_size = 256;  // WG_SIZE, a power of two
  std::uint32_t items_per_thread = 4;   // IPT, a power of two
  // VM_LANES: items the expression machine interprets per decode, dividing
  // IPT; 0 means IPT (CLQ_VM_LANES overrides, an experiment for GPUs).
  std::uint32_t vm_lanes = 0;

  std::uint64_t tile_size() const { return std::uint64_t{work_group_size} * items_per_thread; }
  // "work-group 256 x 4 items per work-item" (+ ", expression machine 1 lane")
  std::string Describe() const;
};

// The geometry for a device, after CLQ_WG_SIZE / CLQ_IPT overrides. Throws
// InvalidInputError when an override is not a power of two or exceeds the
// device's maximum work-group size.
DeviceTuning ChooseTuning(const DeviceInfo& info);

// Whether kernels take their CPU variants on this device (CLQ_KERNEL_PATHS
// overrides the device type, so the GPU variants can be tested on PoCL).
bool UseCpuKernelPaths(const DeviceInfo& info);

// The -D options every program on this device is built with.
std::string BuildOptions(const DeviceInfo& info, const DeviceTuning& tuning);

}  // namespace clq
