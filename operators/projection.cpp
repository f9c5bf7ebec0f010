#include "operators/projection.hpp"

#include "operators/kernel_args.hpp"
#include "operators/vm_launch.hpp"

namespace clq {
namespace {

// vm_project and its variants: VM_PROJECT_PARAMS in kernels_cl/vm.cl, in order.
struct VmProjectArgs {
  cl::Buffer code;
  cl::Buffer constants;
  cl_uint begin = 0;  // the entry's instructions
  cl_uint end = 0;
  VmSlotArgs slots;
  cl_ulong rows = 0;
  cl::Buffer out_values;
  bool out_int32 = false;   // out_kind: 4-byte values (else 8-byte)
  cl::Buffer out_null_map;  // read only with `write_nulls`
  bool write_nulls = false;
  bool track = false;     // the entry can see a NULL
  cl_ulong out_base = 0;  // the output row of the tablet's first row
  cl::Buffer status;
};

void Bind(cl::Kernel& kernel, const VmProjectArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.code).Add(a.constants).Add(a.begin).Add(a.end);
  AddSlots(args, a.slots);
  args.Add(a.rows).Add(a.out_values).Add(cl_uint{a.out_int32}).Add(a.out_null_map);
  args.Add(cl_uint{a.write_nulls}).Add(cl_uint{a.track}).Add(a.out_base).Add(a.status);
  args.Done();
}

}  // namespace

ColumnType ProjectedType(const VmEntry& entry) {
  if (entry.type == sql::ValueType::kReal) return ColumnType::Double();
  return entry.range && entry.range->FitsInt32() ? ColumnType::Int32() : ColumnType::Int64();
}

std::string ProjectKernel(const ExpressionProgram& program, std::size_t entry_index,
                          const QueryOptions& options) {
  const VmMachine machine =
      DeviceProgram::MachineFor(program, std::span<const std::size_t>(&entry_index, 1), options);
  return DeviceProgram::VmKernelName("vm_project", program.entry(entry_index).track_nulls,
                                     machine.narrow, machine.lean);
}

DeviceVector Project(QueryContext& context, Relation& relation, const DeviceProgram& program,
                     std::size_t entry_index) {
  Engine& engine = context.engine();
  const VmEntry& entry = program.program().entry(entry_index);
  const ColumnType type = ProjectedType(entry);
  const bool narrow = type == ColumnType::Int32();
  DeviceVector result = AllocateVector(engine, type, relation.rows(), "projection");
  if (entry.range) result.range = [range = entry.range] { return range; };
  if (entry.may_be_null)
    result.nulls = engine.pool().Acquire(relation.rows(), "projection NULL map");
  const VmMachine machine = program.MachineFor(std::span<const std::size_t>(&entry_index, 1));
  const bool narrow_machine = machine.narrow;
  const bool lean = machine.lean;
  cl::Kernel& kernel =
      DeviceProgram::VmKernel(engine, "vm_project", entry.track_nulls, narrow_machine, lean);
  const std::string stage = DeviceProgram::StageName("project", narrow_machine, lean);
  const std::vector<Tablet> tablets = relation.tablets();
  for (std::size_t t = 0; t < tablets.size(); ++t) {
    if (tablets[t].rows == 0) continue;
    Bind(kernel, VmProjectArgs{
                     .code = program.code(),
                     .constants = program.constants(),
                     .begin = entry.begin,
                     .end = entry.end,
                     .slots = program.SlotArgs(relation, t),
                     .rows = tablets[t].rows,
                     .out_values = result.values.get(),
                     .out_int32 = narrow,
                     .out_null_map = entry.may_be_null ? result.nulls.get() : result.values.get(),
                     .write_nulls = entry.may_be_null,
                     .track = entry.track_nulls,
                     .out_base = tablets[t].begin,
                     .status = context.status(),
                 });
    engine.Launch(kernel, engine.TilesFor(tablets[t].rows), stage);
  }
  return result;
}

}  // namespace clq
