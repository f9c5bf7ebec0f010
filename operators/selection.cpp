#include "operators/selection.hpp"

#include <algorithm>
#include <numeric>
#include <optional>
#include <string>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/kernel_args.hpp"
#include "operators/scan.hpp"
#include "operators/vm_launch.hpp"

namespace clq {
namespace {

// Tiles one scatter work-group takes: a sparse selection's empty tiles are
// skipped inside one group instead of each costing a group launch.
constexpr cl_uint kScatterTilesPerGroup = 8;

// A range test that keeps at most this fraction of the rows goes first,
// alone, through filter_range_tiles, and vm_filter runs the rest of the
// predicate only on the tiles where it kept a row (below).
constexpr double kRangeFirstBelow = 1.0 / 16;
// Work-groups per compute unit of the refining vm_filter, which takes the
// listed tiles in turn.
constexpr std::uint64_t kRefineGroupsPerUnit = 8;

// vm_filter and its variants: VM_FILTER_PARAMS in kernels_cl/vm.cl, in order.
struct VmFilterArgs {
  cl::Buffer code;
  cl::Buffer constants;
  cl_uint begin = 0;  // the first instruction to run
  cl_uint end = 0;
  bool track = false;  // the entry can see a NULL
  VmSlotArgs slots;
  cl_ulong rows = 0;
  cl::Buffer bits;
  cl::Buffer tile_counts;
  cl::Buffer status;
  // With `refine`, bits and tile_counts hold filter_range_tiles' result and
  // live_tiles its list of tiles that kept a row; else not read.
  cl::Buffer live_tiles;
  bool refine = false;
};

void Bind(cl::Kernel& kernel, const VmFilterArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.code).Add(a.constants).Add(a.begin).Add(a.end).Add(cl_uint{a.track});
  AddSlots(args, a.slots);
  args.Add(a.rows).Add(a.bits).Add(a.tile_counts).Add(a.status).Add(a.live_tiles);
  args.Add(cl_uint{a.refine});
  args.Done();
}

// vm_filter_conjuncts (kernels_cl/vm_filter_conjuncts.cl), in order. The
// first conjunct's column and descriptor fields (VM_CONJUNCT_LONGS, in
// kernels_cl/vm_shared.h) go as arguments, the others' from `constants`.
struct VmFilterConjunctsArgs {
  cl::Buffer constants;
  cl_uint at = 0;    // index in `constants` of the second conjunct's descriptor
  cl_uint rest = 0;  // conjuncts after the first
  cl::Buffer first_column;
  cl_uint first_header = 0;
  cl_int first_lo = 0;
  cl_int first_hi = 0;
  cl_uint first_magic = 0;
  cl_int first_divisor = 0;
  VmSlotArgs slots;
  cl_ulong rows = 0;
  cl::Buffer bits;
  cl::Buffer tile_counts;
};

void Bind(cl::Kernel& kernel, const VmFilterConjunctsArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.constants).Add(a.at).Add(a.rest).Add(a.first_column).Add(a.first_header);
  args.Add(a.first_lo).Add(a.first_hi).Add(a.first_magic).Add(a.first_divisor);
  AddSlots(args, a.slots);
  args.Add(a.rows).Add(a.bits).Add(a.tile_counts);
  args.Done();
}

// filter_range_tiles (kernels_cl/selection.cl), in order.
struct FilterRangeTilesArgs {
  cl::Buffer column;  // INT32 values
  cl_ulong rows = 0;
  cl_long lo = 0;  // the values kept: [lo, hi]
  cl_long hi = 0;
  cl::Buffer bits;
  cl::Buffer tile_counts;
  cl::Buffer live_tiles;  // entry 0 zeroed by the caller
};

void Bind(cl::Kernel& kernel, const FilterRangeTilesArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.column).Add(a.rows).Add(a.lo).Add(a.hi).Add(a.bits).Add(a.tile_counts);
  args.Add(a.live_tiles);
  args.Done();
}

// selection_scatter (kernels_cl/selection.cl), in order.
struct SelectionScatterArgs {
  cl::Buffer bits;
  cl_ulong rows = 0;
  cl::Buffer tile_offsets;  // the exclusive scan of the tile counts
  cl_uint row_base = 0;     // the tablet's first row id
  cl::Buffer row_ids;
  cl_ulong out_base = 0;  // where the tablet's ids start in row_ids
  cl_uint selected = 0;   // the tablet's total
  cl_uint tiles = 0;
  cl_uint tiles_per_group = 0;
};

void Bind(cl::Kernel& kernel, const SelectionScatterArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.bits).Add(a.rows).Add(a.tile_offsets).Add(a.row_base).Add(a.row_ids);
  args.Add(a.out_base).Add(a.selected).Add(a.tiles).Add(a.tiles_per_group);
  args.Done();
}

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
// words in registers (on PoCL the thesis filter took more than twice as
// long in the first version of vm_filter_conjuncts).
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
    Bind(conjuncts, VmFilterConjunctsArgs{
                        .constants = program.constants(),
                        .at = static_cast<cl_uint>(entry.int_conjuncts_at + VM_CONJUNCT_LONGS),
                        .rest = static_cast<cl_uint>(entry.int_conjuncts - 1),
                        .first_column = relation.values(first_column, tablet),
                        .first_header = static_cast<cl_uint>(first[0]),
                        .first_lo = static_cast<cl_int>(first[1]),
                        .first_hi = static_cast<cl_int>(first[2]),
                        .first_magic = static_cast<cl_uint>(first[3]),
                        .first_divisor = static_cast<cl_int>(first[4]),
                        .slots = program.SlotArgs(relation, tablet),
                        .rows = rows,
                        .bits = bits,
                        .tile_counts = tile_counts,
                    });
    engine.Launch(conjuncts, tiles, "filter (conjuncts)");
    return;
  }
  const VmMachine machine = program.MachineFor(std::span<const std::size_t>(&entry_index, 1));
  cl::Kernel& filter =
      DeviceProgram::VmKernel(engine, "vm_filter", entry.track_nulls, machine.narrow, machine.lean);
  const std::string stage = DeviceProgram::StageName("filter", machine.narrow, machine.lean);
  VmFilterArgs filter_args{
      .code = program.code(),
      .constants = program.constants(),
      .begin = entry.begin,
      .end = entry.end,
      .track = entry.track_nulls,
      .slots = program.SlotArgs(relation, tablet),
      .rows = rows,
      .bits = bits,
      .tile_counts = tile_counts,
      .status = context.status(),
      .live_tiles = tile_counts,  // not read
      .refine = false,
  };
  if (!RunsRangeTestFirst(engine, context.options(), entry)) {
    Bind(filter, filter_args);
    engine.Launch(filter, tiles, stage);
    return;
  }
  const VmEntry::LeadingRange& leading = *entry.leading_range;
  DeviceBuffer live_tiles = engine.pool().Acquire((tiles + 1) * sizeof(cl_uint), "live tiles");
  engine.Fill(live_tiles.get(), 0, 0, sizeof(cl_uint), "live tiles");
  cl::Kernel& range = engine.kernel("filter_range_tiles");
  Bind(range, FilterRangeTilesArgs{
                  .column = relation.values(program.program().slots()[leading.slot].column, tablet),
                  .rows = rows,
                  .lo = leading.kept.min,
                  .hi = leading.kept.max,
                  .bits = bits,
                  .tile_counts = tile_counts,
                  .live_tiles = live_tiles.get(),
              });
  engine.Launch(range, tiles, "range test");
  // The range test was the entry's first instruction.
  filter_args.begin = entry.begin + 1;
  filter_args.live_tiles = live_tiles.get();
  filter_args.refine = true;
  Bind(filter, filter_args);
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
      Bind(scatter, SelectionScatterArgs{
                        .bits = state[t].bits.get(),
                        .rows = tablets[t].rows,
                        .tile_offsets = state[t].tile_offsets.get(),
                        .row_base = static_cast<cl_uint>(tablets[t].begin),
                        .row_ids = result.ids.get(),
                        .out_base = out_base,
                        .selected = counts[t],
                        .tiles = static_cast<cl_uint>(state[t].tiles),
                        .tiles_per_group = kScatterTilesPerGroup,
                    });
      engine.Launch(scatter, engine.GroupsFor(state[t].tiles, kScatterTilesPerGroup), "scatter");
    }
    out_base += counts[t];
  }
  return result;
}

RowIds SelectedPositions(QueryContext& context, const cl::Buffer& bits,
                         const cl::Buffer& tile_counts, RowCount rows) {
  Engine& engine = context.engine();
  if (rows == 0) return AllocateRowIds(engine, 0, "selected positions");
  const std::uint64_t tiles = engine.TilesFor(rows);
  DeviceBuffer total = engine.pool().Acquire(sizeof(cl_uint), "selection total");
  ExclusiveScan(engine, tile_counts, tiles, tile_counts, &total.get());
  cl_uint selected = 0;
  engine.Download(total.get(), 0, sizeof(cl_uint), &selected, "selection counts");
  context.CheckStatus();
  RowIds result = AllocateRowIds(engine, selected, "selected positions");
  if (selected == 0) return result;
  cl::Kernel& scatter = engine.kernel("selection_scatter");
  Bind(scatter, SelectionScatterArgs{
                    .bits = bits,
                    .rows = rows,
                    .tile_offsets = tile_counts,
                    .row_base = 0,
                    .row_ids = result.ids.get(),
                    .out_base = 0,
                    .selected = selected,
                    .tiles = static_cast<cl_uint>(tiles),
                    .tiles_per_group = kScatterTilesPerGroup,
                });
  engine.Launch(scatter, engine.GroupsFor(tiles, kScatterTilesPerGroup), "scatter");
  return result;
}

KernelSet SelectedPositionsKernels(const Engine& engine, RowCount rows, bool exact) {
  KernelSet kernels;
  if (rows == 0) return kernels;
  kernels.Add(ExclusiveScanKernels(engine, engine.TilesFor(rows), exact));
  // No row selected: no scatter.
  kernels.AddWhenNeeded("selection_scatter");
  return kernels;
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
