#include "runtime/mapped_host_buffer.hpp"

#include <utility>

namespace clq {

MappedHostBuffer::MappedHostBuffer(const cl::Context& context, cl::CommandQueue queue,
                                   std::uint64_t bytes)
    : queue_(std::move(queue)),
      buffer_(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes),
      bytes_(bytes) {
  data_ = static_cast<std::byte*>(
      queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes));
}

MappedHostBuffer::~MappedHostBuffer() {
  try {
    queue_.enqueueUnmapMemObject(buffer_, data_);
    queue_.finish();
  } catch (const cl::Error&) {
    // Nothing sensible to do in a destructor; releasing the buffer frees it.
  }
}

}  // namespace clq
