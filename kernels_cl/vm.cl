// The expression virtual machine (opcodes in vm_shared.h): what its
// interpreter and kernels share (slots, operand loads, text comparison,
// aggregate folding and merging), and the kernels that need no interpreter
// (vm_aggregate_columns, vm_aggregate_merge). The interpreter and the
// projection, filter and aggregation kernels on it are in vm_interpreter.cl,
// built twice: on 64-bit values and on 32-bit values. Expressions arrive as
// bytecode, so a new query never compiles OpenCL; each work-item interprets
// the program once for its IPT items, so decoding is paid once per IPT rows.
//
// Column slots: up to VM_MAX_SLOTS value buffers (s0..s7) and NULL maps
// (z0..z7) of the current tablet; an unused slot is bound to a dummy buffer.

#define VM_SLOT_PARAMS                                                                         \
  __global const uchar *s0, __global const uchar *s1, __global const uchar *s2,                \
      __global const uchar *s3, __global const uchar *s4, __global const uchar *s5,            \
      __global const uchar *s6, __global const uchar *s7, __global const uchar *z0,            \
      __global const uchar *z1, __global const uchar *z2, __global const uchar *z3,            \
      __global const uchar *z4, __global const uchar *z5, __global const uchar *z6,            \
      __global const uchar *z7

typedef struct {
  __global const uchar* values[VM_MAX_SLOTS];
  __global const uchar* nulls[VM_MAX_SLOTS];
} vm_slots;

#define VM_SLOTS_INIT(slots)                                                                 \
  vm_slots slots;                                                                            \
  slots.values[0] = s0;                                                                      \
  slots.values[1] = s1;                                                                      \
  slots.values[2] = s2;                                                                      \
  slots.values[3] = s3;                                                                      \
  slots.values[4] = s4;                                                                      \
  slots.values[5] = s5;                                                                      \
  slots.values[6] = s6;                                                                      \
  slots.values[7] = s7;                                                                      \
  slots.nulls[0] = z0;                                                                       \
  slots.nulls[1] = z1;                                                                       \
  slots.nulls[2] = z2;                                                                       \
  slots.nulls[3] = z3;                                                                       \
  slots.nulls[4] = z4;                                                                       \
  slots.nulls[5] = z5;                                                                       \
  slots.nulls[6] = z6;                                                                       \
  slots.nulls[7] = z7

// A slot's buffers by a run-time index. Indexing the struct's arrays makes
// the compiler keep the struct in private memory: on NVIDIA a stack frame
// in local memory, written by every work-item at kernel start and read back
// per instruction. A switch over constant indices lets it keep the kernel
// arguments where they are.
#define VM_SLOT_ACCESSOR(NAME, FIELD)                                          \
  inline __global const uchar* NAME(const vm_slots* slots, uint slot) {       \
    switch (slot) {                                                           \
      case 0:                                                                 \
        return slots->FIELD[0];                                               \
      case 1:                                                                 \
        return slots->FIELD[1];                                               \
      case 2:                                                                 \
        return slots->FIELD[2];                                               \
      case 3:                                                                 \
        return slots->FIELD[3];                                               \
      case 4:                                                                 \
        return slots->FIELD[4];                                               \
      case 5:                                                                 \
        return slots->FIELD[5];                                               \
      case 6:                                                                 \
        return slots->FIELD[6];                                               \
      default:                                                                \
        return slots->FIELD[7];                                               \
    }                                                                         \
  }
VM_SLOT_ACCESSOR(vm_slot_values, values)
VM_SLOT_ACCESSOR(vm_slot_nulls, nulls)
#undef VM_SLOT_ACCESSOR

// A work-item interprets all IPT of its items together: one decode per
// instruction for all of them.
#define VM_FOR_ITEMS VECTORIZE_ITEMS for (uint k = 0; k < IPT; ++k)
// Rare operations (overflow-checked 64-bit arithmetic, division by a column,
// IN lists, text) are left to the compiler's own cost model: asking for
// 16-wide vectors there made PoCL's cold program builds longer.
#define VM_FOR_ITEMS_COLD for (uint k = 0; k < IPT; ++k)
// All IPT items of the work-item (kernel level, outside the interpreter).
#define VM_FOR_TILE_ITEMS VECTORIZE_ITEMS for (uint k = 0; k < IPT; ++k)
// Row of item k of this work-item's tile.
#define VM_ROW(k) tile_item(start, k)
// Whether lane k is a row of the tablet, `rows` being tile_rows(start, n).
#define VM_IN_TILE(k) (tile_offset(k) < rows)

// STATEMENT for every item k of this work-item that is a row of the tablet
// (`rows` = tile_rows(start, n)). Full tiles run without a test per item, so
// that CPUs vectorise the loop without masks.
#define VM_FOR_ROWS(rows, STATEMENT)                  \
  {                                                   \
    if ((rows) == TILE) {                             \
      VM_FOR_TILE_ITEMS { STATEMENT; }                \
    } else {                                          \
      VM_FOR_TILE_ITEMS {                             \
        if (tile_offset(k) < (rows)) { STATEMENT; }   \
      }                                               \
    }                                                 \
  }
// flags[k] = whether item k is a row of the tablet.
#define VM_SET_LIVE(flags, rows)                                  \
  {                                                               \
    if ((rows) == TILE) {                                         \
      for (uint k = 0; k < IPT; ++k) (flags)[k] = 1;              \
    } else {                                                      \
      for (uint k = 0; k < IPT; ++k) (flags)[k] = tile_offset(k) < (rows); \
    }                                                             \
  }

// Loads a column operand. Full tiles skip the bounds test so that the loads
// vectorise; rows past n read as 0.
#define VM_LOAD_COLUMN(TYPE, CONVERT)                                  \
  {                                                                    \
    __global const TYPE* v = (__global const TYPE*)p;                  \
    if (rows == TILE) {                                                \
      VM_FOR_ITEMS opd[k] = CONVERT(v[VM_ROW(k)]);                     \
    } else {                                                           \
      VM_FOR_ITEMS opd[k] = VM_IN_TILE(k) ? CONVERT(v[VM_ROW(k)]) : CONVERT((TYPE)0); \
    }                                                                  \
  }
#define VM_AS_LONG(x) ((long)(x))
#if HAS_FP64
#define VM_AS_REAL_BITS(x) as_long((double)(x))
#else
// Devices without fp64 run no REAL program (the planner refuses REAL there,
// plan/device_capabilities.hpp), and the interpreter raises
// VM_STATUS_UNSUPPORTED for a REAL instruction that reaches it anyway; this
// only keeps the loads that read a column as REAL compiling.
#define VM_AS_REAL_BITS(x) ((long)(x))
#endif

// Bytewise comparison of a NUL-padded CHAR(width) value with a literal, as
// SQLite compares strings: memcmp over the common length, then shorter first.
inline int vm_compare_text(__global const uchar* value, uint width, __constant const uchar* literal,
                           uint length) {
  const uint common = min(width, length);
  for (uint j = 0; j < common; ++j) {
    const int d = (int)value[j] - (int)literal[j];
    if (d != 0) return d;
  }
  if (length > width) return -1;
  if (length < width && value[length] != 0) return 1;
  return 0;
}

// The first position from `v` where the CHAR value holds `first`, or where
// it ends (its width, or its first NUL: the padding).
inline uint vm_like_skip(__global const uchar* value, uint width, uint v, uchar first) {
  while (v < width) {
    const uchar c = value[v];
    if (c == first || c == 0) break;
    ++v;
  }
  return v;
}

// Whether the CHAR value (NUL-padded to `width`, the padding not part of
// it) matches the LIKE pattern: greedy, with one backtrack point, the last
// '%' (sql/like_pattern.cpp has the same algorithm for the host). After a
// '%' followed by a literal byte, the positions where that byte is not are
// skipped in one tight loop: each would fail there and backtrack. The part
// after the pattern's last '%' (from `suffix_from`, 0 if it has none) must
// be the value's end: it is tested there once, without backtracking (which
// could try every position of the value; the earlier parts, matched as far
// left as they go, leave it the most room).
inline uchar vm_like_text(__global const uchar* value, uint width, __constant const uchar* pattern,
                          uint length, uint suffix_from) {
  uint v = 0;
  uint p = 0;
  uint star = 0xffffffffu;
  uint mark = 0;
  for (;;) {
    const uchar c = v < width ? value[v] : 0;
    if (c == 0) break;  // the value's end
    if (p < length) {
      const uchar q = pattern[p];
      if (q == '%') {
        star = ++p;
        if (p == length) return 1;  // a trailing '%' takes the rest
        if (p == suffix_from) {
          uint end = v;
          while (end < width && value[end] != 0) ++end;
          const uint rest = length - p;
          if (end - v < rest) return 0;
          for (uint i = 0; i < rest; ++i) {
            const uchar q2 = pattern[p + i];
            if (q2 != '_' && q2 != value[end - rest + i]) return 0;
          }
          return 1;
        }
        if (p < length && pattern[p] != '%' && pattern[p] != '_')
          v = vm_like_skip(value, width, v, pattern[p]);
        mark = v;
        continue;
      }
      if (q == '_' || q == c) {
        ++p;
        ++v;
        continue;
      }
    }
    if (star == 0xffffffffu) return 0;
    p = star;
    v = mark + 1;
    if (p < length && pattern[p] != '%' && pattern[p] != '_')
      v = vm_like_skip(value, width, v, pattern[p]);
    mark = v;
  }
  while (p < length && pattern[p] == '%') ++p;
  return p == length;
}

inline long vm_compare_result(int c, uint cmp) {
  switch (cmp) {
    case 0:
      return c == 0;
    case 1:
      return c != 0;
    case 2:
      return c < 0;
    case 3:
      return c <= 0;
    case 4:
      return c > 0;
    default:
      return c >= 0;
  }
}

// Signed division by a constant through its magic number (vm_shared.h).
inline long vm_div_magic(long n, long magic, uint shift, uint mode) {
  long q = mul_hi(magic, n);
  if (mode == 1) q += n;
  if (mode == 2) q -= n;
  q >>= shift;
  return q + (long)(as_ulong(q) >> 63);
}

// The same in 32 bits, for |n| < 2^31 (the narrow machine; the host's magic
// for 32 bits). CPUs: mul_hi(uint, uint) is lowered to four 32-bit
// multiplies per vector on PoCL, a widening multiply to one.
#if DEVICE_IS_CPU
#define VM_MUL_HI_U32(a, b) ((uint)(((ulong)(a) * (ulong)(b)) >> 32))
#else
#define VM_MUL_HI_U32(a, b) mul_hi((uint)(a), (uint)(b))
#endif
inline int vm_div_magic32(int x, uint magic, uint shift, uint mode) {
  const uint a = x < 0 ? 0u - (uint)x : (uint)x;
  const uint q = VM_MUL_HI_U32(a, magic) >> shift;
  return ((x < 0) != (mode == 1)) ? -(int)q : (int)q;
}

// VM_EXTRACT: common/calendar.cpp's CivilFromDays. Eras of 400 years
// (146097 days) start on a March 1st, so that a leap day ends a year; the
// days from 0000-03-01 are days + 719468, that is 4 eras and 135080 days,
// and dividing `days` by an era before adding them keeps every day from
// overflowing. Selects, no branches, so the items' loops vectorise; `field`
// is the same for every item (the callers pass it as a literal).
//
// The field of the date `doe` days into its era (0 <= doe < 146097): the
// month or day, or for VM_EXTRACT_YEAR the year within the era (0..400,
// January and February counted in the year they begin).
inline uint vm_civil_in_era(uint doe, uint field) {
  // doe / 146096 is 1 on the era's last day only.
  const uint yoe = (doe - doe / 1460u + doe / 36524u - (doe == 146096u)) / 365u;
  const uint doy = doe - (365u * yoe + yoe / 4u - yoe / 100u);  // from March 1st
  const uint mp = (5u * doy + 2u) / 153u;                       // March = 0
  if (field == VM_EXTRACT_DAY) return doy - (153u * mp + 2u) / 5u + 1u;
  if (field == VM_EXTRACT_MONTH) return mp < 10u ? mp + 3u : mp - 9u;
  return yoe + (mp >= 10u);
}

// 32-bit: any int day (the eras, within +-14700, times 400 fit).
inline int vm_extract32(int days, uint field) {
  const int era = days / 146097;
  const int shifted = days - era * 146097 + 135080;  // in (-11017, 281177)
  const int carry = (shifted >= 146097) - (shifted < 0);
  const uint in_era = vm_civil_in_era((uint)(shifted - carry * 146097), field);
  return field == VM_EXTRACT_YEAR ? (era + 4 + carry) * 400 + (int)in_era : (int)in_era;
}

// 64-bit: any long day.
inline long vm_extract64(long days, uint field) {
  const long era = days / 146097;
  const int shifted = (int)(days - era * 146097) + 135080;
  const int carry = (shifted >= 146097) - (shifted < 0);
  const uint in_era = vm_civil_in_era((uint)(shifted - carry * 146097), field);
  return field == VM_EXTRACT_YEAR ? (era + 4 + carry) * 400 + (long)in_era : (long)in_era;
}

#if !HAS_FP64
// Whether an instruction computes on REAL values: a REAL operation, or an
// operand read as REAL (VM_STR_CMP's kind field is a slot, not a kind).
inline bool vm_is_real(uint op, uint kind) {
  switch (op) {
    case VM_ADD_R:
    case VM_SUB_R:
    case VM_MUL_R:
    case VM_DIV_R:
    case VM_MOD_R:
    case VM_NEG_R:
    case VM_I2R:
    case VM_R2I:
    case VM_EQ_R:
    case VM_NE_R:
    case VM_LT_R:
    case VM_LE_R:
    case VM_GT_R:
    case VM_GE_R:
    case VM_TRUTH_R:
    case VM_IN_R:
      return true;
    case VM_STR_CMP:
    case VM_STR_LIKE:
      return false;
    default: {
      const uint base = kind & VM_OPND_BASE_MASK;
      return base == VM_OPND_COL_F64 || base == VM_OPND_COL_I32_R || base == VM_OPND_COL_I64_R;
    }
  }
}
#endif

inline void vm_raise(__global uint* status, uint bits) {
  if (bits != 0) atomic_or(status, bits);
}

// out[out_base + i] = expression(i) for every row i < n of the tablet.
// out_kind: 0 the 8-byte accumulator (INTEGER or REAL bits), 1 narrowed to
// int32 (the host proved the range fits). The NULL map gets one byte per row
// when write_nulls.
// Each kernel comes twice: as written, and `_untracked` with NULL tracking
// compiled out (the host picks it when no entry of the launch can see a
// NULL). The bodies are inline functions whose `track` argument the
// untracked kernel fixes to 0, so the compiler drops the NULL flags and their
// registers; the arguments are the same, and `track` arguments are ignored.
#define VM_PROJECT_PARAMS                                                                    \
  __constant const uint2 *code, __constant const long *consts, uint begin, uint end,          \
      VM_SLOT_PARAMS, ulong n, __global uchar *out_values, uint out_kind,                     \
      __global uchar *out_null_map, uint write_nulls, uint track, ulong out_base,             \
      __global uint *status
#define VM_PROJECT_ARGS                                                                       \
  code, consts, begin, end, s0, s1, s2, s3, s4, s5, s6, s7, z0, z1, z2, z3, z4, z5, z6, z7, n, \
      out_values, out_kind, out_null_map, write_nulls

// Evaluates a predicate; writes one bit per row (bit i % 32 of word i / 32,
// 1 = the predicate is true) and the number of true rows per tile. TILE is a
// multiple of 32, so a tile owns whole words. Work-group g takes tile g.
// With `refine`, the bits and counts already hold a first conjunct's result
// (filter_range_tiles, selection.cl) and live_tiles[1 ..] lists, in
// live_tiles[0] entries, the tiles where it kept a row: the work-groups take
// those tiles in turn, each row as live as its bit, and the program [begin,
// end) is the rest of the predicate. Other tiles keep their all-zero words.
#define VM_FILTER_PARAMS                                                                    \
  __constant const uint2 *code, __constant const long *consts, uint begin, uint end,          \
      uint track, VM_SLOT_PARAMS, ulong n, __global uint *bits, __global uint *tile_counts,     \
      __global uint *status, __global const uint *live_tiles, uint refine
#define VM_FILTER_ARGS(TRACK)                                                                  \
  code, consts, begin, end, TRACK, s0, s1, s2, s3, s4, s5, s6, s7, z0, z1, z2, z3, z4, z5, z6, \
      z7, n, bits, tile_counts, status, live_tiles, refine, flags, word_counts
// One byte per item, with 4 bytes of padding after every 32 so that the
// work-items assembling words read different banks.
#define VM_FILTER_LOCALS            \
  __local uchar flags[TILE + TILE / 8]; \
  __local uint word_counts[TILE / 32]
// Aggregate descriptors: (operation VM_AGG_*, first instruction, end, whether
// the argument can be NULL). A
// COUNT(*) has an empty program. Rows count when the predicate [pred_begin,
// pred_end) is true (an empty predicate is true) and the aggregate's value is
// not NULL. Work-group g covers tiles [g * tiles_per_group, (g + 1) *
// tiles_per_group) of the tablet, so that its reduction over work-items is
// paid once per tiles_per_group tiles. partials[((group_base + g) * count +
// a) * 2] is the value, [.. + 1] the number of rows that contributed.
inline long vm_agg_identity(uint op) {
  switch (op) {
    case VM_AGG_MIN_I:
      return LONG_MAX;
    case VM_AGG_MAX_I:
      return LONG_MIN;
#if HAS_FP64
    case VM_AGG_MIN_R:
      return as_long((double)INFINITY);
    case VM_AGG_MAX_R:
      return as_long(-(double)INFINITY);
    case VM_AGG_SUM_R:
      return as_long(0.0);
#endif
    default:
      return 0;
  }
}

// VM_AGG_SUM_I reaches the device only when the range analysis proved that
// its total fits int64 in any order of addition (operators/aggregation.cpp
// splits the others into VM_AGG_SUM_LO32 / HI32), so it adds unchecked, and
// its folds stay plain reductions that CPUs vectorise.
inline long vm_agg_combine(uint op, long a, long b) {
  switch (op) {
#if HAS_FP64
    case VM_AGG_SUM_R:
      return as_long(as_double(a) + as_double(b));
    case VM_AGG_MIN_R:
      return as_long(fmin(as_double(a), as_double(b)));
    case VM_AGG_MAX_R:
      return as_long(fmax(as_double(a), as_double(b)));
#endif
    case VM_AGG_MIN_I:
      return min(a, b);
    case VM_AGG_MAX_I:
      return max(a, b);
    case VM_AGG_SUM_LO32:
      return as_long(as_ulong(a) + as_ulong(b));
    default:
      return a + b;  // COUNT, VM_AGG_SUM_I, VM_AGG_SUM_HI32
  }
}

// Folds this work-item's counted items into value / count. The switch is
// outside the loops so that each loop is one operation on registers. An item
// not counted combines the identity: the value is loaded for every item and
// selected, never loaded under a condition. With `counted ? COMBINE(v, x) :
// v` the compiler sank the load into the condition, and PoCL 5 (AVX-512)
// emulated that masked load with a test and a branch per item.
#define VM_AGG_FOLD_LOOP(IDENTITY, COMBINE)            \
  VM_FOR_TILE_ITEMS {                                  \
    const long x = acc[k];                             \
    v = COMBINE(v, counted[k] ? x : (long)(IDENTITY)); \
  }
#define VM_AGG_ADD(a, b) ((a) + (b))
#define VM_AGG_LANE_MIN(lane, x) ((x) < (lane) ? (x) : (lane))
#define VM_AGG_LANE_MAX(lane, x) ((x) > (lane) ? (x) : (lane))
#define VM_AGG_ADD_LO32(a, b) as_long(as_ulong(a) + (as_ulong(b) & 0xffffffffUL))
#define VM_AGG_ADD_HI32(a, b) ((a) + ((b) >> 32))
// REAL folds. CPUs fold into 16 independent lanes so that the loop is
// elementwise and vectorises: a running double kept as long bits is no
// reduction the vectorizer knows, and stayed a serial chain of compares.
// The lanes combine with LANE_COMBINE: for MIN and MAX a comparison, which
// equals fmin / fmax there (a lane is never NaN, and a NaN item loses the
// comparison; of a -0.0 and a 0.0 the first seen is kept, where fmax's
// choice is unspecified) without the NaN test and blend x86 needs for fmax.
#if DEVICE_IS_CPU && IPT % 16 == 0
#define VM_AGG_FOLD_REAL(IDENTITY, COMBINE, LANE_COMBINE)                   \
  {                                                                         \
    double lanes[16];                                                       \
    for (uint l = 0; l < 16; ++l) lanes[l] = (IDENTITY);                    \
    SUM_ITEMS_IN_ORDER for (uint j = 0; j < IPT; j += 16) {                 \
      VECTORIZE_ITEMS for (uint l = 0; l < 16; ++l) {                       \
        const double x = as_double(acc[j + l]);                             \
        lanes[l] = LANE_COMBINE(lanes[l], counted[j + l] ? x : (IDENTITY)); \
      }                                                                     \
    }                                                                       \
    double r = as_double(v);                                           \
    for (uint l = 0; l < 16; ++l) r = COMBINE(r, lanes[l]);            \
    v = as_long(r);                                                    \
  }
#else
// Elsewhere (GPUs) one chain of the same comparisons: no slower than fmin /
// fmax, which test for NaN (the difference was within the drift between
// processes), and the same results as CPUs. A tree of comparisons was no
// faster.
#define VM_AGG_FOLD_REAL(IDENTITY, COMBINE, LANE_COMBINE)   \
  {                                                         \
    double r = as_double(v);                                \
    VM_FOR_TILE_ITEMS {                                     \
      const double x = as_double(acc[k]);                   \
      r = LANE_COMBINE(r, counted[k] ? x : (IDENTITY));     \
    }                                                       \
    v = as_long(r);                                         \
  }
#endif
inline void vm_agg_fold(uint op, const long* acc, const uchar* counted, long* value, ulong* count) {
  long v = *value;
  ulong c = *count;
  VM_FOR_TILE_ITEMS c += counted[k];
  switch (op) {
    case VM_AGG_COUNT:
      break;
    case VM_AGG_SUM_I:
      VM_AGG_FOLD_LOOP(0, VM_AGG_ADD)
      break;
#if HAS_FP64
    case VM_AGG_SUM_R:
      VM_AGG_FOLD_REAL(0.0, VM_AGG_ADD, VM_AGG_ADD)
      break;
    case VM_AGG_MIN_R:
      VM_AGG_FOLD_REAL((double)INFINITY, fmin, VM_AGG_LANE_MIN)
      break;
#endif
    case VM_AGG_MIN_I:
      VM_AGG_FOLD_LOOP(LONG_MAX, min)
      break;
    case VM_AGG_MAX_I:
      VM_AGG_FOLD_LOOP(LONG_MIN, max)
      break;
    case VM_AGG_SUM_LO32:
      VM_AGG_FOLD_LOOP(0, VM_AGG_ADD_LO32)
      break;
    case VM_AGG_SUM_HI32:
      VM_AGG_FOLD_LOOP(0, VM_AGG_ADD_HI32)
      break;
    default:  // VM_AGG_MAX_R
#if HAS_FP64
      VM_AGG_FOLD_REAL(-(double)INFINITY, fmax, VM_AGG_LANE_MAX)
#endif
      break;
  }
  *value = v;
  *count = c;
}
#undef VM_AGG_FOLD_LOOP
#undef VM_AGG_FOLD_REAL
#undef VM_AGG_ADD
#undef VM_AGG_LANE_MIN
#undef VM_AGG_LANE_MAX
#undef VM_AGG_ADD_LO32
#undef VM_AGG_ADD_HI32

// Combines value/count pairs over the work-group; the result is in
// values[0] / counts[0] after the call (all work-items must call it).
inline void vm_agg_group_reduce(uint op, long value, ulong count, __local long* values,
                                __local ulong* counts) {
  const uint lid = get_local_id(0);
  values[lid] = value;
  counts[lid] = count;
  barrier(CLK_LOCAL_MEM_FENCE);
#if DEVICE_IS_CPU
  if (lid == 0) {
    long v = values[0];
    ulong c = counts[0];
    for (uint i = 1; i < WG_SIZE; ++i) {
      v = vm_agg_combine(op, v, values[i]);
      c += counts[i];
    }
    values[0] = v;
    counts[0] = c;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#else
  for (uint offset = WG_SIZE / 2; offset > 0; offset >>= 1) {
    if (lid < offset) {
      values[lid] = vm_agg_combine(op, values[lid], values[lid + offset]);
      counts[lid] += counts[lid + offset];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
}

// Reduces each work-item's value/count of aggregate `a` over the work-group
// and writes the group's partial (all work-items must call it).
inline void vm_agg_write_partial(uint op, long value, ulong count, __local long* values,
                                 __local ulong* counts, __global long* partials, ulong group,
                                 uint aggregate_count, uint a) {
  vm_agg_group_reduce(op, value, count, values, counts);
  if (get_local_id(0) == 0) {
    const ulong slot = (group * aggregate_count + a) * 2;
    partials[slot] = values[0];
    partials[slot + 1] = (long)counts[0];
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

#define VM_AGGREGATE_PARAMS                                                                 \
  __constant const uint2 *code, __constant const long *consts, uint pred_begin,               \
      uint pred_end, uint pred_track, __constant const uint4 *aggregates,                     \
      uint aggregate_count, VM_SLOT_PARAMS, ulong n, __global long *partials,                  \
      ulong group_base, uint tiles_per_group, __global uint *status
#define VM_AGGREGATE_ARGS(TRACK)                                                               \
  code, consts, pred_begin, pred_end, (TRACK) ? pred_track : 0, aggregates, aggregate_count,    \
      s0, s1, s2, s3, s4, s5, s6, s7, z0, z1, z2, z3, z4, z5, z6, z7, n, partials, group_base,  \
      tiles_per_group, status, values, counts, TRACK
#define VM_AGGREGATE_LOCALS      \
  __local long values[WG_SIZE]; \
  __local ulong counts[WG_SIZE]


// vm_aggregate for the commonest shape, chosen by the host: no WHERE, and
// every argument a bare column without NULLs or COUNT(*) (SUM(unique1),
// AVG, MIN, MAX of columns): the same partials, with typed loads in place of
// the interpreter (its register use is not yet measured with ptxas). Each
// argument program is one LOAD of a column slot.
#define VM_DIRECT_LOAD(TYPE, CONVERT)                                               \
  {                                                                                 \
    __global const TYPE* v = (__global const TYPE*)p;                               \
    if (rows == TILE) {                                                             \
      VM_FOR_TILE_ITEMS acc[k] = CONVERT(v[tile_item(start, k)]);                   \
    } else {                                                                        \
      for (uint k = 0; k < IPT; ++k) acc[k] = counted[k] ? CONVERT(v[tile_item(start, k)]) : 0; \
    }                                                                               \
  }
// Nothing here can overflow: the status word only hears of a REAL fold on a
// device without fp64.
KERNEL void vm_aggregate_columns(VM_AGGREGATE_PARAMS) {
  VM_AGGREGATE_LOCALS;
  VM_SLOTS_INIT(slots);
  for (uint a = 0; a < aggregate_count; ++a) {
    const uint4 agg = aggregates[a];
#if !HAS_FP64
    // REAL folds need fp64 (the planner gives such devices none).
    if (agg.x == VM_AGG_SUM_R || agg.x == VM_AGG_MIN_R || agg.x == VM_AGG_MAX_R)
      vm_raise(status, VM_STATUS_UNSUPPORTED);
#endif
    long value = vm_agg_identity(agg.x);
    ulong count = 0;
    for (uint t = 0; t < tiles_per_group; ++t) {
      const ulong start = ((ulong)get_group_id(0) * tiles_per_group + t) * TILE;
      if (start >= n) break;
      const uint rows = tile_rows(start, n);
      uchar counted[IPT];
      VM_SET_LIVE(counted, rows)
      long acc[IPT];
      if (agg.y < agg.z) {
        const uint ins = code[agg.y].x;
        const uint kind = (ins >> 8) & VM_OPND_BASE_MASK;
        __global const uchar* p = vm_slot_values(&slots, ins >> 16);
        if (kind == VM_OPND_COL_I32) {
          VM_DIRECT_LOAD(int, VM_AS_LONG)
        } else if (kind == VM_OPND_COL_I32_R) {
          VM_DIRECT_LOAD(int, VM_AS_REAL_BITS)
        } else if (kind == VM_OPND_COL_I64_R) {
          VM_DIRECT_LOAD(long, VM_AS_REAL_BITS)
        } else {  // VM_OPND_COL_I64, VM_OPND_COL_F64: the 8 bytes as they are
          VM_DIRECT_LOAD(long, VM_AS_LONG)
        }
      } else {
        VM_FOR_TILE_ITEMS acc[k] = 0;  // COUNT(*): values unused
      }
      vm_agg_fold(agg.x, acc, counted, &value, &count);
    }
    vm_agg_write_partial(agg.x, value, count, values, counts, partials,
                         group_base + get_group_id(0), aggregate_count, a);
  }
}
#undef VM_DIRECT_LOAD

// Merges `group_count` partial results (layout of vm_aggregate) into
// ceil(group_count / TILE) partial results.
KERNEL void vm_aggregate_merge(__global const long* partials, ulong group_count,
                               __constant const uint4* aggregates, uint aggregate_count,
                               __global long* merged) {
  __local long values[WG_SIZE];
  __local ulong counts[WG_SIZE];
  const ulong start = tile_start();
  for (uint a = 0; a < aggregate_count; ++a) {
    const uint op = aggregates[a].x;
    long value = vm_agg_identity(op);
    ulong count = 0;
    for (uint k = 0; k < IPT; ++k) {  // a switch per item: no vectors
      const ulong g = tile_item(start, k);
      if (g < group_count) {
        const ulong slot = (g * aggregate_count + a) * 2;
        if (partials[slot + 1] != 0) value = vm_agg_combine(op, value, partials[slot]);
        count += (ulong)partials[slot + 1];
      }
    }
    vm_agg_write_partial(op, value, count, values, counts, merged, get_group_id(0),
                         aggregate_count, a);
  }
}
