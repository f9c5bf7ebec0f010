#include "operators/selection.hpp"

#include <numeric>

#include "operators/scan.hpp"
#include "runtime/errors.hpp"

namespace clq {
namespace {

// Tiles one scatter work-group takes: a sparse selection's empty tiles are
// skipped inside one group instead of each costing a group (H100, 100M rows,
// 1,248 selected: a group per tile cost 0.064 ms).
constexpr cl_uint kScatterTilesPerGroup = 8;

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
  const VmEntry& entry = program.program().entry(entry_index);
  const std::vector<Tablet> tablets = relation.tablets();
  std::vector<TabletSelection> state(tablets.size());
  DeviceBuffer totals = engine.pool().Acquire(tablets.size() * sizeof(cl_uint), "selection totals");
  const VmMachine machine = program.MachineFor(std::span<const std::size_t>(&entry_index, 1));
  const bool narrow_machine = machine.narrow;
  const bool lean = machine.lean;
  cl::Kernel& filter =
      DeviceProgram::VmKernel(engine, "vm_filter", entry.track_nulls, narrow_machine, lean);
  const std::string stage = DeviceProgram::StageName("filter", narrow_machine, lean);
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
    filter.setArg(0, program.code());
    filter.setArg(1, program.constants());
    filter.setArg(2, static_cast<cl_uint>(entry.begin));
    filter.setArg(3, static_cast<cl_uint>(entry.end));
    filter.setArg(4, static_cast<cl_uint>(entry.track_nulls ? 1 : 0));
    program.BindSlots(filter, 5, relation, t);
    filter.setArg(21, static_cast<cl_ulong>(rows));
    filter.setArg(22, s.bits.get());
    filter.setArg(23, s.tile_offsets.get());
    filter.setArg(24, context.status());
    engine.Launch(filter, s.tiles, stage);
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

RowCount CountWhere(QueryContext& context, Relation& relation, const DeviceProgram& program,
                    std::size_t predicate_entry) {
  std::vector<cl_uint> counts;
  FilterTablets(context, relation, program, predicate_entry, counts);
  return std::accumulate(counts.begin(), counts.end(), RowCount{0});
}

}  // namespace clq
