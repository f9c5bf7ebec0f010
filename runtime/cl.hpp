// The one include of the OpenCL C++ bindings. CMake defines the version macros
// (CL_HPP_TARGET_OPENCL_VERSION=120, CL_HPP_MINIMUM_OPENCL_VERSION=120) and
// CL_HPP_ENABLE_EXCEPTIONS, so every failing binding call throws cl::Error,
// which clq translates into DeviceError (runtime/cl_error.hpp).
#pragma once

#include <CL/opencl.hpp>
