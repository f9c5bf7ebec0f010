#include "runtime/pinned_host_blocks.hpp"

#include <unistd.h>

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

#include "runtime/engine.hpp"
#include "runtime/environment.hpp"
#include "runtime/storage/device_table.hpp"

namespace clq {
namespace {

using PinnedTotal = std::shared_ptr<std::atomic<std::uint64_t>>;

// A mapped CL_MEM_ALLOC_HOST_PTR buffer, unmapped when destroyed (the buffer
// and queue handles keep the context alive after its engine is gone).
class PinnedBlock {
 public:
  PinnedBlock(const cl::Context& context, cl::CommandQueue queue, std::uint64_t bytes,
              PinnedTotal total)
      : queue_(std::move(queue)), bytes_(bytes), total_(std::move(total)) {
    buffer_ = cl::Buffer(context, CL_MEM_ALLOC_HOST_PTR | CL_MEM_READ_WRITE, bytes);
    data_ = queue_.enqueueMapBuffer(buffer_, CL_TRUE, CL_MAP_READ | CL_MAP_WRITE, 0, bytes);
  }
  ~PinnedBlock() {
    total_->fetch_sub(bytes_);
    try {
      queue_.enqueueUnmapMemObject(buffer_, data_);
      queue_.finish();
    } catch (const cl::Error&) {
      // Nothing sensible to do in a destructor; releasing the buffer frees it.
    }
  }
  PinnedBlock(const PinnedBlock&) = delete;
  PinnedBlock& operator=(const PinnedBlock&) = delete;
  std::byte* data() const { return static_cast<std::byte*>(data_); }

 private:
  cl::CommandQueue queue_;
  cl::Buffer buffer_;
  void* data_ = nullptr;
  std::uint64_t bytes_;
  PinnedTotal total_;
};

}  // namespace

HostBlockAllocator PinnedHostBlocks(const cl::Context& context, const cl::CommandQueue& queue,
                                    std::uint64_t minimum_bytes, std::uint64_t budget_bytes) {
  auto total = std::make_shared<std::atomic<std::uint64_t>>(0);
  return [=](ColumnType, std::size_t bytes) -> std::optional<HostBlock> {
    if (bytes < minimum_bytes) return std::nullopt;
    if (total->fetch_add(bytes) + bytes > budget_bytes) {
      total->fetch_sub(bytes);
      return std::nullopt;
    }
    std::shared_ptr<PinnedBlock> block;
    try {
      block = std::make_shared<PinnedBlock>(context, queue, bytes, total);
    } catch (const cl::Error&) {
      // The driver refused (pinned memory is a limited resource): ordinary
      // memory instead. The block never existed, so it returns nothing.
      total->fetch_sub(bytes);
      return std::nullopt;
    }
    // Columns read values of any width in place (HostBlock's contract); a
    // driver that maps less aligned gets ordinary memory (the block unpins).
    if (reinterpret_cast<std::uintptr_t>(block->data()) % kHostBlockAlignment != 0)
      return std::nullopt;
    HostBlock result;
    result.data = block->data();
    result.pinned_for = context();
    result.owner = std::move(block);
    return result;
  };
}

HostBlockAllocator PinnedTableMemoryFor(Engine& engine) {
  if (const std::optional<bool> forced = ForcedByEnvironment("CLQ_PINNED_TABLES");
      forced && !*forced)
    return {};
  if (DefaultTableResidency(engine) != TableResidency::kCopy) return {};
  const long pages = sysconf(_SC_PHYS_PAGES);
  const long page_bytes = sysconf(_SC_PAGE_SIZE);
  const std::uint64_t memory =
      pages > 0 && page_bytes > 0 ? std::uint64_t(pages) * std::uint64_t(page_bytes) : 0;
  // NVIDIA's driver backs every CL_MEM_ALLOC_HOST_PTR buffer with device
  // memory of its size (H100: 33.6 GB of GPU memory in use with 33 GB of
  // tables pinned), so pinned tables take device memory beside the table
  // cache's half: at most a quarter of it.
  const std::uint64_t budget = std::min(memory / 2, engine.info().global_mem_bytes / 4);
  HostBlockAllocator pinned =
      PinnedHostBlocks(engine.context(), engine.queue(), kPinnedTableMinimumBytes, budget);
  return
      [pinned = std::move(pinned)](ColumnType type, std::size_t bytes) -> std::optional<HostBlock> {
        // Kernels read numeric columns in full; CHAR columns are wide (52 bytes a
        // Wisconsin row, three quarters of the table) and mostly read on the host
        // at a result's rows (GatherOnHost), so they would spend the budget on
        // memory that seldom travels.
        if (!type.is_numeric()) return std::nullopt;
        return pinned(type, bytes);
      };
}

}  // namespace clq
