// Switches read from the environment.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>
#include <string_view>

#include "runtime/errors.hpp"

namespace clq {

// An on-by-default switch: false only when `name` is set to "0" (the
// CLQ_VM_NARROW=0 style of knob that turns an optimisation off to measure it).
inline bool EnvironmentAllows(const char* name) {
  const char* value = std::getenv(name);
  return value == nullptr || std::string_view(value) != "0";
}

// A switch that forces a choice either way: true when `name` is "1", false
// when "0", nullopt when unset or empty (the engine decides). Throws
// InvalidInputError on any other value.
inline std::optional<bool> ForcedByEnvironment(const char* name) {
  const char* value = std::getenv(name);
  if (value == nullptr || *value == '\0') return std::nullopt;
  const std::string text = value;
  if (text == "0") return false;
  if (text == "1") return true;
  throw InvalidInputError(std::string(name) + "=" + text + " is neither 0 nor 1");
}

}  // namespace clq
