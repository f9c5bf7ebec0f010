// Dense multimap (host side: operators/join_dense.cpp): build keys of at
// most JOIN_DENSE_MAX_BUCKETS values (max - min + 1), duplicates allowed.
// Bucket b = key - key_min holds exactly the rows of one key value, so a
// probe row neither hashes nor compares keys: its matches are a bucket.
//
// The build rows are cut into `groups` chunks, one per work-group. A chunk's
// rows are counted per bucket and scattered in row order by one work-item
// (serially: these kernels are chosen for CPUs, where a work-group is one
// thread and this is its fastest loop; they are correct on any device);
// starts[b * groups + g] is the exclusive scan, in that order, of chunk g's
// count of bucket b, over buckets * groups + 1 entries (the last, 0, becomes
// the total). Bucket b's rows are then bucket_rows[starts[b * groups] ..
// starts[(b + 1) * groups]), in ascending build row: the scatter is stable,
// so a probe row's matches come out in build row order with no sort.

KERNEL void join_dense_count(__global const uchar* keys, uint wide, __global const uchar* nulls,
                             uint has_nulls, ulong n, long key_min, uint buckets, ulong chunk,
                             __global uint* counts) {
  __local uint hist[JOIN_DENSE_MAX_BUCKETS];
  const uint lid = get_local_id(0);
  const uint g = get_group_id(0), groups = get_num_groups(0);
  for (uint b = lid; b < buckets; b += WG_SIZE)
    hist[b] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    const ulong begin = (ulong)g * chunk, end = min(n, begin + chunk);
    for (ulong i = begin; i < end; ++i) {
      if (hash_join_is_null(nulls, has_nulls, i)) continue;
      ++hist[(uint)((ulong)hash_join_key(keys, wide, i) - (ulong)key_min)];
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint b = lid; b < buckets; b += WG_SIZE)
    counts[(ulong)b * groups + g] = hist[b];
}

KERNEL void join_dense_scatter(__global const uchar* keys, uint wide, __global const uchar* nulls,
                               uint has_nulls, ulong n, long key_min, uint buckets, ulong chunk,
                               __global const uint* starts, __global uint* bucket_rows) {
  __local uint cursor[JOIN_DENSE_MAX_BUCKETS];
  const uint lid = get_local_id(0);
  const uint g = get_group_id(0), groups = get_num_groups(0);
  for (uint b = lid; b < buckets; b += WG_SIZE)
    cursor[b] = starts[(ulong)b * groups + g];
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    const ulong begin = (ulong)g * chunk, end = min(n, begin + chunk);
    for (ulong i = begin; i < end; ++i) {
      if (hash_join_is_null(nulls, has_nulls, i)) continue;
      bucket_rows[cursor[(uint)((ulong)hash_join_key(keys, wide, i) - (ulong)key_min)]++] = (uint)i;
    }
  }
}

#define JOIN_DENSE_NO_BUCKET 0xFFFFFFFFu

// The bucket of probe row i, or JOIN_DENSE_NO_BUCKET for a NULL or a key
// outside the buckets.
inline uint join_dense_bucket(__global const uchar* keys, uint wide, __global const uchar* nulls,
                              uint has_nulls, ulong i, long key_min, ulong key_span) {
  const long key = hash_join_key(keys, wide, i);
  const ulong offset = (ulong)key - (ulong)key_min;
  const bool in_range =
      !hash_join_is_null(nulls, has_nulls, i) && key >= key_min && offset <= key_span;
  return in_range ? (uint)offset : JOIN_DENSE_NO_BUCKET;
}

// The rows of a bucket (0 for JOIN_DENSE_NO_BUCKET).
inline uint join_dense_count_of(uint bucket, __global const uint* starts, uint groups) {
  const uint b = bucket == JOIN_DENSE_NO_BUCKET ? 0 : bucket;
  const uint count = starts[(ulong)(b + 1) * groups] - starts[(ulong)b * groups];
  return bucket == JOIN_DENSE_NO_BUCKET ? 0 : count;
}

// Per tile of probe rows: the number of pairs, in 64 bits into tile_sums
// (the host checks the total before anything is scanned) and in 32 into
// tile_counts (the scan's input; exact once the total fits 32 bits).
KERNEL void join_dense_probe_count(__global const uchar* keys, uint wide,
                                   __global const uchar* nulls, uint has_nulls, ulong n,
                                   long key_min, ulong key_span, __global const uint* starts,
                                   uint groups, __global ulong* tile_sums,
                                   __global uint* tile_counts) {
  __local ulong scratch[WG_SIZE];
  const ulong start = tile_start();
  ulong mine = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n)
      mine += join_dense_count_of(
          join_dense_bucket(keys, wide, nulls, has_nulls, i, key_min, key_span), starts, groups);
  }
  const ulong total = work_group_sum_ulong(mine, scratch);
  if (get_local_id(0) == 0) {
    tile_sums[get_group_id(0)] = total;
    tile_counts[get_group_id(0)] = (uint)total;
  }
}

// Writes the pairs of one tile of probe rows from its scanned offset on: a
// work-item takes IPT consecutive rows, a work-group scan of their counts
// places it, and each row copies its bucket. A tile without pairs leaves
// before any barrier (`pairs`, the total, bounds the last tile).
KERNEL void join_dense_probe_write(__global const uchar* keys, uint wide,
                                   __global const uchar* nulls, uint has_nulls, ulong n,
                                   long key_min, ulong key_span, __global const uint* starts,
                                   uint groups, __global const uint* bucket_rows,
                                   __global const uint* tile_offsets, uint pairs,
                                   __global uint* out_build, __global uint* out_probe) {
  __local uint scratch[WG_SIZE + 1];
  const uint group = get_group_id(0);
  if (scanned_tile_is_empty(tile_offsets, group, get_num_groups(0), pairs)) return;
  const ulong first = tile_start() + (ulong)get_local_id(0) * IPT;
  uint mine = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = first + k;
    if (i < n)
      mine += join_dense_count_of(
          join_dense_bucket(keys, wide, nulls, has_nulls, i, key_min, key_span), starts, groups);
  }
  uint total;
  uint out = tile_offsets[group] + work_group_scan_exclusive_uint(mine, scratch, &total);
  const uint end = out + mine;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = first + k;
    if (i >= n) break;
    const uint bucket = join_dense_bucket(keys, wide, nulls, has_nulls, i, key_min, key_span);
    const uint count = join_dense_count_of(bucket, starts, groups);
    const uint begin = bucket == JOIN_DENSE_NO_BUCKET ? 0 : starts[(ulong)bucket * groups];
    uint s = 0;
    if (out + JOIN_DENSE_BLOCK <= end) {
      // A fixed block, whatever the count: no branch on it. Pairs past the
      // count are overwritten by this work-item's next rows (its range ends
      // at `end`; bucket_rows has JOIN_DENSE_BLOCK - 1 entries of padding).
      for (; s < JOIN_DENSE_BLOCK; ++s) {
        out_build[out + s] = bucket_rows[begin + s];
        out_probe[out + s] = (uint)i;
      }
    }
    for (; s < count; ++s) {
      out_build[out + s] = bucket_rows[begin + s];
      out_probe[out + s] = (uint)i;
    }
    out += count;
  }
}
