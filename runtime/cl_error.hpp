// Translation of OpenCL failures into clq errors.
//
// Every OpenCL call either goes through the C++ bindings (which throw
// cl::Error holding the call name and the numeric code) or through CheckCl for
// the few raw C calls. Both end up as DeviceError, whose message names the call,
// the code and its macro name ("clEnqueueNDRangeKernel failed: CL_OUT_OF_RESOURCES (-5)").
#pragma once

#include <string>

#include "common/errors.hpp"
#include "runtime/cl.hpp"

namespace clq {

// The macro name of an OpenCL error code ("CL_OUT_OF_RESOURCES"), or
// "CL_UNKNOWN_ERROR" for codes this table does not know.
const char* ClErrorName(cl_int code);

// An OpenCL call failed. For program builds, build_log() holds the device's log.
class DeviceError : public Error {
 public:
  DeviceError(std::string call, cl_int code, std::string detail = {}, std::string build_log = {});
  const std::string& call() const { return call_; }
  cl_int code() const { return code_; }
  const std::string& build_log() const { return build_log_; }

 private:
  std::string call_;
  cl_int code_;
  std::string build_log_;
};

// Converts a binding exception into a DeviceError with context (what clq was
// doing, e.g. "uploading column unique1").
DeviceError TranslateClError(const cl::Error& error, const std::string& context = {});

// Throws DeviceError when `code` is not CL_SUCCESS.
void CheckCl(cl_int code, const char* call);

}  // namespace clq
