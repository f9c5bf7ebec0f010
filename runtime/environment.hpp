// Switches read from the environment.
#pragma once

#include <cstdlib>
#include <string_view>

namespace clq {

// An on-by-default switch: false only when `name` is set to "0" (the
// CLQ_VM_NARROW=0 style of knob that turns an optimisation off to measure it).
inline bool EnvironmentAllows(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr || std::string_view(value) != "0";
}

}  // namespace clq
