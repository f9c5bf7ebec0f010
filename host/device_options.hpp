// The device options of the commands that run kernels (--device, --no-cache).
// Apart from host/cli_common.hpp, so that host/commands.hpp and the command
// line in host/main.cpp need not include the engine's headers.
#pragma once

#include <string>

namespace clq {

struct DeviceOptions {
  std::string selector;  // empty: DefaultSelector()
  bool no_cache = false;
};

}  // namespace clq
