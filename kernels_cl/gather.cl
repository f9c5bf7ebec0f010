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
