// Equi-join kernels (host side: operators/hash_join.cpp, join_chained.cpp,
// join_cuckoo.cpp). Keys arrive as INT32 or INT64 columns (`wide` = 1 for
// 8-byte keys) with an optional NULL map (`has_nulls`; 1 = NULL, never
// matches); every comparison is on 64-bit values, so mixed widths join.
//
// The table here is the chained one: keys counted per bucket, bucket counts
// scanned, rows scattered into their bucket's range, each bucket sorted by
// build row; 32-bit atomics only, any keys, duplicates allowed. The
// always-correct path. The cuckoo table (join_cuckoo.cl), the direct table
// (join_direct.cl) and the dense multimap (join_dense.cl) use the helpers
// below: those files come after this one in the program (kernel files are
// concatenated in name order). The cuckoo probe and the GPU direct probe
// leave at most one match per probe row in `matches`, written out by
// hash_join_unique_write.

#define HASH_JOIN_NO_ROW 0xFFFFFFFFu
#define HASH_JOIN_EMPTY 0xFFFFFFFFFFFFFFFFUL
#define HASH_JOIN_FUNCTIONS 4
#define HASH_JOIN_FAILED 1u
#define HASH_JOIN_DUPLICATE 2u

inline long hash_join_key(__global const uchar* keys, uint wide, ulong i) {
  return wide ? ((__global const long*)keys)[i] : (long)((__global const int*)keys)[i];
}

// `nulls` is a dummy buffer when has_nulls == 0; the && keeps it unread.
inline bool hash_join_is_null(__global const uchar* nulls, uint has_nulls, ulong i) {
  return has_nulls != 0 && nulls[i] != 0;
}

// MurmurHash3's 64-bit finaliser: every key bit reaches every bucket bit.
// The number of matches of this work-group's tile of probe rows into
// tile_counts[group] (scanned by the host into the tiles' output offsets).
inline void hash_join_write_tile_count(uint found, __global uint* tile_counts,
                                       __local ulong* scratch) {
  const ulong total = work_group_sum_ulong(found, scratch);
  if (get_local_id(0) == 0) tile_counts[get_group_id(0)] = (uint)total;
}

inline ulong hash_join_mix64(ulong x) {
  x ^= x >> 33;
  x *= 0xff51afd7ed558ccdUL;
  x ^= x >> 33;
  x *= 0xc4ceb9fe1a85ec53UL;
  x ^= x >> 33;
  return x;
}

inline uint hash_join_mix32(uint x) {
  x ^= x >> 16;
  x *= 0x85ebca6bu;
  x ^= x >> 13;
  x *= 0xc2b2ae35u;
  x ^= x >> 16;
  return x;
}

inline uint hash_join_bucket(long key, ulong seed, uint mask) {
  return (uint)hash_join_mix64((ulong)key ^ seed) & mask;
}

// ---------------------------------------------------------------------------
// Reductions: key range of the build side, 64-bit sum of probe match counts.

inline void hash_join_store_range(long lo, long hi, __local long* s_lo, __local long* s_hi,
                                  __global long* out_lo, __global long* out_hi) {
  const uint lid = get_local_id(0);
  s_lo[lid] = lo;
  s_hi[lid] = hi;
  barrier(CLK_LOCAL_MEM_FENCE);
#if DEVICE_IS_CPU
  if (lid == 0) {
    for (uint i = 1; i < WG_SIZE; ++i) {
      s_lo[0] = min(s_lo[0], s_lo[i]);
      s_hi[0] = max(s_hi[0], s_hi[i]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#else
  for (uint offset = WG_SIZE / 2; offset > 0; offset >>= 1) {
    if (lid < offset) {
      s_lo[lid] = min(s_lo[lid], s_lo[lid + offset]);
      s_hi[lid] = max(s_hi[lid], s_hi[lid + offset]);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
  if (lid == 0) {
    out_lo[get_group_id(0)] = s_lo[0];
    out_hi[get_group_id(0)] = s_hi[0];
  }
}

// Per-tile minimum and maximum of the non-NULL keys (LONG_MAX / LONG_MIN
// when a tile has none).
KERNEL void hash_join_key_range(__global const uchar* keys, uint wide, __global const uchar* nulls,
                                uint has_nulls, ulong n, __global long* out_lo,
                                __global long* out_hi) {
  __local long s_lo[WG_SIZE];
  __local long s_hi[WG_SIZE];
  const ulong start = tile_start();
  long lo = LONG_MAX;
  long hi = LONG_MIN;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n && !hash_join_is_null(nulls, has_nulls, i)) {
      const long key = hash_join_key(keys, wide, i);
      lo = min(lo, key);
      hi = max(hi, key);
    }
  }
  hash_join_store_range(lo, hi, s_lo, s_hi, out_lo, out_hi);
}

// Merges per-tile ranges (the output of hash_join_key_range) per tile.
KERNEL void hash_join_range_merge(__global const long* in_lo, __global const long* in_hi, ulong n,
                                  __global long* out_lo, __global long* out_hi) {
  __local long s_lo[WG_SIZE];
  __local long s_hi[WG_SIZE];
  const ulong start = tile_start();
  long lo = LONG_MAX;
  long hi = LONG_MIN;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) {
      lo = min(lo, in_lo[i]);
      hi = max(hi, in_hi[i]);
    }
  }
  hash_join_store_range(lo, hi, s_lo, s_hi, out_lo, out_hi);
}

// Per-tile sums of 64-bit values.
KERNEL void hash_join_sum_merge(__global const ulong* in, ulong n, __global ulong* out) {
  __local ulong scratch[WG_SIZE];
  const ulong start = tile_start();
  ulong sum = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) sum += in[i];
  }
  const ulong total = work_group_sum_ulong(sum, scratch);
  if (get_local_id(0) == 0) out[get_group_id(0)] = total;
}

// ---------------------------------------------------------------------------
// Chained table: bucket_offsets[b] .. bucket_offsets[b + 1] are bucket b's
// slots in slot_keys / slot_rows, sorted by build row.

KERNEL void hash_join_chain_count(__global const uchar* keys, uint wide,
                                  __global const uchar* nulls, uint has_nulls, ulong n, ulong seed,
                                  uint mask, __global uint* bucket_counts) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n && !hash_join_is_null(nulls, has_nulls, i))
      atomic_inc(&bucket_counts[hash_join_bucket(hash_join_key(keys, wide, i), seed, mask)]);
  }
}

// `cursors` starts zeroed; slots within a bucket land in any order.
KERNEL void hash_join_chain_scatter(__global const uchar* keys, uint wide,
                                    __global const uchar* nulls, uint has_nulls, ulong n,
                                    ulong seed, uint mask, __global const uint* bucket_offsets,
                                    __global uint* cursors, __global long* slot_keys,
                                    __global uint* slot_rows) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n && !hash_join_is_null(nulls, has_nulls, i)) {
      const long key = hash_join_key(keys, wide, i);
      const uint b = hash_join_bucket(key, seed, mask);
      const uint slot = bucket_offsets[b] + atomic_inc(&cursors[b]);
      slot_keys[slot] = key;
      slot_rows[slot] = (uint)i;
    }
  }
}

inline void hash_join_swap_slots(__global long* keys, __global uint* rows, uint a, uint b) {
  const long key = keys[a];
  keys[a] = keys[b];
  keys[b] = key;
  const uint row = rows[a];
  rows[a] = rows[b];
  rows[b] = row;
}

inline void hash_join_sift_down(__global long* keys, __global uint* rows, uint base, uint root,
                                uint end) {
  while (2 * (ulong)root + 1 < end) {
    uint child = 2 * root + 1;
    if (child + 1 < end && rows[base + child] < rows[base + child + 1]) ++child;
    if (rows[base + root] >= rows[base + child]) return;
    hash_join_swap_slots(keys, rows, base + root, base + child);
    root = child;
  }
}

// Sorts every bucket of at most a tile by build row, so that a probe row's
// matches come out in ascending build position on every device: insertion
// sort for the short buckets of distinct keys, heapsort (O(m log m), no
// recursion) up to a tile. Larger buckets (many duplicates) are listed in
// large_buckets for hash_join_chain_sort_large: a serial sort of a bucket of
// 10^6 rows would take seconds on one GPU work-item.
KERNEL void hash_join_chain_sort(__global const uint* bucket_offsets, ulong buckets,
                                 __global long* slot_keys, __global uint* slot_rows,
                                 __global uint* large_buckets, __global uint* large_count) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong b = tile_item(start, k);
    if (b >= buckets) continue;
    const uint base = bucket_offsets[b];
    const uint count = bucket_offsets[b + 1] - base;
    if (count > TILE) {
      large_buckets[atomic_inc(large_count)] = (uint)b;
    } else if (count <= 16) {
      for (uint j = 1; j < count; ++j) {
        const long key = slot_keys[base + j];
        const uint row = slot_rows[base + j];
        uint p = j;
        while (p > 0 && slot_rows[base + p - 1] > row) {
          slot_keys[base + p] = slot_keys[base + p - 1];
          slot_rows[base + p] = slot_rows[base + p - 1];
          --p;
        }
        slot_keys[base + p] = key;
        slot_rows[base + p] = row;
      }
    } else {
      for (uint root = count / 2; root-- > 0;)
        hash_join_sift_down(slot_keys, slot_rows, base, root, count);
      for (uint end = count - 1; end > 0; --end) {
        hash_join_swap_slots(slot_keys, slot_rows, base, base + end);
        hash_join_sift_down(slot_keys, slot_rows, base, 0, end);
      }
    }
  }
}

// Sorts the buckets listed by hash_join_chain_sort, one work-group per
// bucket (groups stride over the list): a bottom-up merge sort of the rows
// between slot_rows and temp_rows, each pass split evenly over the
// work-items by merge path (a binary search for each work-item's first
// output), so a pass costs m / WG_SIZE steps per work-item. Rows are
// distinct, so there are no ties. The keys are then rewritten from the build
// column. The list's length is read by every work-item: control flow around
// the barriers is uniform.
KERNEL void hash_join_chain_sort_large(__global const uchar* keys, uint wide,
                                       __global const uchar* nulls, uint has_nulls, ulong n,
                                       __global const uint* bucket_offsets,
                                       __global const uint* large_buckets,
                                       __global const uint* large_count, __global long* slot_keys,
                                       __global uint* slot_rows, __global uint* temp_rows) {
  const uint lid = get_local_id(0);
  const uint listed = *large_count;
  for (uint e = get_group_id(0); e < listed; e += get_num_groups(0)) {
    const uint b = large_buckets[e];
    const uint base = bucket_offsets[b];
    const uint m = bucket_offsets[b + 1] - base;
    __global uint* from = slot_rows + base;
    __global uint* to = temp_rows + base;
    const uint chunk = (m + WG_SIZE - 1) / WG_SIZE;
    const uint first = min(m, lid * chunk);
    const uint last = min(m, first + chunk);
    for (uint width = 1; width < m; width *= 2) {
      uint p = first;
      while (p < last) {
        const uint lo = p / (2 * width) * (2 * width);
        const uint mid = min(m, lo + width);
        const uint hi = min(m, lo + 2 * width);
        const uint na = mid - lo, nb = hi - mid;
        __global const uint* a = from + lo;
        __global const uint* bb = from + mid;
        const uint q = p - lo;
        // Merge path: i outputs before q come from a, q - i from bb.
        uint left = q > nb ? q - nb : 0;
        uint right = min(q, na);
        while (left < right) {
          const uint probe = (left + right) / 2;
          if (a[probe] < bb[q - probe - 1])
            left = probe + 1;
          else
            right = probe;
        }
        uint i = left, j = q - left;
        const uint end = min(last, hi);
        for (uint out = p; out < end; ++out)
          to[out] = (j >= nb || (i < na && a[i] < bb[j])) ? a[i++] : bb[j++];
        p = end;
      }
      barrier(CLK_GLOBAL_MEM_FENCE);
      __global uint* swap = from;
      from = to;
      to = swap;
    }
    // The sorted rows are in `from`; back into slot_rows with their keys.
    for (uint x = lid; x < m; x += WG_SIZE) {
      const uint row = from[x];
      slot_rows[base + x] = row;
      slot_keys[base + x] = hash_join_key(keys, wide, row);
    }
    barrier(CLK_GLOBAL_MEM_FENCE);
  }
}

// Matches per probe row into counts[i]; per-tile 64-bit sums into tile_sums
// (the output may exceed 2^32 pairs; the host checks before scanning).
KERNEL void hash_join_chain_probe_count(__global const uchar* keys, uint wide,
                                        __global const uchar* nulls, uint has_nulls, ulong n,
                                        ulong seed, uint mask, __global const uint* bucket_offsets,
                                        __global const long* slot_keys, __global uint* counts,
                                        __global ulong* tile_sums) {
  __local ulong scratch[WG_SIZE];
  const ulong start = tile_start();
  ulong mine = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n) continue;
    uint matches = 0;
    if (!hash_join_is_null(nulls, has_nulls, i)) {
      const long key = hash_join_key(keys, wide, i);
      const uint b = hash_join_bucket(key, seed, mask);
      const uint end = bucket_offsets[b + 1];
      for (uint s = bucket_offsets[b]; s < end; ++s)
        matches += slot_keys[s] == key;
    }
    counts[i] = matches;
    mine += matches;
  }
  const ulong total = work_group_sum_ulong(mine, scratch);
  if (get_local_id(0) == 0) tile_sums[get_group_id(0)] = total;
}

// Writes probe row i's matches from out_offsets[i] on, in bucket (= build
// row) order.
KERNEL void hash_join_chain_probe_write(__global const uchar* keys, uint wide,
                                        __global const uchar* nulls, uint has_nulls, ulong n,
                                        ulong seed, uint mask, __global const uint* bucket_offsets,
                                        __global const long* slot_keys,
                                        __global const uint* slot_rows,
                                        __global const uint* out_offsets, __global uint* out_build,
                                        __global uint* out_probe) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n || hash_join_is_null(nulls, has_nulls, i)) continue;
    const long key = hash_join_key(keys, wide, i);
    const uint b = hash_join_bucket(key, seed, mask);
    const uint end = bucket_offsets[b + 1];
    uint out = out_offsets[i];
    for (uint s = bucket_offsets[b]; s < end; ++s) {
      if (slot_keys[s] == key) {
        out_build[out] = slot_rows[s];
        out_probe[out] = (uint)i;
        ++out;
      }
    }
  }
}

// Writes the pairs of one tile of probe rows (each with at most one match)
// from the tile's scanned offset on, in probe-row order: each work-item takes
// IPT consecutive rows, a work-group scan orders them, and the pairs are
// compacted in local memory so that consecutive work-items write consecutive
// positions (a per-row scan of 60M probe rows took 0.56 ms on the H100).
// A tile without matches leaves before any barrier (`pairs`, the total,
// bounds the last tile): a join that matches few probe rows re-read every
// tile's matches and scanned them (the combined query, 60M probe rows, 5,000
// pairs: 0.218 ms on the H100).
KERNEL void hash_join_unique_write(__global const uint* matches, ulong n,
                                   __global const uint* tile_offsets, __global uint* out_build,
                                   __global uint* out_probe, uint pairs) {
  __local uint scratch[WG_SIZE + 1];
  __local uint build_rows[TILE];
  __local uint probe_rows[TILE];
  const uint group = get_group_id(0);
  if (scanned_tile_is_empty(tile_offsets, group, get_num_groups(0), pairs)) return;
  const uint lid = get_local_id(0);
  const ulong first = tile_start() + (ulong)lid * IPT;
  uint mine = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = first + k;
    if (i < n && matches[i] != HASH_JOIN_NO_ROW) ++mine;
  }
  uint total;
  uint position = work_group_scan_exclusive_uint(mine, scratch, &total);
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = first + k;
    if (i >= n) break;
    const uint row = matches[i];
    if (row != HASH_JOIN_NO_ROW) {
      build_rows[position] = row;
      probe_rows[position] = (uint)i;
      ++position;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint base = tile_offsets[group];
  for (uint j = lid; j < total; j += WG_SIZE) {
    out_build[base + j] = build_rows[j];
    out_probe[base + j] = probe_rows[j];
  }
}

// LEFT JOIN: the joined side's rows that matched nothing (host side:
// operators/join_unmatched.cpp). First matched[p] = 1 for every matched
// position (the host zeroes `matched`; a row matched twice is written twice
// with the same value).
KERNEL void hash_join_mark_matched(__global const uint* positions, ulong n,
                                   __global uchar* matched) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) matched[positions[i]] = 1;
  }
}

// Then the rows not matched as a selection bitmap over `rows` rows, one work
// item per 32-row word, with each tile's count (TILE rows a tile, as
// vm_filter writes them; the host zeroes tile_counts) for selection_scatter.
KERNEL void hash_join_unmatched_bits(__global const uchar* matched, ulong rows,
                                     __global uint* bits, __global uint* tile_counts) {
  const ulong words = (rows + 31) / 32;
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong w = tile_item(start, k);
    if (w >= words) continue;
    uint word = 0;
    for (uint b = 0; b < 32; ++b) {
      const ulong row = w * 32 + b;
      if (row < rows && matched[row] == 0) word |= 1u << b;
    }
    bits[w] = word;
    if (word == 0) continue;
    const ulong first_tile = (w * 32) / TILE, last_tile = (w * 32 + 31) / TILE;
    if (first_tile == last_tile) {
      atomic_add(&tile_counts[first_tile], popcount(word));
    } else {
      for (uint b = 0; b < 32; ++b)
        if ((word >> b) & 1u) atomic_inc(&tile_counts[(w * 32 + b) / TILE]);
    }
  }
}
