// Pinned host memory for large query results, reused from one result to
// the next.
//
// A GPU DMAs at full speed only into pinned memory, and pinning is costly:
// the driver locks every page, and NVIDIA's also reserves device memory of
// each block's size. So a result column's memory is a block of this pool
// (a CL_MEM_ALLOC_HOST_PTR buffer of the engine's context, mapped for the
// block's life: runtime/mapped_host_buffer.hpp), and when the result is
// freed the block goes back to a free list that the next large result takes
// it from. Block sizes are rounded up to a multiple of a granule so that
// results of similar sizes share blocks. The free list is capped: blocks
// past the cap are unpinned, the least recently freed first; blocks that
// results hold are not capped (the result's memory is needed either way),
// and a block the driver refuses to pin is no block: the caller uses
// ordinary memory.
//
// Blocks are mapped and unmapped on a queue of the pool's own, so that a
// result freed on any thread (Python's garbage collector) never touches the
// engine's queue; each holder of a block keeps the pool alive (results
// outlive queries, engines and, in Python, connections). Thread-safe.
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>

#include "runtime/cl.hpp"
#include "runtime/mapped_host_buffer.hpp"

namespace clq {

class PinnedResultPool {
 public:
  // Results smaller than this are cheap enough to copy through staging.
  static constexpr std::uint64_t kMinimumBytes = std::uint64_t{32} << 20;
  static constexpr std::uint64_t kGranuleBytes = std::uint64_t{64} << 20;

  // `kept_bytes`: most bytes of free blocks kept for reuse. Tests pass
  // small minimum and granule sizes.
  PinnedResultPool(const cl::Context& context, const cl::Device& device, std::uint64_t kept_bytes,
                   std::uint64_t minimum_bytes = kMinimumBytes,
                   std::uint64_t granule_bytes = kGranuleBytes);
  ~PinnedResultPool();
  PinnedResultPool(const PinnedResultPool&) = delete;
  PinnedResultPool& operator=(const PinnedResultPool&) = delete;

  std::uint64_t minimum_bytes() const { return minimum_bytes_; }
  std::uint64_t kept_bytes() const { return kept_bytes_; }
  // The context whose driver pinned the blocks (memory pinned by one context
  // is ordinary memory to another).
  const cl::Context& context() const { return context_; }

  // A pinned block of at least `bytes` (64-byte aligned): the smallest free
  // block that fits without wasting more than half of it, else a newly
  // pinned one. nullptr below minimum_bytes() or when the driver refuses.
  void* Take(std::uint64_t bytes);
  // Gives back a block Take returned (true); false for any other memory.
  bool Give(void* block) noexcept;
  // Whether `data` is the start of a block Take returned and not given back.
  bool Lent(const void* data) const;

  struct Stats {
    std::uint64_t pinned = 0;    // blocks pinned
    std::uint64_t reused = 0;    // Takes served from the free list
    std::uint64_t unpinned = 0;  // blocks unpinned (past the cap, or to make room)
    std::uint64_t lent_blocks = 0;
    std::uint64_t lent_bytes = 0;
    std::uint64_t free_blocks = 0;
    std::uint64_t free_bytes = 0;
  };
  Stats stats() const;

 private:
  using Blocks = std::list<std::unique_ptr<MappedHostBuffer>>;
  // A new block of `bytes`, or null when the driver refuses.
  std::unique_ptr<MappedHostBuffer> Pin(std::uint64_t bytes);

  cl::Context context_;
  cl::CommandQueue queue_;
  std::uint64_t kept_bytes_;
  std::uint64_t minimum_bytes_;
  std::uint64_t granule_bytes_;
  mutable std::mutex mutex_;
  Blocks lent_;
  Blocks free_;  // least recently freed first
  Stats stats_;
};

}  // namespace clq
