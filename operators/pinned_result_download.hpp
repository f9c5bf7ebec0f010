// Result columns downloaded straight into pinned blocks of the engine's
// result pool (runtime/pinned_result_pool.hpp): one DMA at the pinned
// bandwidth into the result's own memory, which Arrow then lends as it is.
// INT32 values of an INTEGER result are widened on the device first
// (widen_int32, kernels_cl/widen.cl), so the host never converts them.
#pragma once

#include "operators/device_vector.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_result.hpp"

namespace clq {

// Fills `column` (its type set, its values empty) with `vector`'s values in
// a pinned block. False, leaving the column as it was, where that does not
// apply: no pool, a pool of another context, fewer bytes than the pool's
// minimum, layouts other than INT32 or INT64 to INTEGER and DOUBLE to REAL
// (TEXT, integers read as REAL), or no block to be had (the driver refused).
// The NULL map is the caller's.
bool DownloadIntoPinnedResult(Engine& engine, ResultColumn& column, const DeviceVector& vector);

// The kernels DownloadIntoPinnedResult may launch on `engine` (when needed:
// only INT32 values of large results are widened).
KernelSet PinnedResultKernels(const Engine& engine);

}  // namespace clq
