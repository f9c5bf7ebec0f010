// Dense multimap (host side: operators/join_dense.cpp): build keys of a
// dense range (max - min + 1 values), duplicates allowed. Bucket b = key -
// key_min holds exactly the rows of one key value, so a probe row neither
// hashes nor compares keys: its matches are a bucket.
//
// The build rows are cut into `groups` chunks, one per work-group. A chunk's
// rows are counted per bucket and scattered in row order by one work-item
// (serially: these kernels are chosen for CPUs, where a work-group is one
// thread and this is its fastest loop; they are correct on any device);
// starts[b * groups + g] is the exclusive scan, in that order, of chunk g's
// count of bucket b, over buckets * groups + 1 entries (the last, 0, becomes
// the total). Bucket b's rows are then bucket_rows[starts[b * groups] ..
// starts[(b + 1) * groups]), in ascending build row: the scatter is stable,
// so a probe row's matches come out in build row order with no sort. More
// than JOIN_DENSE_MAX_BUCKETS buckets do not fit local memory: one chunk,
// counted and scattered in global memory (join_dense_count_wide,
// join_dense_scatter_wide).

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

// Buckets past local memory: one chunk, counted into `counts` (zeroed by the
// host) and scattered through `cursors` (the scanned counts, copied) in
// global memory by one work-item.
KERNEL void join_dense_count_wide(__global const uchar* keys, uint wide,
                                  __global const uchar* nulls, uint has_nulls, ulong n,
                                  long key_min, __global uint* counts) {
  if (get_global_id(0) != 0) return;
  for (ulong i = 0; i < n; ++i) {
    if (hash_join_is_null(nulls, has_nulls, i)) continue;
    ++counts[(ulong)hash_join_key(keys, wide, i) - (ulong)key_min];
  }
}

KERNEL void join_dense_scatter_wide(__global const uchar* keys, uint wide,
                                    __global const uchar* nulls, uint has_nulls, ulong n,
                                    long key_min, __global uint* cursors,
                                    __global uint* bucket_rows) {
  if (get_global_id(0) != 0) return;
  for (ulong i = 0; i < n; ++i) {
    if (hash_join_is_null(nulls, has_nulls, i)) continue;
    bucket_rows[cursors[(ulong)hash_join_key(keys, wide, i) - (ulong)key_min]++] = (uint)i;
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

// The pairs of each work-item's IPT consecutive probe rows into
// item_counts[global id] (the scan's input; exact once the total fits 32
// bits), and per tile in 64 bits into tile_sums (the host checks the total
// before anything is scanned).
KERNEL void join_dense_probe_count(__global const uchar* keys, uint wide,
                                   __global const uchar* nulls, uint has_nulls, ulong n,
                                   long key_min, ulong key_span, __global const uint* starts,
                                   uint groups, __global ulong* tile_sums,
                                   __global uint* item_counts) {
  __local ulong scratch[WG_SIZE];
  const ulong first = tile_start() + (ulong)get_local_id(0) * IPT;
  ulong mine = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = first + k;
    if (i < n)
      mine += join_dense_count_of(
          join_dense_bucket(keys, wide, nulls, has_nulls, i, key_min, key_span), starts, groups);
  }
  item_counts[get_global_id(0)] = (uint)mine;
  const ulong total = work_group_sum_ulong(mine, scratch);
  if (get_local_id(0) == 0) tile_sums[get_group_id(0)] = total;
}

// Writes the pairs of a work-item's IPT consecutive probe rows from its
// scanned offset on (item_offsets; `pairs`, the total, ends the last), each
// row copying its bucket.
KERNEL void join_dense_probe_write(__global const uchar* keys, uint wide,
                                   __global const uchar* nulls, uint has_nulls, ulong n,
                                   long key_min, ulong key_span, __global const uint* starts,
                                   uint groups, __global const uint* bucket_rows,
                                   __global const uint* item_offsets, uint pairs,
                                   __global uint* out_build, __global uint* out_probe) {
  const ulong id = get_global_id(0);
  uint out = item_offsets[id];
  const uint end = id + 1 < get_global_size(0) ? item_offsets[id + 1] : pairs;
  if (out == end) return;
  const ulong first = tile_start() + (ulong)get_local_id(0) * IPT;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = first + k;
    if (i >= n) break;
    const uint bucket = join_dense_bucket(keys, wide, nulls, has_nulls, i, key_min, key_span);
    const uint count = join_dense_count_of(bucket, starts, groups);
    const uint begin = bucket == JOIN_DENSE_NO_BUCKET ? 0 : starts[(ulong)bucket * groups];
    uint s = 0;
    if (out + JOIN_DENSE_BLOCK <= end) {
      // A fixed block of 4, whatever the count: no branch on it. Pairs past
      // the count are overwritten by this work-item's next rows (its range
      // ends at `end`; bucket_rows has JOIN_DENSE_BLOCK - 1 entries of
      // padding).
      vstore4(vload4(0, bucket_rows + begin), 0, out_build + out);
      vstore4((uint4)((uint)i), 0, out_probe + out);
      s = JOIN_DENSE_BLOCK;
    }
    for (; s < count; ++s) {
      out_build[out + s] = bucket_rows[begin + s];
      out_probe[out + s] = (uint)i;
    }
    out += count;
  }
}
