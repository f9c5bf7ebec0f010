// Second pass of selection: turns the predicate bitmap of vm_filter and the
// scanned per-tile counts into row ids, in row order.

#define SELECTION_WORDS (TILE / 32)
#define SELECTION_WORDS_PER_ITEM ((SELECTION_WORDS + WG_SIZE - 1) / WG_SIZE)

// Row ids are row_base + tablet row; they go to row_ids[out_base + position].
KERNEL void selection_scatter(__global const uint* bits, ulong n, __global const uint* tile_offsets,
                              uint row_base, __global uint* row_ids, ulong out_base) {
  __local uint scratch[WG_SIZE + 1];
  const ulong start = tile_start();
  const ulong first_word = start / 32;
  const ulong word_count = (n + 31) / 32;
  const uint lid = get_local_id(0);
  uint words[SELECTION_WORDS_PER_ITEM];
  uint mine = 0;
  for (uint j = 0; j < SELECTION_WORDS_PER_ITEM; ++j) {
    const uint w = lid * SELECTION_WORDS_PER_ITEM + j;
    const ulong index = first_word + w;
    words[j] = (w < SELECTION_WORDS && index < word_count) ? bits[index] : 0;
    mine += popcount(words[j]);
  }
  uint total;
  uint position = tile_offsets[get_group_id(0)] +
                  work_group_scan_exclusive_uint(mine, scratch, &total);
  for (uint j = 0; j < SELECTION_WORDS_PER_ITEM; ++j) {
    uint word = words[j];
    const uint base = row_base + (uint)start + (lid * SELECTION_WORDS_PER_ITEM + j) * 32;
    while (word != 0) {
      const uint bit = 31 - clz(word & (0u - word));  // lowest set bit
      row_ids[out_base + position++] = base + bit;
      word &= word - 1;
    }
  }
}
