// Inner equi-join of two device key vectors (INT32 or INT64, optional NULL
// map; NULL never matches; mixed widths compare as 64-bit values).
//
// Result: pairs (build_positions[i], probe_positions[i]) with equal keys,
// ordered by probe position ascending and, among one probe row's matches, by
// build position ascending (the same order on every device and method; with
// JoinOptions::ordered_matches off, the chained table leaves the order among
// one probe row's matches unspecified; the other methods keep it anyway).
//
// Planning (PlanJoin, before any data is seen): from the device, the key
// types and the row bounds, the methods to try in order and the kernels
// each launches (JoinPlan::Kernels, Describe). Which of them runs is then
// decided by the data (the build keys' range, repeated keys, cuckoo
// failures) and reported in JoinStats. Methods (JoinStats::method):
//  - "direct": unique build keys whose range [min, max] is at most
//    `direct_slots_per_row` values per build row (a permutation of row
//    numbers, as Wisconsin's unique1/unique2, has one): a table of one
//    32-bit build row per value, probed by one load. GPU kernels fill it by
//    compare-and-swap (a lost swap is a repeated key); CPU kernels store
//    plainly and count the filled slots (fewer than the keys: a repeated
//    key), writing a bitmap of them that the probe tests before it loads a
//    slot (kernels join_direct_*). 32-bit atomics only.
//  - "rank" (CPU plans): unique build keys whose range is at most 256
//    values per build row or 16 per probe row (2^32 at most): the direct
//    table's bitmap with a rank per word of it and the build rows in key
//    order, 2 bits per value where the direct table takes 32 (kernels
//    join_rank_*, join_direct_probe_count). 32-bit atomics only. Repeated
//    build keys: both sides' keys become their ranks, which the dense
//    multimap joins (one bucket per distinct key).
//  - "dense" (CPU plans): build keys of at most JOIN_DENSE_MAX_BUCKETS values
//    (kernels_cl/join_shared.h) or at most `direct_slots_per_row` values per
//    build row, duplicates allowed: the build rows sorted into one bucket
//    per key value by a stable counting sort, a probe row's matches are its
//    key's bucket (kernels join_dense_*).
//  - "cuckoo": unique build keys spanning at most 2^32 values (always true
//    for INT32), device with 64-bit atomics. A cuckoo table of 64-bit words
//    key32|row32 (Alcantara et al.), four hash functions, bounded eviction
//    chain, stash, at most `max_rebuilds` rebuilds with new seeds (kernels
//    join_cuckoo_*). CPU kernels probe through a Bloom filter of the build
//    keys (8 bits per key), so that a missing key costs no table lookup.
//  - "chained": everything else, and the last resort after any of the
//    above: a bucket-sorted chained table built with 32-bit atomics only
//    (kernels hash_join_chain_*), probed count -> scan -> write. Buckets are
//    sorted by build row (one work-item per bucket up to a tile, one
//    work-group per larger bucket), which gives the order above.
//
// Limits: each side at most 2^31-1 rows (row ids are 32-bit and the cuckoo
// word keeps the row in 31 bits); the output at most 2^32-1 pairs. The match
// count is summed in 64 bits before the 32-bit scan, so nothing wraps.
//
// Ownership: the returned RowIds own their buffers (from the engine's pool);
// the inputs are only read. Blocks: waits for a few small reads (the key
// range, build flags or counts, the output size) before allocating the
// output; the final write is enqueued only.
//
// Errors: DeviceLimitError when an input or the output exceeds those limits
// or the device's allocation limit; ResourceLimitError when the output's row
// ids, on a device whose memory is the host's, pass the query's host-memory
// budget (checked once the match count is known, before the output is
// allocated); InvalidInputError for non-integer keys.
// Not thread-safe (one thread drives an engine).
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "operators/device_vector.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"
#include "runtime/device_info.hpp"

namespace clq {

enum class JoinMethod { kDirect, kRank, kDense, kCuckoo, kChained };

// "direct", "rank", "dense", "cuckoo", "chained".
const char* JoinMethodName(JoinMethod method);

struct JoinStats {
  RowCount build_rows = 0, probe_rows = 0, output_rows = 0;
  unsigned rebuilds = 0;  // cuckoo rebuilds with new seeds
  std::string method;     // JoinMethodName of the method used, or "empty" when a side is empty
  // Why each method tried before the one used did not give the result:
  // "direct: duplicate build keys; cuckoo: ..." (empty when the plan's first
  // method gave it, and for "empty").
  std::string fallback_reason;
};

struct JoinResult {
  RowIds build_positions;
  RowIds probe_positions;
  RowCount size = 0;
};

// Knobs for experiments and tests (forcing methods, kernel variants,
// rebuilds and fallbacks).
struct JoinOptions {
  // The methods to try, in order; the chained table always follows as the
  // last resort. Empty: the device's (PlanJoin).
  std::vector<JoinMethod> methods;
  // Direct and cuckoo tables: CPU kernel variants (true) or GPU ones
  // (false). Unset: the engine's kernel paths (DeviceTuning::cpu_paths).
  std::optional<bool> cpu_kernels;
  // Most direct-table slots per build row; 0: the plan's, 16 (up to 64
  // bytes per build row against the cuckoo table's 10 at load 0.8: a direct
  // probe is one load, where the cuckoo probe's miss costs several scattered
  // ones; on CPUs the probe's bitmap also keeps a sparse table's misses in
  // cache).
  double direct_slots_per_row = 0;
  // Also allowed: this many slots per probe row; negative: the plan's, 1
  // with the CPU kernels (their table is filled and read once, in order, as
  // a probe side as long is; the bitmap in front of it settles a miss in
  // cache, where a cuckoo probe through its filter hashes several times),
  // none with the GPU ones.
  double direct_slots_per_probe_row = -1;
  unsigned max_evictions = 0;  // 0: automatic (grows with log2 of the build size)
  unsigned max_rebuilds = 3;
  unsigned stash_size = 101;
  double load_factor = 0.8;  // build rows / cuckoo table words
  // Order one probe row's matches by build position (chained table: sorts
  // every bucket, one work-item per bucket). A caller that does not need the
  // order (an aggregate on top, an ORDER BY of its own) may turn it off: a
  // bucket of m duplicate keys then costs no O(m log m) serial sort.
  bool ordered_matches = true;
};

// What is known of a join before it runs.
struct JoinInputs {
  ColumnType build_type = ColumnType::Int64();
  ColumnType probe_type = ColumnType::Int64();
  RowCount build_rows = 0;  // upper bounds
  RowCount probe_rows = 0;
};

struct JoinPlan {
  std::vector<JoinMethod> methods;  // tried in order; the last is kChained
  bool cpu_kernels = false;         // direct and cuckoo tables: CPU build and probe kernels
  // The rank table joins repeated keys through the dense multimap (not on
  // devices that cap a work-item's loops, as the dense multimap itself).
  bool rank_repeats_densely = false;
  JoinOptions options;  // with direct_slots_per_row resolved
  bool empty = false;   // a side has no rows: nothing is launched

  // The kernels of the first method (and the build keys' range), and when
  // needed those of the methods after it, which run only when the data
  // makes the ones before fail, and of steps sizes decide (merge levels).
  KernelSet Kernels() const;
  // "direct (cpu kernels, 16 slots/row) -> rank -> dense -> cuckoo -> chained".
  std::string Describe() const;
};

// Throws InvalidInputError for non-integer key types.
JoinPlan PlanJoin(const DeviceInfo& device, const DeviceTuning& tuning, const JoinInputs& inputs,
                  const JoinOptions& options = {});

JoinResult ExecuteJoin(QueryContext& context, const JoinPlan& plan, const VectorView& build_keys,
                       const VectorView& probe_keys, JoinStats* stats = nullptr);

// PlanJoin from the vectors' types and sizes, then ExecuteJoin.
JoinResult HashJoin(QueryContext& context, const VectorView& build_keys,
                    const VectorView& probe_keys, JoinStats* stats = nullptr);

JoinResult HashJoin(QueryContext& context, const VectorView& build_keys,
                    const VectorView& probe_keys, const JoinOptions& options,
                    JoinStats* stats = nullptr);

}  // namespace clq
