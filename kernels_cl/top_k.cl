// Top-k (operators/top_k.cpp): the first k rows of ORDER BY without sorting
// every row. Each row gets a 64-bit composite image, the first 64 bits of
// its keys' order-preserving images one after another (a key's segment: a
// not-NULL bit when it has NULLs, then the value's image, as in sort.cl,
// complemented for DESC); rows order by (image, position). When the keys
// fit in 64 bits that order is the ORDER BY order itself; otherwise it is a
// prefix of it.
//
// top_k_groups: each work-group keeps the k smallest (image, position)
// pairs of its range of rows and writes them sorted, padded with
// (~0, ~0), which sorts after every row. A pass of it over those pairs (the
// positions given) merges the groups' results. A group tests its last k rows
// (or more) first: on input ordered either way, they or its first rows are
// its best, and the threshold they set rejects the rest.
//
// top_k_ties: the rows whose image is at most a limit (the rows a prefix
// image cannot tell apart), as a selection's bitmap.

// The first 8 bytes of CHAR(width) value `row`, big-endian, zero past the
// end.
inline ulong top_k_char_prefix(__global const uchar* values, uint width, ulong row) {
  __global const uchar* bytes = values + row * width;
#ifdef __ENDIAN_LITTLE__
  if (width >= 8) {
    const uchar8 v = vload8(0, bytes);
    return as_ulong((uchar8)(v.s7, v.s6, v.s5, v.s4, v.s3, v.s2, v.s1, v.s0));
  }
#endif
  ulong image = 0;
  for (uint b = 0; b < 8; ++b) image = (image << 8) | (b < width ? bytes[b] : 0);
  return image;
}

// The left-aligned segment of key `key` (descriptor: sort_shared.h) for
// `row`; the bits past its length are 0.
inline ulong top_k_segment(__global const uchar* values, __global const uchar* nulls, uint key,
                           uint width, ulong row) {
  ulong image = 0;
  if (TOP_K_TYPE(key) == SORT_TYPE_CHAR) {
    image = top_k_char_prefix(values, width, row);
  } else {
    image = sort_numeric_key(values, TOP_K_TYPE(key), row);
    if (TOP_K_TYPE(key) == SORT_TYPE_INT32) image <<= 32;
  }
  if ((key & TOP_K_NULLS) != 0 && nulls[row] != 0) {
    image = 0;  // NULL is smallest (DOUBLE without a flag: no double's image is 0)
  } else if ((key & TOP_K_FLAG) != 0) {
    image = 0x8000000000000000UL | (image >> 1);
  }
  if ((key & TOP_K_DESC) == 0) return image;
  const uint len = TOP_K_LEN(key);
  return ~image & (len >= 64 ? ~0UL : ~(~0UL >> len));
}

// The composite image of `row`: key a's segment, then key b's (absent when
// its length is 0; the host passes b only when a's length is below 64).
inline ulong top_k_image(__global const uchar* a_values, __global const uchar* a_nulls, uint a_key,
                         uint a_width, __global const uchar* b_values,
                         __global const uchar* b_nulls, uint b_key, uint b_width, ulong row) {
  ulong image = top_k_segment(a_values, a_nulls, a_key, a_width, row);
  if (TOP_K_LEN(b_key) != 0)
    image |= top_k_segment(b_values, b_nulls, b_key, b_width, row) >> TOP_K_LEN(a_key);
  return image;
}

// (image a, position pa) sorts before (image b, position pb).
inline bool top_k_before(ulong a, uint pa, ulong b, uint pb) {
  return a < b || (a == b && pa < pb);
}

// How many of the `blocks` blocks of `block` rows that cover `rows` rows hold
// the last k rows (the last block may be partial).
inline ulong top_k_seeds(ulong rows, ulong blocks, uint block, uint k) {
  if (blocks == 0) return 0;
  const ulong in_last = rows - (blocks - 1) * block;
  return k <= in_last ? 1 : min(blocks, 1 + (k - in_last + block - 1) / block);
}

#if DEVICE_IS_CPU
// The segments of key `key` for rows [lo, lo + count) into seg: top_k_segment
// as passes that each run one type's loop, vectorised.
inline void top_k_block_segments(ulong* seg, __global const uchar* values,
                                 __global const uchar* nulls, uint key, uint width, ulong lo,
                                 uint count) {
  const uint type = TOP_K_TYPE(key);
  if (type == SORT_TYPE_INT32) {
    __global const uint* v = (__global const uint*)values + lo;
    VECTORIZE_ITEMS
    for (uint j = 0; j < count; ++j) seg[j] = (ulong)(v[j] ^ 0x80000000u) << 32;
  } else if (type == SORT_TYPE_INT64) {
    __global const ulong* v = (__global const ulong*)values + lo;
    VECTORIZE_ITEMS
    for (uint j = 0; j < count; ++j) seg[j] = v[j] ^ 0x8000000000000000UL;
  } else if (type == SORT_TYPE_DOUBLE) {
    __global const ulong* v = (__global const ulong*)values + lo;
    VECTORIZE_ITEMS
    for (uint j = 0; j < count; ++j) {
      const ulong bits = v[j] == 0x8000000000000000UL ? 0 : v[j];  // -0.0 ties with +0.0
      seg[j] = (bits >> 63) != 0 ? ~bits : (bits | 0x8000000000000000UL);
    }
  } else if (type == SORT_TYPE_CHAR) {
    for (uint j = 0; j < count; ++j) seg[j] = top_k_segment(values, nulls, type, width, lo + j);
  } else {
    __global const ulong* v = (__global const ulong*)values + lo;
    VECTORIZE_ITEMS
    for (uint j = 0; j < count; ++j) seg[j] = v[j];
  }
  if ((key & TOP_K_NULLS) != 0) {
    __global const uchar* is_null = nulls + lo;
    const ulong flag = (key & TOP_K_FLAG) != 0 ? 0x8000000000000000UL : 0;
    const uint shift = (key & TOP_K_FLAG) != 0 ? 1 : 0;
    VECTORIZE_ITEMS
    for (uint j = 0; j < count; ++j) seg[j] = is_null[j] != 0 ? 0 : flag | (seg[j] >> shift);
  } else if ((key & TOP_K_FLAG) != 0) {
    VECTORIZE_ITEMS
    for (uint j = 0; j < count; ++j) seg[j] = 0x8000000000000000UL | (seg[j] >> 1);
  }
  if ((key & TOP_K_DESC) != 0) {
    const uint len = TOP_K_LEN(key);
    const ulong mask = len >= 64 ? ~0UL : ~(~0UL >> len);
    VECTORIZE_ITEMS
    for (uint j = 0; j < count; ++j) seg[j] = ~seg[j] & mask;
  }
}

// The composite images of rows [lo, lo + count) into images (seg: scratch).
inline void top_k_block_images(ulong* images, ulong* seg, __global const uchar* a_values,
                               __global const uchar* a_nulls, uint a_key, uint a_width,
                               __global const uchar* b_values, __global const uchar* b_nulls,
                               uint b_key, uint b_width, ulong lo, uint count) {
  top_k_block_segments(images, a_values, a_nulls, a_key, a_width, lo, count);
  if (TOP_K_LEN(b_key) == 0) return;
  top_k_block_segments(seg, b_values, b_nulls, b_key, b_width, lo, count);
  const uint shift = TOP_K_LEN(a_key);
  VECTORIZE_ITEMS
  for (uint j = 0; j < count; ++j) images[j] |= seg[j] >> shift;
}

// Whether some row of the block (count rows) has an image at most `last`:
// one vectorised pass, before the mask (below) of the rows that do.
inline bool top_k_int32_hits(__global const uchar* values, uint key, ulong lo, uint count,
                             ulong last) {
  __global const uint* v = (__global const uint*)values + lo;
  const uint flip = (key & TOP_K_DESC) != 0 ? 0x7FFFFFFFu : 0x80000000u;
  const uint most = (uint)(last >> 32);
  uint hits = 0;
  VECTORIZE_ITEMS
  for (uint j = 0; j < count; ++j) hits |= (v[j] ^ flip) <= most;
  return hits != 0;
}

inline bool top_k_image_hits(const ulong* images, uint count, ulong last) {
  uint hits = 0;
  VECTORIZE_ITEMS
  for (uint j = 0; j < count; ++j) hits |= images[j] <= last;
  return hits != 0;
}

// Bit j % 32 of words[j / 32] = whether row j of the block (count rows)
// has an image at most `last`; returns whether any has. A single INT32 key
// without NULLs, the common case, compares its 32-bit values before any
// image is made: image = (v ^ flip) << 32, at most `last` when v ^ flip is
// at most last >> 32.
inline uint top_k_int32_mask(uint* words, __global const uchar* values, uint key, ulong lo,
                             uint count, ulong last) {
  __global const uint* v = (__global const uint*)values + lo;
  const uint flip = (key & TOP_K_DESC) != 0 ? 0x7FFFFFFFu : 0x80000000u;
  const uint most = (uint)(last >> 32);
  uint any = 0;
  for (uint w = 0; w < TOP_K_BLOCK / 32; ++w) {
    uint word = 0;
    VECTORIZE_ITEMS
    for (uint t = 0; t < 32; ++t) {
      const uint j = w * 32 + t;
      word |= (uint)(j < count && (v[j] ^ flip) <= most) << t;
    }
    words[w] = word;
    any |= word;
  }
  return any;
}

inline uint top_k_image_mask(uint* words, const ulong* images, uint count, ulong last) {
  uint any = 0;
  for (uint w = 0; w < TOP_K_BLOCK / 32; ++w) {
    uint word = 0;
    VECTORIZE_ITEMS
    for (uint t = 0; t < 32; ++t) {
      const uint j = w * 32 + t;
      word |= (uint)(j < count && images[j] <= last) << t;
    }
    words[w] = word;
    any |= word;
  }
  return any;
}

// Max-heap of (image, position) in images/positions[0, size): restores it
// below `at` after the entry there changed.
inline void top_k_sift_down(__global ulong* images, __global uint* positions, uint size, uint at) {
  const ulong image = images[at];
  const uint position = positions[at];
  for (;;) {
    uint child = 2 * at + 1;
    if (child >= size) break;
    if (child + 1 < size &&
        top_k_before(images[child], positions[child], images[child + 1], positions[child + 1]))
      ++child;
    if (!top_k_before(image, position, images[child], positions[child])) break;
    images[at] = images[child];
    positions[at] = positions[child];
    at = child;
  }
  images[at] = image;
  positions[at] = position;
}
#else
// Rows a work-group tests between two looks at its count: at most
// TOP_K_MAX_CHUNK, so that TOP_K_CAPACITY - chunk entries survive a reduction.
#if WG_SIZE * IPT <= TOP_K_MAX_CHUNK
#define TOP_K_STEPS IPT
#elif WG_SIZE < TOP_K_MAX_CHUNK
#define TOP_K_STEPS (TOP_K_MAX_CHUNK / WG_SIZE)
#else
#define TOP_K_STEPS 1
#endif
#define TOP_K_CHUNK (WG_SIZE * TOP_K_STEPS)

// Sorts the `*count` entries of images/positions (bitonic, over the next
// power of two, padded with (~0, ~0)), keeps the first k, lowers
// *drop_floor to the smallest image it drops and sets the threshold to the
// k-th (or (~0, ~0) while fewer). Every work-item calls it.
inline void top_k_reduce(__local ulong* images, __local uint* positions, __local uint* count,
                         __local ulong* limit, __local uint* limit_position,
                         __local ulong* drop_floor, uint k) {
  const uint lid = get_local_id(0);
  const uint filled = *count;
  uint size = 2;
  while (size < filled) size <<= 1;
  for (uint i = filled + lid; i < size; i += WG_SIZE) {
    images[i] = ~0UL;
    positions[i] = 0xFFFFFFFFu;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint span = 2; span <= size; span <<= 1) {
    for (uint stride = span >> 1; stride > 0; stride >>= 1) {
      for (uint t = lid; t < size / 2; t += WG_SIZE) {
        const uint i = 2 * t - (t & (stride - 1));
        const uint j = i + stride;
        const ulong a = images[i], b = images[j];
        const uint pa = positions[i], pb = positions[j];
        if (top_k_before(b, pb, a, pa) == ((i & span) == 0)) {
          images[i] = b;
          images[j] = a;
          positions[i] = pb;
          positions[j] = pa;
        }
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
  }
  if (lid == 0) {
    const uint kept = min(filled, k);
    if (filled > k) *drop_floor = min(*drop_floor, images[k]);  // the smallest it drops
    *count = kept;
    *limit = kept == k ? images[k - 1] : ~0UL;
    *limit_position = kept == k ? positions[k - 1] : 0xFFFFFFFFu;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}
#endif

// Group g keeps the k smallest (image, position) of rows [g * rows_per_group,
// (g + 1) * rows_per_group) below n and writes them sorted to
// out_images/out_positions[g * k, (g + 1) * k). A row's position is its
// index, or positions[index] when has_positions (a merge pass). Unless
// `exact`, out_floors[g] gets a lower bound of the images of the rows it
// dropped (~0 when none): a row whose image is below every floor is kept.
KERNEL void top_k_groups(__global const uchar* a_values, __global const uchar* a_nulls, uint a_key,
                         uint a_width, __global const uchar* b_values,
                         __global const uchar* b_nulls, uint b_key, uint b_width,
                         __global const uint* positions, uint has_positions, ulong n,
                         ulong rows_per_group, uint k, uint exact, __global ulong* out_images,
                         __global uint* out_positions, __global ulong* out_floors) {
  const ulong group = get_group_id(0);
  const ulong begin = min(n, group * rows_per_group);
  const ulong end = min(n, begin + rows_per_group);
#if DEVICE_IS_CPU
  // PoCL runs a work-group as one thread: work-item 0 keeps a max-heap of
  // the best k in the group's output, tests each block of rows against its
  // root in one vectorised pass (a bit per row) and looks only at the rows
  // that pass.
  if (get_local_id(0) != 0) return;
  __global ulong* images = out_images + group * k;
  __global uint* heap_positions = out_positions + group * k;
  const bool int32_only = TOP_K_TYPE(a_key) == SORT_TYPE_INT32 &&
                          (a_key & (TOP_K_NULLS | TOP_K_FLAG)) == 0 && TOP_K_LEN(b_key) == 0;
  ulong block_images[TOP_K_BLOCK];
  ulong scratch[TOP_K_BLOCK];
  uint words[TOP_K_BLOCK / 32];
  uint size = 0;
  ulong drop_floor = ~0UL;
  const ulong blocks = (end - begin + TOP_K_BLOCK - 1) / TOP_K_BLOCK;
  // The last blocks first, enough to fill the heap.
  const ulong seeds = top_k_seeds(end - begin, blocks, TOP_K_BLOCK, k);
  for (ulong b = 0; b < blocks; ++b) {
    const ulong lo = begin + (b < seeds ? blocks - seeds + b : b - seeds) * TOP_K_BLOCK;
    const uint count = (uint)(min(end, lo + TOP_K_BLOCK) - lo);
    if (!int32_only) {
      top_k_block_images(block_images, scratch, a_values, a_nulls, a_key, a_width, b_values,
                         b_nulls, b_key, b_width, lo, count);
    }
    if (size == k) {
      // A row may enter below the root's image, or at it with a smaller
      // position, which no row of a block past the root's position has
      // (with inexact images such rows go on to be counted in the floor).
      // Rows that pass are tested again against the root as it changes;
      // the others have images above `last`.
      const ulong root = images[0];
      const bool ties_enter = has_positions != 0 || exact == 0 || lo <= heap_positions[0];
      if (!ties_enter && root == 0) continue;
      const ulong last = ties_enter ? root : root - 1;  // the largest image that may enter
      if (last != ~0UL) drop_floor = min(drop_floor, last + 1);
      if (int32_only) {
        if (!top_k_int32_hits(a_values, a_key, lo, count, last)) continue;
        top_k_int32_mask(words, a_values, a_key, lo, count, last);
      } else {
        if (!top_k_image_hits(block_images, count, last)) continue;
        top_k_image_mask(words, block_images, count, last);
      }
    } else {
      for (uint w = 0; w < TOP_K_BLOCK / 32; ++w)
        words[w] = w * 32 + 32 <= count ? 0xFFFFFFFFu
                   : w * 32 < count     ? (1u << (count % 32)) - 1
                                        : 0;
    }
    for (uint w = 0; w < TOP_K_BLOCK / 32; ++w) {
      for (uint bits = words[w]; bits != 0; bits &= bits - 1) {
        const uint j = w * 32 + 31 - clz(bits & (0u - bits));
        const ulong i = lo + j;
        const ulong image =
            int32_only ? top_k_image(a_values, a_nulls, a_key, a_width, b_values, b_nulls, b_key,
                                     b_width, i)
                       : block_images[j];
        const uint position = has_positions != 0 ? positions[i] : (uint)i;
        if (size < k) {
          // Push: sift up from the end.
          uint at = size++;
          while (at > 0) {
            const uint parent = (at - 1) / 2;
            if (!top_k_before(images[parent], heap_positions[parent], image, position)) break;
            images[at] = images[parent];
            heap_positions[at] = heap_positions[parent];
            at = parent;
          }
          images[at] = image;
          heap_positions[at] = position;
        } else if (top_k_before(image, position, images[0], heap_positions[0])) {
          drop_floor = min(drop_floor, images[0]);
          images[0] = image;
          heap_positions[0] = position;
          top_k_sift_down(images, heap_positions, size, 0);
        } else {
          drop_floor = min(drop_floor, image);
        }
      }
    }
  }
  out_floors[group] = drop_floor;
  // Heap sort into ascending order, then the padding.
  for (uint last = size; last > 1; --last) {
    const ulong image = images[0];
    const uint position = heap_positions[0];
    images[0] = images[last - 1];
    heap_positions[0] = heap_positions[last - 1];
    images[last - 1] = image;
    heap_positions[last - 1] = position;
    top_k_sift_down(images, heap_positions, last - 1, 0);
  }
  for (uint i = size; i < k; ++i) {
    images[i] = ~0UL;
    heap_positions[i] = 0xFFFFFFFFu;
  }
#else
  // Rows below the threshold go to local memory (a local atomic counter);
  // when the next chunk might not fit, a bitonic sort keeps the best k.
  __local ulong images[TOP_K_CAPACITY];
  __local uint entry_positions[TOP_K_CAPACITY];
  __local uint count;
  __local ulong limit;
  __local uint limit_position;
  __local ulong drop_floor;
  const uint lid = get_local_id(0);
  if (lid == 0) {
    count = 0;
    limit = ~0UL;
    limit_position = 0xFFFFFFFFu;
    drop_floor = ~0UL;
  }
  ulong dropped = ~0UL;  // the smallest image this work-item dropped
  barrier(CLK_LOCAL_MEM_FENCE);
  const ulong chunks = (end - begin + TOP_K_CHUNK - 1) / TOP_K_CHUNK;
  const ulong seeds = top_k_seeds(end - begin, chunks, TOP_K_CHUNK, k);
  for (ulong c = 0; c < chunks; ++c) {
    const ulong start = begin + (c < seeds ? chunks - seeds + c : c - seeds) * TOP_K_CHUNK;
    const ulong t = limit;
    const uint tp = limit_position;
    for (uint s = 0; s < TOP_K_STEPS; ++s) {
      const ulong i = start + s * WG_SIZE + lid;
      if (i < end) {
        const ulong image =
            top_k_image(a_values, a_nulls, a_key, a_width, b_values, b_nulls, b_key, b_width, i);
        const uint position = has_positions != 0 ? positions[i] : (uint)i;
        if (top_k_before(image, position, t, tp)) {
          const uint slot = atomic_inc(&count);
          images[slot] = image;
          entry_positions[slot] = position;
        } else {
          dropped = min(dropped, image);
        }
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint filled = count;
    barrier(CLK_LOCAL_MEM_FENCE);  // every work-item has read it before the next appends
    if (filled > TOP_K_CAPACITY - TOP_K_CHUNK)
      top_k_reduce(images, entry_positions, &count, &limit, &limit_position, &drop_floor, k);
  }
  top_k_reduce(images, entry_positions, &count, &limit, &limit_position, &drop_floor, k);
  const uint kept = count;
  for (uint i = lid; i < k; i += WG_SIZE) {
    out_images[group * k + i] = i < kept ? images[i] : ~0UL;
    out_positions[group * k + i] = i < kept ? entry_positions[i] : 0xFFFFFFFFu;
  }
  barrier(CLK_LOCAL_MEM_FENCE);  // images is the floors' scratch now
  images[lid] = dropped;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    ulong lowest = drop_floor;
    for (uint i = 0; i < WG_SIZE; ++i) lowest = min(lowest, images[i]);
    out_floors[group] = lowest;
  }
#endif
}

// The rows whose composite image is at most `limit`: bit r of `bits` and
// each tile's count in tile_counts, as a selection's first pass writes them
// (selection_scatter turns them into positions).
KERNEL void top_k_ties(__global const uchar* a_values, __global const uchar* a_nulls, uint a_key,
                       uint a_width, __global const uchar* b_values, __global const uchar* b_nulls,
                       uint b_key, uint b_width, ulong n, ulong limit, __global uint* bits,
                       __global uint* tile_counts) {
  __local uchar local_flags[TILE + TILE / 8];
  __local uint word_counts[TILE / 32];
  const ulong start = tile_start();
  uchar flag[IPT];
#if DEVICE_IS_CPU
  // A work-item's IPT rows are consecutive: their images in vectorised
  // passes, TOP_K_BLOCK at a time.
  ulong images[TOP_K_BLOCK];
  ulong scratch[TOP_K_BLOCK];
  const ulong first = start + (ulong)get_local_id(0) * IPT;
  for (uint from = 0; from < IPT; from += TOP_K_BLOCK) {
    const ulong lo = first + from;
    const uint span = min((uint)TOP_K_BLOCK, (uint)IPT - from);
    const uint count = lo >= n ? 0 : (uint)min((ulong)span, n - lo);
    if (count != 0) {
      top_k_block_images(images, scratch, a_values, a_nulls, a_key, a_width, b_values, b_nulls,
                         b_key, b_width, lo, count);
    }
    for (uint j = 0; j < span; ++j) flag[from + j] = j < count && images[j] <= limit;
  }
#else
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    flag[k] = i < n && top_k_image(a_values, a_nulls, a_key, a_width, b_values, b_nulls, b_key,
                                   b_width, i) <= limit;
  }
#endif
  tile_bitmap(flag, get_group_id(0), tile_rows(start, n), bits, tile_counts, local_flags,
              word_counts);
}
