// Cuckoo table (host side: operators/join_cuckoo.cpp; Alcantara et al.):
// `capacity` 64-bit words key32 << 32 | row32, HASH_JOIN_EMPTY when free;
// key32 is the key minus the build side's minimum. A word is never all ones
// since rows < 2^31. Four hash functions, a bounded eviction chain, a stash;
// needs 64-bit atomics and unique build keys that span at most 2^32 values.
//
// CPUs probe through a filter (join_cuckoo_filter, _probe_filtered): a
// blocked Bloom filter, four bits of one 32-bit word per key, 8 bits per
// build key, which a CPU keeps in cache; a probe row whose bits are not all set
// misses without touching the table, and the rows that pass look the table
// up in a second loop. A miss in the table itself costs four scattered loads
// whose branches wait on them, which is what a CPU does worst.

inline uint join_cuckoo_slot(uint key32, uint seed, uint capacity) {
  // Lemire's multiply-shift range reduction: no modulo.
  return (uint)(((ulong)hash_join_mix32(key32 ^ seed) * capacity) >> 32);
}

inline uint join_cuckoo_seed(uint4 seeds, uint f) {
  return f == 0 ? seeds.s0 : f == 1 ? seeds.s1 : f == 2 ? seeds.s2 : seeds.s3;
}

// Build row of key32, or HASH_JOIN_NO_ROW. The stash is probed linearly from
// the key's home slot until a free word (stash words are never removed).
inline uint join_cuckoo_find(uint key32, __global const ulong* table, uint capacity, uint4 seeds,
                             __global const ulong* stash, uint stash_size) {
  for (uint f = 0; f < HASH_JOIN_FUNCTIONS; ++f) {
    const ulong word = table[join_cuckoo_slot(key32, join_cuckoo_seed(seeds, f), capacity)];
    if (word != HASH_JOIN_EMPTY && (uint)(word >> 32) == key32) return (uint)word;
  }
  if (stash_size == 0) return HASH_JOIN_NO_ROW;
  uint s = hash_join_mix32(key32) % stash_size;
  for (uint tries = 0; tries < stash_size; ++tries) {
    const ulong word = stash[s];
    if (word == HASH_JOIN_EMPTY) break;
    if ((uint)(word >> 32) == key32) return (uint)word;
    s = s + 1 == stash_size ? 0 : s + 1;
  }
  return HASH_JOIN_NO_ROW;
}

#if HAS_INT64_ATOMICS
// Inserts every non-NULL build row. First fit: the word in hand takes any
// free slot among its four (compare-and-swap); only when all four are taken
// does it evict, by atomic exchange, the word in the slot of its next hash
// function (Alcantara et al.'s chain), and carries on with the evicted word.
// After max_evictions evictions the word in hand goes to the stash; when the
// stash is full, HASH_JOIN_FAILED is raised in *flags and the host rebuilds.
// A word that meets its own key raises HASH_JOIN_DUPLICATE; any raised flag
// stops every work-item early. Trying free slots first cut the insert time on PoCL by half or more:
// most keys then need no eviction at all at load 0.8.
KERNEL void join_cuckoo_insert(__global const uchar* keys, uint wide, __global const uchar* nulls,
                               uint has_nulls, ulong n, long key_min, __global ulong* table,
                               uint capacity, uint4 seeds, uint max_evictions,
                               __global ulong* stash, uint stash_size, __global uint* flags) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n || hash_join_is_null(nulls, has_nulls, i)) continue;
    const uint key32 = (uint)((ulong)hash_join_key(keys, wide, i) - (ulong)key_min);
    ulong word = ((ulong)key32 << 32) | (uint)i;
    uint next_function = 0;  // whose slot the word in hand takes by eviction
    for (uint step = 0;; ++step) {
      // Once any work-item has failed or met a duplicate, this build is lost:
      // stop instead of walking long eviction chains (duplicates make them).
      if (*(volatile __global uint*)flags != 0) {
        word = HASH_JOIN_EMPTY;
        break;
      }
      const uint in_hand = (uint)(word >> 32);
      bool placed = false, duplicate = false;
      for (uint f = 0; f < HASH_JOIN_FUNCTIONS && !placed && !duplicate; ++f) {
        const uint slot = join_cuckoo_slot(in_hand, join_cuckoo_seed(seeds, f), capacity);
        // Volatile: NVIDIA's L1 is not coherent across SMs, and a plain load
        // can return a stale copy of a slot, even one still showing the word
        // in hand before it was evicted (measured: false duplicates on the
        // H100 with unique keys). The word in hand exists nowhere else, so the
        // same key read fresh from the table is another row's, a genuine
        // duplicate.
        const ulong current = *(volatile __global const ulong*)&table[slot];
        duplicate = current != HASH_JOIN_EMPTY && (uint)(current >> 32) == in_hand;
        placed = current == HASH_JOIN_EMPTY &&
                 atom_cmpxchg(&table[slot], HASH_JOIN_EMPTY, word) == HASH_JOIN_EMPTY;
      }
      if (duplicate) atomic_or(flags, HASH_JOIN_DUPLICATE);
      if (placed || duplicate) {
        word = HASH_JOIN_EMPTY;
        break;
      }
      if (step == max_evictions) break;
      const uint slot = join_cuckoo_slot(in_hand, join_cuckoo_seed(seeds, next_function), capacity);
      word = atom_xchg(&table[slot], word);
      if (word == HASH_JOIN_EMPTY) break;
      // The evicted word sat in the slot of one of its functions: it moves on
      // to the next function's slot when it has to evict in turn.
      const uint evicted = (uint)(word >> 32);
      uint f = 0;
      while (f + 1 < HASH_JOIN_FUNCTIONS &&
             join_cuckoo_slot(evicted, join_cuckoo_seed(seeds, f), capacity) != slot)
        ++f;
      next_function = (f + 1) % HASH_JOIN_FUNCTIONS;
    }
    if (word == HASH_JOIN_EMPTY) continue;
    bool stashed = false;
    if (stash_size != 0) {
      uint s = hash_join_mix32((uint)(word >> 32)) % stash_size;
      for (uint tries = 0; tries < stash_size && !stashed; ++tries) {
        stashed = atom_cmpxchg(&stash[s], HASH_JOIN_EMPTY, word) == HASH_JOIN_EMPTY;
        s = s + 1 == stash_size ? 0 : s + 1;
      }
    }
    if (!stashed) atomic_or(flags, HASH_JOIN_FAILED);
  }
}
#endif

// Raises HASH_JOIN_DUPLICATE when a lookup of a build row's key finds another
// row (the key occurs twice). Reliable after a failed insert too: a lost word
// finds nothing, never a wrong row, so a duplicate flag is always genuine.
KERNEL void join_cuckoo_check(__global const uchar* keys, uint wide, __global const uchar* nulls,
                              uint has_nulls, ulong n, long key_min, __global const ulong* table,
                              uint capacity, uint4 seeds, __global const ulong* stash,
                              uint stash_size, __global uint* flags) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n || hash_join_is_null(nulls, has_nulls, i)) continue;
    const uint key32 = (uint)((ulong)hash_join_key(keys, wide, i) - (ulong)key_min);
    const uint found = join_cuckoo_find(key32, table, capacity, seeds, stash, stash_size);
    if (found != HASH_JOIN_NO_ROW && found != (uint)i) atomic_or(flags, HASH_JOIN_DUPLICATE);
  }
}

// matches[i] = the build row of probe row i's key or HASH_JOIN_NO_ROW;
// tile_counts[group] = the tile's matches (hash_join_write_tile_count).
KERNEL void join_cuckoo_probe(__global const uchar* keys, uint wide, __global const uchar* nulls,
                              uint has_nulls, ulong n, long key_min, ulong key_span,
                              __global const ulong* table, uint capacity, uint4 seeds,
                              __global const ulong* stash, uint stash_size, __global uint* matches,
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
      if (key >= key_min && offset <= key_span)
        row = join_cuckoo_find((uint)offset, table, capacity, seeds, stash, stash_size);
    }
    matches[i] = row;
    found += row != HASH_JOIN_NO_ROW;
  }
  hash_join_write_tile_count(found, tile_counts, scratch);
}

// The filter word and bits of key32: a word of `words` (a power of two) and
// four bits of it, from one hash. 32-bit words: set with the 32-bit atomics
// every device has.
inline uint join_cuckoo_filter_word(uint key32, uint word_mask) {
  return hash_join_mix32(key32 ^ 0x5bd1e995u) & word_mask;
}
inline uint join_cuckoo_filter_bits(uint key32) {
  const uint h = hash_join_mix32(key32 ^ 0x9e3779b9u);
  return (1u << (h & 31)) | (1u << ((h >> 5) & 31)) | (1u << ((h >> 10) & 31)) |
         (1u << ((h >> 15) & 31));
}

// Sets every non-NULL build key's bits (words zeroed by the host).
KERNEL void join_cuckoo_filter(__global const uchar* keys, uint wide, __global const uchar* nulls,
                               uint has_nulls, ulong n, long key_min, __global uint* words,
                               uint word_mask) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n || hash_join_is_null(nulls, has_nulls, i)) continue;
    const uint key32 = (uint)((ulong)hash_join_key(keys, wide, i) - (ulong)key_min);
    atomic_or(&words[join_cuckoo_filter_word(key32, word_mask)], join_cuckoo_filter_bits(key32));
  }
}

// join_cuckoo_probe through the filter: a work-item takes IPT consecutive
// probe rows; the first loop tests their filter bits and lists the rows that
// pass, the second looks those up in the table.
KERNEL void join_cuckoo_probe_filtered(__global const uchar* keys, uint wide,
                                       __global const uchar* nulls, uint has_nulls, ulong n,
                                       long key_min, ulong key_span, __global const ulong* table,
                                       uint capacity, uint4 seeds, __global const ulong* stash,
                                       uint stash_size, __global const uint* words, uint word_mask,
                                       __global uint* matches, __global uint* tile_counts) {
  __local ulong scratch[WG_SIZE];
  const ulong first = tile_start() + (ulong)get_local_id(0) * IPT;
  uint at[IPT];     // the listed rows (positions after `first`)
  uint key32[IPT];  // and their keys
  uint listed = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = first + k;
    if (i >= n) break;
    const long key = hash_join_key(keys, wide, i);
    const ulong offset = (ulong)key - (ulong)key_min;
    const bool in_range =
        !hash_join_is_null(nulls, has_nulls, i) && key >= key_min && offset <= key_span;
    const uint k32 = (uint)offset;
    const uint bits = join_cuckoo_filter_bits(k32);
    const bool pass = in_range && (words[join_cuckoo_filter_word(k32, word_mask)] & bits) == bits;
    matches[i] = HASH_JOIN_NO_ROW;
    at[listed] = k;
    key32[listed] = k32;
    listed += pass;
  }
  uint found = 0;
  for (uint j = 0; j < listed; ++j) {
    const uint row = join_cuckoo_find(key32[j], table, capacity, seeds, stash, stash_size);
    matches[first + at[j]] = row;
    found += row != HASH_JOIN_NO_ROW;
  }
  hash_join_write_tile_count(found, tile_counts, scratch);
}
