#include "runtime/buffer_pool.hpp"

#include <bit>

#include "common/errors.hpp"
#include "runtime/cl_error.hpp"

namespace clq {

struct DeviceBuffer::Home {
  std::multimap<std::uint64_t, cl::Buffer> free;
  std::uint64_t free_bytes = 0;
  std::uint64_t retain_limit = 0;
  std::uint64_t live_bytes = 0;  // buffers made and not yet released
};

DeviceBuffer& DeviceBuffer::operator=(DeviceBuffer&& other) noexcept {
  if (this != &other) {
    Return();
    buffer_ = std::move(other.buffer_);
    capacity_ = other.capacity_;
    home_ = std::move(other.home_);
    other.capacity_ = 0;
  }
  return *this;
}

DeviceBuffer::~DeviceBuffer() {
  Return();
}

void DeviceBuffer::Return() {
  if (capacity_ == 0) return;
  if (std::shared_ptr<Home> home = home_.lock()) {
    if (home->free_bytes + capacity_ <= home->retain_limit) {
      home->free.emplace(capacity_, std::move(buffer_));
      home->free_bytes += capacity_;
    } else {
      home->live_bytes -= capacity_;
    }
  }
  buffer_ = cl::Buffer();
  capacity_ = 0;
}

void DeviceBuffer::Abandon() {
  // OpenCL frees it once no command uses it: no longer the pool's to count.
  if (std::shared_ptr<Home> home = home_.lock(); home && capacity_ > 0)
    home->live_bytes -= capacity_;
  buffer_ = cl::Buffer();
  capacity_ = 0;
}

BufferPool::BufferPool(cl::Context context, std::uint64_t max_alloc_bytes,
                       std::uint64_t retain_limit, std::uint64_t cap_bytes)
    : context_(std::move(context)),
      max_alloc_bytes_(max_alloc_bytes),
      cap_bytes_(cap_bytes),
      home_(std::make_shared<DeviceBuffer::Home>()) {
  home_->retain_limit = retain_limit;
}

std::uint64_t BufferPool::SizeClass(std::uint64_t bytes) {
  constexpr std::uint64_t kMinimum = 256;
  constexpr std::uint64_t kPowerOfTwoLimit = 64 * 1024;
  if (bytes <= kMinimum) return kMinimum;
  if (bytes <= kPowerOfTwoLimit) return std::bit_ceil(bytes);
  const std::uint64_t step = std::bit_floor(bytes) / 8;
  return (bytes + step - 1) / step * step;
}

DeviceBuffer BufferPool::Acquire(std::uint64_t bytes, std::string_view purpose) {
  return Make(bytes, purpose, true);
}

DeviceBuffer BufferPool::AcquireNew(std::uint64_t bytes, std::string_view purpose) {
  return Make(bytes, purpose, false);
}

DeviceBuffer BufferPool::Make(std::uint64_t bytes, std::string_view purpose, bool reuse) {
  if (bytes > max_alloc_bytes_) {
    throw DeviceLimitError(
        "cannot allocate " + std::to_string(bytes) + " bytes for " + std::string(purpose) +
        ": the device allows at most " + std::to_string(max_alloc_bytes_) +
        " bytes in one allocation" +
        (cap_bytes_ > 0 ? " (a quarter of the device-memory cap, device_memory)" : ""));
  }
  std::uint64_t capacity = SizeClass(bytes);
  if (capacity > max_alloc_bytes_) capacity = std::max<std::uint64_t>(bytes, 1);

  auto& free = home_->free;
  if (auto it = free.lower_bound(capacity);
      reuse && it != free.end() && it->first <= capacity + capacity / 4) {
    DeviceBuffer result(std::move(it->second), it->first, home_);
    home_->free_bytes -= it->first;
    free.erase(it);
    return result;
  }
  if (cap_bytes_ > 0 && home_->live_bytes + capacity > cap_bytes_) {
    Trim();
    for (const bool everything : {false, true})
      if (home_->live_bytes + capacity > cap_bytes_ && reclaim_) reclaim_(everything);
    if (home_->live_bytes + capacity > cap_bytes_) {
      throw DeviceLimitError("cannot allocate " + std::to_string(capacity) + " bytes for " +
                             std::string(purpose) + ": " + std::to_string(home_->live_bytes) +
                             " bytes of the device-memory cap of " + std::to_string(cap_bytes_) +
                             " (device_memory) are in use");
    }
  }
  for (int attempt = 0;; ++attempt) {
    try {
      DeviceBuffer made(cl::Buffer(context_, CL_MEM_READ_WRITE, capacity), capacity, home_);
      home_->live_bytes += capacity;
      return made;
    } catch (const cl::Error& error) {
      if (attempt == 0 && home_->free_bytes > 0) {
        Trim();  // free cached buffers and try once more
        continue;
      }
      throw TranslateClError(
          error, "allocating " + std::to_string(capacity) + " bytes for " + std::string(purpose));
    }
  }
}

void BufferPool::Trim() {
  home_->live_bytes -= home_->free_bytes;
  home_->free.clear();
  home_->free_bytes = 0;
}

std::uint64_t BufferPool::live_bytes() const {
  return home_->live_bytes;
}

std::uint64_t BufferPool::free_bytes() const {
  return home_->free_bytes;
}

}  // namespace clq
