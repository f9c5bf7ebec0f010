// Sort-based GROUP BY (operators/group_by.cpp): the positions sorted by the
// key tuple (sort.cl) are cut where the tuple changes (group_by_boundaries),
// the cuts scanned to group ids, each group's first sorted index and smallest
// position recorded (group_by_starts), and every group reduced in fixed-size
// chunks of its rows in position order (group_by_partial, group_by_combine),
// so a double SUM adds in the same order on every device.

// Whether keys `a` and `b` differ for grouping: NULL equals NULL, -0.0 equals
// 0.0, CHAR(n) compares all n bytes.
inline bool group_by_differs(__global const uchar* values, __global const uchar* nulls,
                             uint has_nulls, uint type, uint width, ulong a, ulong b) {
  if (has_nulls != 0) {
    const bool null_a = nulls[a] != 0;
    const bool null_b = nulls[b] != 0;
    if (null_a || null_b) return null_a != null_b;
  }
  if (type == SORT_TYPE_INT32 || type == SORT_TYPE_UINT32)
    return ((__global const uint*)values)[a] != ((__global const uint*)values)[b];
  if (type == SORT_TYPE_CHAR) {
    for (uint i = 0; i < width; ++i)
      if (values[a * width + i] != values[b * width + i]) return true;
    return false;
  }
  const ulong x = ((__global const ulong*)values)[a];
  const ulong y = ((__global const ulong*)values)[b];
  if (type == SORT_TYPE_DOUBLE && ((x | y) << 1) == 0) return false;  // zeros of either sign
  return x != y;
}

// flags[i] = 1 where the key of sorted index i differs from index i - 1
// (flags[0] and earlier keys' cuts are set by the host and earlier calls).
KERNEL void group_by_boundaries(__global const uint* perm, ulong n, __global const uchar* values,
                                __global const uchar* nulls, uint has_nulls, uint type,
                                uint width, __global uint* flags) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i > 0 && i < n &&
        group_by_differs(values, nulls, has_nulls, type, width, perm[i], perm[i - 1]))
      flags[i] = 1;
  }
}

// For every cut i (group ids[i]): starts[group] = i and first[group] =
// perm[i], the group's smallest position (the sort is stable).
KERNEL void group_by_starts(__global const uint* flags, __global const uint* ids,
                            __global const uint* perm, ulong n, __global uint* starts,
                            __global uint* first) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n && flags[i] != 0) {
      starts[ids[i]] = (uint)i;
      first[ids[i]] = perm[i];
    }
  }
}

// Reductions run in two levels of fixed shape, so that every device adds in
// the same order: a group's rows (sorted indices [starts[g], end of g), in
// position order) are cut into chunks of `chunk` rows, each chunk reduced
// serially by one work-item (group_by_partial), then each group's chunk
// partials combined serially in order (group_by_combine). `chunk` is a host
// constant, not the work-group geometry.

inline ulong group_by_end(__global const uint* starts, uint g, ulong groups, ulong n) {
  return g + 1 < groups ? starts[g + 1] : n;
}

// chunk_counts[g] = the chunks of sorted group g.
KERNEL void group_by_chunks(__global const uint* starts, ulong groups, ulong n, uint chunk,
                            __global uint* chunk_counts) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong g = tile_item(start, k);
    if (g < groups) {
      const ulong rows = group_by_end(starts, (uint)g, groups, n) - starts[g];
      chunk_counts[g] = (uint)((rows + chunk - 1) / chunk);
    }
  }
}

// task_group[chunk_offsets[g] + c] = g for every chunk c of group g.
KERNEL void group_by_chunk_groups(__global const uint* chunk_offsets,
                                  __global const uint* chunk_counts, ulong groups,
                                  __global uint* task_group) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong g = tile_item(start, k);
    if (g < groups) {
      for (uint c = 0; c < chunk_counts[g]; ++c) task_group[chunk_offsets[g] + c] = (uint)g;
    }
  }
}

inline bool group_by_is_real(uint op) {
  return op == VM_AGG_SUM_R || op == VM_AGG_MIN_R || op == VM_AGG_MAX_R;
}

// Partial t (of *task_total) reduces chunk t - chunk_offsets[g] of group
// g = task_group[t]: partials[t] is the INT64 value or DOUBLE bits, counts[t]
// the non-NULL inputs (all rows for COUNT(*), has_argument == 0).
KERNEL void group_by_partial(__global const uint* perm, ulong n, __global const uint* starts,
                             ulong groups, __global const uint* chunk_offsets,
                             __global const uint* task_group, __global const uint* task_total,
                             uint chunk, __global const uchar* values,
                             __global const uchar* nulls, uint has_nulls, uint type, uint op,
                             uint has_argument, __global ulong* partials, __global ulong* counts,
                             __global uint* status) {
  const ulong start = tile_start();
  const ulong tasks = task_total[0];
  const bool real = group_by_is_real(op);
  uint raised = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong t = tile_item(start, k);
    if (t >= tasks) continue;
    const uint g = task_group[t];
    const ulong begin = starts[g] + (t - chunk_offsets[g]) * chunk;
    const ulong end = min(begin + chunk, group_by_end(starts, g, groups, n));
    ulong count = 0;
    long integer = 0;
#if HAS_FP64
    double real_value = 0;
#endif
    for (ulong i = begin; i < end; ++i) {
      const uint row = perm[i];
      if (has_argument != 0 && has_nulls != 0 && nulls[row] != 0) continue;
      if (has_argument == 0 || op == VM_AGG_COUNT) {
        ++count;
        continue;
      }
      if (!real) {
        const long v = type == SORT_TYPE_INT32 ? (long)((__global const int*)values)[row]
                                               : ((__global const long*)values)[row];
        if (op == VM_AGG_SUM_I) {
          const long r = (long)((ulong)integer + (ulong)v);
          if (((integer ^ r) & (v ^ r)) < 0) raised = VM_STATUS_OVERFLOW;
          integer = r;
        } else if (count == 0 || (op == VM_AGG_MIN_I ? v < integer : v > integer)) {
          integer = v;
        }
      }
#if HAS_FP64
      else {
        const double v = type == SORT_TYPE_DOUBLE  ? ((__global const double*)values)[row]
                         : type == SORT_TYPE_INT32 ? (double)((__global const int*)values)[row]
                                                   : (double)((__global const long*)values)[row];
        if (op == VM_AGG_SUM_R) {
          real_value += v;
        } else if (count == 0 || (op == VM_AGG_MIN_R ? v < real_value : v > real_value)) {
          real_value = v;
        }
      }
#endif
      ++count;
    }
    counts[t] = count;
    partials[t] = (ulong)integer;
#if HAS_FP64
    if (real) partials[t] = as_ulong(real_value);
#endif
  }
  if (raised != 0) atomic_or(status, raised);
}

// Output group j is sorted group order[j]: its chunk partials combined in
// order into results[j] (INT64, or DOUBLE bits) and counts[j].
KERNEL void group_by_combine(__global const uint* order, ulong groups,
                             __global const uint* chunk_offsets,
                             __global const uint* chunk_counts, __global const ulong* partials,
                             __global const ulong* partial_counts, uint op, uint has_argument,
                             __global ulong* results, __global ulong* counts,
                             __global uint* status) {
  const ulong start = tile_start();
  const bool real = group_by_is_real(op);
  uint raised = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong j = tile_item(start, k);
    if (j >= groups) continue;
    const uint g = order[j];
    ulong count = 0;
    long integer = 0;
#if HAS_FP64
    double real_value = 0;
#endif
    const ulong first = chunk_offsets[g];
    for (ulong t = first; t < first + chunk_counts[g]; ++t) {
      const ulong c = partial_counts[t];
      if (c == 0) continue;
      if (has_argument != 0 && op != VM_AGG_COUNT && !real) {
        const long v = (long)partials[t];
        if (op == VM_AGG_SUM_I) {
          const long r = (long)((ulong)integer + (ulong)v);
          if (((integer ^ r) & (v ^ r)) < 0) raised = VM_STATUS_OVERFLOW;
          integer = r;
        } else if (count == 0 || (op == VM_AGG_MIN_I ? v < integer : v > integer)) {
          integer = v;
        }
      }
#if HAS_FP64
      if (has_argument != 0 && real) {
        const double v = as_double(partials[t]);
        if (op == VM_AGG_SUM_R) {
          real_value += v;
        } else if (count == 0 || (op == VM_AGG_MIN_R ? v < real_value : v > real_value)) {
          real_value = v;
        }
      }
#endif
      count += c;
    }
    counts[j] = count;
    results[j] = (has_argument == 0 || op == VM_AGG_COUNT) ? count : (ulong)integer;
#if HAS_FP64
    if (real) results[j] = as_ulong(real_value);
#endif
  }
  if (raised != 0) atomic_or(status, raised);
}

// QUANTILE per group: `perm` sorts by the group keys and then the argument
// (NULL first), so sorted group g's non-NULL arguments are the end of its
// segment, in order; a binary search finds where they start. results[j] is
// the value of rank floor(q * (n - 1)) (INT64, or DOUBLE bits), counts[j] = n.
KERNEL void group_by_quantile(__global const uint* perm, ulong n, __global const uint* starts,
                              __global const uint* order, ulong groups,
                              __global const uchar* values, __global const uchar* nulls,
                              uint has_nulls, uint type, ulong q_bits, __global ulong* results,
                              __global ulong* counts) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong j = tile_item(start, k);
    if (j >= groups) continue;
    const uint g = order[j];
    const ulong end = group_by_end(starts, g, groups, n);
    ulong low = starts[g];
    ulong high = end;
    while (has_nulls != 0 && low < high) {
      const ulong middle = low + (high - low) / 2;
      if (nulls[perm[middle]] != 0) {
        low = middle + 1;
      } else {
        high = middle;
      }
    }
    const ulong count = end - low;
    counts[j] = count;
    results[j] = 0;
#if HAS_FP64
    if (count != 0) {
      const double q = clamp(as_double(q_bits), 0.0, 1.0);
      const ulong rank = min((ulong)floor(q * (double)(count - 1)), count - 1);
      const uint row = perm[low + rank];
      results[j] = type == SORT_TYPE_INT32    ? (ulong)(long)((__global const int*)values)[row]
                   : type == SORT_TYPE_INT64 ? ((__global const ulong*)values)[row]
                                             : ((__global const ulong*)values)[row];
    }
#endif
  }
}
