// A pool of device buffers reused across queries, so that a hot query does
// not pay for clCreateBuffer (and, on NVIDIA, first-touch allocation) again.
//
// Acquire() rounds a request up to a size class (powers of two up to 64 KiB,
// then eighths of a power of two, so at most 12.5% is wasted) and returns a
// DeviceBuffer; destroying the DeviceBuffer gives the buffer back to the pool,
// which keeps up to `retain_limit` bytes of free buffers. Buffers may outlive
// the pool: they are then simply released.
//
// A request larger than the device's CL_DEVICE_MAX_MEM_ALLOC_SIZE throws
// DeviceLimitError naming the purpose and both sizes. With a cap on the
// bytes it holds (EngineOptions::device_memory), a buffer that would pass
// it frees the cached buffers first, then throws DeviceLimitError naming
// the cap. Not thread-safe.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <memory>
#include <string_view>

#include "runtime/cl.hpp"

namespace clq {

class BufferPool;

class DeviceBuffer {
 public:
  DeviceBuffer() = default;
  DeviceBuffer(DeviceBuffer&& other) noexcept = default;
  DeviceBuffer& operator=(DeviceBuffer&& other) noexcept;
  DeviceBuffer(const DeviceBuffer&) = delete;
  DeviceBuffer& operator=(const DeviceBuffer&) = delete;
  ~DeviceBuffer();

  const cl::Buffer& get() const { return buffer_; }
  std::uint64_t capacity() const { return capacity_; }
  bool empty() const { return capacity_ == 0; }

  // Lets go of the buffer without giving it back to the pool: for an owner
  // whose buffer others may still hold as a cl::Buffer (a kernel argument
  // bound but not yet enqueued). OpenCL frees it when the last handle and
  // the last command using it are gone; a pooled buffer could instead be
  // handed out and overwritten under them.
  void Abandon();

 private:
  friend class BufferPool;
  struct Home;
  DeviceBuffer(cl::Buffer buffer, std::uint64_t capacity, std::weak_ptr<Home> home)
      : buffer_(std::move(buffer)), capacity_(capacity), home_(std::move(home)) {}
  void Return();

  cl::Buffer buffer_;
  std::uint64_t capacity_ = 0;
  std::weak_ptr<Home> home_;
};

class BufferPool {
 public:
  // `cap_bytes`: most bytes of buffers alive at once (in use or cached); 0:
  // none.
  BufferPool(cl::Context context, std::uint64_t max_alloc_bytes, std::uint64_t retain_limit,
             std::uint64_t cap_bytes = 0);

  // A read-write device buffer of at least `bytes` (at least one size class
  // even for 0 bytes, since OpenCL forbids empty buffers).
  DeviceBuffer Acquire(std::uint64_t bytes, std::string_view purpose);
  // The same, never one of the free buffers: for a command of another queue,
  // which a free buffer's last commands on the engine's queue do not order.
  DeviceBuffer AcquireNew(std::uint64_t bytes, std::string_view purpose);

  // Releases every free buffer (after an allocation failure, or on request).
  void Trim();

  std::uint64_t free_bytes() const;
  // Bytes of the buffers this pool made that are alive (in use or cached).
  std::uint64_t live_bytes() const;
  std::uint64_t max_alloc_bytes() const { return max_alloc_bytes_; }
  // The most bytes of live buffers (0: no cap).
  std::uint64_t cap_bytes() const { return cap_bytes_; }
  // Called when a buffer would pass the cap, after the free buffers are
  // released and before DeviceLimitError: lets another holder of buffers
  // (the table cache) let go of its idle ones (`everything` false), then,
  // if still short, of every one it can read again.
  void set_reclaim(std::function<void(bool everything)> reclaim) { reclaim_ = std::move(reclaim); }

  static std::uint64_t SizeClass(std::uint64_t bytes);

 private:
  DeviceBuffer Make(std::uint64_t bytes, std::string_view purpose, bool reuse);

  cl::Context context_;
  std::uint64_t max_alloc_bytes_;
  std::uint64_t cap_bytes_ = 0;
  std::function<void(bool everything)> reclaim_;
  std::shared_ptr<DeviceBuffer::Home> home_;
};

}  // namespace clq
