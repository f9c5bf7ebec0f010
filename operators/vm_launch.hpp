// What the launch arguments of the vm_* kernels share: the buffers of a
// program's column slots for one tablet, which every vm_* kernel (and
// vm_filter_conjuncts) takes as VM_SLOT_PARAMS (kernels_cl/vm.cl): the 8
// slot value buffers s0..s7, then the 8 slot NULL maps z0..z7. Each kernel
// family's own arguments are a struct beside the operator that launches it
// (operators/selection.cpp, projection.cpp, aggregation.cpp), bound through
// operators/kernel_args.hpp.
#pragma once

#include <array>

#include "kernels_cl/vm_shared.h"
#include "operators/kernel_args.hpp"
#include "runtime/cl.hpp"

namespace clq {

static_assert(VM_MAX_SLOTS == 8, "VM_SLOT_PARAMS (kernels_cl/vm.cl) lists 8 slots");

// Filled by DeviceProgram::SlotArgs: unused slots and absent NULL maps hold
// a small stand-in buffer, never read.
struct VmSlotArgs {
  std::array<cl::Buffer, VM_MAX_SLOTS> values;  // s0..s7
  std::array<cl::Buffer, VM_MAX_SLOTS> nulls;   // z0..z7
};

// Binds VM_SLOT_PARAMS: the next 2 * VM_MAX_SLOTS parameters.
inline void AddSlots(KernelArgs& args, const VmSlotArgs& slots) {
  for (const cl::Buffer& values : slots.values)
    args.Add(values);
  for (const cl::Buffer& nulls : slots.nulls)
    args.Add(nulls);
}

}  // namespace clq
