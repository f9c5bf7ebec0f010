// Binds a kernel's arguments in the order of its parameter list, counting
// the positions itself, so that a launch helper names each argument once,
// in the order of the .cl signature, with no literal indices to keep in step
// with it. Each operator keeps one such helper per kernel family beside its
// launch: a struct of named, typed fields (a buffer, or a scalar of exactly
// the parameter's OpenCL type: cl_uint for uint, cl_ulong for ulong, ...)
// and a Bind function that adds them in order and calls Done().
//
// Done() checks that every parameter got an argument: an Engine's kernels
// are created once and reused, so a parameter left unbound would keep the
// previous launch's argument instead of failing. Binding past the last
// parameter already fails in clSetKernelArg. Not thread-safe (nor is a
// cl::Kernel's argument state).
#pragma once

#include <string>
#include <type_traits>

#include "common/errors.hpp"
#include "runtime/cl.hpp"

namespace clq {

class KernelArgs {
 public:
  explicit KernelArgs(cl::Kernel& kernel) : kernel_(kernel) {}

  // Binds `value` to the next parameter.
  template <typename T>
  KernelArgs& Add(const T& value) {
    static_assert(!std::is_same_v<T, bool>, "no OpenCL parameter is a bool: pass cl_uint");
    kernel_.setArg(next_++, value);
    return *this;
  }

  // Checks that the arguments bound so far are all the kernel's parameters.
  void Done() const {
    const cl_uint parameters = kernel_.getInfo<CL_KERNEL_NUM_ARGS>();
    if (next_ == parameters) return;
    // The name as the driver reports it may end in NULs.
    const std::string name = kernel_.getInfo<CL_KERNEL_FUNCTION_NAME>().c_str();
    throw InternalError(name + " takes " + std::to_string(parameters) + " arguments, bound " +
                        std::to_string(next_));
  }

 private:
  cl::Kernel& kernel_;
  cl_uint next_ = 0;
};

}  // namespace clq
