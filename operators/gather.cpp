#include "operators/gather.hpp"

namespace clq {

void GatherBuffer(Engine& engine, const cl::Buffer& source, std::uint32_t width, RowCount base,
                  RowCount limit, const RowIds& ids, const cl::Buffer& target) {
  if (ids.size == 0) return;
  if (width == 4 || width == 8) {
    cl::Kernel& k = engine.kernel(width == 4 ? "gather_u32" : "gather_u64");
    k.setArg(0, source);
    k.setArg(1, ids.ids.get());
    k.setArg(2, static_cast<cl_ulong>(ids.size));
    k.setArg(3, static_cast<cl_ulong>(base));
    k.setArg(4, static_cast<cl_ulong>(limit));
    k.setArg(5, target);
    engine.Launch(k, engine.TilesFor(ids.size), "gather");
    return;
  }
  cl::Kernel& k = engine.kernel("gather_bytes");
  k.setArg(0, source);
  k.setArg(1, static_cast<cl_uint>(width));
  k.setArg(2, ids.ids.get());
  k.setArg(3, static_cast<cl_ulong>(ids.size));
  k.setArg(4, static_cast<cl_ulong>(base));
  k.setArg(5, static_cast<cl_ulong>(limit));
  k.setArg(6, target);
  engine.Launch(k, engine.TilesFor(ids.size), "gather");
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

}  // namespace clq
