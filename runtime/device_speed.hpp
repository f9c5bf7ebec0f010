// A device's speed as a query's cost model sees it (plan/split_costs.hpp):
// the round trip of one small kernel launch, the bandwidth at which a
// kernel reads device memory, and that of an upload from host memory.
// Measured once per engine with bandwidth_sum (kernels_cl/bandwidth.cl) on a
// buffer that grows until a read takes long enough to time, so that a slow
// device (a simulator) measures a small one. The sum is checked, so that a
// fast wrong kernel cannot report a speed.
#pragma once

#include "runtime/engine.hpp"

namespace clq {

struct DeviceSpeed {
  double launch_seconds = 0;           // enqueue one small kernel and wait for it
  double read_bytes_per_second = 0;    // a kernel reading device memory
  double upload_bytes_per_second = 0;  // host memory to the device (UploadStaged)
};

DeviceSpeed MeasureDeviceSpeed(Engine& engine);

}  // namespace clq
