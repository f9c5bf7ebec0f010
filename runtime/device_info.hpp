// Discovery of OpenCL platforms and devices, and what clq needs to know about each.
//
// DiscoverDevices() lists every device of every platform the ICD loader sees,
// platform-major, so the flat index of a device is stable between runs on one
// machine. A machine without any platform yields an empty list (not an error):
// callers decide whether that is fatal.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "runtime/cl.hpp"

namespace clq {

enum class DeviceKind { kGpu, kCpu, kAccelerator, kOther };

const char* DeviceKindName(DeviceKind kind);

struct DeviceInfo {
  std::size_t flat_index = 0;      // position in the DiscoverDevices() list
  std::size_t platform_index = 0;  // position of the platform in clGetPlatformIDs
  std::size_t device_index = 0;    // position of the device within its platform
  std::string platform_name;
  std::string platform_vendor;
  std::string platform_version;
  std::string name;
  std::string vendor;
  std::string driver_version;
  std::string device_version;
  std::string opencl_c_version;
  DeviceKind kind = DeviceKind::kOther;
  std::uint32_t compute_units = 0;
  std::uint32_t clock_mhz = 0;
  std::uint64_t global_mem_bytes = 0;
  std::uint64_t local_mem_bytes = 0;
  std::uint64_t max_alloc_bytes = 0;
  std::uint64_t max_work_group_size = 0;
  std::uint32_t mem_base_addr_align_bits = 0;
  bool fp64 = false;
  bool int64_atomics = false;
  // Most loop iterations a work-item runs in all, every loop of the kernel
  // counted; 0: no limit. Mesa's llvmpipe (gallivm) counts an invocation's
  // loop iterations and ends every loop, silently, once 65535 have run, so
  // kernels whose per-work-item loops grow with the data give wrong
  // answers there: the planner cuts such work into bounded pieces.
  std::uint32_t loop_iteration_limit = 0;

  // "platform:device", e.g. "1:0".
  std::string PairSelector() const;
  // Whether the device's buffers are host memory (CPU devices): its tables
  // are read in place, and its buffers count against the host-memory budget.
  bool MemoryIsHost() const { return kind == DeviceKind::kCpu; }
  // The Portable Computing Language driver (its own kernel cache, clang
  // build options).
  bool IsPocl() const {
    return platform_name.find("Portable Computing Language") != std::string::npos;
  }
  // Intel's CPU runtime for OpenCL (its platform, "Intel(R) OpenCL", also
  // offers no GPU).
  bool IsIntelCpuRuntime() const {
    return platform_name == "Intel(R) OpenCL" && kind == DeviceKind::kCpu;
  }
};

struct DeviceHandle {
  cl::Platform platform;
  cl::Device device;
  DeviceInfo info;
};

// Every device of every platform. Throws DeviceError only when the loader
// itself fails in an unexpected way.
std::vector<DeviceHandle> DiscoverDevices();

// Reads the properties of one device.
DeviceInfo ReadDeviceInfo(const cl::Platform& platform, const cl::Device& device);

// When NVIDIA's OpenCL driver library can be loaded but no NVIDIA platform is
// registered with the ICD loader, the message telling the user how to fix it.
std::optional<std::string> UnregisteredNvidiaHint(const std::vector<DeviceInfo>& devices);

}  // namespace clq
