// Gathers of relation columns by row id (kernels gather_u32, gather_u64,
// gather_bytes, gather_u32_columns in kernels_cl/gather.cl), across
// tablets: one pass per tablet, each filling the rows whose ids fall in it.
// Enqueues only. Also the launch arguments of gather_iota, which callers
// launch themselves.
#pragma once

#include <string>
#include <vector>

#include "operators/device_vector.hpp"
#include "operators/kernel_set.hpp"
#include "operators/relation.hpp"

namespace clq {

// The row id of a LEFT JOIN's table where a row found no match
// (GATHER_NO_ROW in kernels_cl/gather.cl).
inline constexpr cl_uint kNoRow = 0xFFFFFFFFu;

// result[i] = relation.column[ids[i]] (values and NULL map). With
// `missing_rows` (the ids may hold kNoRow: a LEFT JOIN's table), the result
// always has a NULL map, and those rows are NULL (gather_null_missing).
DeviceVector GatherColumn(Engine& engine, Relation& relation, std::size_t column, const RowIds& ids,
                          bool missing_rows = false);

// GatherColumn of several columns by the same ids, in `columns` order.
// 4-byte columns go through gather_u32_columns, up to 8 per launch, so the
// ids are read once per 8 columns rather than once per column.
std::vector<DeviceVector> GatherColumns(Engine& engine, Relation& relation,
                                        const std::vector<std::size_t>& columns, const RowIds& ids,
                                        bool missing_rows = false);

// A device vector's values (and NULL map) at `ids`, indexes into it.
DeviceVector GatherVector(Engine& engine, const VectorView& source, const RowIds& ids,
                          const char* purpose);

// The kernels GatherColumn (`together` false) or GatherColumns (true)
// launch for columns of these types (as their relation holds them), with
// NULL maps or not, and `missing_rows` or not.
KernelSet GatherKernels(const std::vector<VmInputColumn>& columns, bool together,
                        bool missing_rows = false);

// The kernel GatherBuffer launches for values of `width` bytes.
std::string GatherBufferKernel(std::uint32_t width);

// The same for a raw buffer of `count` fixed-width values (one tablet).
void GatherBuffer(Engine& engine, const cl::Buffer& source, std::uint32_t width, RowCount base,
                  RowCount limit, const RowIds& ids, const cl::Buffer& target);

// The arguments of gather_iota (kernels_cl/gather.cl), in order:
// target[i] = first + i for i < n, the row ids of a contiguous range.
struct GatherIotaArgs {
  cl::Buffer target;
  cl_ulong n = 0;
  cl_uint first = 0;
};
void Bind(cl::Kernel& kernel, const GatherIotaArgs& args);

}  // namespace clq
