#include "runtime/device_info.hpp"

#include <dlfcn.h>

#include <algorithm>
#include <cctype>

#include "runtime/cl_error.hpp"

namespace clq {

const char* DeviceKindName(DeviceKind kind) {
  switch (kind) {
    case DeviceKind::kGpu:
      return "gpu";
    case DeviceKind::kCpu:
      return "cpu";
    case DeviceKind::kAccelerator:
      return "accelerator";
    case DeviceKind::kOther:
      break;
  }
  return "other";
}

std::string DeviceInfo::PairSelector() const {
  return std::to_string(platform_index) + ":" + std::to_string(device_index);
}

namespace {

// Driver strings often end in NUL padding or spaces.
std::string Trimmed(std::string text) {
  while (!text.empty() &&
         (text.back() == '\0' || std::isspace(static_cast<unsigned char>(text.back()))))
    text.pop_back();
  std::size_t start = 0;
  while (start < text.size() && std::isspace(static_cast<unsigned char>(text[start])))
    ++start;
  return text.substr(start);
}

DeviceKind KindOf(cl_device_type type) {
  if (type & CL_DEVICE_TYPE_GPU) return DeviceKind::kGpu;
  if (type & CL_DEVICE_TYPE_CPU) return DeviceKind::kCpu;
  if (type & CL_DEVICE_TYPE_ACCELERATOR) return DeviceKind::kAccelerator;
  return DeviceKind::kOther;
}

bool HasExtension(const std::string& extensions, const std::string& name) {
  std::size_t pos = 0;
  while ((pos = extensions.find(name, pos)) != std::string::npos) {
    const std::size_t end = pos + name.size();
    const bool starts = pos == 0 || extensions[pos - 1] == ' ';
    const bool ends = end == extensions.size() || extensions[end] == ' ';
    if (starts && ends) return true;
    pos = end;
  }
  return false;
}

}  // namespace

DeviceInfo ReadDeviceInfo(const cl::Platform& platform, const cl::Device& device) {
  DeviceInfo info;
  info.platform_name = Trimmed(platform.getInfo<CL_PLATFORM_NAME>());
  info.platform_vendor = Trimmed(platform.getInfo<CL_PLATFORM_VENDOR>());
  info.platform_version = Trimmed(platform.getInfo<CL_PLATFORM_VERSION>());
  info.name = Trimmed(device.getInfo<CL_DEVICE_NAME>());
  info.vendor = Trimmed(device.getInfo<CL_DEVICE_VENDOR>());
  info.driver_version = Trimmed(device.getInfo<CL_DRIVER_VERSION>());
  info.device_version = Trimmed(device.getInfo<CL_DEVICE_VERSION>());
  info.opencl_c_version = Trimmed(device.getInfo<CL_DEVICE_OPENCL_C_VERSION>());
  info.kind = KindOf(device.getInfo<CL_DEVICE_TYPE>());
  info.compute_units = device.getInfo<CL_DEVICE_MAX_COMPUTE_UNITS>();
  info.clock_mhz = device.getInfo<CL_DEVICE_MAX_CLOCK_FREQUENCY>();
  info.global_mem_bytes = device.getInfo<CL_DEVICE_GLOBAL_MEM_SIZE>();
  info.local_mem_bytes = device.getInfo<CL_DEVICE_LOCAL_MEM_SIZE>();
  info.max_alloc_bytes = device.getInfo<CL_DEVICE_MAX_MEM_ALLOC_SIZE>();
  info.max_work_group_size = device.getInfo<CL_DEVICE_MAX_WORK_GROUP_SIZE>();
  info.mem_base_addr_align_bits = device.getInfo<CL_DEVICE_MEM_BASE_ADDR_ALIGN>();
  const std::string extensions = device.getInfo<CL_DEVICE_EXTENSIONS>();
  info.fp64 = HasExtension(extensions, "cl_khr_fp64");
  info.int64_atomics = HasExtension(extensions, "cl_khr_int64_base_atomics");
  // Mesa's software rasteriser, under rusticl or clover: gallivm's loop
  // limiter (LP_MAX_TGSI_LOOP_ITERATIONS).
  if (info.name.rfind("llvmpipe", 0) == 0) info.loop_iteration_limit = 65535;
  return info;
}

std::vector<DeviceHandle> DiscoverDevices() {
  std::vector<cl::Platform> platforms;
  // The ICD loader reports "no platform" as an error code; that is an empty list to us.
  cl_uint count = 0;
  const cl_int status = clGetPlatformIDs(0, nullptr, &count);
  if (status == CL_PLATFORM_NOT_FOUND_KHR || (status == CL_SUCCESS && count == 0)) return {};
  CheckCl(status, "clGetPlatformIDs");
  try {
    cl::Platform::get(&platforms);
  } catch (const cl::Error& error) {
    throw TranslateClError(error, "listing OpenCL platforms");
  }

  std::vector<DeviceHandle> result;
  for (std::size_t p = 0; p < platforms.size(); ++p) {
    std::vector<cl::Device> devices;
    try {
      platforms[p].getDevices(CL_DEVICE_TYPE_ALL, &devices);
    } catch (const cl::Error& error) {
      if (error.err() == CL_DEVICE_NOT_FOUND) continue;  // a platform with no device
      throw TranslateClError(error, "listing the devices of platform " + std::to_string(p));
    }
    for (std::size_t d = 0; d < devices.size(); ++d) {
      DeviceHandle handle{platforms[p], devices[d], {}};
      try {
        handle.info = ReadDeviceInfo(platforms[p], devices[d]);
      } catch (const cl::Error& error) {
        throw TranslateClError(error, "reading the properties of device " + std::to_string(p) +
                                          ":" + std::to_string(d));
      }
      handle.info.platform_index = p;
      handle.info.device_index = d;
      handle.info.flat_index = result.size();
      result.push_back(std::move(handle));
    }
  }
  return result;
}

std::optional<std::string> UnregisteredNvidiaHint(const std::vector<DeviceInfo>& devices) {
  const bool nvidia_listed = std::any_of(devices.begin(), devices.end(), [](const DeviceInfo& d) {
    return d.platform_name.find("NVIDIA") != std::string::npos;
  });
  if (nvidia_listed) return std::nullopt;
  void* library = dlopen("libnvidia-opencl.so.1", RTLD_LAZY | RTLD_LOCAL);
  if (library == nullptr) return std::nullopt;
  dlclose(library);
  return std::string(
      "NVIDIA's OpenCL driver (libnvidia-opencl.so.1) is installed but not registered with the "
      "OpenCL loader, so no NVIDIA device is listed. Register it with:\n"
      "  echo libnvidia-opencl.so.1 > /etc/OpenCL/vendors/nvidia.icd");
}

}  // namespace clq
