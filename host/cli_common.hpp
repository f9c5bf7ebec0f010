// Pieces shared by the clq subcommands: engine creation from the device
// options, size arguments ("64M"), writing output to stdout or --out.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "common/options.hpp"
#include "host/device_options.hpp"
#include "runtime/device_info.hpp"
#include "runtime/engine.hpp"

namespace clq {

// The options of a command: the environment's, then its --option settings
// (and --no-cache).
Options ResolveOptions(const DeviceOptions& options);

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
