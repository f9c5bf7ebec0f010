#include "operators/device_program.hpp"

#include <atomic>
#include <string_view>

#include "kernels_cl/vm_shared.h"
#include "runtime/environment.hpp"
#include "runtime/errors.hpp"

namespace clq {

DeviceProgram::DeviceProgram(Engine& engine, const ExpressionProgram& program) : program_(program) {
  const auto& code = program.code();
  const auto& constants = program.constants();
  code_ = engine.pool().Acquire(code.size() * sizeof(cl_uint2), "expression program");
  constants_ = engine.pool().Acquire(constants.size() * sizeof(cl_long), "expression constants");
  dummy_ = engine.pool().Acquire(256, "unused slot");
  engine.Upload(code_.get(), 0, code.size() * sizeof(cl_uint2), code.data(), "upload program");
  engine.Upload(constants_.get(), 0, constants.size() * sizeof(cl_long), constants.data(),
                "upload program");
}

void DeviceProgram::BindSlots(cl::Kernel& kernel, cl_uint first_arg, Relation& relation,
                              std::size_t tablet) const {
  const auto& slots = program_.slots();
  for (cl_uint s = 0; s < VM_MAX_SLOTS; ++s) {
    cl::Buffer values = dummy_.get();
    cl::Buffer nulls = dummy_.get();
    if (s < slots.size()) {
      values = relation.values(slots[s].column, tablet);
      if (slots[s].nullable) nulls = relation.nulls(slots[s].column, tablet);
    }
    kernel.setArg(first_arg + s, values);
    kernel.setArg(first_arg + VM_MAX_SLOTS + s, nulls);
  }
}

bool DeviceProgram::SpecialisedAllowed() {
  static const bool allowed = EnvironmentAllows("CLQ_VM_UNTRACKED");
  return allowed;
}

namespace {
std::atomic<bool>& NarrowFlag() {
  static std::atomic<bool> allowed = EnvironmentAllows("CLQ_VM_NARROW");
  return allowed;
}
std::atomic<bool>& LeanFlag() {
  static std::atomic<bool> allowed = EnvironmentAllows("CLQ_VM_LEAN");
  return allowed;
}
std::atomic<bool>& LeanForcedFlag() {
  static std::atomic<bool> forced = false;
  return forced;
}
}  // namespace

bool DeviceProgram::NarrowAllowed() {
  return NarrowFlag().load();
}

void DeviceProgram::SetNarrowAllowed(bool allowed) {
  NarrowFlag().store(allowed);
}

bool DeviceProgram::LeanAllowed() {
  return LeanFlag().load();
}

void DeviceProgram::SetLeanAllowed(bool allowed) {
  LeanFlag().store(allowed);
}

bool DeviceProgram::LeanForced() {
  return LeanForcedFlag().load();
}

void DeviceProgram::SetLeanForced(bool forced) {
  LeanForcedFlag().store(forced);
}

std::string VmMachine::Describe() const {
  return std::string(narrow ? "32-bit" : "64-bit") + (lean ? ", lean" : "") +
         (track || !DeviceProgram::SpecialisedAllowed() ? ", NULL tracking" : ", untracked");
}

VmMachine DeviceProgram::MachineFor(const ExpressionProgram& program,
                                    std::span<const std::size_t> entries, bool narrow_results) {
  VmMachine machine;
  machine.narrow = narrow_results && NarrowAllowed();
  machine.lean = true;
  for (const std::size_t entry : entries) {
    machine.narrow = machine.narrow && program.IsNarrow(entry);
    machine.lean = machine.lean && !program.UsesRareOperations(entry);
    machine.track = machine.track || program.entry(entry).track_nulls;
  }
  machine.lean = LeanForced() || (machine.lean && LeanAllowed());
  return machine;
}

std::string DeviceProgram::StageName(std::string_view base, bool narrow, bool lean) {
  std::string name(base);
  if (narrow && lean) return name + " (32-bit, lean)";
  if (narrow) return name + " (32-bit)";
  if (lean) return name + " (lean)";
  return name;
}

cl::Kernel& DeviceProgram::VmKernel(Engine& engine, const std::string& base, bool track,
                                    bool narrow, bool lean) {
  std::string name = base;
  if (!track && SpecialisedAllowed()) name += "_untracked";
  if (narrow) name += "_narrow";
  if (lean) name += "_lean";
  return engine.kernel(name);
}

}  // namespace clq
