#include "operators/aggregation.hpp"

#include <algorithm>
#include <bit>
#include <optional>
#include <string>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/kernel_args.hpp"
#include "operators/vm_launch.hpp"

namespace clq {
namespace {

// vm_aggregate and its variants, vm_aggregate_columns and
// vm_aggregate_short_real: VM_AGGREGATE_PARAMS in kernels_cl/vm.cl, in order.
struct VmAggregateArgs {
  cl::Buffer code;
  cl::Buffer constants;
  cl_uint pred_begin = 0;  // the predicate's instructions; none when begin == end
  cl_uint pred_end = 0;
  bool pred_track = false;  // the predicate can see a NULL
  cl::Buffer aggregates;    // cl_uint4 each: operation, argument's begin, end, track
  cl_uint aggregate_count = 0;
  VmSlotArgs slots;
  cl_ulong rows = 0;
  cl::Buffer partials;      // (value, count) per aggregate per work-group
  cl_ulong group_base = 0;  // the tablet's first work-group among all tablets'
  cl_uint tiles_per_group = 0;
  cl::Buffer status;
};

void Bind(cl::Kernel& kernel, const VmAggregateArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.code).Add(a.constants).Add(a.pred_begin).Add(a.pred_end).Add(cl_uint{a.pred_track});
  args.Add(a.aggregates).Add(a.aggregate_count);
  AddSlots(args, a.slots);
  args.Add(a.rows).Add(a.partials).Add(a.group_base).Add(a.tiles_per_group).Add(a.status);
  args.Done();
}

// vm_aggregate_merge (kernels_cl/vm.cl), in order.
struct VmAggregateMergeArgs {
  cl::Buffer partials;
  cl_ulong group_count = 0;  // partials to merge, per aggregate
  cl::Buffer aggregates;
  cl_uint aggregate_count = 0;
  cl::Buffer merged;  // ceil(group_count / TILE) partials
};

void Bind(cl::Kernel& kernel, const VmAggregateMergeArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.partials).Add(a.group_count).Add(a.aggregates).Add(a.aggregate_count).Add(a.merged);
  args.Done();
}

// Tiles per work-group of vm_aggregate on GPUs: enough work-groups to fill
// the device several times over (32 per compute unit), and beyond that more
// tiles per group, so that the per-group reduction and partial are paid less
// often. On CPUs a work-group's reduction is a short serial loop, and a tile
// loop costs more than it saves. QueryOptions::aggregate_tiles fixes it.
std::uint32_t TilesPerGroup(const Engine& engine, const QueryOptions& options,
                            std::uint64_t tiles) {
  if (options.aggregate_tiles != 0) {
    if (options.aggregate_tiles > VM_MAX_TILES_PER_GROUP)
      throw InvalidInputError("aggregate_tiles=" + std::to_string(options.aggregate_tiles) +
                              " is not between 1 and " + std::to_string(VM_MAX_TILES_PER_GROUP));
    // A device that caps a work-item's loop iterations: at most 256 items a
    // work-item, each instruction's loop over them counted.
    if (engine.info().loop_iteration_limit != 0)
      return std::clamp<std::uint32_t>(256 / engine.tuning().items_per_thread, 1,
                                       options.aggregate_tiles);
    return options.aggregate_tiles;
  }
  if (engine.tuning().cpu_paths) return 1;
  const std::uint64_t wanted_groups = std::uint64_t{32} * std::max(1u, engine.info().compute_units);
  return static_cast<std::uint32_t>(std::clamp<std::uint64_t>(tiles / wanted_groups, 1, 16));
}

}  // namespace

double AggregateValue::real() const {
  return std::bit_cast<double>(bits);
}

AggregateKernelChoice ChooseAggregateKernel(const ExpressionProgram& program,
                                            std::optional<std::size_t> predicate_entry,
                                            const std::vector<AggregateSpec>& aggregates,
                                            const QueryOptions& options) {
  // The 32-bit machine when the predicate and every argument allow it and
  // every aggregate is an integer one; the lean machine when none uses a
  // rare operation.
  std::vector<std::size_t> entries;
  if (predicate_entry) entries.push_back(*predicate_entry);
  bool integer_operations = true;
  for (const AggregateSpec& a : aggregates) {
    if (a.entry) entries.push_back(*a.entry);
    integer_operations =
        integer_operations && (a.operation == VM_AGG_COUNT || a.operation == VM_AGG_SUM_I ||
                               a.operation == VM_AGG_MIN_I || a.operation == VM_AGG_MAX_I);
  }
  AggregateKernelChoice choice;
  choice.machine = DeviceProgram::MachineFor(program, entries, options, integer_operations);
  if (predicate_entry || choice.machine.track) return choice;
  if (std::all_of(aggregates.begin(), aggregates.end(), [&](const AggregateSpec& a) {
        return !a.entry || program.IsBareColumn(*a.entry);
      })) {
    choice.kernel = AggregateKernelChoice::Kernel::kColumns;
  } else if (options.short_real != Choice::kOff &&
             std::all_of(aggregates.begin(), aggregates.end(), [&](const AggregateSpec& a) {
               // The kernel folds these four (vm_aggregate_short.cl).
               const bool folded = a.operation == VM_AGG_COUNT || a.operation == VM_AGG_SUM_R ||
                                   a.operation == VM_AGG_MIN_R || a.operation == VM_AGG_MAX_R;
               return folded && (!a.entry || program.IsShortReal(*a.entry));
             })) {
    choice.kernel = AggregateKernelChoice::Kernel::kShortReal;
  }
  return choice;
}

std::string_view AggregateKernelChoice::DirectKernelName() const {
  switch (kernel) {
    case Kernel::kColumns:
      return "vm_aggregate_columns";
    case Kernel::kShortReal:
      return "vm_aggregate_short_real";
    case Kernel::kInterpreter:
      break;
  }
  return {};
}

std::string AggregateKernelChoice::StageName() const {
  switch (kernel) {
    case Kernel::kColumns:
      return "aggregate columns";
    case Kernel::kShortReal:
      return "aggregate (short REAL)";
    case Kernel::kInterpreter:
      break;
  }
  return DeviceProgram::StageName("aggregate", machine.narrow, machine.lean);
}

namespace {

// One pass of vm_aggregate (+ merges) over at most VM_MAX_AGGREGATES
// aggregates, as the device computes them.
std::vector<AggregateValue> AggregateOnDevice(QueryContext& context, Relation& relation,
                                              const DeviceProgram& program,
                                              std::optional<std::size_t> predicate_entry,
                                              const std::vector<AggregateSpec>& aggregates) {
  Engine& engine = context.engine();
  const ExpressionProgram& code = program.program();
  const std::size_t count = aggregates.size();
  if (count == 0) return {};
  CLQ_CHECK(count <= VM_MAX_AGGREGATES, "too many aggregates for one device pass");
  std::vector<cl_uint4> descriptors(count);
  for (std::size_t a = 0; a < count; ++a) {
    descriptors[a].s[0] = aggregates[a].operation;
    if (aggregates[a].entry) {
      descriptors[a].s[1] = code.entry(*aggregates[a].entry).begin;
      descriptors[a].s[2] = code.entry(*aggregates[a].entry).end;
      descriptors[a].s[3] = code.entry(*aggregates[a].entry).track_nulls ? 1 : 0;
    }
  }
  DeviceBuffer descriptor_buffer =
      engine.pool().Acquire(count * sizeof(cl_uint4), "aggregate descriptors");
  engine.Upload(descriptor_buffer.get(), 0, count * sizeof(cl_uint4), descriptors.data(),
                "upload aggregates");

  const std::vector<Tablet> tablets = relation.tablets();
  std::uint64_t tiles = 0;
  for (const Tablet& t : tablets)
    tiles += engine.TilesFor(t.rows);
  const AggregateKernelChoice choice =
      ChooseAggregateKernel(code, predicate_entry, aggregates, program.options());
  const std::uint32_t tiles_per_group = TilesPerGroup(engine, context.options(), tiles);
  std::uint64_t groups = 0;
  for (const Tablet& t : tablets)
    groups += engine.GroupsFor(engine.TilesFor(t.rows), tiles_per_group);
  std::vector<AggregateValue> results(count);
  if (groups == 0) return results;

  DeviceBuffer partials =
      engine.pool().Acquire(groups * count * 2 * sizeof(cl_long), "aggregate partials");
  std::uint32_t pred_begin = 0, pred_end = 0;
  bool pred_track = false;
  if (predicate_entry) {
    pred_begin = code.entry(*predicate_entry).begin;
    pred_end = code.entry(*predicate_entry).end;
    pred_track = code.entry(*predicate_entry).track_nulls;
  }
  const bool track = choice.machine.track, narrow = choice.machine.narrow,
             lean = choice.machine.lean;
  const std::string_view direct = choice.DirectKernelName();
  cl::Kernel& kernel = direct.empty()
                           ? DeviceProgram::VmKernel(engine, "vm_aggregate", track, narrow, lean)
                           : engine.kernel(direct);
  const std::string stage = choice.StageName();
  std::uint64_t group_base = 0;
  for (std::size_t t = 0; t < tablets.size(); ++t) {
    const std::uint64_t tablet_groups =
        engine.GroupsFor(engine.TilesFor(tablets[t].rows), tiles_per_group);
    if (tablet_groups == 0) continue;
    Bind(kernel, VmAggregateArgs{
                     .code = program.code(),
                     .constants = program.constants(),
                     .pred_begin = pred_begin,
                     .pred_end = pred_end,
                     .pred_track = pred_track,
                     .aggregates = descriptor_buffer.get(),
                     .aggregate_count = static_cast<cl_uint>(count),
                     .slots = program.SlotArgs(relation, t),
                     .rows = tablets[t].rows,
                     .partials = partials.get(),
                     .group_base = group_base,
                     .tiles_per_group = tiles_per_group,
                     .status = context.status(),
                 });
    engine.Launch(kernel, tablet_groups, stage);
    group_base += tablet_groups;
  }

  cl::Kernel& merge = engine.kernel("vm_aggregate_merge");
  while (groups > 1) {
    const std::uint64_t merged_groups = engine.TilesFor(groups);
    DeviceBuffer merged =
        engine.pool().Acquire(merged_groups * count * 2 * sizeof(cl_long), "aggregate partials");
    Bind(merge, VmAggregateMergeArgs{
                    .partials = partials.get(),
                    .group_count = groups,
                    .aggregates = descriptor_buffer.get(),
                    .aggregate_count = static_cast<cl_uint>(count),
                    .merged = merged.get(),
                });
    engine.Launch(merge, merged_groups, "aggregate merge");
    partials = std::move(merged);
    groups = merged_groups;
  }
  std::vector<cl_long> host(count * 2);
  engine.Download(partials.get(), 0, host.size() * sizeof(cl_long), host.data(),
                  "aggregate result");
  context.CheckStatus();
  for (std::size_t a = 0; a < count; ++a) {
    results[a].bits = host[a * 2];
    results[a].count = static_cast<std::uint64_t>(host[a * 2 + 1]);
  }
  return results;
}

__extension__ typedef __int128 Wide;

// Whether an integer SUM of `entry` over `rows` rows provably stays inside
// int64 in any order of addition.
bool SumCannotOverflow(const ExpressionProgram& code, std::size_t entry, RowCount rows) {
  return SumFitsInt64(code.entry(entry).range, rows);
}

}  // namespace

bool SumFitsInt64(const std::optional<IntRange>& range, RowCount rows) {
  if (!range) return false;
  // max(max, -min) >= |v| for every v in [min, max], and is never negative.
  const Wide magnitude = std::max(Wide{range->max}, -Wide{range->min});
  return magnitude * static_cast<Wide>(rows) <= Wide{INT64_MAX};
}

DeviceAggregates SplitForDevice(const ExpressionProgram& code, RowCount rows,
                                const std::vector<AggregateSpec>& aggregates) {
  if (aggregates.size() > VM_MAX_AGGREGATES)
    throw DeviceLimitError("at most " + std::to_string(VM_MAX_AGGREGATES) +
                           " aggregates per query pass are supported");
  // An integer SUM whose total the range analysis cannot bound runs as its
  // two 32-bit halves, joined by Aggregate, so that overflow is decided on
  // the exact total and not on the device's order of additions.
  DeviceAggregates device;
  device.first_spec.resize(aggregates.size());
  device.split.assign(aggregates.size(), false);
  for (std::size_t a = 0; a < aggregates.size(); ++a) {
    device.first_spec[a] = device.specs.size();
    const AggregateSpec& spec = aggregates[a];
    device.split[a] =
        spec.operation == VM_AGG_SUM_I && spec.entry && !SumCannotOverflow(code, *spec.entry, rows);
    if (device.split[a]) {
      device.specs.push_back({VM_AGG_SUM_LO32, spec.entry});
      device.specs.push_back({VM_AGG_SUM_HI32, spec.entry});
    } else {
      device.specs.push_back(spec);
    }
  }
  device.passes = InPasses(device.specs, VM_MAX_AGGREGATES);
  return device;
}

KernelSet AggregateKernels(const Engine& engine, const QueryOptions& options,
                           const ExpressionProgram& program,
                           std::optional<std::size_t> predicate_entry,
                           const std::vector<AggregateSpec>& aggregates, RowCount rows_bound,
                           bool exact) {
  KernelSet kernels;
  const std::uint64_t tiles = engine.TilesFor(rows_bound);
  const std::uint64_t groups = engine.GroupsFor(tiles, TilesPerGroup(engine, options, tiles));
  for (const std::vector<AggregateSpec>& pass :
       SplitForDevice(program, rows_bound, aggregates).passes) {
    if (pass.empty() || rows_bound == 0) continue;
    const AggregateKernelChoice choice =
        ChooseAggregateKernel(program, predicate_entry, pass, options);
    const std::string_view direct = choice.DirectKernelName();
    kernels.Add(direct.empty()
                    ? DeviceProgram::VmKernelName("vm_aggregate", choice.machine.track,
                                                  choice.machine.narrow, choice.machine.lean)
                    : std::string(direct));
    if (groups > 1) {
      if (exact) {
        kernels.Add("vm_aggregate_merge");
      } else {
        kernels.AddWhenNeeded("vm_aggregate_merge");
      }
    }
  }
  return kernels;
}

std::vector<AggregateValue> Aggregate(QueryContext& context, Relation& relation,
                                      const DeviceProgram& program,
                                      std::optional<std::size_t> predicate_entry,
                                      const std::vector<AggregateSpec>& aggregates,
                                      std::optional<RowCount> rows_bound) {
  const DeviceAggregates device =
      SplitForDevice(program.program(), rows_bound.value_or(relation.rows()), aggregates);
  const std::vector<std::size_t>& first_spec = device.first_spec;
  const std::vector<bool>& split = device.split;
  std::vector<AggregateValue> device_values;
  for (const std::vector<AggregateSpec>& pass : device.passes) {
    for (const AggregateValue& v :
         AggregateOnDevice(context, relation, program, predicate_entry, pass))
      device_values.push_back(v);
  }
  std::vector<AggregateValue> results(aggregates.size());
  for (std::size_t a = 0; a < aggregates.size(); ++a) {
    const AggregateValue& first = device_values[first_spec[a]];
    if (!split[a]) {
      results[a] = first;
      continue;
    }
    const AggregateValue& high = device_values[first_spec[a] + 1];
    const Wide total =
        Wide{high.bits} * (Wide{1} << 32) + Wide{static_cast<std::uint64_t>(first.bits)};
    results[a].count = first.count;
    if (first.count != 0 && (total < INT64_MIN || total > INT64_MAX)) {
      if (!aggregates[a].total_may_exceed_int64) throw InvalidInputError("integer overflow");
      results[a].wide_total = static_cast<double>(total);
      continue;
    }
    results[a].bits = static_cast<std::int64_t>(total);
  }
  return results;
}

}  // namespace clq
