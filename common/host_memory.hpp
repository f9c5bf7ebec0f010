// The host-memory budget: how much memory clq may take for what grows with
// the data (tables, a join's matched rows, results), checked before each
// such allocation so that a request the machine cannot hold fails at once
// with a ResourceLimitError saying what needed how much, instead of the
// operating system killing the process once the pages are touched (Linux
// overcommits: a huge malloc succeeds and the OOM killer strikes later).
//
// The budget is QueryOptions::host_memory (common/options.hpp), resolved at
// the program's edge; below it, code only compares. Table columns, which
// live for the process, are counted as they are allocated and freed
// (HeldHostMemory); a check is passed when what is held plus what the step
// needs fits the budget. Steps of a query are checked one at a time, each
// with the buffers it holds at once. Thread-safe.
#pragma once

#include <cstdint>
#include <limits>
#include <string_view>

namespace clq {

// No budget: only sizes past 64 bits are refused.
inline constexpr std::uint64_t kUnlimitedHostMemory = std::numeric_limits<std::uint64_t>::max();

// Bytes of host memory held by table columns now (storage/table.hpp counts
// them as they are allocated and freed).
std::uint64_t HeldHostMemory();
void AddHeldHostMemory(std::uint64_t bytes);
void ReleaseHeldHostMemory(std::uint64_t bytes);

// Throws ResourceLimitError when `bytes` more for `what` ("the join's
// result (1000000000 rows)") would pass `budget` together with what tables
// hold, naming what, how much, the budget and the option that sets it. A
// size that saturated (common/byte_size.hpp) is refused whatever the budget.
void CheckHostMemory(std::uint64_t budget, std::string_view what, std::uint64_t bytes);

}  // namespace clq
