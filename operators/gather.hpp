// Gathers of relation columns by row id (kernels gather_u32, gather_u64,
// gather_bytes in kernels_cl/gather.cl), across tablets: one pass per tablet,
// each filling the rows whose ids fall in it. Enqueues only.
#pragma once

#include "operators/device_vector.hpp"
#include "operators/relation.hpp"

namespace clq {

// result[i] = relation.column[ids[i]] (values and NULL map).
DeviceVector GatherColumn(Engine& engine, Relation& relation, std::size_t column,
                          const RowIds& ids);

// The same for a raw buffer of `count` fixed-width values (one tablet).
void GatherBuffer(Engine& engine, const cl::Buffer& source, std::uint32_t width, RowCount base,
                  RowCount limit, const RowIds& ids, const cl::Buffer& target);

}  // namespace clq
