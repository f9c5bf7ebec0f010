#include "operators/sorted_group_by.hpp"

#include <algorithm>

#include "kernels_cl/group_by_shared.h"
#include "operators/kernel_args.hpp"

namespace clq {

GroupTable FoldSortedGroups(QueryContext& context, const GroupStateLayout& layout,
                            const RowIds& perm, const DeviceBuffer& starts, RowCount groups,
                            const std::vector<GroupAggregateSpec>& aggregates, RowCount rows) {
  Engine& engine = context.engine();
  GroupTable table;
  table.slots = groups;
  table.words = layout.words;
  table.state =
      engine.pool().Acquire(std::max<std::uint64_t>(groups * layout.words, 1) * 8, "group table");
  engine.Fill(table.state.get(), 0, 0, std::max<std::uint64_t>(groups * layout.words, 1) * 8,
              "group table");
  if (groups == 0) return table;

  // Passes of at most HGB_MAX_ARGS aggregates with per-row work; the first
  // also writes the first rows and row counts.
  std::vector<std::vector<std::size_t>> passes(1);
  for (std::size_t a = 0; a < aggregates.size(); ++a) {
    if (!layout.aggregates[a].row_work) continue;
    if (passes.back().size() == HGB_MAX_ARGS) passes.emplace_back();
    passes.back().push_back(a);
  }
  cl::Kernel& kernel = engine.kernel("sorted_group_by_fold");
  for (std::size_t p = 0; p < passes.size(); ++p) {
    const std::vector<std::size_t>& pass = passes[p];
    std::vector<cl_uint> descriptors(std::max<std::size_t>(pass.size(), 1) * HGB_AGG_UINTS, 0);
    for (std::size_t i = 0; i < pass.size(); ++i) {
      const GroupStateLayout::Aggregate& a = layout.aggregates[pass[i]];
      const VectorView& argument = *aggregates[pass[i]].argument;
      cl_uint* d = &descriptors[i * HGB_AGG_UINTS];
      d[HGB_AGG_OP] = a.op;
      d[HGB_AGG_TYPE] = static_cast<cl_uint>(argument.type.type);
      d[HGB_AGG_NULLS] = argument.has_nulls() ? 1 : 0;
      d[HGB_AGG_WORD] = a.word;
      d[HGB_AGG_COUNT] = a.count_word;
      d[HGB_AGG_BINS] = a.bins;
      d[HGB_AGG_BASE] = static_cast<cl_uint>(a.base);
      d[HGB_AGG_REAL] = a.real ? 1 : 0;
    }
    DeviceBuffer descriptor_buffer =
        engine.pool().Acquire(descriptors.size() * 4, "group descriptors");
    engine.Upload(descriptor_buffer.get(), 0, descriptors.size() * 4, descriptors.data(),
                  "group descriptors");
    const cl::Buffer& dummy = descriptor_buffer.get();
    KernelArgs args(kernel);
    args.Add(perm.ids.get())
        .Add(static_cast<cl_ulong>(rows))
        .Add(starts.get())
        .Add(static_cast<cl_ulong>(groups))
        .Add(descriptor_buffer.get())
        .Add(static_cast<cl_uint>(pass.size()));
    for (std::size_t i = 0; i < HGB_MAX_ARGS; ++i) {
      const VectorView* argument = i < pass.size() ? &*aggregates[pass[i]].argument : nullptr;
      args.Add(argument != nullptr ? argument->values : dummy)
          .Add(argument != nullptr && argument->has_nulls() ? argument->nulls : dummy);
    }
    args.Add(static_cast<cl_uint>(layout.words))
        .Add(static_cast<cl_uint>(p == 0 ? 1 : 0))
        .Add(table.state.get())
        .Done();
    engine.Launch(kernel, engine.GroupsFor(groups, engine.tuning().work_group_size),
                  "group by sorted fold");
  }
  return table;
}

}  // namespace clq
