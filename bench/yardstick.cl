// Hand-written kernels, one per thesis query, as the yardstick the generic
// expression machine is measured against (bench/operators_bench.cpp). They
// use the same tile geometry as the engine's kernels and ask CPUs to
// vectorise their item loops as the engine does; constants arrive as
// arguments.

// BODY for each row i of this work-item: full tiles without a bounds test,
// in a loop CPUs vectorise (a guard per item made PoCL mask every access).
#define YARDSTICK_FOR_ROWS(BODY)                                   \
  if (start + TILE <= n) {                                         \
    VECTORIZE_ITEMS for (uint k = 0; k < IPT; ++k) {               \
      const ulong i = tile_item(start, k);                         \
      BODY;                                                        \
    }                                                              \
  } else {                                                         \
    for (uint k = 0; k < IPT; ++k) {                               \
      const ulong i = tile_item(start, k);                         \
      if (i < n) { BODY; }                                         \
    }                                                              \
  }

inline long yardstick_group_max(long value, __local long* scratch) {
  const uint lid = get_local_id(0);
  scratch[lid] = value;
  barrier(CLK_LOCAL_MEM_FENCE);
#if DEVICE_IS_CPU
  if (lid == 0) {
    long m = scratch[0];
    for (uint i = 1; i < WG_SIZE; ++i) m = max(m, scratch[i]);
    scratch[0] = m;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#else
  for (uint offset = WG_SIZE / 2; offset > 0; offset >>= 1) {
    if (lid < offset) scratch[lid] = max(scratch[lid], scratch[lid + offset]);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
  return scratch[0];
}

// SELECT unique1 + unique2 FROM tenktup1. Both are below 2^30 (Wisconsin
// keys), so the sum fits 32 bits, as the engine's range analysis proves too.
KERNEL void yardstick_projection(__global const int* a, __global const int* b, ulong n,
                                 __global int* out) {
  const ulong start = tile_start();
  YARDSTICK_FOR_ROWS(out[i] = a[i] + b[i])
}

// SELECT MAX(unique1 * tenpercent / divisor) FROM tenktup1
KERNEL void yardstick_max_int(__global const int* a, __global const int* b, ulong n, long divisor,
                              __global long* partials) {
  __local long scratch[WG_SIZE];
  const ulong start = tile_start();
  long m = LONG_MIN;
  YARDSTICK_FOR_ROWS(m = max(m, ((long)a[i] * b[i]) / divisor))
  m = yardstick_group_max(m, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = m;
}

// SELECT MAX(unique1 / (offset + onepercent)) FROM tenktup1 (as ordered bits:
// the values are non-negative, so the double bits order like the values).
KERNEL void yardstick_max_real(__global const int* a, __global const int* b, ulong n, double offset,
                               __global long* partials) {
  __local long scratch[WG_SIZE];
  const ulong start = tile_start();
  long m = LONG_MIN;
  YARDSTICK_FOR_ROWS(m = max(m, as_long((double)a[i] / (offset + (double)b[i]))))
  m = yardstick_group_max(m, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = m;
}

// The conjunction as each device runs it fastest: GPUs short-circuit (most
// threads then read unique1 alone: 0.218 ms against 0.408 with `&` on the
// H100), CPUs evaluate all four so that the loop vectorises.
#if DEVICE_IS_CPU
#define YARDSTICK_AND4(a, b, c, d) ((a) & (b) & (c) & (d))
#else
#define YARDSTICK_AND4(a, b, c, d) ((a) && (b) && (c) && (d))
#endif

// First pass of the thesis selection:
// unique1 > lo AND unique1 < hi AND unique2 % 2 = 0 AND two = 0 -> bitmap + tile counts.
KERNEL void yardstick_selection(__global const int* u1, __global const int* u2,
                                __global const int* two, ulong n, int lo, int hi,
                                __global uint* bits, __global uint* tile_counts) {
  __local uchar flags[TILE + TILE / 8];  // tile_bitmap_local's
  __local uint word_counts[TILE / 32];
  const ulong start = tile_start();
  uchar flag[IPT];
  for (uint k = 0; k < IPT; ++k) flag[k] = 0;  // rows past n stay out of the bitmap
  YARDSTICK_FOR_ROWS(flag[k] = YARDSTICK_AND4(u1[i] > lo, u1[i] < hi, u2[i] % 2 == 0, two[i] == 0))
  // The engine's filter epilogue, so that the two differ only in the predicate.
  tile_bitmap(flag, get_group_id(0), tile_rows(start, n), bits, tile_counts, flags, word_counts);
}
