// Pieces shared by the clq subcommands: the device options every command that
// runs kernels takes, engine creation, size arguments ("64M"), writing output
// to stdout or --out.
#pragma once

#include <CLI/CLI.hpp>
#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "runtime/device_info.hpp"
#include "runtime/engine.hpp"

namespace clq {

struct DeviceOptions {
  std::string selector;  // empty: DefaultSelector()
  bool no_cache = false;
};

// Adds --device and --no-cache to a subcommand.
void AddDeviceOptions(CLI::App& command, DeviceOptions& options, bool several_devices);

// Engines for the devices the selector names (one for single-device commands).
// `discovery_seconds`, when given, receives the time spent listing the
// platforms and devices (every installed OpenCL driver loads then).
std::vector<std::unique_ptr<Engine>> OpenEngines(const DeviceOptions& options, bool several_devices,
                                                 double* discovery_seconds = nullptr);

// "1048576", "64K", "64KiB", "1M", "2G" (binary multiples). Throws InvalidInputError.
std::uint64_t ParseSize(const std::string& text, const std::string& what);

// Writes `text` to the file (when `path` is non-empty) or to stdout.
void WriteOutput(const std::string& path, const std::string& text);

}  // namespace clq
