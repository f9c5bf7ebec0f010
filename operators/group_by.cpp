#include "operators/group_by.hpp"

#include <algorithm>
#include <bit>

#include "common/errors.hpp"
#include "kernels_cl/sort_shared.h"
#include "kernels_cl/vm_shared.h"
#include "operators/gather.hpp"
#include "operators/scan.hpp"
#include "operators/sort.hpp"

namespace clq {
namespace {

bool IsRealOperation(std::uint32_t op) {
  return op == VM_AGG_SUM_R || op == VM_AGG_MIN_R || op == VM_AGG_MAX_R;
}

ColumnType ResultType(const GroupAggregateSpec& spec) {
  const bool real_quantile = spec.operation == GROUP_AGG_QUANTILE && spec.argument &&
                             spec.argument->type.type == DataType::kDouble;
  return IsRealOperation(spec.operation) || real_quantile ? ColumnType::Double()
                                                          : ColumnType::Int64();
}

// Sorted groups: the permutation, each group's first sorted index and its
// smallest position.
struct SortedGroups {
  std::vector<RadixKey> keys;
  RowIds perm;
  DeviceBuffer starts;
  DeviceBuffer first;
  RowCount groups = 0;
};

SortedGroups FindGroups(Engine& engine, const std::vector<VectorView>& keys, RowCount rows) {
  SortedGroups sorted;
  std::vector<RadixKey>& radix_keys = sorted.keys;
  for (const VectorView& key : keys) {
    CLQ_CHECK(key.size >= rows, "group key shorter than the rows to group");
    radix_keys.push_back(
        {key.values, key.nulls, static_cast<std::uint32_t>(key.type.type), key.type.width, false});
  }
  sorted.perm = RadixSortPermutation(engine, radix_keys, rows);
  const std::uint64_t tiles = engine.TilesFor(rows);
  DeviceBuffer flags = engine.pool().Acquire(rows * sizeof(cl_uint), "group by cuts");
  engine.Fill(flags.get(), 0, 0, rows * sizeof(cl_uint), "group by cuts");
  engine.Fill(flags.get(), 1, 0, sizeof(cl_uint), "group by cuts");
  cl::Kernel& boundaries = engine.kernel("group_by_boundaries");
  for (const RadixKey& key : radix_keys) {
    const bool has_nulls = key.nulls() != nullptr;
    boundaries.setArg(0, sorted.perm.ids.get());
    boundaries.setArg(1, static_cast<cl_ulong>(rows));
    boundaries.setArg(2, key.values);
    boundaries.setArg(3, has_nulls ? key.nulls : key.values);
    boundaries.setArg(4, static_cast<cl_uint>(has_nulls ? 1 : 0));
    boundaries.setArg(5, static_cast<cl_uint>(key.type));
    boundaries.setArg(6, static_cast<cl_uint>(key.width));
    boundaries.setArg(7, flags.get());
    engine.Launch(boundaries, tiles, "group by boundaries");
  }
  DeviceBuffer ids = engine.pool().Acquire(rows * sizeof(cl_uint), "group by ids");
  DeviceBuffer total = engine.pool().Acquire(sizeof(cl_uint), "group by count");
  ExclusiveScan(engine, flags.get(), rows, ids.get(), &total.get());
  cl_uint groups = 0;
  engine.Download(total.get(), 0, sizeof(groups), &groups, "group by count");
  sorted.groups = groups;
  sorted.starts = engine.pool().Acquire(groups * sizeof(cl_uint), "group starts");
  sorted.first = engine.pool().Acquire(groups * sizeof(cl_uint), "group first positions");
  cl::Kernel& starts = engine.kernel("group_by_starts");
  starts.setArg(0, flags.get());
  starts.setArg(1, ids.get());
  starts.setArg(2, sorted.perm.ids.get());
  starts.setArg(3, static_cast<cl_ulong>(rows));
  starts.setArg(4, sorted.starts.get());
  starts.setArg(5, sorted.first.get());
  engine.Launch(starts, tiles, "group by starts");
  return sorted;
}

// The chunks of every group (group_by_chunks, group_by_chunk_groups): chunk
// offsets per sorted group, the group of every chunk, and the chunk total.
struct Chunks {
  DeviceBuffer counts;
  DeviceBuffer offsets;
  DeviceBuffer task_group;
  DeviceBuffer total;
  std::uint64_t capacity = 0;  // upper bound of the chunk total, for launch sizes
};

Chunks CutChunks(Engine& engine, const SortedGroups& sorted, RowCount rows) {
  Chunks chunks;
  const RowCount groups = sorted.groups;
  // Every group has at most one chunk more than its rows / chunk size.
  chunks.capacity = rows / kGroupByChunkRows + groups;
  chunks.counts = engine.pool().Acquire(groups * sizeof(cl_uint), "group chunk counts");
  chunks.offsets = engine.pool().Acquire(groups * sizeof(cl_uint), "group chunk offsets");
  chunks.task_group = engine.pool().Acquire(chunks.capacity * sizeof(cl_uint), "chunk groups");
  chunks.total = engine.pool().Acquire(sizeof(cl_uint), "chunk total");
  cl::Kernel& count = engine.kernel("group_by_chunks");
  count.setArg(0, sorted.starts.get());
  count.setArg(1, static_cast<cl_ulong>(groups));
  count.setArg(2, static_cast<cl_ulong>(rows));
  count.setArg(3, static_cast<cl_uint>(kGroupByChunkRows));
  count.setArg(4, chunks.counts.get());
  engine.Launch(count, engine.TilesFor(groups), "group by chunks");
  ExclusiveScan(engine, chunks.counts.get(), groups, chunks.offsets.get(), &chunks.total.get());
  cl::Kernel& assign = engine.kernel("group_by_chunk_groups");
  assign.setArg(0, chunks.offsets.get());
  assign.setArg(1, chunks.counts.get());
  assign.setArg(2, static_cast<cl_ulong>(groups));
  assign.setArg(3, chunks.task_group.get());
  engine.Launch(assign, engine.TilesFor(groups), "group by chunks");
  return chunks;
}

// QUANTILE: the positions sorted again, by the group keys and then the
// argument (a stable LSD sort gives the same group segments), and one binary
// search and pick per group.
GroupAggregateOutput Quantile(QueryContext& context, const SortedGroups& sorted,
                              const RowIds& order, const GroupAggregateSpec& spec, RowCount rows) {
  Engine& engine = context.engine();
  CLQ_CHECK(spec.argument.has_value(), "group by: QUANTILE without an argument");
  const VectorView& argument = *spec.argument;
  CLQ_CHECK(argument.size >= rows, "aggregate argument shorter than the rows to group");
  CLQ_CHECK(argument.type.is_numeric(), "group by: QUANTILE of CHAR values");
  if (!engine.info().fp64)
    throw DeviceLimitError("group by: QUANTILE and MEDIAN need a device with fp64");
  std::vector<RadixKey> keys = sorted.keys;
  keys.push_back({argument.values, argument.nulls, static_cast<std::uint32_t>(argument.type.type),
                  argument.type.width, false});
  const RowIds perm = RadixSortPermutation(engine, keys, rows);
  const bool real = argument.type.type == DataType::kDouble;
  GroupAggregateOutput output;
  output.values = AllocateVector(engine, real ? ColumnType::Double() : ColumnType::Int64(),
                                 sorted.groups, "group aggregate values");
  output.counts = AllocateVector(engine, ColumnType::Int64(), sorted.groups, "group counts");
  const bool has_nulls = argument.has_nulls();
  cl::Kernel& kernel = engine.kernel("group_by_quantile");
  kernel.setArg(0, perm.ids.get());
  kernel.setArg(1, static_cast<cl_ulong>(rows));
  kernel.setArg(2, sorted.starts.get());
  kernel.setArg(3, order.ids.get());
  kernel.setArg(4, static_cast<cl_ulong>(sorted.groups));
  kernel.setArg(5, argument.values);
  kernel.setArg(6, has_nulls ? argument.nulls : argument.values);
  kernel.setArg(7, static_cast<cl_uint>(has_nulls ? 1 : 0));
  kernel.setArg(8, static_cast<cl_uint>(argument.type.type));
  kernel.setArg(9, static_cast<cl_ulong>(std::bit_cast<std::uint64_t>(spec.quantile)));
  kernel.setArg(10, output.values.values.get());
  kernel.setArg(11, output.counts.values.get());
  engine.Launch(kernel, engine.TilesFor(sorted.groups), "group by quantile");
  return output;
}

GroupAggregateOutput Reduce(QueryContext& context, const SortedGroups& sorted, const Chunks& chunks,
                            const RowIds& order, const GroupAggregateSpec& spec, RowCount rows) {
  Engine& engine = context.engine();
  const std::uint32_t op = spec.operation;
  if (op == GROUP_AGG_QUANTILE) return Quantile(context, sorted, order, spec, rows);
  CLQ_CHECK(op <= VM_AGG_MAX_R, "group by: unknown aggregate operation");
  const bool real = IsRealOperation(op);
  if (real && !engine.info().fp64)
    throw DeviceLimitError("group by: REAL aggregates need a device with fp64");
  GroupAggregateOutput output;
  output.values = AllocateVector(engine, real ? ColumnType::Double() : ColumnType::Int64(),
                                 sorted.groups, "group aggregate values");
  output.counts = AllocateVector(engine, ColumnType::Int64(), sorted.groups, "group counts");
  cl::Buffer values = output.values.values.get();
  cl::Buffer nulls = values;
  std::uint32_t type = SORT_TYPE_INT64;
  bool has_nulls = false;
  if (spec.argument) {
    const VectorView& argument = *spec.argument;
    CLQ_CHECK(argument.size >= rows, "aggregate argument shorter than the rows to group");
    CLQ_CHECK(argument.type.is_numeric(), "group by: aggregate of CHAR values");
    CLQ_CHECK(real || op == VM_AGG_COUNT || argument.type.is_integer(),
              "group by: integer aggregate of DOUBLE values");
    values = argument.values;
    has_nulls = argument.has_nulls();
    if (has_nulls) nulls = argument.nulls;
    type = static_cast<std::uint32_t>(argument.type.type);
  }
  DeviceBuffer partials =
      engine.pool().Acquire(chunks.capacity * sizeof(cl_ulong), "group chunk partials");
  DeviceBuffer partial_counts =
      engine.pool().Acquire(chunks.capacity * sizeof(cl_ulong), "group chunk counts");
  cl::Kernel& partial = engine.kernel("group_by_partial");
  partial.setArg(0, sorted.perm.ids.get());
  partial.setArg(1, static_cast<cl_ulong>(rows));
  partial.setArg(2, sorted.starts.get());
  partial.setArg(3, static_cast<cl_ulong>(sorted.groups));
  partial.setArg(4, chunks.offsets.get());
  partial.setArg(5, chunks.task_group.get());
  partial.setArg(6, chunks.total.get());
  partial.setArg(7, static_cast<cl_uint>(kGroupByChunkRows));
  partial.setArg(8, values);
  partial.setArg(9, nulls);
  partial.setArg(10, static_cast<cl_uint>(has_nulls ? 1 : 0));
  partial.setArg(11, static_cast<cl_uint>(type));
  partial.setArg(12, static_cast<cl_uint>(op));
  partial.setArg(13, static_cast<cl_uint>(spec.argument ? 1 : 0));
  partial.setArg(14, partials.get());
  partial.setArg(15, partial_counts.get());
  partial.setArg(16, context.status());
  engine.Launch(partial, engine.TilesFor(chunks.capacity), "group by partial aggregates");
  cl::Kernel& combine = engine.kernel("group_by_combine");
  combine.setArg(0, order.ids.get());
  combine.setArg(1, static_cast<cl_ulong>(sorted.groups));
  combine.setArg(2, chunks.offsets.get());
  combine.setArg(3, chunks.counts.get());
  combine.setArg(4, partials.get());
  combine.setArg(5, partial_counts.get());
  combine.setArg(6, static_cast<cl_uint>(op));
  combine.setArg(7, static_cast<cl_uint>(spec.argument ? 1 : 0));
  combine.setArg(8, output.values.values.get());
  combine.setArg(9, output.counts.values.get());
  combine.setArg(10, context.status());
  engine.Launch(combine, engine.TilesFor(sorted.groups), "group by combine aggregates");
  return output;
}

}  // namespace

GroupByResult GroupBy(QueryContext& context, const std::vector<VectorView>& keys,
                      const std::vector<GroupAggregateSpec>& aggregates, RowCount rows) {
  Engine& engine = context.engine();
  if (rows > kMaxTableRows) throw DeviceLimitError("group by: too many rows");
  GroupByResult result;
  if (rows == 0) {
    result.first_positions = AllocateRowIds(engine, 0, "group first positions");
    for (const GroupAggregateSpec& spec : aggregates) {
      GroupAggregateOutput output;
      output.values = AllocateVector(engine, ResultType(spec), 0, "group aggregate values");
      output.counts = AllocateVector(engine, ColumnType::Int64(), 0, "group counts");
      result.aggregates.push_back(std::move(output));
    }
    return result;
  }
  SortedGroups sorted = FindGroups(engine, keys, rows);
  result.groups = sorted.groups;
  // Groups in order of first appearance: sort the (distinct) first positions.
  const RowIds order = RadixSortPermutation(
      engine, {RadixKey{sorted.first.get(), cl::Buffer(), SORT_TYPE_UINT32, 4, false}},
      sorted.groups);
  result.first_positions = AllocateRowIds(engine, sorted.groups, "group first positions");
  GatherBuffer(engine, sorted.first.get(), 4, 0, sorted.groups, order,
               result.first_positions.ids.get());
  const Chunks chunks = CutChunks(engine, sorted, rows);
  for (const GroupAggregateSpec& spec : aggregates)
    result.aggregates.push_back(Reduce(context, sorted, chunks, order, spec, rows));
  context.CheckStatus();
  return result;
}

}  // namespace clq

namespace clq {

KernelSet GroupByKernels(const Engine& engine, const std::vector<bool>& nullable_keys,
                         const std::vector<GroupAggregateSpec>& aggregates, RowCount rows,
                         bool exact) {
  KernelSet kernels;
  if (rows == 0) return kernels;
  kernels.Add(SortPermutationKernels(engine, nullable_keys, rows, exact));
  kernels.Add("group_by_boundaries");
  kernels.Add(ExclusiveScanKernels(engine, rows, exact));
  kernels.Add("group_by_starts");
  kernels.Add(SortPermutationKernels(engine, {false}, rows, false));
  kernels.Add(KernelSet{"gather_u32", "group_by_chunks"});
  kernels.Add(ExclusiveScanKernels(engine, rows, false));
  kernels.Add("group_by_chunk_groups");
  for (const GroupAggregateSpec& spec : aggregates) {
    if (spec.operation == GROUP_AGG_QUANTILE) {
      std::vector<bool> with_argument = nullable_keys;
      with_argument.push_back(true);
      kernels.Add(SortPermutationKernels(engine, with_argument, rows, exact));
      kernels.Add("group_by_quantile");
    } else {
      kernels.Add(KernelSet{"group_by_partial", "group_by_combine"});
    }
  }
  return kernels;
}

}  // namespace clq
