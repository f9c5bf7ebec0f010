#include "common/host_memory.hpp"

#include <atomic>
#include <string>

#include "common/byte_size.hpp"
#include "common/errors.hpp"

namespace clq {
namespace {

std::atomic<std::uint64_t>& Held() {
  static std::atomic<std::uint64_t> held{0};
  return held;
}

}  // namespace

std::uint64_t HeldHostMemory() {
  return Held().load(std::memory_order_relaxed);
}

void AddHeldHostMemory(std::uint64_t bytes) {
  Held().fetch_add(bytes, std::memory_order_relaxed);
}

void ReleaseHeldHostMemory(std::uint64_t bytes) {
  Held().fetch_sub(bytes, std::memory_order_relaxed);
}

void CheckHostMemory(std::uint64_t budget, std::string_view what, std::uint64_t bytes) {
  const std::uint64_t held = HeldHostMemory();
  if (bytes != kSaturatedBytes && SaturatingAdd(held, bytes) <= budget) return;
  std::string message = std::string(what) + " needs " + FormatBytes(bytes) + " of host memory";
  if (budget == kUnlimitedHostMemory)
    throw ResourceLimitError(message + ", more than any machine has");
  if (held == 0) {
    message += ", more than the " + FormatBytes(budget) + " budget";
  } else {
    message += ", more than the " + FormatBytes(held < budget ? budget - held : 0) +
               " left of the " + FormatBytes(budget) + " budget (tables hold " + FormatBytes(held) +
               ")";
  }
  message +=
      "; the budget is the option host_memory (--option host_memory=SIZE, e.g. 16G; default: "
      "the memory available when clq starts)";
  throw ResourceLimitError(message);
}

}  // namespace clq
