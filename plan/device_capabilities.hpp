// What clq needs of a device beyond OpenCL C 1.2, what a device that lacks
// it costs, and the check the planner makes before anything else.
//
//   fp64 (cl_khr_fp64): REAL values are doubles on devices. Without it a
//     query with any REAL value (a REAL column or literal, CAST AS REAL, AVG,
//     arithmetic with a REAL operand) is refused before it is planned, with
//     a DeviceLimitError naming the device, the capability and the first
//     expression that needs it; INTEGER queries run as everywhere else. The
//     kernels are built without double (HAS_FP64=0): the REAL-only kernels do
//     not exist, and the expression machine raises VM_STATUS_UNSUPPORTED for
//     a REAL instruction that reaches it all the same.
//   64-bit atomics (cl_khr_int64_base_atomics): group tables fold rows into
//     64-bit words with atomics, and the cuckoo join claims 64-bit slots.
//     Without them GROUP BY and DISTINCT sort and fold the sorted groups by
//     chunks of rows (operators/sorted_group_by.hpp), and joins leave out the
//     cuckoo table (operators/hash_join.hpp).
//   Uncapped loops: llvmpipe ends every loop of a work-item once 65535
//     iterations have run in all (DeviceInfo::loop_iteration_limit). There
//     GROUP BY sorts as above (a CPU work-group table takes all its rows in
//     one work-item), top-k's CPU heaps take groups of bounded size, and
//     joins leave out the dense multimap, built by one work-item.
//
// The engine's DeviceInfo (Engine::info) is what counts: EngineOptions can
// make a device that has these capabilities be treated as lacking them.
#pragma once

#include <string>
#include <vector>

#include "runtime/device_info.hpp"
#include "sql/bound.hpp"

namespace clq {

struct DeviceShortfall {
  std::string capability;  // "fp64 (cl_khr_fp64)"
  std::string cost;        // "REAL queries refused"
};

// What `device` lacks of the above, in that order; empty when nothing.
std::vector<DeviceShortfall> DeviceShortfalls(const DeviceInfo& device);

// Throws DeviceLimitError when `select` needs what `device` lacks:
//   device 'llvmpipe' lacks fp64 (cl_khr_fp64): REAL expressions cannot run
//   there (AVG(t.unique1))
void CheckDeviceCapabilities(const DeviceInfo& device, const sql::BoundSelect& select);

}  // namespace clq
