#include "operators/gather.hpp"

#include <algorithm>
#include <array>

#include "operators/kernel_args.hpp"

namespace clq {
namespace {

// Columns gather_u32_columns takes in one launch (s0..s7, t0..t7).
constexpr std::size_t kColumnsPerLaunch = 8;

// gather_u32 and gather_u64 (kernels_cl/gather.cl), in order:
// target[i] = source[ids[i] - base] where that row is below `limit`.
struct GatherArgs {
  cl::Buffer source;
  cl::Buffer ids;
  cl_ulong n = 0;      // ids
  cl_ulong base = 0;   // the first row id in `source`
  cl_ulong limit = 0;  // rows in `source`
  cl::Buffer target;
};

void Bind(cl::Kernel& kernel, const GatherArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.source).Add(a.ids).Add(a.n).Add(a.base).Add(a.limit).Add(a.target);
  args.Done();
}

// gather_bytes (kernels_cl/gather.cl), in order: GatherArgs with the width
// of a value after the source.
struct GatherBytesArgs {
  cl::Buffer source;
  cl_uint width = 0;  // bytes per value
  cl::Buffer ids;
  cl_ulong n = 0;
  cl_ulong base = 0;
  cl_ulong limit = 0;
  cl::Buffer target;
};

void Bind(cl::Kernel& kernel, const GatherBytesArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.source).Add(a.width).Add(a.ids).Add(a.n).Add(a.base).Add(a.limit).Add(a.target);
  args.Done();
}

// gather_u32_columns (kernels_cl/gather.cl), in order: the sources s0..s7
// then the targets t0..t7; those from `count` on are bound, never touched.
struct GatherU32ColumnsArgs {
  cl::Buffer ids;
  cl_ulong n = 0;
  cl_ulong base = 0;
  cl_ulong limit = 0;
  cl_uint count = 0;  // columns gathered
  std::array<cl::Buffer, kColumnsPerLaunch> sources;
  std::array<cl::Buffer, kColumnsPerLaunch> targets;
};

void Bind(cl::Kernel& kernel, const GatherU32ColumnsArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.ids).Add(a.n).Add(a.base).Add(a.limit).Add(a.count);
  for (const cl::Buffer& source : a.sources)
    args.Add(source);
  for (const cl::Buffer& target : a.targets)
    args.Add(target);
  args.Done();
}

}  // namespace

void Bind(cl::Kernel& kernel, const GatherIotaArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.target).Add(a.n).Add(a.first);
  args.Done();
}

void GatherBuffer(Engine& engine, const cl::Buffer& source, std::uint32_t width, RowCount base,
                  RowCount limit, const RowIds& ids, const cl::Buffer& target) {
  if (ids.size == 0) return;
  cl::Kernel& kernel = engine.kernel(GatherBufferKernel(width));
  if (width == 4 || width == 8) {
    Bind(kernel, GatherArgs{
                     .source = source,
                     .ids = ids.ids.get(),
                     .n = ids.size,
                     .base = base,
                     .limit = limit,
                     .target = target,
                 });
  } else {
    Bind(kernel, GatherBytesArgs{
                     .source = source,
                     .width = width,
                     .ids = ids.ids.get(),
                     .n = ids.size,
                     .base = base,
                     .limit = limit,
                     .target = target,
                 });
  }
  engine.Launch(kernel, engine.TilesFor(ids.size), "gather");
}

std::string GatherBufferKernel(std::uint32_t width) {
  return width == 4 ? "gather_u32" : width == 8 ? "gather_u64" : "gather_bytes";
}

KernelSet GatherKernels(const std::vector<VmInputColumn>& columns, bool together,
                        bool missing_rows) {
  KernelSet kernels;
  for (const VmInputColumn& column : columns) {
    kernels.Add(together && column.type.width == 4 ? "gather_u32_columns"
                                                   : GatherBufferKernel(column.type.width));
    if (column.nullable) kernels.Add(GatherBufferKernel(1));
    if (missing_rows) kernels.Add("gather_null_missing");
  }
  return kernels;
}

namespace {

// gather_null_missing (kernels_cl/gather.cl), in order.
struct GatherNullMissingArgs {
  cl::Buffer ids;
  cl_ulong n = 0;
  cl_uint all = 0;
  cl::Buffer nulls;
  cl::Buffer values;
  cl_uint width = 0;
};

void Bind(cl::Kernel& kernel, const GatherNullMissingArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.ids).Add(a.n).Add(a.all).Add(a.nulls).Add(a.values).Add(a.width);
  args.Done();
}

// Gives `result` (gathered by `ids`) a NULL map when it has none, and makes
// the rows of id kNoRow NULL.
void NullMissingRows(Engine& engine, const RowIds& ids, DeviceVector& result) {
  const bool all = !result.has_nulls();
  if (all) result.nulls = engine.pool().Acquire(ids.size, "gathered NULL map");
  if (ids.size == 0) return;
  cl::Kernel& kernel = engine.kernel("gather_null_missing");
  Bind(kernel, GatherNullMissingArgs{
                   .ids = ids.ids.get(),
                   .n = ids.size,
                   .all = all ? 1u : 0u,
                   .nulls = result.nulls.get(),
                   .values = result.values.get(),
                   .width = result.type.width,
               });
  engine.Launch(kernel, engine.TilesFor(ids.size), "gather");
}

}  // namespace

DeviceVector GatherVector(Engine& engine, const VectorView& source, const RowIds& ids,
                          const char* purpose) {
  DeviceVector result = AllocateVector(engine, source.type, ids.size, purpose);
  if (ids.size == 0) return result;
  GatherBuffer(engine, source.values, source.type.width, 0, source.size, ids, result.values.get());
  if (source.has_nulls()) {
    result.nulls = engine.pool().Acquire(ids.size, purpose);
    GatherBuffer(engine, source.nulls, 1, 0, source.size, ids, result.nulls.get());
  }
  return result;
}

DeviceVector GatherColumn(Engine& engine, Relation& relation, std::size_t column, const RowIds& ids,
                          bool missing_rows) {
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
  if (missing_rows) NullMissingRows(engine, ids, result);
  return result;
}

std::vector<DeviceVector> GatherColumns(Engine& engine, Relation& relation,
                                        const std::vector<std::size_t>& columns, const RowIds& ids,
                                        bool missing_rows) {
  std::vector<DeviceVector> results(columns.size());
  std::vector<std::size_t> narrow;  // positions in `columns` of 4-byte columns
  for (std::size_t i = 0; i < columns.size(); ++i) {
    const VmInputColumn input = relation.column(columns[i]);
    if (input.type.width != 4) {
      results[i] = GatherColumn(engine, relation, columns[i], ids, missing_rows);
      continue;
    }
    results[i] = AllocateVector(engine, input.type, ids.size, "gathered column");
    results[i].range = input.range;
    if (input.nullable) results[i].nulls = engine.pool().Acquire(ids.size, "gathered NULL map");
    narrow.push_back(i);
  }
  if (ids.size == 0 || narrow.empty()) {
    if (missing_rows)
      for (const std::size_t i : narrow)
        NullMissingRows(engine, ids, results[i]);
    return results;
  }
  cl::Kernel& kernel = engine.kernel("gather_u32_columns");
  const std::vector<Tablet> tablets = relation.tablets();
  for (std::size_t t = 0; t < tablets.size(); ++t) {
    if (tablets[t].rows == 0) continue;
    for (std::size_t first = 0; first < narrow.size(); first += kColumnsPerLaunch) {
      const std::size_t count = std::min(kColumnsPerLaunch, narrow.size() - first);
      std::array<cl::Buffer, kColumnsPerLaunch> sources, targets;
      for (std::size_t c = 0; c < kColumnsPerLaunch; ++c) {
        // Unused slots repeat the first column: bound, never touched.
        const std::size_t i = narrow[first + (c < count ? c : 0)];
        sources[c] = relation.values(columns[i], t);
        targets[c] = results[i].values.get();
      }
      Bind(kernel, GatherU32ColumnsArgs{
                       .ids = ids.ids.get(),
                       .n = ids.size,
                       .base = tablets[t].begin,
                       .limit = tablets[t].rows,
                       .count = static_cast<cl_uint>(count),
                       .sources = sources,
                       .targets = targets,
                   });
      engine.Launch(kernel, engine.TilesFor(ids.size), "gather");
    }
    for (const std::size_t i : narrow) {
      if (!results[i].has_nulls()) continue;
      GatherBuffer(engine, relation.nulls(columns[i], t), 1, tablets[t].begin, tablets[t].rows, ids,
                   results[i].nulls.get());
    }
  }
  if (missing_rows)
    for (const std::size_t i : narrow)
      NullMissingRows(engine, ids, results[i]);
  return results;
}

}  // namespace clq
