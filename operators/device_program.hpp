// An ExpressionProgram uploaded for one query, and its column slots mapped
// to the buffers of one tablet of a relation (VmSlotArgs, the arguments
// every vm_* kernel shares: operators/vm_launch.hpp).
#pragma once

#include <span>
#include <string>
#include <string_view>

#include "operators/expression_program.hpp"
#include "operators/relation.hpp"
#include "operators/vm_launch.hpp"
#include "runtime/buffer_pool.hpp"
#include "runtime/engine.hpp"

namespace clq {

// The expression machine a vm_* launch runs on (kernels_cl/vm_interpreter.cl):
// 32-bit or 64-bit values, lean or with every operation, NULL tracking
// compiled in or out.
struct VmMachine {
  bool narrow = false;
  bool lean = false;
  bool track = false;
  // "32-bit, lean, untracked", for EXPLAIN.
  std::string Describe() const;
};

class DeviceProgram {
 public:
  // `options` choose the machines its launches run on (MachineFor).
  DeviceProgram(Engine& engine, const ExpressionProgram& program, const QueryOptions& options = {});
  const QueryOptions& options() const { return options_; }
  const ExpressionProgram& program() const { return program_; }
  const cl::Buffer& code() const { return code_.get(); }
  const cl::Buffer& constants() const { return constants_.get(); }
  // The buffers of the program's slots in tablet `tablet` of `relation`;
  // unused slots and absent NULL maps hold a small stand-in buffer.
  VmSlotArgs SlotArgs(Relation& relation, std::size_t tablet) const;
  // The vm_* kernel `base` ("vm_filter", ...), or its variant with NULL
  // tracking compiled out when no entry of the launch can see a NULL (fewer
  // registers), on the 32-bit machine when `narrow` (every entry of the
  // launch allows it, MachineFor), on the lean machine when `lean`.
  static cl::Kernel& VmKernel(Engine& engine, const std::string& base, bool track, bool narrow,
                              bool lean);
  // That kernel's name.
  static std::string VmKernelName(const std::string& base, bool track, bool narrow, bool lean);
  // The --profile name of a vm_* launch: "filter", "filter (32-bit)",
  // "filter (lean)", "filter (32-bit, lean)".
  static std::string StageName(std::string_view base, bool narrow, bool lean);
  // The machine of a launch evaluating `entries` of `program`: the 32-bit one
  // when every entry IsNarrow, `narrow_results` (false when a consumer needs
  // 64-bit values, as REAL aggregates do) and options.narrow_machine; the
  // lean one when no entry uses a rare operation and options.lean_machine
  // (or always, with options.force_lean_machine); NULL tracking when any
  // entry can see a NULL. The kernels and EXPLAIN both ask here.
  static VmMachine MachineFor(const ExpressionProgram& program,
                              std::span<const std::size_t> entries, const QueryOptions& options,
                              bool narrow_results = true);
  VmMachine MachineFor(std::span<const std::size_t> entries, bool narrow_results = true) const {
    return MachineFor(program_, entries, options_, narrow_results);
  }

 private:
  const ExpressionProgram& program_;
  QueryOptions options_;
  DeviceBuffer code_;
  DeviceBuffer constants_;
  DeviceBuffer dummy_;
};

}  // namespace clq
