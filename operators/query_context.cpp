#include "operators/query_context.hpp"

#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"

namespace clq {

QueryContext::QueryContext(Engine& engine, const QueryOptions& options)
    : engine_(engine),
      options_(options),
      status_(engine.pool().Acquire(sizeof(cl_uint), "query status")) {
  engine_.Fill(status_.get(), 0, 0, sizeof(cl_uint), "reset status");
}

void QueryContext::CheckStatus() {
  cl_uint status = 0;
  engine_.Download(status_.get(), 0, sizeof(status), &status, "read status");
  if (status & VM_STATUS_UNSUPPORTED) {
    engine_.Fill(status_.get(), 0, 0, sizeof(cl_uint), "reset status");
    throw InternalError("an expression reached a device kernel that lacks one of its operations");
  }
  if (status & VM_STATUS_OVERFLOW) {
    engine_.Fill(status_.get(), 0, 0, sizeof(cl_uint), "reset status");
    throw InvalidInputError("integer overflow");
  }
}

void QueryContext::CheckHostMemory(std::string_view what, std::uint64_t bytes) const {
  clq::CheckHostMemory(options_.host_memory, what, bytes);
}

std::uint64_t QueryContext::DeviceBufferBudget() const {
  return engine_.info().MemoryIsHost() ? options_.host_memory : kUnlimitedHostMemory;
}

void QueryContext::CheckDeviceBuffers(std::string_view what, std::uint64_t bytes) const {
  clq::CheckHostMemory(DeviceBufferBudget(), what, bytes);
}

}  // namespace clq
