#include "runtime/mapped_host_buffer.hpp"

#include <utility>

namespace clq {

MappedHostBuffer::MappedHostBuffer(const cl::Context& context, cl::CommandQueue queue,
                                   std::uint64_t bytes, std::uint64_t alignment)
    : queue_(std::move(queue)),
      buffer_(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes + alignment - 1),
      bytes_(bytes) {
  mapped_ = static_cast<std::byte*>(queue_.enqueueMapBuffer(
      buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes + alignment - 1));
  const std::uintptr_t address = reinterpret_cast<std::uintptr_t>(mapped_);
  data_ = mapped_ + ((alignment - address % alignment) % alignment);
}

MappedHostBuffer::~MappedHostBuffer() {
  try {
    queue_.enqueueUnmapMemObject(buffer_, mapped_);
    queue_.finish();
  } catch (const cl::Error&) {
    // Nothing sensible to do in a destructor; releasing the buffer frees it.
  }
}

}  // namespace clq
