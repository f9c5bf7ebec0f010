// Per-query device state: the engine, the query's options, and a status word that kernels raise
// bits in (integer overflow) so that errors inside kernels become clear host
// errors instead of silent wrong answers.
//
// CheckStatus() waits for the queue, reads the word and throws
// InvalidInputError("integer overflow") when a kernel raised
// VM_STATUS_OVERFLOW. CheckHostMemory and CheckDeviceBuffers hold a step's
// allocations to the query's host-memory budget (common/host_memory.hpp).
// Not thread-safe.
#pragma once

#include <cstdint>
#include <string_view>

#include "common/options.hpp"
#include "runtime/buffer_pool.hpp"
#include "runtime/engine.hpp"

namespace clq {

class QueryContext {
 public:
  explicit QueryContext(Engine& engine, const QueryOptions& options = {});
  Engine& engine() { return engine_; }
  const QueryOptions& options() const { return options_; }
  const cl::Buffer& status() const { return status_.get(); }
  void CheckStatus();
  // Throws ResourceLimitError when `bytes` more host memory for `what`
  // would pass QueryOptions::host_memory with what tables hold.
  void CheckHostMemory(std::string_view what, std::uint64_t bytes) const;
  // The same for device buffers, which are host memory only on devices
  // whose memory is the host's (DeviceInfo::MemoryIsHost); elsewhere the
  // device's own limits apply and this checks nothing.
  void CheckDeviceBuffers(std::string_view what, std::uint64_t bytes) const;
  // The budget device buffers must fit: QueryOptions::host_memory where
  // they are host memory, else kUnlimitedHostMemory.
  std::uint64_t DeviceBufferBudget() const;

 private:
  Engine& engine_;
  QueryOptions options_;
  DeviceBuffer status_;
};

}  // namespace clq
