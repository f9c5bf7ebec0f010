// vm_aggregate without the interpreter for aggregates over short REAL
// arithmetic, chosen by the host (ExpressionProgram::IsShortReal): no WHERE,
// no NULL, and every argument COUNT(*) or LOAD leaf [OP leaf [OP leaf]],
// each leaf a constant or an INT32 column read as REAL, each OP ADD_R,
// SUB_R, MUL_R or DIV_R (reversed or not; a division only where the host
// proved no divisor zero, as the untracked machine assumes). The thesis's
// MAX(unique1 / (0.173 + onepercent)) is LOAD const; ADD_R col; DIV_R col
// reversed. The interpreter's 64-bit lanes, operand and stack arrays held 80
// registers on the H100 (six work-groups of 128 per multiprocessor) and ran
// it at 1.53x the hand-written kernel; here a work-item holds its items'
// INT32 leaves and one double per item. Each step is the interpreter's
// operation in the same order, so the values are the same bits.
// Leaf i's fields, decoded once per aggregate; an absent leaf (past the
// argument's length) is a constant 0 that no step reads.
#define VM_SHORT_LEAF(i)                                                                        \
  const uint2 ins##i = (i) < length ? code[agg.y + (i)] : (uint2)(0u, 0u);                       \
  const uint op##i = ins##i.x & 0xffu;                                                           \
  const bool swap##i = (((ins##i.x >> 8) & 0xffu) & VM_OPND_REVERSED) != 0;                      \
  const bool column##i =                                                                         \
      (i) < length && (((ins##i.x >> 8) & 0xffu) & VM_OPND_BASE_MASK) == VM_OPND_COL_I32_R;      \
  const double constant##i = column##i ? 0.0 : as_double(consts[ins##i.y]);                      \
  __global const int* leaf##i =                                                                  \
      (__global const int*)vm_slot_values(&slots, column##i ? ins##i.x >> 16 : 0u);
// Leaf i's INT32 values for the items of the tile at `tile_start` with
// `tile_row_count` rows, into DST (rows past n read 0).
#define VM_SHORT_LOAD(i, DST, tile_start, tile_row_count)                                   \
  if (column##i) {                                                                          \
    if ((tile_row_count) == TILE) {                                                         \
      VM_FOR_TILE_ITEMS DST[k] = leaf##i[tile_item(tile_start, k)];                         \
    } else {                                                                                \
      for (uint k = 0; k < IPT; ++k)                                                        \
        DST[k] = tile_offset(k) < (tile_row_count) ? leaf##i[tile_item(tile_start, k)] : 0; \
    }                                                                                       \
  }
// Step i: the accumulator combined with leaf i (B, an expression of k), as
// the interpreter's LOAD, ADD_R, SUB_R, MUL_R and DIV_R do it. The leaf's
// kind and the operand order are tested outside the item loops, so that
// CPUs vectorise them.
#define VM_SHORT_APPLY(i, B)                                                  \
  switch (op##i) {                                                            \
    case VM_LOAD:                                                             \
      VM_FOR_TILE_ITEMS acc[k] = (B);                                         \
      break;                                                                  \
    case VM_ADD_R:                                                            \
      VM_FOR_TILE_ITEMS acc[k] = acc[k] + (B);                                \
      break;                                                                  \
    case VM_SUB_R:                                                            \
      if (swap##i) {                                                          \
        VM_FOR_TILE_ITEMS acc[k] = (B)-acc[k];                                \
      } else {                                                                \
        VM_FOR_TILE_ITEMS acc[k] = acc[k] - (B);                              \
      }                                                                       \
      break;                                                                  \
    case VM_MUL_R:                                                            \
      VM_FOR_TILE_ITEMS acc[k] = acc[k] * (B);                                \
      break;                                                                  \
    default: /* VM_DIV_R */                                                   \
      if (swap##i) {                                                          \
        VM_FOR_TILE_ITEMS acc[k] = (B) / acc[k];                              \
      } else {                                                                \
        VM_FOR_TILE_ITEMS acc[k] = acc[k] / (B);                              \
      }                                                                       \
      break;                                                                  \
  }
#define VM_SHORT_STEP(i)                            \
  if ((i) < length) {                               \
    if (column##i) {                                \
      VM_SHORT_APPLY(i, (double)raw##i[k])          \
    } else {                                        \
      VM_SHORT_APPLY(i, constant##i)                \
    }                                               \
  }

// VM_SHORT_PIPELINE: the next tile's leaves are loaded before the current
// tile's arithmetic, so that each work-item has loads in flight while it
// divides (CLQ_BUILD_OPTIONS=-DVM_SHORT_PIPELINE=0 loads each tile's leaves
// just before its arithmetic, for comparison).
#ifndef VM_SHORT_PIPELINE
#define VM_SHORT_PIPELINE 1
#endif

KERNEL void vm_aggregate_short_real(VM_AGGREGATE_PARAMS) {
  VM_AGGREGATE_LOCALS;
  VM_SLOTS_INIT(slots);
  for (uint a = 0; a < aggregate_count; ++a) {
    const uint4 agg = aggregates[a];
    const uint length = agg.z - agg.y;  // 0 for COUNT(*)
    VM_SHORT_LEAF(0)
    VM_SHORT_LEAF(1)
    VM_SHORT_LEAF(2)
    long value = vm_agg_identity(agg.x);
    ulong count = 0;
    ulong start = (ulong)get_group_id(0) * tiles_per_group * TILE;
    int raw0[IPT], raw1[IPT], raw2[IPT];
#if VM_SHORT_PIPELINE
    int next0[IPT], next1[IPT], next2[IPT];
    if (start < n) {
      const uint rows = tile_rows(start, n);
      VM_SHORT_LOAD(0, next0, start, rows)
      VM_SHORT_LOAD(1, next1, start, rows)
      VM_SHORT_LOAD(2, next2, start, rows)
    }
#endif
    for (uint t = 0; t < tiles_per_group && start < n; ++t, start += TILE) {
      const uint rows = tile_rows(start, n);
      uchar counted[IPT];
      VM_SET_LIVE(counted, rows)
#if VM_SHORT_PIPELINE
      for (uint k = 0; k < IPT; ++k) {
        raw0[k] = next0[k];
        raw1[k] = next1[k];
        raw2[k] = next2[k];
      }
      const ulong next_start = start + TILE;
      if (t + 1 < tiles_per_group && next_start < n) {
        const uint next_rows = tile_rows(next_start, n);
        VM_SHORT_LOAD(0, next0, next_start, next_rows)
        VM_SHORT_LOAD(1, next1, next_start, next_rows)
        VM_SHORT_LOAD(2, next2, next_start, next_rows)
      }
#else
      // Every leaf's loads before any arithmetic, so that they are in flight together.
      VM_SHORT_LOAD(0, raw0, start, rows)
      VM_SHORT_LOAD(1, raw1, start, rows)
      VM_SHORT_LOAD(2, raw2, start, rows)
#endif
      double acc[IPT];
      VM_FOR_TILE_ITEMS acc[k] = 0.0;
      VM_SHORT_STEP(0)
      VM_SHORT_STEP(1)
      VM_SHORT_STEP(2)
      long bits[IPT];
      VM_FOR_TILE_ITEMS bits[k] = as_long(acc[k]);
      vm_agg_fold(agg.x, bits, counted, &value, &count);
    }
    vm_agg_write_partial(agg.x, value, count, values, counts, partials,
                         group_base + get_group_id(0), aggregate_count, a);
  }
}
#undef VM_SHORT_LEAF
#undef VM_SHORT_LOAD
#undef VM_SHORT_STEP
#undef VM_SHORT_APPLY
