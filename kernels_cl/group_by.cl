// Sort-based GROUP BY (operators/group_by.cpp): the positions sorted by the
// key tuple (sort.cl) are cut where the tuple changes (group_by_boundaries),
// the cuts scanned to group ids, each group's first sorted index and smallest
// position recorded (group_by_starts), and every group reduced by one
// work-item walking its segment in position order (group_by_aggregate), so a
// double SUM adds in input order on every device.

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

// Output group j is sorted group order[j], the sorted indices
// [starts[g], starts[g + 1]) (n for the last). values[j] is the INT64 result
// or the bits of the DOUBLE result; counts[j] the non-NULL inputs (all rows
// for COUNT(*), has_argument == 0).
KERNEL void group_by_aggregate(__global const uint* perm, ulong n, __global const uint* starts,
                               __global const uint* order, ulong groups,
                               __global const uchar* values, __global const uchar* nulls,
                               uint has_nulls, uint type, uint op, uint has_argument,
                               __global ulong* results, __global ulong* counts,
                               __global uint* status) {
  const ulong start = tile_start();
  const bool real = op == VM_AGG_SUM_R || op == VM_AGG_MIN_R || op == VM_AGG_MAX_R;
  uint raised = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong j = tile_item(start, k);
    if (j >= groups) continue;
    const uint g = order[j];
    const ulong end = g + 1 < groups ? starts[g + 1] : n;
    ulong count = 0;
    long integer = 0;
#if HAS_FP64
    double sum_r = 0;
#endif
    for (ulong i = starts[g]; i < end; ++i) {
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
          sum_r += v;
        } else if (count == 0 || (op == VM_AGG_MIN_R ? v < sum_r : v > sum_r)) {
          sum_r = v;
        }
      }
#endif
      ++count;
    }
    counts[j] = count;
    if (has_argument == 0 || op == VM_AGG_COUNT) {
      results[j] = count;
    } else if (!real) {
      results[j] = (ulong)integer;
    } else {
#if HAS_FP64
      results[j] = as_ulong(sum_r);
#endif
    }
  }
  if (raised != 0) atomic_or(status, raised);
}
