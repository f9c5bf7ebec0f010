#include "runtime/cl_error.hpp"

namespace clq {

const char* ClErrorName(cl_int code) {
  switch (code) {
#define CLQ_CASE(name) \
  case name:           \
    return #name
    CLQ_CASE(CL_SUCCESS);
    CLQ_CASE(CL_DEVICE_NOT_FOUND);
    CLQ_CASE(CL_DEVICE_NOT_AVAILABLE);
    CLQ_CASE(CL_COMPILER_NOT_AVAILABLE);
    CLQ_CASE(CL_MEM_OBJECT_ALLOCATION_FAILURE);
    CLQ_CASE(CL_OUT_OF_RESOURCES);
    CLQ_CASE(CL_OUT_OF_HOST_MEMORY);
    CLQ_CASE(CL_PROFILING_INFO_NOT_AVAILABLE);
    CLQ_CASE(CL_MEM_COPY_OVERLAP);
    CLQ_CASE(CL_IMAGE_FORMAT_MISMATCH);
    CLQ_CASE(CL_IMAGE_FORMAT_NOT_SUPPORTED);
    CLQ_CASE(CL_BUILD_PROGRAM_FAILURE);
    CLQ_CASE(CL_MAP_FAILURE);
    CLQ_CASE(CL_MISALIGNED_SUB_BUFFER_OFFSET);
    CLQ_CASE(CL_EXEC_STATUS_ERROR_FOR_EVENTS_IN_WAIT_LIST);
    CLQ_CASE(CL_COMPILE_PROGRAM_FAILURE);
    CLQ_CASE(CL_LINKER_NOT_AVAILABLE);
    CLQ_CASE(CL_LINK_PROGRAM_FAILURE);
    CLQ_CASE(CL_DEVICE_PARTITION_FAILED);
    CLQ_CASE(CL_KERNEL_ARG_INFO_NOT_AVAILABLE);
    CLQ_CASE(CL_INVALID_VALUE);
    CLQ_CASE(CL_INVALID_DEVICE_TYPE);
    CLQ_CASE(CL_INVALID_PLATFORM);
    CLQ_CASE(CL_INVALID_DEVICE);
    CLQ_CASE(CL_INVALID_CONTEXT);
    CLQ_CASE(CL_INVALID_QUEUE_PROPERTIES);
    CLQ_CASE(CL_INVALID_COMMAND_QUEUE);
    CLQ_CASE(CL_INVALID_HOST_PTR);
    CLQ_CASE(CL_INVALID_MEM_OBJECT);
    CLQ_CASE(CL_INVALID_IMAGE_FORMAT_DESCRIPTOR);
    CLQ_CASE(CL_INVALID_IMAGE_SIZE);
    CLQ_CASE(CL_INVALID_SAMPLER);
    CLQ_CASE(CL_INVALID_BINARY);
    CLQ_CASE(CL_INVALID_BUILD_OPTIONS);
    CLQ_CASE(CL_INVALID_PROGRAM);
    CLQ_CASE(CL_INVALID_PROGRAM_EXECUTABLE);
    CLQ_CASE(CL_INVALID_KERNEL_NAME);
    CLQ_CASE(CL_INVALID_KERNEL_DEFINITION);
    CLQ_CASE(CL_INVALID_KERNEL);
    CLQ_CASE(CL_INVALID_ARG_INDEX);
    CLQ_CASE(CL_INVALID_ARG_VALUE);
    CLQ_CASE(CL_INVALID_ARG_SIZE);
    CLQ_CASE(CL_INVALID_KERNEL_ARGS);
    CLQ_CASE(CL_INVALID_WORK_DIMENSION);
    CLQ_CASE(CL_INVALID_WORK_GROUP_SIZE);
    CLQ_CASE(CL_INVALID_WORK_ITEM_SIZE);
    CLQ_CASE(CL_INVALID_GLOBAL_OFFSET);
    CLQ_CASE(CL_INVALID_EVENT_WAIT_LIST);
    CLQ_CASE(CL_INVALID_EVENT);
    CLQ_CASE(CL_INVALID_OPERATION);
    CLQ_CASE(CL_INVALID_GL_OBJECT);
    CLQ_CASE(CL_INVALID_BUFFER_SIZE);
    CLQ_CASE(CL_INVALID_MIP_LEVEL);
    CLQ_CASE(CL_INVALID_GLOBAL_WORK_SIZE);
    CLQ_CASE(CL_INVALID_PROPERTY);
    CLQ_CASE(CL_INVALID_IMAGE_DESCRIPTOR);
    CLQ_CASE(CL_INVALID_COMPILER_OPTIONS);
    CLQ_CASE(CL_INVALID_LINKER_OPTIONS);
    CLQ_CASE(CL_INVALID_DEVICE_PARTITION_COUNT);
#undef CLQ_CASE
    case -1001:
      return "CL_PLATFORM_NOT_FOUND_KHR";
    default:
      return "CL_UNKNOWN_ERROR";
  }
}

namespace {

std::string Describe(const std::string& call, cl_int code, const std::string& detail) {
  std::string message = call + " failed: " + ClErrorName(code) + " (" + std::to_string(code) + ")";
  if (!detail.empty()) message += " while " + detail;
  return message;
}

}  // namespace

DeviceError::DeviceError(std::string call, cl_int code, std::string detail, std::string build_log)
    : Error(Describe(call, code, detail) + (build_log.empty() ? "" : "\nbuild log:\n" + build_log)),
      call_(std::move(call)),
      code_(code),
      build_log_(std::move(build_log)) {}

DeviceError TranslateClError(const cl::Error& error, const std::string& context) {
  return DeviceError(error.what() ? error.what() : "OpenCL call", error.err(), context);
}

void CheckCl(cl_int code, const char* call) {
  if (code != CL_SUCCESS) throw DeviceError(call, code);
}

}  // namespace clq
