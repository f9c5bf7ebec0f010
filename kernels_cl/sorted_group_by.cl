// GROUP BY's fold without 64-bit atomics (operators/sorted_group_by.cpp):
// the rows sorted by the key tuple (group_by.cl's sort path: `perm`, each
// sorted group's first index in `starts`) are folded group by group, each
// group by one work-item into its own slot with plain loads and stores.
// The slot's words are those hash_group_by_aggregate's IDS mode leaves
// (kernels_cl/group_by_shared.h), made by the same images and REAL SUM
// pieces (hash_group_by.cl, earlier in the program), so group_by_finish
// finishes them alike. A group's rows come in sorted order, so its words
// are the same whatever the geometry.

#define SGB_ADD(w, v) (*(w) += (v))
#define SGB_OR(w, v) (*(w) |= (v))
// STATEMENT for each of the group's rows whose argument is not NULL.
#define SGB_FOR_ROWS(STATEMENT)                   \
  for (ulong i = begin; i < end; ++i) {           \
    const uint row = perm[i];                     \
    if (has_nulls && nulls[row] != 0) continue;   \
    STATEMENT;                                    \
  }

// Work-item g folds sorted group g (of `groups`) of the `rows` sorted rows
// into slot g of `table` (`words` words a slot, zero before the first
// pass): with `track_rows`, its first row and row count, then the `agg_count`
// aggregates of agg_desc (HGB_AGG_UINTS each), whose arguments are av/an i.
KERNEL void sorted_group_by_fold(__global const uint* perm, ulong rows,
                                 __global const uint* starts, ulong groups,
                                 __global const uint* agg_desc, uint agg_count, HGB_ARG_PARAMS,
                                 uint words, uint track_rows, __global ulong* table) {
  const ulong g = get_global_id(0);
  if (g >= groups) return;
  const ulong begin = starts[g];
  const ulong end = group_by_end(starts, (uint)g, groups, rows);
  __global ulong* w = table + g * words;
  if (track_rows != 0) {
    uint first = UINT_MAX;
    for (ulong i = begin; i < end; ++i)
      first = min(first, perm[i]);
    w[HGB_WORD_FIRST] = (ulong)~first;
    if (words > HGB_WORD_ROWS) w[HGB_WORD_ROWS] = end - begin;
  }
  for (uint a = 0; a < agg_count; ++a) {
    __global const uint* agg = agg_desc + a * HGB_AGG_UINTS;
    const uint op = agg[HGB_AGG_OP], type = agg[HGB_AGG_TYPE], word = agg[HGB_AGG_WORD];
    __global const uchar* values = HGB_ARG_VALUES_OF(a);
    __global const uchar* nulls = HGB_ARG_NULLS_OF(a);
    const bool has_nulls = agg[HGB_AGG_NULLS] != 0;
    const bool real = agg[HGB_AGG_REAL] != 0;
    switch (op) {
      case HGB_OP_SUM:
        SGB_FOR_ROWS(w[word] += HGB_AS_ULONG(group_by_load_int(values, type, row)))
        break;
      case HGB_OP_SUM_SPLIT:
        SGB_FOR_ROWS(const long v = group_by_load_int(values, type, row);
                     w[word] += hgb_split_low(v); w[word + 1] += HGB_HIGH_HALF(v))
        break;
      case HGB_OP_MAX:
      case HGB_OP_MIN: {
        ulong m = w[word];
#if HAS_FP64
        if (real) {
          SGB_FOR_ROWS(const double d = type == SORT_TYPE_DOUBLE
                                            ? ((__global const double*)values)[row]
                                            : (double)group_by_load_int(values, type, row);
                       m = max(m, op == HGB_OP_MAX ? hgb_real_image(d) : hgb_real_image_min(d)))
          w[word] = m;
          break;
        }
#else
        (void)real;  // REAL MIN/MAX need fp64; the planner refuses them
#endif
        SGB_FOR_ROWS(const long v = group_by_load_int(values, type, row);
                     m = max(m, op == HGB_OP_MAX ? hgb_int_image(v) : hgb_int_image_min(v)))
        w[word] = m;
        break;
      }
      case HGB_OP_SUM_REAL: {
#if HAS_FP64
        const int base = (int)agg[HGB_AGG_BASE];
        const uint bins = agg[HGB_AGG_BINS];
        SGB_FOR_ROWS(
            HGB_FOLD_REAL(SGB_ADD, SGB_OR, w + word, group_by_load_real(values, type, row), base,
                          bins))
#endif
        break;
      }
    }
    const uint count_word = agg[HGB_AGG_COUNT];
    if (count_word != HGB_NO_WORD) {
      ulong counted = 0;
      SGB_FOR_ROWS(++counted)
      w[count_word] += counted;
    }
  }
}

#undef SGB_ADD
#undef SGB_OR
#undef SGB_FOR_ROWS
