// Gathers: target[i] = source[ids[i] - base] for ids inside [base, base +
// limit), the rows of one tablet; rows of other tablets are left for their
// tablet's pass. Fixed widths of 4 and 8 bytes, and any width for CHAR(n).

KERNEL void gather_u32(__global const uint* source, __global const uint* ids, ulong n, ulong base,
                       ulong limit, __global uint* target) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) {
      const ulong row = (ulong)ids[i] - base;
      if (row < limit) target[i] = source[row];
    }
  }
}

KERNEL void gather_u64(__global const ulong* source, __global const uint* ids, ulong n, ulong base,
                       ulong limit, __global ulong* target) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) {
      const ulong row = (ulong)ids[i] - base;
      if (row < limit) target[i] = source[row];
    }
  }
}

// gather_u32 of up to 8 columns of one tablet at once (s0..s7 into
// t0..t7; those from `count` on are bound to a stand-in and not touched):
// the ids are read once per launch, not once per column (a SELECT * of 26
// columns read its 60M ids 26 times).
KERNEL void gather_u32_columns(__global const uint* ids, ulong n, ulong base, ulong limit,
                                 uint count,
                                 __global const uint* s0,
                                 __global const uint* s1,
                                 __global const uint* s2,
                                 __global const uint* s3,
                                 __global const uint* s4,
                                 __global const uint* s5,
                                 __global const uint* s6,
                                 __global const uint* s7,
                                 __global uint* t0,
                                 __global uint* t1,
                                 __global uint* t2,
                                 __global uint* t3,
                                 __global uint* t4,
                                 __global uint* t5,
                                 __global uint* t6,
                                 __global uint* t7) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) {
      const ulong row = (ulong)ids[i] - base;
      if (row < limit) {
        t0[i] = s0[row];
        if (count > 1) t1[i] = s1[row];
        if (count > 2) t2[i] = s2[row];
        if (count > 3) t3[i] = s3[row];
        if (count > 4) t4[i] = s4[row];
        if (count > 5) t5[i] = s5[row];
        if (count > 6) t6[i] = s6[row];
        if (count > 7) t7[i] = s7[row];
      }
    }
  }
}

// One work-item per row; width is any byte count (CHAR(n)); widths that are
// multiples of 4 copy words.
KERNEL void gather_bytes(__global const uchar* source, uint width, __global const uint* ids,
                         ulong n, ulong base, ulong limit, __global uchar* target) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) {
      const ulong row = (ulong)ids[i] - base;
      if (row < limit) {
        if ((width & 3) == 0) {
          __global const uint* s = (__global const uint*)(source + row * width);
          __global uint* t = (__global uint*)(target + i * width);
          for (uint b = 0; b < width / 4; ++b) t[b] = s[b];
        } else {
          for (uint b = 0; b < width; ++b) target[i * width + b] = source[row * width + b];
        }
      }
    }
  }
}

// target[i] = first + i: the row ids of a contiguous range.
KERNEL void gather_iota(__global uint* target, ulong n, uint first) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) target[i] = first + (uint)i;
  }
}

// A LEFT JOIN's rows without a match carry this row id of its table: they
// gather nothing (no tablet holds it) and read as NULL.
#define GATHER_NO_ROW 0xFFFFFFFFu

// After a gather by `ids`: the rows of id GATHER_NO_ROW made NULL, their
// value zeroed (so that NULLs hash and compare alike wherever the value is
// read); with `all`, the other rows' NULL flags cleared too (a column
// without a NULL map of its own).
KERNEL void gather_null_missing(__global const uint* ids, ulong n, uint all,
                                __global uchar* nulls, __global uchar* values, uint width) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) {
      if (ids[i] == GATHER_NO_ROW) {
        nulls[i] = 1;
        for (uint b = 0; b < width; ++b) values[i * width + b] = 0;
      } else if (all) {
        nulls[i] = 0;
      }
    }
  }
}
