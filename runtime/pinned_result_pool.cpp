#include "runtime/pinned_result_pool.hpp"

#include <algorithm>
#include <utility>

namespace clq {
namespace {

// Arrow's buffers, and every value type, need this much.
constexpr std::uintptr_t kBlockAlignment = 64;

}  // namespace

PinnedResultPool::PinnedResultPool(const cl::Context& context, const cl::Device& device,
                                   std::uint64_t kept_bytes, std::uint64_t minimum_bytes,
                                   std::uint64_t granule_bytes)
    : context_(context),
      queue_(context, device),
      kept_bytes_(kept_bytes),
      minimum_bytes_(std::max<std::uint64_t>(minimum_bytes, 1)),
      granule_bytes_(std::max<std::uint64_t>(granule_bytes, 1)) {}

PinnedResultPool::~PinnedResultPool() = default;

std::unique_ptr<MappedHostBuffer> PinnedResultPool::Pin(std::uint64_t bytes) {
  std::unique_ptr<MappedHostBuffer> block;
  try {
    block = std::make_unique<MappedHostBuffer>(context_, queue_, bytes, kBlockAlignment);
  } catch (const cl::Error&) {
    return nullptr;  // pinned memory is a limited resource
  }
  return block;
}

void* PinnedResultPool::Take(std::uint64_t bytes) {
  if (bytes < minimum_bytes_) return nullptr;
  const std::uint64_t rounded = (bytes + granule_bytes_ - 1) / granule_bytes_ * granule_bytes_;
  {
    const std::lock_guard lock(mutex_);
    // Best fit, but not a block more than twice the request: a small result
    // holding a large block would make the next large result pin anew.
    auto best = free_.end();
    for (auto it = free_.begin(); it != free_.end(); ++it) {
      const std::uint64_t size = (*it)->bytes();
      if (size >= rounded && size / 2 < rounded && (best == free_.end() || size < (*best)->bytes()))
        best = it;
    }
    if (best != free_.end()) {
      ++stats_.reused;
      stats_.free_bytes -= (*best)->bytes();
      --stats_.free_blocks;
      stats_.lent_bytes += (*best)->bytes();
      ++stats_.lent_blocks;
      lent_.splice(lent_.end(), free_, best);
      return lent_.back()->data();
    }
  }
  std::unique_ptr<MappedHostBuffer> block = Pin(rounded);
  if (!block) {
    // The free blocks may be what the driver ran short of (NVIDIA reserves
    // device memory for each): unpin them and try once more.
    Blocks unpinned;
    {
      const std::lock_guard lock(mutex_);
      stats_.unpinned += free_.size();
      stats_.free_blocks = 0;
      stats_.free_bytes = 0;
      unpinned.splice(unpinned.end(), free_);
    }
    if (unpinned.empty()) return nullptr;
    unpinned.clear();
    block = Pin(rounded);
  }
  if (!block) return nullptr;
  const std::lock_guard lock(mutex_);
  ++stats_.pinned;
  stats_.lent_bytes += block->bytes();
  ++stats_.lent_blocks;
  lent_.push_back(std::move(block));
  return lent_.back()->data();
}

bool PinnedResultPool::Give(void* data) noexcept {
  Blocks unpinned;  // destroyed (unmapped) after the lock is released
  {
    const std::lock_guard lock(mutex_);
    const auto it = std::find_if(lent_.begin(), lent_.end(),
                                 [data](const auto& block) { return block->data() == data; });
    if (it == lent_.end()) return false;
    stats_.lent_bytes -= (*it)->bytes();
    --stats_.lent_blocks;
    stats_.free_bytes += (*it)->bytes();
    ++stats_.free_blocks;
    free_.splice(free_.end(), lent_, it);
    while (stats_.free_bytes > kept_bytes_) {
      stats_.free_bytes -= free_.front()->bytes();
      --stats_.free_blocks;
      ++stats_.unpinned;
      unpinned.splice(unpinned.end(), free_, free_.begin());
    }
  }
  return true;
}

bool PinnedResultPool::Lent(const void* data) const {
  const std::lock_guard lock(mutex_);
  return std::any_of(lent_.begin(), lent_.end(),
                     [data](const auto& block) { return block->data() == data; });
}

PinnedResultPool::Stats PinnedResultPool::stats() const {
  const std::lock_guard lock(mutex_);
  return stats_;
}

}  // namespace clq
