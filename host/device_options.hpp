// The device options of the commands that run kernels (--device, --no-cache,
// --option).
// Apart from host/cli_common.hpp, so that host/commands.hpp and the command
// line in host/main.cpp need not include the engine's headers.
#pragma once

#include <string>
#include <vector>

namespace clq {

struct DeviceOptions {
  std::string selector;  // empty: DefaultSelector()
  bool no_cache = false;
  // "name=value" settings (common/options.hpp), after the environment's.
  std::vector<std::string> settings;
};

}  // namespace clq
