#include "operators/selection.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/scan.hpp"

namespace clq {
namespace {

// Tiles one scatter work-group takes: a sparse selection's empty tiles are
// skipped inside one group instead of each costing a group (H100, 100M rows,
// 1,248 selected: a group per tile cost 0.064 ms).
constexpr cl_uint kScatterTilesPerGroup = 8;

// A range test that keeps at most this fraction of the rows goes first,
// alone, through filter_range_tiles, and vm_filter runs the rest of the
// predicate only on the tiles where it kept a row (below).
constexpr double kRangeFirstBelow = 1.0 / 16;
// Work-groups per compute unit of the refining vm_filter, which takes the
// listed tiles in turn.
constexpr std::uint64_t kRefineGroupsPerUnit = 8;

struct TabletSelection {
  DeviceBuffer bits;
  DeviceBuffer tile_offsets;
  std::uint64_t tiles = 0;
};

// Filter and scan every tablet; returns per-tablet state and the selected
// counts (one blocking read for all tablets).
std::vector<TabletSelection> FilterTablets(QueryContext& context, Relation& relation,
                                           const DeviceProgram& program, std::size_t entry_index,
                                           std::vector<cl_uint>& counts) {
  Engine& engine = context.engine();
  const std::vector<Tablet> tablets = relation.tablets();
  std::vector<TabletSelection> state(tablets.size());
  DeviceBuffer totals = engine.pool().Acquire(tablets.size() * sizeof(cl_uint), "selection totals");
  for (std::size_t t = 0; t < tablets.size(); ++t) {
    const RowCount rows = tablets[t].rows;
    TabletSelection& s = state[t];
    s.tiles = engine.TilesFor(rows);
    s.bits = engine.pool().Acquire((rows + 31) / 32 * sizeof(cl_uint), "selection bitmap");
    s.tile_offsets = engine.pool().Acquire(s.tiles * sizeof(cl_uint), "selection tile counts");
    if (rows == 0) {
      engine.Fill(totals.get(), 0, t * sizeof(cl_uint), sizeof(cl_uint), "selection total");
      continue;
    }
    FilterTablet(context, relation, program, entry_index, t, s.bits.get(), s.tile_offsets.get());
    // The scan total goes straight into the per-tablet totals buffer.
    cl::Buffer total_slot = totals.get();
    if (t == 0) {
      ExclusiveScan(engine, s.tile_offsets.get(), s.tiles, s.tile_offsets.get(), &total_slot);
    } else {
      DeviceBuffer one = engine.pool().Acquire(sizeof(cl_uint), "selection total");
      ExclusiveScan(engine, s.tile_offsets.get(), s.tiles, s.tile_offsets.get(), &one.get());
      engine.Copy(one.get(), 0, totals.get(), t * sizeof(cl_uint), sizeof(cl_uint),
                  "selection total");
    }
  }
  counts.assign(tablets.size(), 0);
  engine.Download(totals.get(), 0, tablets.size() * sizeof(cl_uint), counts.data(),
                  "selection counts");
  context.CheckStatus();
  return state;
}

}  // namespace

// GPUs only: there the interpreter's registers cost occupancy (see
// RunsRangeTestFirst). On CPUs the interpreter is faster: its first loop
// tests a range before any dispatch and vectorises, and it packs bitmap
// words in registers (2-core PoCL, the thesis filter over 10M rows: 4.5-5.6
// ms in vm_filter, 11.7 ms in vm_filter_conjuncts).
bool RunsConjunctFilter(const Engine& engine, const QueryOptions& options, const VmEntry& entry) {
  if (entry.int_conjuncts == 0) return false;
  return Decide(options.conjunct_filter, !engine.tuning().cpu_paths);
}

// GPUs only: the interpreter's filter kernel holds many registers, so fewer
// work-groups share a GPU's multiprocessor than the small range kernel's,
// while CPUs already run the same test in the interpreter's own first loop.
bool RunsRangeTestFirst(const Engine& engine, const QueryOptions& options, const VmEntry& entry) {
  if (!entry.leading_range) return false;
  return Decide(options.range_first,
                !engine.tuning().cpu_paths && entry.leading_range->selectivity <= kRangeFirstBelow);
}

void FilterTablet(QueryContext& context, Relation& relation, const DeviceProgram& program,
                  std::size_t entry_index, std::size_t tablet, const cl::Buffer& bits,
                  const cl::Buffer& tile_counts) {
  Engine& engine = context.engine();
  const VmEntry& entry = program.program().entry(entry_index);
  const RowCount rows = relation.tablets()[tablet].rows;
  const std::uint64_t tiles = engine.TilesFor(rows);
  if (RunsConjunctFilter(engine, context.options(), entry)) {
    // The first conjunct's fields go as arguments (kernels_cl/vm_filter_conjuncts.cl says why).
    const cl_long* first = program.program().constants().data() + entry.int_conjuncts_at;
    const std::size_t first_column = program.program().slots()[first[0] & 0xFF].column;
    cl::Kernel& conjuncts = engine.kernel("vm_filter_conjuncts");
    conjuncts.setArg(0, program.constants());
    conjuncts.setArg(1, static_cast<cl_uint>(entry.int_conjuncts_at + VM_CONJUNCT_LONGS));
    conjuncts.setArg(2, static_cast<cl_uint>(entry.int_conjuncts - 1));
    conjuncts.setArg(3, relation.values(first_column, tablet));
    conjuncts.setArg(4, static_cast<cl_uint>(first[0]));
    conjuncts.setArg(5, static_cast<cl_int>(first[1]));
    conjuncts.setArg(6, static_cast<cl_int>(first[2]));
    conjuncts.setArg(7, static_cast<cl_uint>(first[3]));
    conjuncts.setArg(8, static_cast<cl_int>(first[4]));
    program.BindSlots(conjuncts, 9, relation, tablet);
    conjuncts.setArg(25, static_cast<cl_ulong>(rows));
    conjuncts.setArg(26, bits);
    conjuncts.setArg(27, tile_counts);
    engine.Launch(conjuncts, tiles, "filter (conjuncts)");
    return;
  }
  const VmMachine machine = program.MachineFor(std::span<const std::size_t>(&entry_index, 1));
  cl::Kernel& filter =
      DeviceProgram::VmKernel(engine, "vm_filter", entry.track_nulls, machine.narrow, machine.lean);
  const std::string stage = DeviceProgram::StageName("filter", machine.narrow, machine.lean);
  filter.setArg(0, program.code());
  filter.setArg(1, program.constants());
  filter.setArg(3, static_cast<cl_uint>(entry.end));
  filter.setArg(4, static_cast<cl_uint>(entry.track_nulls ? 1 : 0));
  program.BindSlots(filter, 5, relation, tablet);
  filter.setArg(21, static_cast<cl_ulong>(rows));
  filter.setArg(22, bits);
  filter.setArg(23, tile_counts);
  filter.setArg(24, context.status());
  if (!RunsRangeTestFirst(engine, context.options(), entry)) {
    filter.setArg(2, static_cast<cl_uint>(entry.begin));
    filter.setArg(25, tile_counts);  // not read
    filter.setArg(26, cl_uint{0});
    engine.Launch(filter, tiles, stage);
    return;
  }
  const VmEntry::LeadingRange& leading = *entry.leading_range;
  DeviceBuffer live_tiles = engine.pool().Acquire((tiles + 1) * sizeof(cl_uint), "live tiles");
  engine.Fill(live_tiles.get(), 0, 0, sizeof(cl_uint), "live tiles");
  cl::Kernel& range = engine.kernel("filter_range_tiles");
  range.setArg(0, relation.values(program.program().slots()[leading.slot].column, tablet));
  range.setArg(1, static_cast<cl_ulong>(rows));
  range.setArg(2, static_cast<cl_long>(leading.kept.min));
  range.setArg(3, static_cast<cl_long>(leading.kept.max));
  range.setArg(4, bits);
  range.setArg(5, tile_counts);
  range.setArg(6, live_tiles.get());
  engine.Launch(range, tiles, "range test");
  filter.setArg(2, static_cast<cl_uint>(entry.begin + 1));
  filter.setArg(25, live_tiles.get());
  filter.setArg(26, cl_uint{1});
  engine.Launch(filter,
                std::min<std::uint64_t>(tiles, engine.info().compute_units * kRefineGroupsPerUnit),
                stage);
}

RowIds Select(QueryContext& context, Relation& relation, const DeviceProgram& program,
              std::size_t predicate_entry) {
  Engine& engine = context.engine();
  std::vector<cl_uint> counts;
  std::vector<TabletSelection> state =
      FilterTablets(context, relation, program, predicate_entry, counts);
  const RowCount total = std::accumulate(counts.begin(), counts.end(), RowCount{0});
  RowIds result = AllocateRowIds(engine, total, "selected row ids");
  const std::vector<Tablet> tablets = relation.tablets();
  cl::Kernel& scatter = engine.kernel("selection_scatter");
  RowCount out_base = 0;
  for (std::size_t t = 0; t < tablets.size(); ++t) {
    if (counts[t] != 0) {
      scatter.setArg(0, state[t].bits.get());
      scatter.setArg(1, static_cast<cl_ulong>(tablets[t].rows));
      scatter.setArg(2, state[t].tile_offsets.get());
      scatter.setArg(3, static_cast<cl_uint>(tablets[t].begin));
      scatter.setArg(4, result.ids.get());
      scatter.setArg(5, static_cast<cl_ulong>(out_base));
      scatter.setArg(6, counts[t]);
      scatter.setArg(7, static_cast<cl_uint>(state[t].tiles));
      scatter.setArg(8, kScatterTilesPerGroup);
      engine.Launch(scatter, engine.GroupsFor(state[t].tiles, kScatterTilesPerGroup), "scatter");
    }
    out_base += counts[t];
  }
  return result;
}

KernelSet SelectionKernels(const Engine& engine, const QueryOptions& options,
                           const ExpressionProgram& program, std::size_t entry_index,
                           RowCount tablet_rows, bool exact) {
  const VmEntry& entry = program.entry(entry_index);
  KernelSet kernels;
  if (tablet_rows == 0) return kernels;
  if (RunsConjunctFilter(engine, options, entry)) {
    kernels.Add("vm_filter_conjuncts");
  } else {
    if (RunsRangeTestFirst(engine, options, entry)) kernels.Add("filter_range_tiles");
    const VmMachine machine =
        DeviceProgram::MachineFor(program, std::span<const std::size_t>(&entry_index, 1), options);
    kernels.Add(
        DeviceProgram::VmKernelName("vm_filter", entry.track_nulls, machine.narrow, machine.lean));
  }
  kernels.Add(ExclusiveScanKernels(engine, engine.TilesFor(tablet_rows), exact));
  kernels.Add("selection_scatter");
  return kernels;
}

RowCount CountWhere(QueryContext& context, Relation& relation, const DeviceProgram& program,
                    std::size_t predicate_entry) {
  std::vector<cl_uint> counts;
  FilterTablets(context, relation, program, predicate_entry, counts);
  return std::accumulate(counts.begin(), counts.end(), RowCount{0});
}

}  // namespace clq
