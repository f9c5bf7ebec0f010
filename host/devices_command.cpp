// `clq devices`: every platform and device with its selectors and properties,
// and what each device lacks of what clq uses, with what that costs.
#include <iostream>

#include "common/byte_size.hpp"
#include "host/cli_common.hpp"
#include "host/commands.hpp"
#include "host/json_writer.hpp"
#include "host/text_table.hpp"
#include "plan/device_capabilities.hpp"
#include "runtime/device_info.hpp"

namespace clq {
namespace {

std::string RenderJson(const std::vector<DeviceInfo>& devices) {
  JsonWriter json;
  json.BeginArray();
  for (const DeviceInfo& d : devices) {
    json.BeginObject()
        .Key("index")
        .UInt(d.flat_index)
        .Key("selector")
        .String(d.PairSelector())
        .Key("platform")
        .String(d.platform_name)
        .Key("platform_version")
        .String(d.platform_version)
        .Key("name")
        .String(d.name)
        .Key("vendor")
        .String(d.vendor)
        .Key("type")
        .String(DeviceKindName(d.kind))
        .Key("driver_version")
        .String(d.driver_version)
        .Key("device_version")
        .String(d.device_version)
        .Key("opencl_c_version")
        .String(d.opencl_c_version)
        .Key("compute_units")
        .UInt(d.compute_units)
        .Key("clock_mhz")
        .UInt(d.clock_mhz)
        .Key("global_mem_bytes")
        .UInt(d.global_mem_bytes)
        .Key("local_mem_bytes")
        .UInt(d.local_mem_bytes)
        .Key("max_alloc_bytes")
        .UInt(d.max_alloc_bytes)
        .Key("max_work_group_size")
        .UInt(d.max_work_group_size)
        .Key("fp64")
        .Bool(d.fp64)
        .Key("int64_atomics")
        .Bool(d.int64_atomics)
        .Key("lacks")
        .BeginArray();
    for (const DeviceShortfall& shortfall : DeviceShortfalls(d))
      json.BeginObject()
          .Key("capability")
          .String(shortfall.capability)
          .Key("cost")
          .String(shortfall.cost)
          .EndObject();
    json.EndArray().EndObject();
  }
  json.EndArray();
  return json.str() + "\n";
}

std::string RenderTable(const std::vector<DeviceInfo>& devices) {
  TextTable table({"#", "selector", "type", "platform", "device", "CUs", "MHz", "global mem",
                   "local mem", "max alloc", "OpenCL C", "fp64", "int64 atomics"});
  for (const DeviceInfo& d : devices) {
    table.AddRow({std::to_string(d.flat_index), d.PairSelector(), DeviceKindName(d.kind),
                  d.platform_name, d.name, std::to_string(d.compute_units),
                  std::to_string(d.clock_mhz), FormatBytes(d.global_mem_bytes),
                  FormatBytes(d.local_mem_bytes), FormatBytes(d.max_alloc_bytes),
                  d.opencl_c_version, d.fp64 ? "yes" : "no", d.int64_atomics ? "yes" : "no"});
  }
  std::string text = table.Render();
  for (const DeviceInfo& d : devices) {
    const std::vector<DeviceShortfall> shortfalls = DeviceShortfalls(d);
    if (shortfalls.empty()) continue;
    text += "\ndevice " + std::to_string(d.flat_index) + ", " + d.name + ", lacks:\n";
    for (const DeviceShortfall& shortfall : shortfalls)
      text += "  " + shortfall.capability + ": " + shortfall.cost + "\n";
  }
  return text;
}

}  // namespace

void RunDevicesCommand(const DevicesCommandOptions& options) {
  std::vector<DeviceInfo> devices;
  for (const DeviceHandle& handle : DiscoverDevices())
    devices.push_back(handle.info);
  if (options.format == "json") {
    WriteStandardOutput(RenderJson(devices));
  } else if (devices.empty()) {
    WriteStandardOutput(
        "No OpenCL devices found. Install an ICD (e.g. apt install pocl-opencl-icd).\n");
  } else {
    WriteStandardOutput(RenderTable(devices));
  }
  if (auto hint = UnregisteredNvidiaHint(devices)) std::cerr << "note: " << *hint << "\n";
}

}  // namespace clq
