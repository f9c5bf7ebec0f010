// Exclusive prefix sum of 32-bit counts on the device (kernels scan_tiles and
// scan_add_offsets in kernels_cl/scan.cl): work-efficient within a tile,
// recursing over tile totals, any length. Enqueues only.
#pragma once

#include "common/types.hpp"
#include "operators/kernel_set.hpp"
#include "runtime/engine.hpp"

namespace clq {

// output[i] = input[0] + ... + input[i - 1] for i < n (output may be input).
// When `total` is given, the sum of all n inputs is written to total[0].
// The caller guarantees that the sum fits 32 bits. `stage` names the launches
// in profiles (an operator passes its own, e.g. "join build").
void ExclusiveScan(Engine& engine, const cl::Buffer& input, RowCount n, const cl::Buffer& output,
                   const cl::Buffer* total, std::string_view stage = "scan");

// The kernels ExclusiveScan launches for n inputs (none for n == 0); when n
// is only a bound (`exact` false), the second level is needed only past one
// tile of inputs.
KernelSet ExclusiveScanKernels(const Engine& engine, RowCount n, bool exact = true);

}  // namespace clq
