// Pinned host memory for table columns (storage/table.hpp's
// HostBlockAllocator): each block is a CL_MEM_ALLOC_HOST_PTR buffer of the
// engine's context, mapped (on the engine's queue, blocking) for the block's
// life and unmapped when its last holder lets go. A GPU uploads a column from
// it in one DMA at the pinned bandwidth instead of copying it through
// PinnedStaging's buffers (bound by the host's memory copy, well below it).
// The price: NVIDIA's driver also reserves device memory of each block's
// size. Thread-safe: the budget is an atomic count.
#pragma once

#include <cstdint>

#include "runtime/cl.hpp"
#include "storage/table.hpp"

namespace clq {

// Blocks of at least `minimum_bytes` while at most `budget_bytes` are pinned
// at once; smaller ones, those past the budget and those the driver refuses
// get the default heap memory (nullopt).
HostBlockAllocator PinnedHostBlocks(const cl::Context& context, const cl::CommandQueue& queue,
                                    std::uint64_t minimum_bytes, std::uint64_t budget_bytes);

class Engine;

inline constexpr std::uint64_t kPinnedTableMinimumBytes = std::uint64_t{1} << 20;

// The allocator for host tables that `engine` reads: pinned blocks for
// numeric columns of at least kPinnedTableMinimumBytes, up to half the
// machine's memory and a quarter of the device's (NVIDIA mirrors each pinned
// block in device memory), where the engine copies tables into device
// buffers (GPUs); empty (the default heap memory) where it reads host tables
// in place (CPU devices). `choice` (EngineOptions::pinned_tables) forces
// either way.
HostBlockAllocator PinnedTableMemoryFor(Engine& engine, Choice choice);

}  // namespace clq
