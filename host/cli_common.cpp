#include "host/cli_common.hpp"

#include <fcntl.h>
#include <unistd.h>

#include <cerrno>
#include <chrono>
#include <cstdio>
#include <cstring>
#include <fstream>
#include <iostream>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "host/environment_options.hpp"
#include "runtime/device_selector.hpp"

namespace clq {

Options ResolveOptions(const DeviceOptions& options) {
  Options resolved = OptionsFromEnvironment(options.settings);
  if (options.no_cache) resolved.engine.use_program_cache = false;
  return resolved;
}

bool SelectsSeveralDevices(const DeviceOptions& options) {
  const std::string selector = options.selector.empty() ? DefaultSelector() : options.selector;
  return selector == "all" || selector.find(',') != std::string::npos;
}

std::vector<std::unique_ptr<Engine>> OpenEngines(const DeviceOptions& options, bool several_devices,
                                                 double* discovery_seconds) {
  const auto start = std::chrono::steady_clock::now();
  const std::vector<DeviceHandle> handles = DiscoverDevices();
  if (discovery_seconds != nullptr)
    *discovery_seconds =
        std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  std::vector<DeviceInfo> infos;
  for (const DeviceHandle& h : handles)
    infos.push_back(h.info);
  const std::string selector = options.selector.empty() ? DefaultSelector() : options.selector;
  std::vector<std::size_t> chosen;
  try {
    if (several_devices) {
      chosen = ResolveDevices(selector, infos);
    } else {
      chosen = {ResolveOneDevice(selector, infos)};
    }
  } catch (const InvalidInputError& error) {
    if (auto hint = UnregisteredNvidiaHint(infos))
      throw InvalidInputError(std::string(error.what()) + "\n" + *hint);
    throw;
  }
  const EngineOptions engine_options = ResolveOptions(options).engine;
  std::vector<std::unique_ptr<Engine>> engines;
  for (std::size_t index : chosen)
    engines.push_back(std::make_unique<Engine>(handles[index], engine_options));
  return engines;
}

std::uint64_t ParseSize(const std::string& text, const std::string& what) {
  const std::optional<std::uint64_t> bytes = ParseByteSize(text);
  if (!bytes)
    throw InvalidInputError(what + ": '" + text + "' is not a size such as 1048576, 64K, 1M or 2G");
  return *bytes;
}

void WriteOutput(const std::string& path, const std::string& text) {
  if (path.empty()) {
    WriteStandardOutput(text);
    return;
  }
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  if (!file) throw FileError("cannot open " + path + " for writing");
  file << text;
  file.close();
  if (!file) throw FileError("writing " + path + " failed (disk full?)");
}

namespace {

// errno right after the failed write or flush names the reason.
[[noreturn]] void ThrowStandardOutputError() {
  const int error = errno;
  throw FileError(std::string("writing standard output: ") +
                  (error != 0 ? std::strerror(error) : "write failed"));
}

}  // namespace

void WriteStandardOutput(std::string_view text) {
  errno = 0;
  std::cout.write(text.data(), static_cast<std::streamsize>(text.size()));
  std::cout.flush();
  if (!std::cout) ThrowStandardOutputError();
}

void FinishStandardOutput() {
  errno = 0;
  std::cout.flush();
  if (!std::cout || std::fflush(stdout) != 0 || std::ferror(stdout)) ThrowStandardOutputError();
}

void ReserveStandardDescriptors() {
  for (const int fd : {STDIN_FILENO, STDOUT_FILENO, STDERR_FILENO}) {
    if (::fcntl(fd, F_GETFD) != -1 || errno != EBADF) continue;
    const int opened = ::open("/dev/null", fd == STDIN_FILENO ? O_WRONLY : O_RDONLY);
    if (opened >= 0 && opened != fd) {
      ::dup2(opened, fd);
      ::close(opened);
    }
  }
}

}  // namespace clq
