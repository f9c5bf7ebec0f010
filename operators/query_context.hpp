// Per-query device state: the engine, the query's options, and a status word that kernels raise
// bits in (integer overflow) so that errors inside kernels become clear host
// errors instead of silent wrong answers.
//
// CheckStatus() waits for the queue, reads the word and throws
// InvalidInputError("integer overflow") when a kernel raised
// VM_STATUS_OVERFLOW. Not thread-safe.
#pragma once

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

 private:
  Engine& engine_;
  QueryOptions options_;
  DeviceBuffer status_;
};

}  // namespace clq
