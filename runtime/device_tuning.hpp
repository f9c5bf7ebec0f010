// Per-device kernel geometry. Kernels are compiled with these values as -D
// options (WG_SIZE, IPT), so local arrays are sized statically and a tile
// (WG_SIZE * IPT consecutive elements) is the unit every operator works on.
//
// GPUs want several elements per work-item (more independent loads in flight,
// fewer work-groups); CPUs want many contiguous items per work-item (the
// expression machine pays its decode once per work-item). EngineOptions'
// work_group_size and items_per_thread override the choice, for experiments
// and for tests that force odd geometries; kernel_paths picks the CPU or GPU
// kernel variants whatever the device type.
#pragma once

#include <cstdint>
#include <string>

#include "common/options.hpp"
#include "runtime/device_info.hpp"

namespace clq {

struct DeviceTuning {
  std::uint32_t work_group_size = 256;  // WG_SIZE, a power of two
  std::uint32_t items_per_thread = 4;   // IPT, a power of two
  // The kernels' CPU variants (DEVICE_IS_CPU): serial reductions, blocked
  // items, vectorised item loops.
  bool cpu_paths = false;
  // Extra OpenCL build options (EngineOptions::extra_build_options).
  std::string extra_build_options;

  std::uint64_t tile_size() const { return std::uint64_t{work_group_size} * items_per_thread; }
  // "work-group 256 x 4 items per work-item"
  std::string Describe() const;
};

// The geometry for a device, after the options' overrides. Throws
// InvalidInputError when an override is not a power of two or exceeds the
// device's maximum work-group size.
DeviceTuning ChooseTuning(const DeviceInfo& info, const EngineOptions& options);

// The -D options every program on this device is built with.
std::string BuildOptions(const DeviceInfo& info, const DeviceTuning& tuning);

}  // namespace clq
