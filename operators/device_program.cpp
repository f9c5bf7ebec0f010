#include "operators/device_program.hpp"

#include <atomic>
#include <cstdlib>
#include <string_view>

#include "kernels_cl/vm_shared.h"
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
  static const bool allowed = [] {
    const char* value = std::getenv("CLQ_VM_UNTRACKED");
    return value == nullptr || std::string_view(value) != "0";
  }();
  return allowed;
}

namespace {
std::atomic<bool>& NarrowFlag() {
  static std::atomic<bool> allowed = [] {
    const char* value = std::getenv("CLQ_VM_NARROW");
    return value == nullptr || std::string_view(value) != "0";
  }();
  return allowed;
}
}  // namespace

bool DeviceProgram::NarrowAllowed() {
  return NarrowFlag().load();
}

void DeviceProgram::SetNarrowAllowed(bool allowed) {
  NarrowFlag().store(allowed);
}

cl::Kernel& DeviceProgram::VmKernel(Engine& engine, const std::string& base, bool track,
                                    bool narrow) {
  std::string name = base;
  if (!track && SpecialisedAllowed()) name += "_untracked";
  if (narrow) name += "_narrow";
  return engine.kernel(name);
}

}  // namespace clq
