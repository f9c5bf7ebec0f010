#include "operators/projection.hpp"

namespace clq {

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
    kernel.setArg(0, program.code());
    kernel.setArg(1, program.constants());
    kernel.setArg(2, static_cast<cl_uint>(entry.begin));
    kernel.setArg(3, static_cast<cl_uint>(entry.end));
    program.BindSlots(kernel, 4, relation, t);
    kernel.setArg(20, static_cast<cl_ulong>(tablets[t].rows));
    kernel.setArg(21, result.values.get());
    kernel.setArg(22, static_cast<cl_uint>(narrow ? 1 : 0));
    kernel.setArg(23, entry.may_be_null ? result.nulls.get() : result.values.get());
    kernel.setArg(24, static_cast<cl_uint>(entry.may_be_null ? 1 : 0));
    kernel.setArg(25, static_cast<cl_uint>(entry.track_nulls ? 1 : 0));
    kernel.setArg(26, static_cast<cl_ulong>(tablets[t].begin));
    kernel.setArg(27, context.status());
    engine.Launch(kernel, engine.TilesFor(tablets[t].rows), stage);
  }
  return result;
}

}  // namespace clq
