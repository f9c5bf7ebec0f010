// Direct table (host side: operators/join_direct.cpp): slots[key - key_min]
// = the build row, HASH_JOIN_NO_ROW when free, for unique build keys of a
// dense range. Two builds and two probes of the same table:
//  - join_direct_insert / join_direct_probe (GPUs): each build row claims
//    its slot by compare-and-swap, so a lost swap is a duplicate key;
//    one load per probe row.
//  - join_direct_store / join_direct_bitmap / join_direct_probe_count /
//    join_direct_probe_write (CPUs): plain stores, then one pass over the
//    table that counts the filled slots (fewer than the stored rows means a
//    key repeats) and writes a bitmap of them; the probe counts the set bits
//    of its keys per tile, and the writer, after the scan of the counts,
//    tests the bits again and loads the slots of the rows that pass in a
//    second, tight loop. On a CPU a locked
//    compare-and-swap per row costs more than the counting pass, a table
//    larger than the caches costs a memory round trip per probe row, and a
//    loop whose loads wait behind mispredicted branches keeps few of them in
//    flight: the bitmap (1 bit per slot) stays in cache and settles the
//    misses, and the second loop issues only independent loads.

// Atomics are coherent where plain loads are not (see the cuckoo insert), so
// the duplicate flag needs no check pass.
KERNEL void join_direct_insert(__global const uchar* keys, uint wide, __global const uchar* nulls,
                               uint has_nulls, ulong n, long key_min, __global uint* slots,
                               __global uint* flags) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n || hash_join_is_null(nulls, has_nulls, i)) continue;
    const ulong slot = (ulong)hash_join_key(keys, wide, i) - (ulong)key_min;
    if (atomic_cmpxchg(&slots[slot], HASH_JOIN_NO_ROW, (uint)i) != HASH_JOIN_NO_ROW)
      atomic_or(flags, HASH_JOIN_DUPLICATE);
  }
}

// matches[i] = the build row of probe row i's key or HASH_JOIN_NO_ROW;
// tile_counts as the cuckoo probe's. Keys outside [key_min, key_min +
// key_span] miss without reading the table.
KERNEL void join_direct_probe(__global const uchar* keys, uint wide, __global const uchar* nulls,
                              uint has_nulls, ulong n, long key_min, ulong key_span,
                              __global const uint* slots, __global uint* matches,
                              __global uint* tile_counts) {
  __local ulong scratch[WG_SIZE];
  const ulong start = tile_start();
  uint found = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n) continue;
    uint row = HASH_JOIN_NO_ROW;
    if (!hash_join_is_null(nulls, has_nulls, i)) {
      const long key = hash_join_key(keys, wide, i);
      const ulong offset = (ulong)key - (ulong)key_min;
      if (key >= key_min && offset <= key_span) row = slots[offset];
    }
    matches[i] = row;
    found += row != HASH_JOIN_NO_ROW;
  }
  hash_join_write_tile_count(found, tile_counts, scratch);
}

// Every non-NULL build row stores its row number in its key's slot; the
// number of rows stored per tile goes to stored[group]. Two rows of one key
// race for one slot and either may land: the slot count then falls short of
// the stored rows, which is all join_direct_bitmap needs to tell.
KERNEL void join_direct_store(__global const uchar* keys, uint wide, __global const uchar* nulls,
                              uint has_nulls, ulong n, long key_min, __global uint* slots,
                              __global ulong* stored) {
  __local ulong scratch[WG_SIZE];
  const ulong start = tile_start();
  uint mine = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n || hash_join_is_null(nulls, has_nulls, i)) continue;
    slots[(ulong)hash_join_key(keys, wide, i) - (ulong)key_min] = (uint)i;
    ++mine;
  }
  const ulong total = work_group_sum_ulong(mine, scratch);
  if (get_local_id(0) == 0) stored[get_group_id(0)] = total;
}

// Bit b of bits[w] = slot 32 w + b is filled; filled[group] = the filled
// slots of this tile of words.
KERNEL void join_direct_bitmap(__global const uint* slots, ulong slot_count, __global uint* bits,
                               __global ulong* filled) {
  __local ulong scratch[WG_SIZE];
  const ulong words = (slot_count + 31) / 32;
  const ulong start = tile_start();
  uint mine = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong w = tile_item(start, k);
    if (w >= words) continue;
    const uint valid = (uint)min((ulong)32, slot_count - w * 32);
    uint word = 0;
    for (uint b = 0; b < valid; ++b)
      word |= (uint)(slots[w * 32 + b] != HASH_JOIN_NO_ROW) << b;
    bits[w] = word;
    mine += popcount(word);
  }
  const ulong total = work_group_sum_ulong(mine, scratch);
  if (get_local_id(0) == 0) filled[get_group_id(0)] = total;
}

// The CPU probe: join_direct_probe_count counts each work-item's matches (a
// set bit is a filled slot, so a match), the host scans the counts, and
// join_direct_probe_write writes the pairs. A work-item takes IPT
// consecutive probe rows; its first loop lists the rows whose bit is set,
// the second loads their slots and writes the pairs in row order from the
// work-item's own offset (no work-group scan, no barrier).
inline uint join_direct_slot(__global const uchar* keys, uint wide, __global const uchar* nulls,
                             uint has_nulls, ulong i, long key_min, ulong key_span,
                             __global const uint* bits, uint* slot) {
  const long key = hash_join_key(keys, wide, i);
  const ulong offset = (ulong)key - (ulong)key_min;
  const uint in_range =
      !hash_join_is_null(nulls, has_nulls, i) && key >= key_min && offset <= key_span;
  const uint s = in_range ? (uint)offset : 0;
  *slot = s;
  return (bits[s / 32] >> (s % 32)) & in_range;
}

KERNEL void join_direct_probe_count(__global const uchar* keys, uint wide,
                                    __global const uchar* nulls, uint has_nulls, ulong n,
                                    long key_min, ulong key_span, __global const uint* bits,
                                    __global uint* item_counts) {
  const ulong first = tile_start() + (ulong)get_local_id(0) * IPT;
  uint found = 0;
  for (uint k = 0; k < IPT; ++k) {
    uint slot;
    if (first + k < n)
      found +=
          join_direct_slot(keys, wide, nulls, has_nulls, first + k, key_min, key_span, bits, &slot);
  }
  item_counts[get_global_id(0)] = found;
}

// Lists the rows of a work-item's IPT consecutive probe rows from `first`
// whose bit is set: their positions after `first` in at[], their slots in
// slot[]; returns how many.
inline uint join_direct_list(__global const uchar* keys, uint wide, __global const uchar* nulls,
                             uint has_nulls, ulong n, ulong first, long key_min, ulong key_span,
                             __global const uint* bits, uint* at, uint* slot) {
  uint listed = 0;
  for (uint k = 0; k < IPT; ++k) {
    uint s = 0;
    const uint hit = first + k < n && join_direct_slot(keys, wide, nulls, has_nulls, first + k,
                                                       key_min, key_span, bits, &s);
    at[listed] = k;
    slot[listed] = s;
    listed += hit;
  }
  return listed;
}

// Writes the pairs of a work-item's IPT consecutive probe rows from its
// scanned offset on (item_offsets; `pairs`, the total, ends the last).
KERNEL void join_direct_probe_write(__global const uchar* keys, uint wide,
                                    __global const uchar* nulls, uint has_nulls, ulong n,
                                    long key_min, ulong key_span, __global const uint* bits,
                                    __global const uint* slots, __global const uint* item_offsets,
                                    uint pairs, __global uint* out_build,
                                    __global uint* out_probe) {
  const ulong id = get_global_id(0);
  const uint out = item_offsets[id];
  const uint end = id + 1 < get_global_size(0) ? item_offsets[id + 1] : pairs;
  if (out == end) return;
  const ulong first = tile_start() + (ulong)get_local_id(0) * IPT;
  uint at[IPT];    // the listed rows (positions after `first`)
  uint slot[IPT];  // and their slots
  const uint listed = join_direct_list(keys, wide, nulls, has_nulls, n, first, key_min, key_span,
                                       bits, at, slot);
  for (uint j = 0; j < listed; ++j) {
    out_build[out + j] = slots[slot[j]];
    out_probe[out + j] = (uint)(first + at[j]);
  }
}

// Rank table (host side: operators/join_rank.cpp), for unique build keys
// too sparse for the direct table: the same bitmap of filled slots, plus
// ranks[w] = the bits set in the words before w, and rows[] = the build
// rows in key order. Slot s holds build row rows[join_rank_of(s)]. It takes
// 2 bits per value of the range where the direct table takes 32 (and 4
// bytes per build row), so a range 16 times wider costs the same memory;
// the probe tests the bitmap as the direct probe does
// (join_direct_probe_count), and only its hits read a rank and a row.

inline uint join_rank_of(__global const uint* bits, __global const uint* ranks, uint slot) {
  const uint w = slot / 32;
  const uint below = (1u << (slot % 32)) - 1u;
  return ranks[w] + popcount(bits[w] & below);
}

// Sets the bit of each non-NULL build key's slot (bits zeroed before);
// stored[group] = the rows this tile marked. Rows of one key set one bit:
// the bits then count fewer than the rows, which tells a repeated key.
KERNEL void join_rank_mark(__global const uchar* keys, uint wide, __global const uchar* nulls,
                           uint has_nulls, ulong n, long key_min, __global uint* bits,
                           __global ulong* stored) {
  __local ulong scratch[WG_SIZE];
  const ulong start = tile_start();
  uint mine = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n || hash_join_is_null(nulls, has_nulls, i)) continue;
    const uint slot = (uint)((ulong)hash_join_key(keys, wide, i) - (ulong)key_min);
    atomic_or(&bits[slot / 32], 1u << (slot % 32));
    ++mine;
  }
  const ulong total = work_group_sum_ulong(mine, scratch);
  if (get_local_id(0) == 0) stored[get_group_id(0)] = total;
}

// counts[w] = the bits set in bits[w] (then scanned into the ranks).
KERNEL void join_rank_popcount(__global const uint* bits, ulong words, __global uint* counts) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong w = tile_item(start, k);
    if (w < words) counts[w] = popcount(bits[w]);
  }
}

// rows[rank of each non-NULL build row's slot] = that row (keys unique).
KERNEL void join_rank_scatter(__global const uchar* keys, uint wide, __global const uchar* nulls,
                              uint has_nulls, ulong n, long key_min, __global const uint* bits,
                              __global const uint* ranks, __global uint* rows) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n || hash_join_is_null(nulls, has_nulls, i)) continue;
    const uint slot = (uint)((ulong)hash_join_key(keys, wide, i) - (ulong)key_min);
    rows[join_rank_of(bits, ranks, slot)] = (uint)i;
  }
}

// Repeated build keys: out[i] = the rank of key i's slot, -1 where its bit
// is not set (or it is NULL or outside the range), so that the dense
// multimap joins the ranks: one bucket per distinct build key.
KERNEL void join_rank_map(__global const uchar* keys, uint wide, __global const uchar* nulls,
                          uint has_nulls, ulong n, long key_min, ulong key_span,
                          __global const uint* bits, __global const uint* ranks,
                          __global int* out) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n) continue;
    uint slot;
    const uint hit = join_direct_slot(keys, wide, nulls, has_nulls, i, key_min, key_span, bits,
                                      &slot);
    out[i] = hit ? (int)join_rank_of(bits, ranks, slot) : -1;
  }
}

// join_direct_probe_write's pairs, the build row found through the ranks.
KERNEL void join_rank_probe_write(__global const uchar* keys, uint wide,
                                  __global const uchar* nulls, uint has_nulls, ulong n,
                                  long key_min, ulong key_span, __global const uint* bits,
                                  __global const uint* ranks, __global const uint* rows,
                                  __global const uint* item_offsets, uint pairs,
                                  __global uint* out_build, __global uint* out_probe) {
  const ulong id = get_global_id(0);
  const uint out = item_offsets[id];
  const uint end = id + 1 < get_global_size(0) ? item_offsets[id + 1] : pairs;
  if (out == end) return;
  const ulong first = tile_start() + (ulong)get_local_id(0) * IPT;
  uint at[IPT];
  uint slot[IPT];
  const uint listed = join_direct_list(keys, wide, nulls, has_nulls, n, first, key_min, key_span,
                                       bits, at, slot);
  for (uint j = 0; j < listed; ++j) {
    out_build[out + j] = rows[join_rank_of(bits, ranks, slot[j])];
    out_probe[out + j] = (uint)(first + at[j]);
  }
}
