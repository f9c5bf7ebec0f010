// vm_aggregate without the interpreter for aggregates over short REAL
// arithmetic, chosen by the host (ExpressionProgram::IsShortReal): no WHERE,
// no NULL, every aggregate COUNT, SUM, MIN or MAX, and every argument
// COUNT(*) or LOAD leaf [OP leaf [OP leaf]], each leaf a constant or an INT32
// column read as REAL (at most two columns), each OP ADD_R, SUB_R, MUL_R or
// DIV_R (reversed or not; a division only where the host proved no divisor
// zero, as the untracked machine assumes). The thesis's MAX(unique1 / (0.173
// + onepercent)) is LOAD const; ADD_R col; DIV_R col reversed. Each step is
// the interpreter's operation on the same operands in the same order, so the
// values are the same bits, and the fold takes the items in the order
// vm_agg_fold does.
//
// On GPUs a work-item computes and folds each item in straight-line code:
// the item loop is compiled once for each pair of operations (21 with the
// shorter arguments, times two folds) and chosen per tile, so that no item
// selects an operation; only the operand order of - and / and the leaf
// (constant, column A or B) are selected per item. Choosing the operation
// per item and step, by a switch or by selects, was slower than choosing it
// per tile, which comes close to the arithmetic written out by hand.
// Registers were no cause: every version here uses the same number, and an
// earlier kernel with many more was no slower than the per-item choice.

// REAL arithmetic throughout: without fp64 the kernel does not exist (the
// planner gives such devices no REAL program).
#if HAS_FP64

// Leaf i's fields, decoded once per aggregate. A column leaf's values are in
// column array which##i: the first column leaf's in A, the second's in B. An
// absent leaf (past the argument's length) is a constant 0 that no step reads.
#define VM_SHORT_LEAF(i)                                                                   \
  const uint2 ins##i = (i) < length ? code[agg.y + (i)] : (uint2)(0u, 0u);                  \
  const uint op##i = ins##i.x & 0xffu;                                                      \
  const bool swap##i = (((ins##i.x >> 8) & 0xffu) & VM_OPND_REVERSED) != 0;                 \
  const bool column##i =                                                                    \
      (i) < length && (((ins##i.x >> 8) & 0xffu) & VM_OPND_BASE_MASK) == VM_OPND_COL_I32_R; \
  const double constant##i = (i) < length && !column##i ? as_double(consts[ins##i.y]) : 0.0;
// Column X's INT32 values for the items of the tile at `tile_start` with
// `tile_row_count` rows, into DST (rows past n, and every item when no leaf
// is column X, read 0).
#define VM_SHORT_LOAD(X, DST, tile_start, tile_row_count)                                      \
  if (!has##X) {                                                                               \
    for (uint k = 0; k < IPT; ++k) DST[k] = 0;                                                 \
  } else if ((tile_row_count) == TILE) {                                                       \
    for (uint k = 0; k < IPT; ++k) DST[k] = column##X[tile_item(tile_start, k)];               \
  } else {                                                                                     \
    for (uint k = 0; k < IPT; ++k)                                                             \
      DST[k] = tile_offset(k) < (tile_row_count) ? column##X[tile_item(tile_start, k)] : 0;   \
  }
// Leaf i's value for the item whose column values are a and b.
#define VM_SHORT_OPERAND(i, a, b) (column##i ? (which##i == 0 ? (a) : (b)) : constant##i)
// Operations of a step, as the selector of the item loop compiled for it:
// 0 none (past the argument's length), then ADD_R, SUB_R, MUL_R, DIV_R.
#define VM_SHORT_NONE 0
#define VM_SHORT_ADD 1
#define VM_SHORT_SUB 2
#define VM_SHORT_MUL 3
#define VM_SHORT_DIV 4
inline uint vm_short_operation(uint op, bool present) {
  if (!present) return VM_SHORT_NONE;
  return op == VM_ADD_R ? VM_SHORT_ADD
         : op == VM_SUB_R ? VM_SHORT_SUB
         : op == VM_MUL_R ? VM_SHORT_MUL
                          : VM_SHORT_DIV;
}
// Step i with operation OP (a constant) on x with operand v, as the
// interpreter's ADD_R, SUB_R, MUL_R and DIV_R combine them, v on the left
// when reversed (a sum or product is the same either way round).
#define VM_SHORT_STEP(i, x, v, OP)                        \
  if ((OP) == VM_SHORT_ADD) {                             \
    x = x + (v);                                          \
  } else if ((OP) == VM_SHORT_MUL) {                      \
    x = x * (v);                                          \
  } else if ((OP) != VM_SHORT_NONE) {                     \
    const double left = swap##i ? (v) : x;                \
    const double right = swap##i ? x : (v);               \
    x = (OP) == VM_SHORT_SUB ? left - right : left / right; \
  }
// x = the value of the item whose columns A and B hold RAW_A and RAW_B; OP1,
// OP2: steps 1 and 2's operations.
#define VM_SHORT_VALUE(x, RAW_A, RAW_B, OP1, OP2)           \
  const double a##x = (double)(RAW_A);                      \
  const double b##x = (double)(RAW_B);                      \
  double x = VM_SHORT_OPERAND(0, a##x, b##x);               \
  VM_SHORT_STEP(1, x, VM_SHORT_OPERAND(1, a##x, b##x), OP1) \
  VM_SHORT_STEP(2, x, VM_SHORT_OPERAND(2, a##x, b##x), OP2)
// x = item k's value, from the tile's loaded columns.
#define VM_SHORT_ITEM(x, k, OP1, OP2) VM_SHORT_VALUE(x, rawA[k], rawB[k], OP1, OP2)

// The item loop compiled for the argument's operations (`shape`: step 1's
// operation * 5 + step 2's), so that no item selects an operation: BODY(OP1,
// OP2) with each pair as constants.
#define VM_SHORT_CASE(BODY, OP1, OP2) \
  case (OP1) * 5 + (OP2):             \
    BODY(OP1, OP2)                    \
    break;
#define VM_SHORT_CASES_AFTER(BODY, OP1)  \
  VM_SHORT_CASE(BODY, OP1, VM_SHORT_ADD) \
  VM_SHORT_CASE(BODY, OP1, VM_SHORT_SUB) \
  VM_SHORT_CASE(BODY, OP1, VM_SHORT_MUL) \
  VM_SHORT_CASE(BODY, OP1, VM_SHORT_DIV)
#define VM_SHORT_BY_SHAPE(BODY)                       \
  switch (shape) {                                    \
    VM_SHORT_CASE(BODY, VM_SHORT_NONE, VM_SHORT_NONE) \
    VM_SHORT_CASE(BODY, VM_SHORT_ADD, VM_SHORT_NONE)  \
    VM_SHORT_CASE(BODY, VM_SHORT_SUB, VM_SHORT_NONE)  \
    VM_SHORT_CASE(BODY, VM_SHORT_MUL, VM_SHORT_NONE)  \
    VM_SHORT_CASE(BODY, VM_SHORT_DIV, VM_SHORT_NONE)  \
    VM_SHORT_CASES_AFTER(BODY, VM_SHORT_ADD)          \
    VM_SHORT_CASES_AFTER(BODY, VM_SHORT_SUB)          \
    VM_SHORT_CASES_AFTER(BODY, VM_SHORT_MUL)          \
    VM_SHORT_CASES_AFTER(BODY, VM_SHORT_DIV)          \
  }

// vm_agg_fold's REAL folds of x into r: an item not counted (not `live`)
// combines the identity. MIN is MAX of the negated values, negated back
// (negation is exact and reverses every comparison), so two folds serve three.
// After a product, the sum's add could be fused with it into one FMA by a
// device compiler, which the host forbids between steps; here the select on
// `live` stands between them, and the tests compare every pair of operations
// with the interpreter bit for bit (they pass with NVIDIA's and PoCL's
// compilers). `#pragma OPENCL FP_CONTRACT OFF` in the kernel would make it
// certain, but made the REAL MAX slower on the GPU.
#define VM_SHORT_SUM(r, x, live) r = r + ((live) ? (x) : 0.0)
#define VM_SHORT_MAX(r, x, live)                                \
  {                                                             \
    const double y = (live) ? sign * (x) : -(double)INFINITY;   \
    r = y > r ? y : r;                                          \
  }
#if DEVICE_IS_CPU
// CPUs fold into 16 lanes, as vm_agg_fold does (so that the loop vectorises;
// a work-item's items are contiguous): item j + l into lane l, each lane
// starting from the fold's identity in every tile, the lanes then combined
// in order. A full tile of an argument that reads a column reads its columns
// in the loop; the last, partial tile (and a constant argument) runs a loop
// that is not vectorised, with the operations chosen per item.
#define VM_SHORT_LANES_FULL(FOLD, OP1, OP2)                                              \
  SUM_ITEMS_IN_ORDER for (uint j = 0; j < IPT; j += 16) {                               \
    VECTORIZE_ITEMS for (uint l = 0; l < 16; ++l) {                                     \
      VM_SHORT_VALUE(x, fromA[tile_item(start, j + l)], fromB[tile_item(start, j + l)], \
                     OP1, OP2)                                                          \
      FOLD(lanes[l], x, true);                                                          \
    }                                                                                   \
  }
#define VM_SHORT_LANES_PARTIAL(FOLD)                                \
  SUM_ITEMS_IN_ORDER for (uint j = 0; j < IPT; j += 16) {           \
    for (uint l = 0; l < 16; ++l) {                                 \
      const bool live = tile_offset(j + l) < rows;                  \
      VM_SHORT_ITEM(x, j + l, op_1, op_2)                           \
      FOLD(lanes[l], x, live);                                      \
    }                                                               \
  }
#define VM_SHORT_SUM_TILE(OP1, OP2) VM_SHORT_LANES_FULL(VM_SHORT_SUM, OP1, OP2)
#define VM_SHORT_MAX_TILE(OP1, OP2) VM_SHORT_LANES_FULL(VM_SHORT_MAX, OP1, OP2)
#else
// GPUs fold each item of the tile (`rows` rows) into r, in item order.
#define VM_SHORT_FOLD_TILE(FOLD, OP1, OP2)                       \
  for (uint k = 0; k < IPT; ++k) {                               \
    const bool live = rows == TILE || tile_offset(k) < rows;     \
    VM_SHORT_ITEM(x, k, OP1, OP2)                                \
    FOLD(r, x, live);                                            \
  }
#define VM_SHORT_SUM_TILE(OP1, OP2) VM_SHORT_FOLD_TILE(VM_SHORT_SUM, OP1, OP2)
#define VM_SHORT_MAX_TILE(OP1, OP2) VM_SHORT_FOLD_TILE(VM_SHORT_MAX, OP1, OP2)
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
    const uint which0 = 0;
    const uint which1 = column0 ? 1u : 0u;
    const uint which2 = which1 + (column1 ? 1u : 0u);
    const bool hasA = column0 || column1 || column2;
    const bool hasB = which2 + (column2 ? 1u : 0u) == 2u;
    const uint slotA = column0 ? ins0.x >> 16 : column1 ? ins1.x >> 16 : ins2.x >> 16;
    const uint slotB = column0 && column1 ? ins1.x >> 16 : ins2.x >> 16;
    __global const int* columnA = (__global const int*)vm_slot_values(&slots, hasA ? slotA : 0u);
    __global const int* columnB = (__global const int*)vm_slot_values(&slots, hasB ? slotB : 0u);
    const uint op_1 = vm_short_operation(op1, length > 1);
    const uint op_2 = vm_short_operation(op2, length > 2);
    const uint shape = op_1 * 5 + op_2;
    // MIN and MAX fold from MAX's identity; SUM from 0, and COUNT's value is 0.
    const double sign = agg.x == VM_AGG_MIN_R ? -1.0 : 1.0;
    const double identity =
        agg.x == VM_AGG_MIN_R || agg.x == VM_AGG_MAX_R ? -(double)INFINITY : 0.0;
#if DEVICE_IS_CPU
    double r = sign * identity;  // the lanes hold MIN's values negated, r does not
#else
    double r = identity;
#endif
    ulong count = 0;
    ulong start = (ulong)get_group_id(0) * tiles_per_group * TILE;
#if DEVICE_IS_CPU
    // Column B's values where the argument reads only column A, unused.
    __global const int* fromA = columnA;
    __global const int* fromB = hasB ? columnB : columnA;
#endif
    for (uint t = 0; t < tiles_per_group && start < n; ++t, start += TILE) {
      const uint rows = tile_rows(start, n);
#if DEVICE_IS_CPU
      double lanes[16];
      for (uint l = 0; l < 16; ++l) lanes[l] = identity;
      if (rows == TILE && hasA) {
        count += IPT;
        // The next work-item's rows (the same thread runs it next), as the
        // interpreter's vm_prefetch_next.
        const ulong next_row = tile_item(start, 0) + IPT;
        for (uint b = 0; b < IPT * 4; b += 64) {
          CLQ_PREFETCH((__global const uchar*)(fromA + next_row) + b);
          CLQ_PREFETCH((__global const uchar*)(fromB + next_row) + b);
        }
        if (agg.x == VM_AGG_SUM_R) {
          VM_SHORT_BY_SHAPE(VM_SHORT_SUM_TILE)
        } else if (agg.x != VM_AGG_COUNT) {
          VM_SHORT_BY_SHAPE(VM_SHORT_MAX_TILE)
        }
      } else {
        for (uint k = 0; k < IPT; ++k) count += tile_offset(k) < rows;
        int rawA[IPT], rawB[IPT];
        VM_SHORT_LOAD(A, rawA, start, rows)
        VM_SHORT_LOAD(B, rawB, start, rows)
        if (agg.x == VM_AGG_SUM_R) {
          VM_SHORT_LANES_PARTIAL(VM_SHORT_SUM)
        } else if (agg.x != VM_AGG_COUNT) {
          VM_SHORT_LANES_PARTIAL(VM_SHORT_MAX)
        }
      }
      if (agg.x == VM_AGG_SUM_R) {
        for (uint l = 0; l < 16; ++l) r = r + lanes[l];
      } else if (agg.x == VM_AGG_MIN_R) {  // vm_agg_fold combines lanes with fmin / fmax
        for (uint l = 0; l < 16; ++l) r = fmin(r, -lanes[l]);
      } else if (agg.x == VM_AGG_MAX_R) {
        for (uint l = 0; l < 16; ++l) r = fmax(r, lanes[l]);
      }
#else
      int rawA[IPT], rawB[IPT];
      VM_SHORT_LOAD(A, rawA, start, rows)
      VM_SHORT_LOAD(B, rawB, start, rows)
      for (uint k = 0; k < IPT; ++k) count += rows == TILE || tile_offset(k) < rows;
      if (agg.x == VM_AGG_SUM_R) {
        VM_SHORT_BY_SHAPE(VM_SHORT_SUM_TILE)
      } else if (agg.x != VM_AGG_COUNT) {
        VM_SHORT_BY_SHAPE(VM_SHORT_MAX_TILE)
      }
#endif
    }
#if !DEVICE_IS_CPU
    if (agg.x == VM_AGG_MIN_R) r = -r;
#endif
    vm_agg_write_partial(agg.x, as_long(r), count, values, counts, partials,
                         group_base + get_group_id(0), aggregate_count, a);
  }
}
#undef VM_SHORT_LEAF
#undef VM_SHORT_LOAD
#undef VM_SHORT_OPERAND
#undef VM_SHORT_STEP
#undef VM_SHORT_ITEM
#undef VM_SHORT_SUM
#undef VM_SHORT_MAX
#undef VM_SHORT_FOLD_TILE
#undef VM_SHORT_SUM_TILE
#undef VM_SHORT_MAX_TILE
#undef VM_SHORT_VALUE
#undef VM_SHORT_LANES_FULL
#undef VM_SHORT_LANES_PARTIAL
#undef VM_SHORT_BY_SHAPE
#undef VM_SHORT_CASE
#undef VM_SHORT_CASES_AFTER
#undef VM_SHORT_NONE
#undef VM_SHORT_ADD
#undef VM_SHORT_SUB
#undef VM_SHORT_MUL
#undef VM_SHORT_DIV

#endif  // HAS_FP64
