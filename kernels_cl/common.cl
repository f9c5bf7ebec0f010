// Shared preamble of every clq kernel. Built with -cl-std=CL1.2 and, from
// runtime/device_tuning.cpp: WG_SIZE (work-items per group, a power of two),
// IPT (items per work-item), HAS_FP64, HAS_INT64_ATOMICS, DEVICE_IS_CPU and
// HOST_PREFETCH.
//
// A tile is WG_SIZE * IPT consecutive elements handled by one work-group.
// Item k of work-item l in a tile sits at tile_start + k * WG_SIZE + l, so
// each of the IPT steps reads WG_SIZE consecutive elements (coalesced on GPUs,
// vectorisable across work-items on PoCL).

#ifndef WG_SIZE
#error "WG_SIZE must be defined by the host"
#endif
#ifndef IPT
#error "IPT must be defined by the host"
#endif

#if HAS_FP64
#pragma OPENCL EXTENSION cl_khr_fp64 : enable
#endif
#if HAS_INT64_ATOMICS
#pragma OPENCL EXTENSION cl_khr_int64_base_atomics : enable
#endif

#define TILE ((ulong)WG_SIZE * IPT)

// Put before a loop over a work-item's items. PoCL 5 vectorises across
// work-items and leaves a loop inside a work-item scalar unless the loop asks
// for a width: asked, the expression machine's MAX ran several times faster
// (a prototype; enabling vectorisation without the width gained little).
// GPUs run items as threads; the pragma is for CPUs only.
#define CLQ_STRINGIZE(x) #x
#define CLQ_PRAGMA(x) _Pragma(CLQ_STRINGIZE(x))
#ifndef CPU_VECTOR_WIDTH
#define CPU_VECTOR_WIDTH 16
#endif
#ifdef VECTORIZE_ITEMS
#elif DEVICE_IS_CPU
#define VECTORIZE_ITEMS CLQ_PRAGMA(clang loop vectorize(enable) vectorize_width(CPU_VECTOR_WIDTH))
#else
#define VECTORIZE_ITEMS
#endif
// Put before the loop over a work-item's items whose body adds each item
// into its lane of a REAL sum (a loop over j with lanes[l] += item j + l
// inside): the lanes' sums must add their items in item order, the same
// bits on every device and in every kernel that computes them. Intel's CPU
// compiler vectorised such a loop 8 ways, each lane summing into 8 partial
// sums added at the end (a reordering OpenCL allows only under
// -cl-unsafe-math-optimizations), and `#pragma clang fp reassociate(off)`
// did not stop it; the inner loop over lanes is still vectorised.
#define SUM_ITEMS_IN_ORDER CLQ_PRAGMA(clang loop vectorize(disable))
#define KERNEL __kernel __attribute__((reqd_work_group_size(WG_SIZE, 1, 1)))

// A prefetch of global memory at `p` for reading, on CPU drivers whose
// kernels are native code over host addresses (HOST_PREFETCH, set for PoCL,
// whose prefetch() does nothing, and Intel's CPU runtime). Elsewhere
// nothing: NVIDIA's compiler refuses
// the builtin, and rusticl's SPIR-V translator ends the process on it.
#if HOST_PREFETCH
#define CLQ_PREFETCH(p) __builtin_prefetch((const void*)(size_t)(p), 0, 3)
#else
#define CLQ_PREFETCH(p)
#endif

// First element of this work-group's tile.
inline ulong tile_start(void) { return (ulong)get_group_id(0) * TILE; }

// Position of item k of this work-item. GPUs stripe items across the group so
// each of the IPT steps is one coalesced access; CPUs give each work-item a
// contiguous block so its inner loops over k vectorise.
#if DEVICE_IS_CPU
inline uint tile_offset(uint k) { return (uint)get_local_id(0) * IPT + k; }
#else
inline uint tile_offset(uint k) { return k * WG_SIZE + (uint)get_local_id(0); }
#endif
inline ulong tile_item(ulong start, uint k) { return start + tile_offset(k); }

// Rows of the tile starting at `start` that lie below n: TILE for every tile
// but the last. Item k is a row when tile_offset(k) < tile_rows(start, n), a
// 32-bit comparison (64-bit ones cost several instructions per item in
// vector code on CPUs).
inline uint tile_rows(ulong start, ulong n) {
  return n <= start ? 0u : n - start >= TILE ? (uint)TILE : (uint)(n - start);
}

// Whether tile `tile` of `tiles` produced nothing, from the exclusive scan of
// the tiles' output counts and their `total` (which bounds the last tile).
// Every work-item of a group reads the same values, so a group may leave
// before its first barrier on it.
inline bool scanned_tile_is_empty(__global const uint* tile_offsets, uint tile, uint tiles,
                                  uint total) {
  const uint end = tile + 1 < tiles ? tile_offsets[tile + 1] : total;
  return end == tile_offsets[tile];
}

// Sum of `value` over the work-group, returned to every work-item. `scratch`
// holds WG_SIZE elements. Every work-item must call it (it has barriers).
// GPUs use a tree; PoCL runs a work-group as a loop over work-items, where a
// tree costs WG_SIZE iterations per level, so one work-item adds serially.
inline ulong work_group_sum_ulong(ulong value, __local ulong* scratch) {
  const uint lid = get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
#if DEVICE_IS_CPU
  if (lid == 0) {
    ulong total = 0;
    for (uint i = 0; i < WG_SIZE; ++i) total += scratch[i];
    scratch[0] = total;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#else
  for (uint offset = WG_SIZE / 2; offset > 0; offset >>= 1) {
    if (lid < offset) scratch[lid] += scratch[lid + offset];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
  const ulong total = scratch[0];
  barrier(CLK_LOCAL_MEM_FENCE);  // scratch may be reused right after
  return total;
}

// Exclusive prefix sum of `value` over the work-group: returns the sum of the
// values of lower work-items and stores the group's total in *total.
// `scratch` holds WG_SIZE + 1 elements. Every work-item must call it.
// GPUs: Blelloch's work-efficient up-sweep / down-sweep in local memory.
// CPUs (PoCL runs the group as a loop): one work-item adds serially.
inline uint work_group_scan_exclusive_uint(uint value, __local uint* scratch, uint* total) {
  const uint lid = get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
#if DEVICE_IS_CPU
  if (lid == 0) {
    uint running = 0;
    for (uint i = 0; i < WG_SIZE; ++i) {
      const uint v = scratch[i];
      scratch[i] = running;
      running += v;
    }
    scratch[WG_SIZE] = running;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#else
  for (uint d = 1; d < WG_SIZE; d <<= 1) {
    const uint index = (lid + 1) * 2 * d - 1;
    if (index < WG_SIZE) scratch[index] += scratch[index - d];
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  if (lid == 0) {
    scratch[WG_SIZE] = scratch[WG_SIZE - 1];
    scratch[WG_SIZE - 1] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = WG_SIZE / 2; d >= 1; d >>= 1) {
    const uint index = (lid + 1) * 2 * d - 1;
    if (index < WG_SIZE) {
      const uint left = scratch[index - d];
      scratch[index - d] = scratch[index];
      scratch[index] += left;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
  const uint result = scratch[lid];
  *total = scratch[WG_SIZE];
  barrier(CLK_LOCAL_MEM_FENCE);  // scratch may be reused right after
  return result;
}

// A tile's count of set bits in its bitmap: the sum of counts[0 .. n) (the
// count of each work-item, warp or word, stored before the call) written to
// tile_counts[tile] and returned to work-item 0. Every work-item of the
// group must call it (it has a barrier).
inline uint tile_count_total(__local const uint* counts, uint n, uint tile,
                             __global uint* tile_counts) {
  barrier(CLK_LOCAL_MEM_FENCE);
  uint total = 0;
  if (get_local_id(0) == 0) {
    for (uint i = 0; i < n; ++i) total += counts[i];
    tile_counts[tile] = total;
  }
  return total;
}

// NVIDIA GPUs (the host defines WARP_BALLOT=1 there, runtime/device_tuning.cpp):
// a warp is 32 consecutive work-items of a 1-D work-group, and PTX's
// `vote.sync.ballot` hands each of them the 32 predicates as the bits of one
// word: with items striped across the group, item k of a warp's 32
// work-items is one word of a tile's bitmap, built without local memory.
#ifndef WARP_BALLOT
#define WARP_BALLOT 0
#endif
#if WARP_BALLOT && !DEVICE_IS_CPU && WG_SIZE % 32 == 0 && IPT <= 32
#define TILE_BITMAP_BALLOT 1
inline uint warp_ballot(uint predicate) {
  uint bits;
  __asm__ volatile(
      "{\n\t.reg .pred p;\n\tsetp.ne.u32 p, %1, 0;\n\tvote.sync.ballot.b32 %0, p, 0xffffffff;\n\t}"
      : "=r"(bits)
      : "r"(predicate));
  return bits;
}

// Writes the bitmap words of tile `tile` (rows of it: `rows`) from each
// item's flag (0 for items past the rows) and the tile's count of set bits
// to tile_counts[tile]; returns that count to work-item 0. `warp_counts`
// holds WG_SIZE / 32 words; a caller that reuses it must first pass a
// barrier. Every work-item of the group must call it (it has a barrier).
// Unlike tile_bitmap_local, the other devices' path, no flag goes through
// local memory and no work-item sums 32 flags serially.
inline uint tile_bitmap_ballot(const uchar* flag, uint tile, uint rows, __global uint* bits,
                               __global uint* tile_counts, __local uint* warp_counts) {
  const ulong start = (ulong)tile * TILE;
  const uint lid = get_local_id(0);
  const uint lane = lid % 32, warp = lid / 32;
  uint count = 0, mine = 0;
  for (uint k = 0; k < IPT; ++k) {
    const uint word = warp_ballot(flag[k]);
    mine = lane == k ? word : mine;  // lane k stores item k's word
    count += popcount(word);
  }
  const uint first = lane * WG_SIZE + warp * 32;  // tile offset of lane's word
  if (lane < IPT && first < rows) bits[(start + first) / 32] = mine;
  if (lane == 0) warp_counts[warp] = count;
  return tile_count_total(warp_counts, WG_SIZE / 32, tile, tile_counts);
}
#else
#define TILE_BITMAP_BALLOT 0
#endif

// tile_bitmap_ballot for any device: a byte per item in `flags` (TILE +
// TILE / 8 bytes: 4 bytes of padding after every 32, so that the
// work-items assembling words read different banks), `word_counts` TILE / 32
// words. The barrier fences global memory too: vm_filter's refining pass
// reads the tile's words before it writes them, each word read by the
// work-items of its 32 items and written by another, and a barrier that
// fences local memory alone leaves those global reads and writes unordered
// (Oclgrind's race detector reported them).
inline uint tile_bitmap_local(const uchar* flag, uint tile, uint rows, __global uint* bits,
                              __global uint* tile_counts, __local uchar* flags,
                              __local uint* word_counts) {
  const uint lid = get_local_id(0);
  const ulong start = (ulong)tile * TILE;
  for (uint k = 0; k < IPT; ++k) {
    const uint p = tile_offset(k);
    flags[p + (p / 32) * 4] = flag[k];
  }
  barrier(CLK_LOCAL_MEM_FENCE | CLK_GLOBAL_MEM_FENCE);
  for (uint w = lid; w < TILE / 32; w += WG_SIZE) {
    __local const uchar* f = flags + w * 36;
    uint word = 0;
    for (uint b = 0; b < 32; ++b) word |= (uint)f[b] << b;
    if (w * 32 < rows) bits[start / 32 + w] = word;
    word_counts[w] = popcount(word);
  }
  return tile_count_total(word_counts, TILE / 32, tile, tile_counts);
}

// A tile's bitmap words and count from each item's flag, the way this device
// builds them fastest: ballots on NVIDIA GPUs (`flags` unused), local memory
// elsewhere. The buffers are tile_bitmap_local's; the rest as above.
inline uint tile_bitmap(const uchar* flag, uint tile, uint rows, __global uint* bits,
                        __global uint* tile_counts, __local uchar* flags,
                        __local uint* word_counts) {
#if TILE_BITMAP_BALLOT
  return tile_bitmap_ballot(flag, tile, rows, bits, tile_counts, word_counts);
#else
  return tile_bitmap_local(flag, tile, rows, bits, tile_counts, flags, word_counts);
#endif
}

// Local-memory index with one pad word per 32, so that work-items reading
// IPT consecutive elements hit different banks.
#define PADDED(i) ((i) + ((i) >> 5))
