// LSD radix sort of row positions by key (operators/sort.cpp) and radix
// select (SelectKth). A pass sorts a permutation stably by one 4-bit
// digit: a count kernel histograms the digits of each tile, the host scans the
// digit-major counts [digit][tile], and a scatter kernel writes every position
// to its digit's offset, in tile order.
//
// Keys map to order-preserving unsigned 64-bit images: ints flip the sign
// bit, doubles flip all bits when negative and the sign bit otherwise (-0.0
// first becomes +0.0 so the two tie), CHAR(n) is cut into 8-byte big-endian
// chunks (zero beyond n), each sorted like a numeric key, last chunk first.
// DESC complements the image. The images travel with the positions
// (sort_load_keys, sort_count_keys, sort_scatter_keys); NULL rows have image 0
// and their own pass by the NULL flag (sort_count_nulls, sort_scatter_nulls:
// flag 0 in ASC, so NULL sorts first; complemented in DESC).

// The order-preserving unsigned image of numeric value `row`.
inline ulong sort_numeric_key(__global const uchar* values, uint type, ulong row) {
  if (type == SORT_TYPE_INT32)
    return (ulong)((uint)((__global const int*)values)[row] ^ 0x80000000u);
  if (type == SORT_TYPE_UINT32) return (ulong)((__global const uint*)values)[row];
  ulong bits = ((__global const ulong*)values)[row];
  if (type == SORT_TYPE_IMAGE) return bits;
  if (type == SORT_TYPE_INT64) return bits ^ 0x8000000000000000UL;
  if (bits == 0x8000000000000000UL) bits = 0;  // -0.0 ties with +0.0
  return (bits >> 63) != 0 ? ~bits : (bits | 0x8000000000000000UL);
}

// The image of key `row`: numeric, or bytes [offset, offset + 8) of a
// CHAR(width) value, big-endian, zero past the end.
inline ulong sort_key_image(__global const uchar* values, uint type, uint width, uint offset,
                            ulong row) {
  if (type != SORT_TYPE_CHAR) return sort_numeric_key(values, type, row);
  ulong image = 0;
  for (uint b = offset; b < offset + 8; ++b)
    image = (image << 8) | (b < width ? values[row * width + b] : 0);
  return image;
}

// The NULL-flag digit of row `row`: 0 for NULL, 1 otherwise (complemented
// for DESC).
inline uint sort_null_digit(__global const uchar* nulls, uint descending, ulong row) {
  const uint d = nulls[row] != 0 ? 0 : 1;
  return descending != 0 ? SORT_BUCKETS - 1 - d : d;
}

// Turns each work-item's digit counts (offsets[b]) into the positions its
// first item of digit b goes to: the tile's digit-major counts [b][work-item]
// in local memory, one exclusive scan over them (each work-item adds 16
// consecutive entries, then one work-group scan; PADDED against bank
// conflicts), made relative to the start
// of each digit in the tile, plus the scanned tile offset of the digit.
// Every work-item must call it (barriers).
inline void sort_scatter_offsets(uint* offsets, __local uint* table, __local uint* scratch,
                                 __global const uint* tile_offsets, ulong tiles) {
  const uint lid = get_local_id(0);
  for (uint b = 0; b < SORT_BUCKETS; ++b) table[PADDED(b * WG_SIZE + lid)] = offsets[b];
  barrier(CLK_LOCAL_MEM_FENCE);
  uint sum = 0;
  for (uint e = lid * SORT_BUCKETS; e < (lid + 1) * SORT_BUCKETS; ++e) {
    const uint v = table[PADDED(e)];
    table[PADDED(e)] = sum;
    sum += v;
  }
  uint total;
  const uint before = work_group_scan_exclusive_uint(sum, scratch, &total);
  for (uint e = lid * SORT_BUCKETS; e < (lid + 1) * SORT_BUCKETS; ++e) table[PADDED(e)] += before;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = 0; b < SORT_BUCKETS; ++b)
    offsets[b] = tile_offsets[b * tiles + get_group_id(0)] + table[PADDED(b * WG_SIZE + lid)] -
                 table[PADDED(b * WG_SIZE)];
}

// NULL pass: digit counts of this tile into tile_counts[digit * tiles + tile]; raises
// *varies when some digit differs from the first position's, so the host can
// skip passes that would not move anything. Each work-item counts privately
// (local atomics serialise on PoCL), then work-item b < SORT_BUCKETS adds up
// bucket b.
KERNEL void sort_count_nulls(__global const uint* perm, ulong n, __global const uchar* nulls,
                             uint descending, __global uint* tile_counts, ulong tiles,
                             __global uint* varies) {
  __local uint counts[SORT_BUCKETS * WG_SIZE];
  const uint lid = get_local_id(0);
  const uint first = sort_null_digit(nulls, descending, perm[0]);
  const ulong start = tile_start();
  uint mine[SORT_BUCKETS];
  for (uint b = 0; b < SORT_BUCKETS; ++b) mine[b] = 0;
  uint differs = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) {
      const uint d = sort_null_digit(nulls, descending, perm[i]);
      ++mine[d];
      differs |= d != first;
    }
  }
  if (differs != 0) *varies = 1;  // every writer stores the same value
  for (uint b = 0; b < SORT_BUCKETS; ++b) counts[b * WG_SIZE + lid] = mine[b];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < SORT_BUCKETS; b += WG_SIZE) {
    uint total = 0;
    for (uint l = 0; l < WG_SIZE; ++l) total += counts[b * WG_SIZE + l];
    tile_counts[b * tiles + get_group_id(0)] = total;
  }
}

// Numeric keys travel with the positions: sort_load_keys writes the image of
// each position's key (XOR flip: all ones for DESC; 0 for NULL rows, which
// the NULL pass orders), and the passes over (key, position) pairs read
// consecutive memory and extract a digit with one shift.
KERNEL void sort_load_keys(__global const uint* perm, ulong n, __global const uchar* values,
                           __global const uchar* nulls, uint has_nulls, uint type, uint width,
                           uint offset, ulong flip, __global ulong* keys) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) {
      const uint row = perm[i];
      const bool is_null = has_nulls != 0 && nulls[row] != 0;
      keys[i] = is_null ? 0 : sort_key_image(values, type, width, offset, row) ^ flip;
    }
  }
}

// sort_count for carried keys: digit counts of this tile by the digit at `shift`.
KERNEL void sort_count_keys(__global const ulong* keys, ulong n, uint shift,
                            __global uint* tile_counts, ulong tiles) {
  __local uint counts[SORT_BUCKETS * WG_SIZE];
  const uint lid = get_local_id(0);
  const ulong start = tile_start();
  uint mine[SORT_BUCKETS];
  for (uint b = 0; b < SORT_BUCKETS; ++b) mine[b] = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) ++mine[(uint)(keys[i] >> shift) & (SORT_BUCKETS - 1)];
  }
  for (uint b = 0; b < SORT_BUCKETS; ++b) counts[b * WG_SIZE + lid] = mine[b];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < SORT_BUCKETS; b += WG_SIZE) {
    uint total = 0;
    for (uint l = 0; l < WG_SIZE; ++l) total += counts[b * WG_SIZE + l];
    tile_counts[b * tiles + get_group_id(0)] = total;
  }
}

// sort_scatter for carried keys: moves each (key, position) pair.
KERNEL void sort_scatter_keys(__global const ulong* keys, __global const uint* perm, ulong n,
                              uint shift, __global const uint* tile_offsets, ulong tiles,
                              __global ulong* keys_out, __global uint* perm_out) {
  __local uint table[PADDED(SORT_BUCKETS * WG_SIZE)];
  __local uint scratch[WG_SIZE + 1];
  const uint lid = get_local_id(0);
  const ulong first = tile_start() + (ulong)lid * IPT;
  uint offsets[SORT_BUCKETS];
  for (uint b = 0; b < SORT_BUCKETS; ++b) offsets[b] = 0;
  for (uint k = 0; k < IPT; ++k) {
    if (first + k < n) ++offsets[(uint)(keys[first + k] >> shift) & (SORT_BUCKETS - 1)];
  }
  sort_scatter_offsets(offsets, table, scratch, tile_offsets, tiles);
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = first + k;
    if (i < n) {
      const ulong key = keys[i];
      const uint to = offsets[(uint)(key >> shift) & (SORT_BUCKETS - 1)]++;
      keys_out[to] = key;
      perm_out[to] = perm[i];
    }
  }
}

// The bits that differ between the numeric keys of non-NULL rows: OR and AND
// of their order-preserving images into bits[0..1] (low, high word) and
// bits[2..3], which the host initialises to 0 and ~0. A digit whose bits are
// equal in OR and AND is the same in every row, and its pass is skipped.
// With `check_order` (a key without NULLs), also whether some row's image is
// above the next row's (bits[4] = 1) or below it (bits[5] = 1), which the
// host initialises to 0: a key already in order needs no pass at all.
KERNEL void sort_key_bits(__global const uchar* values, __global const uchar* nulls,
                          uint has_nulls, uint type, uint width, uint offset, ulong n,
                          uint check_order, __global uint* bits) {
  __local uint words[6];
  const uint lid = get_local_id(0);
  if (lid == 0) {
    words[0] = 0;
    words[1] = 0;
    words[2] = 0xFFFFFFFFu;
    words[3] = 0xFFFFFFFFu;
    words[4] = 0;
    words[5] = 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong start = tile_start();
  ulong any = 0;
  ulong all = ~(ulong)0;
  uint descent = 0;
  uint ascent = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n && (has_nulls == 0 || nulls[i] == 0)) {
      const ulong key = sort_key_image(values, type, width, offset, i);
      any |= key;
      all &= key;
      if (check_order != 0 && i + 1 < n) {
        const ulong next = sort_key_image(values, type, width, offset, i + 1);
        descent |= key > next ? 1u : 0u;
        ascent |= key < next ? 1u : 0u;
      }
    }
  }
  if (any != 0) {
    atomic_or(&words[0], (uint)any);
    atomic_or(&words[1], (uint)(any >> 32));
  }
  if (all != ~(ulong)0) {
    atomic_and(&words[2], (uint)all);
    atomic_and(&words[3], (uint)(all >> 32));
  }
  if (descent != 0) atomic_or(&words[4], 1u);
  if (ascent != 0) atomic_or(&words[5], 1u);
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    atomic_or(&bits[0], words[0]);
    atomic_or(&bits[1], words[1]);
    atomic_and(&bits[2], words[2]);
    atomic_and(&bits[3], words[3]);
    if (words[4] != 0) atomic_or(&bits[4], 1u);
    if (words[5] != 0) atomic_or(&bits[5], 1u);
  }
}

// Stable scatter: work-item l owns the IPT consecutive positions from
// tile_start + l * IPT, so (work-item, item) order is input order; a
// work-group scan per digit gives each work-item its offset among the tile's
// positions with that digit, added to the scanned tile offset.
KERNEL void sort_scatter_nulls(__global const uint* perm, ulong n, __global const uchar* nulls,
                               uint descending, __global const uint* tile_offsets, ulong tiles,
                               __global uint* perm_out) {
  __local uint table[PADDED(SORT_BUCKETS * WG_SIZE)];
  __local uint scratch[WG_SIZE + 1];
  const uint lid = get_local_id(0);
  const ulong first = tile_start() + (ulong)lid * IPT;
  uint rows[IPT];
  uchar digits[IPT];
  uint offsets[SORT_BUCKETS];
  for (uint b = 0; b < SORT_BUCKETS; ++b) offsets[b] = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = first + k;
    if (i < n) {
      rows[k] = perm[i];
      const uint d = sort_null_digit(nulls, descending, rows[k]);
      digits[k] = (uchar)d;
      ++offsets[d];
    }
  }
  sort_scatter_offsets(offsets, table, scratch, tile_offsets, tiles);
  for (uint k = 0; k < IPT; ++k) {
    if (first + k < n) perm_out[offsets[digits[k]]++] = rows[k];
  }
}

// Radix select: histogram[digit] += the non-NULL values whose key (XOR
// `flip`: all ones for DESC) matches `prefix` under `mask`, by their digit at
// `shift`.
KERNEL void sort_select_histogram(__global const uchar* values, __global const uchar* nulls,
                                  uint has_nulls, uint type, ulong n, ulong flip, ulong prefix,
                                  ulong mask, uint shift, __global uint* histogram) {
  __local uint counts[SORT_BUCKETS * WG_SIZE];
  const uint lid = get_local_id(0);
  uint mine[SORT_BUCKETS];
  for (uint b = 0; b < SORT_BUCKETS; ++b) mine[b] = 0;
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n && (has_nulls == 0 || nulls[i] == 0)) {
      const ulong key = sort_numeric_key(values, type, i) ^ flip;
      if ((key & mask) == prefix) ++mine[(uint)(key >> shift) & (SORT_BUCKETS - 1)];
    }
  }
  for (uint b = 0; b < SORT_BUCKETS; ++b) counts[b * WG_SIZE + lid] = mine[b];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < SORT_BUCKETS; b += WG_SIZE) {
    uint total = 0;
    for (uint l = 0; l < WG_SIZE; ++l) total += counts[b * WG_SIZE + l];
    if (total != 0) atomic_add(&histogram[b], total);
  }
}

// Radix select narrowing: flags[i] = 1 for the non-NULL values whose image
// (XOR flip) matches `prefix` under `mask` ...
KERNEL void sort_select_flags(__global const uchar* values, __global const uchar* nulls,
                              uint has_nulls, uint type, ulong n, ulong flip, ulong prefix,
                              ulong mask, __global uint* flags) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) {
      flags[i] = (has_nulls == 0 || nulls[i] == 0) &&
                 ((sort_numeric_key(values, type, i) ^ flip) & mask) == prefix;
    }
  }
}

// ... and their images (XOR flip) packed to images[offsets[i]], so the
// remaining passes read only the candidates.
KERNEL void sort_select_compact(__global const uchar* values, uint type, ulong n, ulong flip,
                                __global const uint* flags, __global const uint* offsets,
                                __global ulong* images) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n && flags[i] != 0) images[offsets[i]] = sort_numeric_key(values, type, i) ^ flip;
  }
}
