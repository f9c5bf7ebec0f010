#include "runtime/pinned_host_blocks.hpp"

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <memory>

#include "runtime/device_table.hpp"
#include "runtime/engine.hpp"
#include "runtime/mapped_host_buffer.hpp"

namespace clq {
namespace {

using PinnedTotal = std::shared_ptr<std::atomic<std::uint64_t>>;

// A mapped buffer that gives its bytes back to the budget when destroyed.
class PinnedBlock {
 public:
  PinnedBlock(const cl::Context& context, const cl::CommandQueue& queue, std::uint64_t bytes,
              PinnedTotal total)
      : mapped_(context, queue, bytes), total_(std::move(total)) {}
  ~PinnedBlock() { total_->fetch_sub(mapped_.bytes()); }
  PinnedBlock(const PinnedBlock&) = delete;
  PinnedBlock& operator=(const PinnedBlock&) = delete;
  std::byte* data() const { return mapped_.data(); }

 private:
  MappedHostBuffer mapped_;
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

HostBlockAllocator PinnedTableMemoryFor(Engine& engine, Choice choice) {
  if (!Decide(choice, DefaultTableResidency(engine) == TableResidency::kCopy)) return {};
  const std::uint64_t memory = engine.options().host_memory;
  // NVIDIA's driver backs every CL_MEM_ALLOC_HOST_PTR buffer with device
  // memory of its size (the GPU memory in use grows by about the pinned
  // tables' size), so pinned tables take device memory beside the table
  // cache's half: at most a quarter of it. Those mirrors are in the device's
  // own memory, outside the buffers a device-memory cap counts, so the
  // budget follows the device's own memory under a cap too. (A device whose
  // memory were only the cap's would pin a quarter of that and stage the
  // rest of its tables, as pinned_tables=off does.)
  const std::uint64_t budget = std::min(memory / 2, engine.own_memory_bytes() / 4);
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
