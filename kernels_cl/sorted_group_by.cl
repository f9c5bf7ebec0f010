// GROUP BY's fold without 64-bit atomics (operators/sorted_group_by.cpp):
// the rows sorted by the key tuple (group_by.cl's sort path: `perm`, and
// each row's sorted group in `row_groups`) are folded in chunks of `chunk`
// sorted rows, one work-item a chunk, with plain loads and stores: a group
// that lies inside one chunk, away from its ends, is folded into its slot
// of the table; the chunk's first and last runs of rows (whose groups may go
// on in the next chunks) into two records of the chunk (a group id and the
// state words). sorted_group_by_merge then merges the records the same way,
// chunk by chunk, level after level, until one chunk holds them all. So no
// two work-items write one word, and a work-item's loops stay short
// whatever the sizes of the groups (llvmpipe ends an invocation's loops
// after 65535 iterations in all).
//
// The state words are those hash_group_by_aggregate's IDS mode leaves
// (kernels_cl/group_by_shared.h), from the same images and REAL SUM pieces
// (hash_group_by.cl, earlier in the program), so group_by_finish finishes
// them alike; every word merges by an operation that commutes (its kind), so
// the words do not depend on the chunks.

#define SGB_NO_GROUP 0xffffffffu
#define SGB_ARG_ARGS                                                                             \
  av0, an0, av1, an1, av2, an2, av3, an3, av4, an4, av5, an5, av6, an6, av7, an7
#define SGB_ADD(w, v) (*(w) += (v))
#define SGB_OR(w, v) (*(w) |= (v))
// STATEMENT for each of the run's rows whose argument is not NULL.
#define SGB_FOR_ROWS(STATEMENT)                 \
  for (ulong i = begin; i < end; ++i) {         \
    const uint row = perm[i];                   \
    if (has_nulls && nulls[row] != 0) continue; \
    STATEMENT;                                  \
  }

// Where a run of the chunk goes: the group's slot when the run is neither
// the chunk's first nor its last, or when the chunk is the only one; else
// the chunk's first or last record (a run that is both takes the first).
inline __global ulong* sorted_group_by_target(bool first, bool last, bool single, uint group,
                                              uint words, __global ulong* table,
                                              __global uint* record_groups,
                                              __global ulong* records, ulong chunk_index) {
  if (single || (!first && !last)) return table + (ulong)group * words;
  const ulong record = 2 * chunk_index + (first ? 0 : 1);
  record_groups[record] = group;
  return records + record * words;
}

// Folds sorted rows [begin, end), all of one group, into the words at w:
// with `track_rows` its first row and row count, then the aggregates.
inline void sorted_group_by_fold_run(__global const uint* perm, ulong begin, ulong end,
                                     __global const uint* agg_desc, uint agg_count,
                                     HGB_ARG_PARAMS, uint words, uint track_rows,
                                     __global ulong* w) {
  if (track_rows != 0) {
    uint first = UINT_MAX;
    for (ulong i = begin; i < end; ++i)
      first = min(first, perm[i]);
    w[HGB_WORD_FIRST] = max(w[HGB_WORD_FIRST], (ulong)~first);
    if (words > HGB_WORD_ROWS) w[HGB_WORD_ROWS] += end - begin;
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
        SGB_FOR_ROWS(HGB_FOLD_REAL(SGB_ADD, SGB_OR, w + word,
                                   group_by_load_real(values, type, row), base, bins))
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

// Work-item c folds sorted rows [c * chunk, (c + 1) * chunk) of `rows`
// (`words` words a slot and a record; the records' groups SGB_NO_GROUP and
// their words 0 before) for the `agg_count` aggregates of agg_desc
// (HGB_AGG_UINTS each), whose arguments are av/an i.
KERNEL void sorted_group_by_fold(__global const uint* perm, __global const uint* row_groups,
                                 ulong rows, uint chunk, __global const uint* agg_desc,
                                 uint agg_count, HGB_ARG_PARAMS, uint words, uint track_rows,
                                 __global ulong* table, __global uint* record_groups,
                                 __global ulong* records) {
  const ulong c = get_global_id(0);
  const ulong lo = c * chunk;
  if (lo >= rows) return;
  const ulong hi = min(rows, lo + chunk);
  const bool single = rows <= chunk;
  for (ulong begin = lo; begin < hi;) {
    const uint group = row_groups[perm[begin]];
    ulong end = begin + 1;
    while (end < hi && row_groups[perm[end]] == group) ++end;
    __global ulong* w = sorted_group_by_target(begin == lo, end == hi, single, group, words,
                                               table, record_groups, records, c);
    sorted_group_by_fold_run(perm, begin, end, agg_desc, agg_count, SGB_ARG_ARGS, words,
                             track_rows, w);
    begin = end;
  }
}

// Work-item c merges records [c * chunk, (c + 1) * chunk) of `count` (those
// of group SGB_NO_GROUP are empty) word by word by their HGB_MERGE_* kinds:
// runs of one group inside the chunk, or all when one chunk holds them, into
// the group's slot; the chunk's first and last runs into its two records
// of the next level.
KERNEL void sorted_group_by_merge(__global const uint* in_groups, __global const ulong* in_records,
                                  ulong count, uint chunk, uint words, __global const uint* kinds,
                                  __global ulong* table, __global uint* record_groups,
                                  __global ulong* records) {
  const ulong c = get_global_id(0);
  const ulong lo = c * chunk;
  if (lo >= count) return;
  const ulong hi = min(count, lo + chunk);
  const bool single = count <= chunk;
  ulong begin = lo;
  while (begin < hi && in_groups[begin] == SGB_NO_GROUP) ++begin;
  for (bool first = true; begin < hi; first = false) {
    const uint group = in_groups[begin];
    ulong end = begin + 1;
    while (end < hi && (in_groups[end] == group || in_groups[end] == SGB_NO_GROUP)) ++end;
    __global ulong* w = sorted_group_by_target(first, end == hi, single, group, words, table,
                                               record_groups, records, c);
    for (ulong r = begin; r < end; ++r) {
      if (in_groups[r] == SGB_NO_GROUP) continue;
      __global const ulong* from = in_records + r * words;
      for (uint t = 0; t < words; ++t) {
        const ulong x = from[t];
        const uint kind = kinds[t];
        w[t] = kind == HGB_MERGE_ADD ? w[t] + x : kind == HGB_MERGE_MAX ? max(w[t], x) : w[t] | x;
      }
    }
    begin = end;
  }
}

#undef SGB_NO_GROUP
#undef SGB_ARG_ARGS
#undef SGB_ADD
#undef SGB_OR
#undef SGB_FOR_ROWS
