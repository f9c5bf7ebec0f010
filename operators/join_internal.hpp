// Pieces shared by the join's files (operators/hash_join.cpp, join_chained.cpp,
// join_cuckoo.cpp, join_dense.cpp, join_direct.cpp, join_rank.cpp); not a public interface.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <string_view>

#include "operators/device_vector.hpp"
#include "operators/hash_join.hpp"
#include "runtime/engine.hpp"

namespace clq::join_detail {

// Binds a key vector as the five kernel arguments (keys, wide, nulls,
// has_nulls, n) starting at `first`. A vector without NULLs passes its
// values buffer as a never-read stand-in.
void BindKeys(cl::Kernel& kernel, cl_uint first, const VectorView& keys);

// Sum of `n` 64-bit values on the device, reduced in place over tiles, read
// back (blocking); `stage` names the launches.
std::uint64_t SumOnDevice(Engine& engine, DeviceBuffer values, RowCount n, std::string_view stage);

// Allocates the two output vectors of `pairs` row ids; throws
// DeviceLimitError when they cannot exist, and ResourceLimitError when
// their bytes pass `output_budget` (QueryContext::DeviceBufferBudget: the
// host-memory budget where device buffers are host memory). Every method
// below takes that budget for its output.
JoinResult AllocateJoinOutput(Engine& engine, std::uint64_t pairs, std::uint64_t output_budget);

// The always-correct path: any keys, duplicates, 32-bit atomics only.
JoinResult ChainedJoin(Engine& engine, const VectorView& build, const VectorView& probe,
                       bool ordered_matches, std::uint64_t output_budget);

// Build side summary needed by the direct and cuckoo tables.
struct KeyRange {
  std::int64_t min = 0;
  std::uint64_t span = 0;  // max - min
  bool any = false;        // some build key is not NULL
};
KeyRange BuildKeyRange(Engine& engine, const VectorView& build);

// HASH_JOIN_DUPLICATE in kernels_cl/hash_join.cl.
constexpr cl_uint kDuplicateFlag = 2;
inline constexpr const char* kDuplicateKeysReason = "duplicate build keys";

// The probe of the unique-key tables (direct, cuckoo): runs `kernel` over
// the probe keys with arguments (keys: 0-4, range.min: 5, range.span: 6,
// then those `bind_table` sets from 7 on, returning the next index, then
// matches and counts), which leaves each probe row's build row or
// HASH_JOIN_NO_ROW in matches and 1 or 0 in counts; scans the counts,
// allocates the output (waits for its size) and writes the pairs.
JoinResult ProbeUnique(Engine& engine, const VectorView& probe, const KeyRange& range,
                       const char* kernel, const char* stage, std::uint64_t output_budget,
                       const std::function<cl_uint(cl::Kernel&)>& bind_table);

// The CPU probe of a bitmap of filled slots (direct and rank tables):
// join_direct_probe_count counts each work-item's probe keys whose bit is
// set, their scan sizes the output, then `write_kernel` writes the pairs
// with arguments (keys: 0-4, range.min: 5, range.span: 6, bits: 7, then
// those `bind_table` sets from 8 on, returning the next index, then the
// scanned counts, the pair count and the two outputs).
JoinResult ProbeBitmapOnCpu(Engine& engine, const VectorView& probe, const KeyRange& range,
                            const DeviceBuffer& bits, const char* write_kernel,
                            std::uint64_t output_budget,
                            const std::function<cl_uint(cl::Kernel&)>& bind_table);

// Whether the direct table suits `range` for `build_rows` rows at most
// `slots_per_row` slots per row, or `probe_rows` at most
// `slots_per_probe_row` per row, with the CPU or the GPU kernels; `reason`
// says why not.
bool DirectTableFits(Engine& engine, const KeyRange& range, RowCount build_rows,
                     double slots_per_row, RowCount probe_rows, double slots_per_probe_row,
                     bool cpu_kernels, std::string& reason);

// The direct path (the range must fit, see DirectTableFits), with the CPU
// or the GPU kernels; std::nullopt with `reason` set when the build keys
// repeat.
std::optional<JoinResult> DirectJoin(Engine& engine, const VectorView& build,
                                     const VectorView& probe, const KeyRange& range,
                                     bool cpu_kernels, std::uint64_t output_budget,
                                     std::string& reason);

// Most rank-table slots per build row and per probe row: the direct
// table's bytes (16 slots of 4 bytes per build row, 1 per probe row) at 2
// bits a slot.
inline constexpr double kRankSlotsPerBuildRow = 256;
inline constexpr double kRankSlotsPerProbeRow = 16;

// Whether the rank table (operators/join_rank.cpp) suits `range` for
// `build_rows` and `probe_rows` rows; `reason` says why not.
bool RankTableFits(Engine& engine, const KeyRange& range, RowCount build_rows, RowCount probe_rows,
                   std::string& reason);

// The rank path (the range must fit, see RankTableFits), CPU probe.
// Repeated build keys join through the dense multimap over their ranks
// where `repeated_keys_allowed` (JoinPlan::rank_repeats_densely), else
// std::nullopt with `reason` set.
std::optional<JoinResult> RankJoin(Engine& engine, const VectorView& build, const VectorView& probe,
                                   const KeyRange& range, bool repeated_keys_allowed,
                                   std::uint64_t output_budget, std::string& reason);

// Whether the dense multimap suits `range` for `build_rows` rows (at most
// JOIN_DENSE_MAX_BUCKETS values, or at most `slots_per_row` per build row);
// `reason` says why not.
bool DenseTableFits(Engine& engine, const KeyRange& range, RowCount build_rows,
                    double slots_per_row, std::string& reason);

// The dense path (the range must fit, see DenseTableFits): any keys,
// duplicates included.
JoinResult DenseJoin(Engine& engine, const VectorView& build, const VectorView& probe,
                     const KeyRange& range, std::uint64_t output_budget);

// The cuckoo path (CPU kernels: the probe goes through a filter);
// std::nullopt (with `reason` set) when building fails
// after the allowed rebuilds or finds duplicate keys.
std::optional<JoinResult> CuckooJoin(Engine& engine, const VectorView& build,
                                     const VectorView& probe, const KeyRange& range,
                                     const JoinOptions& options, bool cpu_kernels,
                                     std::uint64_t output_budget, unsigned& rebuilds,
                                     std::string& reason);

}  // namespace clq::join_detail
