// Second pass of selection: turns the predicate bitmap of vm_filter and the
// scanned per-tile counts into row ids, in row order.

// Each work-item takes IPT consecutive rows of the tile (bits of one word on
// GPUs, where IPT < 32; whole words on CPUs), so the work-group's exclusive
// scan of the counts orders the ids. The ids are compacted in local memory
// first and then written with consecutive work-items at consecutive
// positions: writing them straight from the bits left each work-item writing
// its own run, 32 cache lines per warp store, several times slower.
#if IPT < 32
#define SELECTION_WORDS_PER_ITEM 1
#else
#define SELECTION_WORDS_PER_ITEM (IPT / 32)
#endif

// Row ids are row_base + tablet row; they go to row_ids[out_base + position].
// `selected` is the tablet's total, which bounds the last tile's count. A
// work-group takes tiles_per_group consecutive tiles of the `tiles`.
KERNEL void selection_scatter(__global const uint* bits, ulong n, __global const uint* tile_offsets,
                              uint row_base, __global uint* row_ids, ulong out_base,
                              uint selected, uint tiles, uint tiles_per_group) {
  __local uint scratch[WG_SIZE + 1];
  __local uint ids[TILE];
  const ulong word_count = (n + 31) / 32;
  const uint lid = get_local_id(0);
  const uint first_row = lid * IPT;  // within the tile
  const uint first_tile = (uint)get_group_id(0) * tiles_per_group;
  const uint end_tile = min(first_tile + tiles_per_group, tiles);
  for (uint tile = first_tile; tile < end_tile; ++tile) {
    // A tile without selected rows is skipped before any barrier (the whole
    // group reads the same offsets): a sparse selection otherwise paid a
    // local scan per tile. A group takes several tiles, since a group per
    // tile still cost a group for every empty tile.
    if (scanned_tile_is_empty(tile_offsets, tile, tiles, selected)) continue;
    const ulong start = (ulong)tile * TILE;
    uint words[SELECTION_WORDS_PER_ITEM];
    uint mine = 0;
    for (uint j = 0; j < SELECTION_WORDS_PER_ITEM; ++j) {
      const ulong index = (start + first_row) / 32 + j;
      uint word = index < word_count ? bits[index] : 0;
#if IPT < 32
      word = (word >> (first_row % 32)) & ((1u << IPT) - 1u);
#endif
      words[j] = word;
      mine += popcount(word);
    }
    uint total;
    uint position = work_group_scan_exclusive_uint(mine, scratch, &total);
    for (uint j = 0; j < SELECTION_WORDS_PER_ITEM; ++j) {
      uint word = words[j];
      const uint base = row_base + (uint)start + first_row + j * 32;
      while (word != 0) {
        const uint bit = 31 - clz(word & (0u - word));  // lowest set bit
        ids[position++] = base + bit;
        word &= word - 1;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    __global uint* out = row_ids + out_base + tile_offsets[tile];
    for (uint i = lid; i < total; i += WG_SIZE) out[i] = ids[i];
    barrier(CLK_LOCAL_MEM_FENCE);  // ids and scratch are the next tile's
  }
}

// First pass of a selection whose leading conjunct is a range test of an
// INT32 column without NULLs (lo <= value <= hi), when the host expects it
// to keep few rows: the tile's bitmap words and count, as vm_filter writes
// them, and each tile that kept a row appended to live_tiles[1 ..] (the
// count in live_tiles[0], zeroed by the host) for vm_filter to refine with
// the other conjuncts. No interpreter: a kernel this small runs at the
// occupancy the interpreter's registers deny vm_filter.
KERNEL void filter_range_tiles(__global const int* column, ulong n, long lo, long hi,
                               __global uint* bits, __global uint* tile_counts,
                               __global uint* live_tiles) {
  __local uchar flags[TILE + TILE / 8];
  __local uint word_counts[TILE / 32];
  const uint tile = get_group_id(0);
  const ulong start = (ulong)tile * TILE;
  const uint rows = tile_rows(start, n);
  uchar flag[IPT];
  if (rows == TILE) {
    VECTORIZE_ITEMS for (uint k = 0; k < IPT; ++k) {
      const long x = column[start + tile_offset(k)];
      flag[k] = (x >= lo) & (x <= hi);
    }
  } else {
    for (uint k = 0; k < IPT; ++k) {
      const uint p = tile_offset(k);
      const long x = p < rows ? column[start + p] : 0;
      flag[k] = p < rows && x >= lo && x <= hi;
    }
  }
  const uint kept = tile_bitmap(flag, tile, rows, bits, tile_counts, flags, word_counts);
  if (get_local_id(0) == 0 && kept != 0) live_tiles[1 + atomic_inc(live_tiles)] = tile;
}
