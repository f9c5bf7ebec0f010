#include "operators/sorted_group_by.hpp"

#include <algorithm>
#include <utility>

#include "kernels_cl/group_by_shared.h"
#include "operators/kernel_args.hpp"

namespace clq {
namespace {

constexpr cl_uint kNoGroup = 0xffffffffu;

// One level's records: a group id (kNoGroup: empty) and `words` state
// words each, two per chunk.
struct Records {
  DeviceBuffer groups;
  DeviceBuffer words;
  std::uint64_t count = 0;
};

std::uint64_t Chunks(std::uint64_t items) {
  return (items + kSortedGroupChunk - 1) / kSortedGroupChunk;
}

// Empty records for the chunks of `items` items (none when one chunk
// takes them all: it writes the table).
Records EmptyRecords(Engine& engine, std::uint64_t items, std::uint32_t words) {
  Records records;
  records.count = Chunks(items) > 1 ? 2 * Chunks(items) : 0;
  const std::uint64_t count = std::max<std::uint64_t>(records.count, 1);
  records.groups = engine.pool().Acquire(count * 4, "sorted group records");
  records.words = engine.pool().Acquire(count * words * 8, "sorted group records");
  engine.Fill(records.groups.get(), kNoGroup, 0, count * 4, "sorted group records");
  engine.Fill(records.words.get(), 0, 0, count * words * 8, "sorted group records");
  return records;
}

// Merges `records` level after level into the table.
void MergeRecords(Engine& engine, Records records, const DeviceBuffer& kinds, std::uint32_t words,
                  const DeviceBuffer& table) {
  cl::Kernel& kernel = engine.kernel("sorted_group_by_merge");
  while (records.count > 0) {
    Records next = EmptyRecords(engine, records.count, words);
    KernelArgs(kernel)
        .Add(records.groups.get())
        .Add(records.words.get())
        .Add(static_cast<cl_ulong>(records.count))
        .Add(static_cast<cl_uint>(kSortedGroupChunk))
        .Add(static_cast<cl_uint>(words))
        .Add(kinds.get())
        .Add(table.get())
        .Add(next.groups.get())
        .Add(next.words.get())
        .Done();
    engine.Launch(kernel, engine.GroupsFor(Chunks(records.count), engine.tuning().work_group_size),
                  "group by sorted merge");
    records = std::move(next);
  }
}

}  // namespace

GroupTable FoldSortedGroups(QueryContext& context, const GroupStateLayout& layout,
                            const RowIds& perm, const RowIds& row_groups, RowCount groups,
                            const std::vector<GroupAggregateSpec>& aggregates, RowCount rows) {
  Engine& engine = context.engine();
  const std::uint32_t words = layout.words;
  GroupTable table;
  table.slots = groups;
  table.words = words;
  const std::uint64_t table_bytes = std::max<std::uint64_t>(groups * words, 1) * 8;
  table.state = engine.pool().Acquire(table_bytes, "group table");
  engine.Fill(table.state.get(), 0, 0, table_bytes, "group table");
  if (groups == 0) return table;
  std::vector<cl_uint> kind_values(layout.kinds.begin(), layout.kinds.end());
  DeviceBuffer kinds = engine.pool().Acquire(kind_values.size() * 4, "group descriptors");
  engine.Upload(kinds.get(), 0, kind_values.size() * 4, kind_values.data(), "group descriptors");

  const std::vector<std::vector<std::size_t>> passes = FoldPasses(layout);
  cl::Kernel& kernel = engine.kernel("sorted_group_by_fold");
  for (std::size_t p = 0; p < passes.size(); ++p) {
    const std::vector<std::size_t>& pass = passes[p];
    DeviceBuffer descriptor_buffer = UploadAggregateDescriptors(engine, layout, aggregates, pass);
    Records records = EmptyRecords(engine, rows, words);
    const cl::Buffer& dummy = descriptor_buffer.get();
    KernelArgs args(kernel);
    args.Add(perm.ids.get())
        .Add(row_groups.ids.get())
        .Add(static_cast<cl_ulong>(rows))
        .Add(static_cast<cl_uint>(kSortedGroupChunk))
        .Add(descriptor_buffer.get())
        .Add(static_cast<cl_uint>(pass.size()));
    for (std::size_t i = 0; i < HGB_MAX_ARGS; ++i) {
      const VectorView* argument = i < pass.size() ? &*aggregates[pass[i]].argument : nullptr;
      args.Add(argument != nullptr ? argument->values : dummy)
          .Add(argument != nullptr && argument->has_nulls() ? argument->nulls : dummy);
    }
    args.Add(static_cast<cl_uint>(words))
        .Add(static_cast<cl_uint>(p == 0 ? 1 : 0))
        .Add(table.state.get())
        .Add(records.groups.get())
        .Add(records.words.get())
        .Done();
    engine.Launch(kernel, engine.GroupsFor(Chunks(rows), engine.tuning().work_group_size),
                  "group by sorted fold");
    MergeRecords(engine, std::move(records), kinds, words, table.state);
  }
  return table;
}

}  // namespace clq
