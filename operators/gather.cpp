#include "operators/gather.hpp"

#include <algorithm>

namespace clq {

void GatherBuffer(Engine& engine, const cl::Buffer& source, std::uint32_t width, RowCount base,
                  RowCount limit, const RowIds& ids, const cl::Buffer& target) {
  if (ids.size == 0) return;
  if (width == 4 || width == 8) {
    cl::Kernel& k = engine.kernel(GatherBufferKernel(width));
    k.setArg(0, source);
    k.setArg(1, ids.ids.get());
    k.setArg(2, static_cast<cl_ulong>(ids.size));
    k.setArg(3, static_cast<cl_ulong>(base));
    k.setArg(4, static_cast<cl_ulong>(limit));
    k.setArg(5, target);
    engine.Launch(k, engine.TilesFor(ids.size), "gather");
    return;
  }
  cl::Kernel& k = engine.kernel(GatherBufferKernel(width));
  k.setArg(0, source);
  k.setArg(1, static_cast<cl_uint>(width));
  k.setArg(2, ids.ids.get());
  k.setArg(3, static_cast<cl_ulong>(ids.size));
  k.setArg(4, static_cast<cl_ulong>(base));
  k.setArg(5, static_cast<cl_ulong>(limit));
  k.setArg(6, target);
  engine.Launch(k, engine.TilesFor(ids.size), "gather");
}

std::string GatherBufferKernel(std::uint32_t width) {
  return width == 4 ? "gather_u32" : width == 8 ? "gather_u64" : "gather_bytes";
}

KernelSet GatherKernels(const std::vector<VmInputColumn>& columns, bool together) {
  KernelSet kernels;
  for (const VmInputColumn& column : columns) {
    kernels.Add(together && column.type.width == 4 ? "gather_u32_columns"
                                                   : GatherBufferKernel(column.type.width));
    if (column.nullable) kernels.Add(GatherBufferKernel(1));
  }
  return kernels;
}

DeviceVector GatherColumn(Engine& engine, Relation& relation, std::size_t column,
                          const RowIds& ids) {
  const VmInputColumn input = relation.column(column);
  DeviceVector result = AllocateVector(engine, input.type, ids.size, "gathered column");
  result.range = input.range;  // a subset of the rows keeps within the column's bounds
  if (input.nullable) result.nulls = engine.pool().Acquire(ids.size, "gathered NULL map");
  const std::vector<Tablet> tablets = relation.tablets();
  for (std::size_t t = 0; t < tablets.size(); ++t) {
    if (tablets[t].rows == 0) continue;
    GatherBuffer(engine, relation.values(column, t), input.type.width, tablets[t].begin,
                 tablets[t].rows, ids, result.values.get());
    if (input.nullable) {
      GatherBuffer(engine, relation.nulls(column, t), 1, tablets[t].begin, tablets[t].rows, ids,
                   result.nulls.get());
    }
  }
  return result;
}

std::vector<DeviceVector> GatherColumns(Engine& engine, Relation& relation,
                                        const std::vector<std::size_t>& columns,
                                        const RowIds& ids) {
  constexpr std::size_t kColumnsPerLaunch = 8;
  std::vector<DeviceVector> results(columns.size());
  std::vector<std::size_t> narrow;  // positions in `columns` of 4-byte columns
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const VmInputColumn input = relation.column(columns[i]);
    if (input.type.width != 4) {
      results[i] = GatherColumn(engine, relation, columns[i], ids);
      continue;
    }
    results[i] = AllocateVector(engine, input.type, ids.size, "gathered column");
    results[i].range = input.range;
    if (input.nullable) results[i].nulls = engine.pool().Acquire(ids.size, "gathered NULL map");
    narrow.push_back(i);
  }
  if (ids.size == 0 || narrow.empty()) return results;
  cl::Kernel& kernel = engine.kernel("gather_u32_columns");
  const std::vector<Tablet> tablets = relation.tablets();
  for (std::size_t t = 0; t < tablets.size(); ++t) {
    if (tablets[t].rows == 0) continue;
    for (std::size_t first = 0; first < narrow.size(); first += kColumnsPerLaunch) {
      const std::size_t count = std::min(kColumnsPerLaunch, narrow.size() - first);
      kernel.setArg(0, ids.ids.get());
      kernel.setArg(1, static_cast<cl_ulong>(ids.size));
      kernel.setArg(2, static_cast<cl_ulong>(tablets[t].begin));
      kernel.setArg(3, static_cast<cl_ulong>(tablets[t].rows));
      kernel.setArg(4, static_cast<cl_uint>(count));
      for (std::size_t c = 0; c < kColumnsPerLaunch; ++c) {
        // Unused slots repeat the first column: bound, never touched.
        const std::size_t i = narrow[first + (c < count ? c : 0)];
        kernel.setArg(static_cast<cl_uint>(5 + c), relation.values(columns[i], t));
        kernel.setArg(static_cast<cl_uint>(5 + kColumnsPerLaunch + c), results[i].values.get());
      }
      engine.Launch(kernel, engine.TilesFor(ids.size), "gather");
    }
    for (const std::size_t i : narrow) {
      if (!results[i].has_nulls()) continue;
      GatherBuffer(engine, relation.nulls(columns[i], t), 1, tablets[t].begin, tablets[t].rows, ids,
                   results[i].nulls.get());
    }
  }
  return results;
}

}  // namespace clq
