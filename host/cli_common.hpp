// Pieces shared by the clq subcommands: engine creation from the device
// options, size arguments ("64M"), writing output to stdout or --out, and
// noticing when stdout cannot be written.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/options.hpp"
#include "host/device_options.hpp"
#include "runtime/device_info.hpp"
#include "runtime/engine.hpp"

namespace clq {

// The options of a command: the environment's, then its --option settings
// (and --no-cache).
Options ResolveOptions(const DeviceOptions& options);

// Whether the selector asks for several devices at once: "all", or a
// comma-separated list ("gpu,cpu", "0,1"). A type ("gpu") or a name that
// several devices share means the first of them for `clq query`.
bool SelectsSeveralDevices(const DeviceOptions& options);

// Engines for the devices the selector names (one for single-device commands).
// `discovery_seconds`, when given, receives the time spent listing the
// platforms and devices (every installed OpenCL driver loads then).
std::vector<std::unique_ptr<Engine>> OpenEngines(const DeviceOptions& options, bool several_devices,
                                                 double* discovery_seconds = nullptr);

// "1048576", "64K", "64KiB", "1M", "2G" (binary multiples; ParseByteSize of
// common/byte_size.hpp). Throws InvalidInputError.
std::uint64_t ParseSize(const std::string& text, const std::string& what);

// Writes `text` to the file (when `path` is non-empty) or to stdout.
void WriteOutput(const std::string& path, const std::string& text);

// Writes `text` to standard output and flushes it. Throws FileError
// ("writing standard output: No space left on device") when the write fails.
void WriteStandardOutput(std::string_view text);

// Flushes standard output; throws FileError as WriteStandardOutput does.
// main calls it after every command: output still buffered at exit would
// otherwise fail unnoticed.
void FinishStandardOutput();

// Reopens a closed descriptor 0, 1 or 2 on /dev/null, opened so that using
// it fails (1 and 2 read-only, 0 write-only). Left closed, the next file the
// program opened would take its number, and output meant for stdout would
// land in that file; this way a write to a closed stdout fails with EBADF
// and is reported as any other write error.
void ReserveStandardDescriptors();

}  // namespace clq
