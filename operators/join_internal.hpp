// Pieces shared by the join's files (operators/hash_join.cpp, join_chained.cpp,
// join_cuckoo.cpp); not a public interface.
#pragma once

#include <cstdint>
#include <optional>

#include "operators/device_vector.hpp"
#include "operators/hash_join.hpp"
#include "runtime/engine.hpp"

namespace clq::join_detail {

// Binds a key vector as the five kernel arguments (keys, wide, nulls,
// has_nulls, n) starting at `first`. A vector without NULLs passes its
// values buffer as a never-read stand-in.
void BindKeys(cl::Kernel& kernel, cl_uint first, const VectorView& keys);

// Sum of `n` 64-bit values on the device, reduced in place over tiles, read
// back (blocking).
std::uint64_t SumOnDevice(Engine& engine, DeviceBuffer values, RowCount n);

// Allocates the two output vectors of `pairs` row ids; throws
// DeviceLimitError when they cannot exist.
JoinResult AllocateJoinOutput(Engine& engine, std::uint64_t pairs);

// The always-correct path: any keys, duplicates, 32-bit atomics only.
JoinResult ChainedJoin(Engine& engine, const VectorView& build, const VectorView& probe,
                       bool ordered_matches);

// Build side summary needed by the cuckoo table.
struct KeyRange {
  std::int64_t min = 0;
  std::uint64_t span = 0;  // max - min
  bool any = false;        // some build key is not NULL
};
KeyRange BuildKeyRange(Engine& engine, const VectorView& build);

// The cuckoo path; std::nullopt (with `reason` set) when building fails
// after the allowed rebuilds or finds duplicate keys.
std::optional<JoinResult> CuckooJoin(Engine& engine, const VectorView& build,
                                     const VectorView& probe, const KeyRange& range,
                                     const JoinOptions& options, unsigned& rebuilds,
                                     std::string& reason);

}  // namespace clq::join_detail
