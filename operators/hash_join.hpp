// Inner equi-join of two device key vectors (INT32 or INT64, optional NULL
// map; NULL never matches; mixed widths compare as 64-bit values).
//
// Result: pairs (build_positions[i], probe_positions[i]) with equal keys,
// ordered by probe position ascending and, among one probe row's matches, by
// build position ascending (the same order on every device; with
// JoinOptions::ordered_matches off, the order among one probe row's matches
// is unspecified).
//
// Method (JoinStats::method), tried in this order:
//  - "direct": build keys unique and their range [min, max] at most
//    `direct_slots_per_row` values per build row (a permutation of row
//    numbers, as Wisconsin's unique1/unique2, has exactly one): a table of
//    one 32-bit build row per value, filled by compare-and-swap, probed by
//    one load (kernels hash_join_direct_*). 32-bit atomics only.
//  - "cuckoo": build keys unique and spanning at most 2^32 values (always
//    true for INT32; the build keys' min/max reduction, which the direct
//    table needs anyway, checks INT64), device with
//    64-bit atomics. A cuckoo table of 64-bit words key32|row32 (Alcantara et
//    al.), four hash functions, bounded eviction chain, stash, at most
//    `max_rebuilds` rebuilds with new seeds (kernels hash_join_cuckoo_*).
//  - "chained": everything else, and the fallback when cuckoo building fails
//    or either unique-key table finds duplicate keys: a bucket-sorted chained table built with
//    32-bit atomics only (kernels hash_join_chain_*), probed count -> scan -> write. Buckets are
//    sorted by build row (one work-item per bucket up to a tile, one work-group per larger bucket),
//    which gives the order above.
//
// Limits: each side at most 2^31-1 rows (row ids are 32-bit and the cuckoo
// word keeps the row in 31 bits); the output at most 2^32-1 pairs. The match
// count is summed in 64 bits before the 32-bit scan, so nothing wraps.
//
// Ownership: the returned RowIds own their buffers (from the engine's pool);
// the inputs are only read. Blocks: waits for a few small reads (build flags,
// the output size) before allocating the output; the final write is
// enqueued only.
//
// Errors: DeviceLimitError when an input or the output exceeds those limits
// or the device's allocation limit; InvalidInputError for non-integer keys.
// Not thread-safe (one thread drives an engine).
#pragma once

#include <string>
#include <vector>

#include "operators/device_vector.hpp"
#include "operators/kernel_set.hpp"
#include "operators/query_context.hpp"

namespace clq {

struct JoinStats {
  RowCount build_rows = 0, probe_rows = 0, output_rows = 0;
  unsigned rebuilds = 0;  // cuckoo rebuilds with new seeds
  std::string method;     // "direct", "cuckoo", "chained", or "empty" when a side is empty
  // Why the method before the one used (direct -> cuckoo -> chained) did
  // not give the result; empty for "direct" and "empty".
  std::string fallback_reason;
};

struct JoinResult {
  RowIds build_positions;
  RowIds probe_positions;
  RowCount size = 0;
};

// Knobs for experiments and tests (forcing rebuilds and the fallback).
struct JoinOptions {
  bool allow_direct = true;
  // Most direct-table slots per build row: at 4, the table (16 bytes per
  // build row at most) stays near the cuckoo table's 10 at load 0.8.
  double direct_slots_per_row = 4.0;
  bool allow_cuckoo = true;
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

JoinResult HashJoin(QueryContext& context, const VectorView& build_keys,
                    const VectorView& probe_keys, JoinStats* stats = nullptr);

JoinResult HashJoin(QueryContext& context, const VectorView& build_keys,
                    const VectorView& probe_keys, const JoinOptions& options,
                    JoinStats* stats = nullptr);

// The kernels of the method a join tries first (the direct table; the build
// keys' range reduction included); the others run only when the data makes
// that method fail (HashJoinMethods says when).
KernelSet HashJoinKernels(const Engine& engine, const JoinOptions& options);
// "direct table; cuckoo, then chained when the build keys repeat or span
// too many values".
std::string HashJoinMethods();

}  // namespace clq
