// Device selectors: how a user names the devices to run on.
//
//   ""            the default: $CLQ_DEVICE when set, else the first GPU, else the
//                 first CPU, else the first device
//   "all"         every device
//   "2"           the device at flat index 2 (the order of `clq devices`)
//   "1:0"         device 0 of platform 1
//   "gpu" "cpu" "accelerator"
//                 every device of that type
//   anything else a case-insensitive substring of the platform name, device
//                 name or vendor ("nvidia", "pocl", "h100")
//   "a,b"         the union of several selectors, in order, without repeats
//
// Resolution works on DeviceInfo lists only, so it is testable without devices.
// A selector that matches nothing throws InvalidInputError listing the devices.
#pragma once

#include <span>
#include <string>
#include <string_view>
#include <vector>

#include "runtime/device_info.hpp"

namespace clq {

// Indices (into `devices`) of every device the selector names, in order.
std::vector<std::size_t> ResolveDevices(std::string_view selector,
                                        std::span<const DeviceInfo> devices);

// The one device a single-device command runs on. A type selector ("gpu")
// means the first device of that type; any other selector matching several
// devices is ambiguous and throws InvalidInputError naming the candidates.
std::size_t ResolveOneDevice(std::string_view selector, std::span<const DeviceInfo> devices);

// One line per device ("  0  0:0  gpu  NVIDIA CUDA / NVIDIA H100 80GB HBM3"),
// used by error messages that must list what exists.
std::string DescribeDeviceList(std::span<const DeviceInfo> devices);

}  // namespace clq
