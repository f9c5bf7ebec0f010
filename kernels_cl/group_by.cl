// GROUP BY (operators/group_by.cpp, operators/hash_group_by.cpp), besides
// the fold of rows into group tables (kernels_cl/hash_group_by.cl):
//
// - the sort path: positions sorted by the key tuple (sort.cl) are cut where
//   the tuple changes (group_by_boundaries), the cuts scanned to group ids
//   and each row given its group (group_by_starts) for the fold's IDS mode,
//   and QUANTILE picked from each sorted group (group_by_quantile);
// - group tables: CPU work-group tables merged (group_by_merge), occupied
//   slots listed (group_by_occupied, group_by_compact), a REAL SUM
//   argument's exponent window (group_by_window), results from state words
//   (group_by_finish).
//
// A slot is `words` 64-bit words (kernels_cl/group_by_shared.h): a header
// (hash tables), the first position as ~row (merged by maximum, 0 when the
// slot is free), the group's rows, then each aggregate's words.

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
                                __global const uchar* nulls, uint has_nulls, uint type, uint width,
                                __global uint* flags) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i > 0 && i < n &&
        group_by_differs(values, nulls, has_nulls, type, width, perm[i], perm[i - 1]))
      flags[i] = 1;
  }
}

// For every sorted index i: row_groups[perm[i]] = its group (the cuts up to
// and including i, less one); for every cut i, starts[group] = i.
KERNEL void group_by_starts(__global const uint* flags, __global const uint* ids,
                            __global const uint* perm, ulong n, __global uint* starts,
                            __global uint* row_groups) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i >= n) continue;
    const uint group = ids[i] + flags[i] - 1;
    row_groups[perm[i]] = group;
    if (flags[i] != 0) starts[group] = (uint)i;
  }
}

inline ulong group_by_end(__global const uint* starts, uint g, ulong groups, ulong n) {
  return g + 1 < groups ? starts[g + 1] : n;
}

#if !HAS_FP64
// floor(q * c) for q in [0, 1] (its bits) and c < 2^32, with the product
// rounded to a double first (to nearest, ties to even), as the host's
// QuantileRank computes it, in integer arithmetic: q = m * 2^e, and m * c
// (below 2^85) keeps its top 53 bits.
inline ulong group_by_quantile_rank(ulong q_bits, ulong c) {
  const uint field = (uint)(q_bits >> 52) & 0x7ffu;
  const ulong m = (q_bits & 0xfffffffffffffUL) | (field != 0 ? 0x10000000000000UL : 0);
  int e = (field != 0 ? (int)field : 1) - 1075;
  const ulong hi = mul_hi(m, c);
  ulong r = m * c;
  if (hi == 0 && r == 0) return 0;
  const uint bits = hi != 0 ? 128 - (uint)clz(hi) : 64 - (uint)clz(r);
  if (bits > 53) {
    const uint s = bits - 53;  // at most 32
    const ulong rest = r & ((1UL << s) - 1);
    const ulong halfway = 1UL << (s - 1);
    r = (r >> s) | (hi << (64 - s));
    if (rest > halfway || (rest == halfway && (r & 1) != 0)) r += 1;
    e += (int)s;
  }
  if (e >= 0) return r << e;
  return e <= -64 ? 0 : r >> -e;
}
#endif

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
    if (count != 0) {
#if HAS_FP64
      const double q = clamp(as_double(q_bits), 0.0, 1.0);
      const ulong rank = min((ulong)floor(q * (double)(count - 1)), count - 1);
#else
      // The host clamped q to [0, 1].
      const ulong rank = min(group_by_quantile_rank(q_bits, count - 1), count - 1);
#endif
      const uint row = perm[low + rank];
      results[j] = type == SORT_TYPE_INT32   ? (ulong)(long)((__global const int*)values)[row]
                   : type == SORT_TYPE_INT64 ? ((__global const ulong*)values)[row]
                                             : ((__global const ulong*)values)[row];
    }
  }
}

inline long group_by_load_int(__global const uchar* values, uint type, ulong row) {
  return type == SORT_TYPE_INT32 ? (long)((__global const int*)values)[row]
                                 : ((__global const long*)values)[row];
}

#if HAS_FP64
inline double group_by_load_real(__global const uchar* values, uint type, ulong row) {
  return type == SORT_TYPE_DOUBLE ? ((__global const double*)values)[row]
                                  : (double)group_by_load_int(values, type, row);
}
#endif

// CPUs, DIRECT and IDS: table slot s merges in slot s of the `parts`
// work-group tables (parts x slots x words), word by word by `kinds`
// (HGB_MERGE_*).
KERNEL void group_by_merge(__global const ulong* parts_state, uint parts, ulong slots, uint words,
                           __global const uint* kinds, __global ulong* state) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong s = tile_item(start, k);
    if (s >= slots) continue;
    for (uint w = 0; w < words; ++w) {
      const uint kind = kinds[w];
      ulong v = state[s * words + w];
      for (uint p = 0; p < parts; ++p) {
        const ulong x = parts_state[(p * slots + s) * words + w];
        v = kind == HGB_MERGE_ADD ? v + x : kind == HGB_MERGE_MAX ? max(v, x) : v | x;
      }
      state[s * words + w] = v;
    }
  }
}

// flags[s] = 1 where slot s holds a group (its first-position word is set).
KERNEL void group_by_occupied(__global const ulong* state, ulong slots, uint words,
                              __global uint* flags) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong s = tile_item(start, k);
    if (s < slots) flags[s] = state[s * words + HGB_WORD_FIRST] != 0 ? 1u : 0u;
  }
}

// Group offsets[s] (for occupied slots s) is slot s, first position
// group_first[offsets[s]].
KERNEL void group_by_compact(__global const ulong* state, ulong slots, uint words,
                             __global const uint* offsets, __global uint* group_slots,
                             __global uint* group_first) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong s = tile_item(start, k);
    if (s >= slots) continue;
    const ulong first = state[s * words + HGB_WORD_FIRST];
    if (first != 0) {
      group_slots[offsets[s]] = (uint)s;
      group_first[offsets[s]] = ~(uint)first;
    }
  }
}

// Over the finite non-zero values of rows [group * rows_per_group,
// +rows_per_group): window[2 * index] = min of the position of the lowest
// significand bit, window[2 * index + 1] = max of the position of the
// highest. Only exponent fields are compared (a vectorisable loop).
KERNEL void group_by_window(__global const uchar* values, __global const uchar* nulls,
                            uint has_nulls, uint type, ulong rows, ulong rows_per_group,
                            __global int* window, uint index) {
  __local uint scratch[2 * WG_SIZE];
  const uint lid = get_local_id(0);
  uint least = 0x7ffu, most = 0;  // exponent fields, 0 read as 1
#if HAS_FP64
  const ulong begin = (ulong)get_group_id(0) * rows_per_group;
  const ulong end = min(rows, begin + rows_per_group);
  for (ulong start = begin; start < end; start += TILE) {
    const uint count = tile_rows(start, end);
    if (type == SORT_TYPE_DOUBLE && has_nulls == 0) {
      __global const ulong* bits = (__global const ulong*)values;
      VECTORIZE_ITEMS
      for (uint k = 0; k < IPT; ++k) {
        const ulong b = tile_offset(k) < count ? bits[tile_item(start, k)] : 0;
        const uint e = (uint)(b >> 52) & 0x7ffu;
        const bool counted = e != 0x7ffu && (b << 1) != 0;
        least = counted ? min(least, max(e, 1u)) : least;
        most = counted ? max(most, max(e, 1u)) : most;
      }
    } else {
      for (uint k = 0; k < IPT; ++k) {
        const ulong row = tile_item(start, k);
        if (tile_offset(k) >= count || (has_nulls != 0 && nulls[row] != 0)) continue;
        const ulong b = as_ulong(group_by_load_real(values, type, row));
        const uint e = (uint)(b >> 52) & 0x7ffu;
        if (e == 0x7ffu || (b << 1) == 0) continue;
        least = min(least, max(e, 1u));
        most = max(most, max(e, 1u));
      }
    }
  }
#endif
  scratch[lid] = least;
  scratch[WG_SIZE + lid] = most;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    for (uint i = 1; i < WG_SIZE; ++i) {
      least = min(least, scratch[i]);
      most = max(most, scratch[WG_SIZE + i]);
    }
    if (most != 0) {
      atomic_min(&window[2 * index], (int)least - 1075);
      atomic_max(&window[2 * index + 1], (int)most - 1075 + 52);
    }
  }
}

#if HAS_FP64
// The exact value of a SUM_REAL's bins, rounded to the nearest double (ties
// to even): bin i holds a sum of 30-bit pieces weighing 2^(base + 30 i)
// (kernels_cl/group_by_shared.h). The bins are normalised to base-2^30
// digits of the two's complement total, negated when negative, and the top
// digits rounded with a sticky bit for the rest. Every input is a multiple
// of 2^-1074, so a subnormal total is exact and ldexp does not round again.
inline double group_by_exact_sum(__global const ulong* bins, uint count, int base) {
  const ulong mask = ((ulong)1 << HGB_BIN_BITS) - 1;
  ulong digit[HGB_MAX_BINS + 3];
  const uint n = count + 3;
  long carry = 0;
  for (uint i = 0; i < n; ++i) {
    const long v = (i < count ? (long)bins[i] : 0) + carry;
    digit[i] = (ulong)v & mask;
    carry = (v - (long)digit[i]) >> HGB_BIN_BITS;
  }
  const bool negative = carry < 0;
  if (negative) {
    ulong c = 1;
    for (uint i = 0; i < n; ++i) {
      const ulong t = (mask - digit[i]) + c;
      digit[i] = t & mask;
      c = t >> HGB_BIN_BITS;
    }
  }
  int top = (int)n - 1;
  while (top >= 0 && digit[top] == 0)
    --top;
  if (top < 0) return 0.0;
  ulong acc = digit[top];
  int low = top * HGB_BIN_BITS;  // bit position of acc's lowest bit
  int i = top - 1;
  while (acc < ((ulong)1 << 33) && i >= 0) {
    acc = (acc << HGB_BIN_BITS) | digit[i--];
    low -= HGB_BIN_BITS;
  }
  bool sticky = false;
  if (i >= 0) {  // fill acc to 62 bits, the rest of the digit sticky
    const int take = clamp(62 - (64 - (int)clz(acc)), 0, HGB_BIN_BITS);
    const int rest = HGB_BIN_BITS - take;
    acc = (acc << take) | (digit[i] >> rest);
    sticky = (digit[i] & (((ulong)1 << rest) - 1)) != 0;
    low -= take;
    for (--i; i >= 0; --i)
      sticky = sticky || digit[i] != 0;
  }
  const int length = 64 - (int)clz(acc);
  if (length > 53) {
    const int shift = length - 53;
    ulong mantissa = acc >> shift;
    const ulong rest = acc & (((ulong)1 << shift) - 1);
    const ulong halfway = (ulong)1 << (shift - 1);
    if (rest > halfway || (rest == halfway && (sticky || (mantissa & 1) != 0))) ++mantissa;
    acc = mantissa;
    low += shift;
  }
  const double magnitude = ldexp((double)acc, base + low);
  return negative ? -magnitude : magnitude;
}
#endif

// Output group j (state words at group_slots[j] * words) of one aggregate:
// results[j] its INT64 value or DOUBLE bits (op HGB_OP_*, state words from
// `word`; HGB_OP_COUNT counts), counts[j] its non-NULL inputs (count_word,
// or the group's rows). An integer SUM whose exact total does not
// fit int64 raises VM_STATUS_OVERFLOW.
KERNEL void group_by_finish(__global const uint* group_slots, ulong groups,
                            __global const ulong* state, uint words, uint op, uint word,
                            uint count_word, uint bins, int base, uint real,
                            __global ulong* results, __global ulong* counts,
                            __global uint* status) {
  const ulong start = tile_start();
  uint raised = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong j = tile_item(start, k);
    if (j >= groups) continue;
    __global const ulong* w = state + (ulong)group_slots[j] * words;
    const ulong count = w[count_word == HGB_NO_WORD ? HGB_WORD_ROWS : count_word];
    counts[j] = count;
    ulong value = count;
    if (op == HGB_OP_SUM) {
      value = w[word];
    } else if (op == HGB_OP_SUM_SPLIT) {
      // total = high * 2^32 + low, low the unsigned sum of the low halves.
      const ulong low = w[word];
      const long high = (long)w[word + 1] + (long)(low >> 32);
      if (high < INT_MIN || high > INT_MAX) raised = VM_STATUS_OVERFLOW;
      value = ((ulong)high << 32) | (low & 0xffffffffUL);
    } else if (op == HGB_OP_MAX || op == HGB_OP_MIN) {
      const ulong image = op == HGB_OP_MAX ? w[word] : ~w[word];
      value = real == 0            ? image ^ 0x8000000000000000UL
              : (image >> 63) != 0 ? image ^ 0x8000000000000000UL
                                   : ~image;
    } else if (op == HGB_OP_SUM_REAL) {
#if HAS_FP64
      const ulong flags = w[word + bins];
      double sum = group_by_exact_sum(w + word, bins, base);
      if ((flags & HGB_FLAG_NAN) != 0 || (flags & (HGB_FLAG_POS_INF | HGB_FLAG_NEG_INF)) ==
                                             (HGB_FLAG_POS_INF | HGB_FLAG_NEG_INF)) {
        sum = as_double(0x7ff8000000000000UL);  // the canonical quiet NaN
      } else if ((flags & HGB_FLAG_POS_INF) != 0) {
        sum = INFINITY;
      } else if ((flags & HGB_FLAG_NEG_INF) != 0) {
        sum = -INFINITY;
      }
      value = as_ulong(sum);
#endif
    }
    results[j] = value;
  }
  if (raised != 0) atomic_or(status, raised);
}
