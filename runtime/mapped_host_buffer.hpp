// A CL_MEM_ALLOC_HOST_PTR buffer mapped for its whole life: host memory the
// driver pins, so that transfers from and to it are DMAs (on NVIDIA several
// times faster than from ordinary memory). Construction maps it (blocking, on
// `queue`) and throws cl::Error when the driver refuses; destruction unmaps
// it and waits. The queue and buffer handles keep the context alive. NVIDIA
// also reserves device memory of the buffer's size. Not thread-safe.
// Used by the staging buffers, pinned table blocks and `clq bandwidth`.
#pragma once

#include <cstddef>
#include <cstdint>

#include "runtime/cl.hpp"

namespace clq {

class MappedHostBuffer {
 public:
  // `alignment` (a power of two): data() is aligned to it, the buffer made
  // that much larger where the driver maps it less aligned (Oclgrind).
  MappedHostBuffer(const cl::Context& context, cl::CommandQueue queue, std::uint64_t bytes,
                   std::uint64_t alignment = 1);
  ~MappedHostBuffer();
  MappedHostBuffer(const MappedHostBuffer&) = delete;
  MappedHostBuffer& operator=(const MappedHostBuffer&) = delete;

  std::byte* data() const { return data_; }
  std::uint64_t bytes() const { return bytes_; }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  std::byte* mapped_ = nullptr;  // what the driver mapped
  std::byte* data_ = nullptr;    // mapped_, aligned up
  std::uint64_t bytes_;
};

}  // namespace clq
