#include "operators/device_program.hpp"

#include <string_view>

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"

namespace clq {

DeviceProgram::DeviceProgram(Engine& engine, const ExpressionProgram& program,
                             const QueryOptions& options)
    : program_(program), options_(options) {
  const auto& code = program.code();
  // A device that caps a work-item's loop iterations (llvmpipe) cuts the
  // interpreter short, silently, once the instructions times the items each
  // runs over pass the cap: each instruction loops over the work-item's
  // items a few times (operands, the operation, NULL flags), at most
  // kItemLoopsPerInstruction.
  constexpr std::uint64_t kItemLoopsPerInstruction = 4;
  const std::uint32_t cap = engine.info().loop_iteration_limit;
  if (cap != 0 &&
      code.size() * kItemLoopsPerInstruction * engine.tuning().items_per_thread > cap)
    throw DeviceLimitError("the expression program of " + std::to_string(code.size()) +
                           " instructions is too long for device '" + engine.info().name +
                           "', which caps a work-item's loops at " + std::to_string(cap) +
                           " iterations (at most " +
                           std::to_string(cap / (kItemLoopsPerInstruction *
                                                 engine.tuning().items_per_thread)) +
                           " instructions here)");
  const auto& constants = program.constants();
  code_ = engine.pool().Acquire(code.size() * sizeof(cl_uint2), "expression program");
  constants_ = engine.pool().Acquire(constants.size() * sizeof(cl_long), "expression constants");
  dummy_ = engine.pool().Acquire(256, "unused slot");
  engine.Upload(code_.get(), 0, code.size() * sizeof(cl_uint2), code.data(), "upload program");
  engine.Upload(constants_.get(), 0, constants.size() * sizeof(cl_long), constants.data(),
                "upload program");
}

VmSlotArgs DeviceProgram::SlotArgs(Relation& relation, std::size_t tablet) const {
  const auto& slots = program_.slots();
  VmSlotArgs args;
  for (std::size_t s = 0; s < VM_MAX_SLOTS; ++s) {
    const bool used = s < slots.size();
    args.values[s] = used ? relation.values(slots[s].column, tablet) : dummy_.get();
    args.nulls[s] =
        used && slots[s].nullable ? relation.nulls(slots[s].column, tablet) : dummy_.get();
  }
  return args;
}

std::string VmMachine::Describe() const {
  return std::string(narrow ? "32-bit" : "64-bit") + (lean ? ", lean" : "") +
         (track ? ", NULL tracking" : ", untracked");
}

VmMachine DeviceProgram::MachineFor(const ExpressionProgram& program,
                                    std::span<const std::size_t> entries,
                                    const QueryOptions& options, bool narrow_results) {
  VmMachine machine;
  machine.narrow = narrow_results && options.narrow_machine;
  machine.lean = true;
  for (const std::size_t entry : entries) {
    machine.narrow = machine.narrow && program.IsNarrow(entry);
    machine.lean = machine.lean && !program.UsesRareOperations(entry);
    machine.track = machine.track || program.entry(entry).track_nulls;
  }
  machine.lean = options.force_lean_machine || (machine.lean && options.lean_machine);
  return machine;
}

std::string DeviceProgram::StageName(std::string_view base, bool narrow, bool lean) {
  std::string name(base);
  if (narrow && lean) return name + " (32-bit, lean)";
  if (narrow) return name + " (32-bit)";
  if (lean) return name + " (lean)";
  return name;
}

std::string DeviceProgram::VmKernelName(const std::string& base, bool track, bool narrow,
                                        bool lean) {
  std::string name = base;
  if (!track) name += "_untracked";
  if (narrow) name += "_narrow";
  if (lean) name += "_lean";
  return name;
}

cl::Kernel& DeviceProgram::VmKernel(Engine& engine, const std::string& base, bool track,
                                    bool narrow, bool lean) {
  return engine.kernel(VmKernelName(base, track, narrow, lean));
}

}  // namespace clq
