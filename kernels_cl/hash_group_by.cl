// The fold of rows into group tables (operators/hash_group_by.cpp). Each
// row finds its group's slot (kernels_cl/group_by_shared.h: DIRECT image,
// PACKED or HASH probe, sorted IDS) and folds its aggregates into the slot's
// 64-bit words with operations that commute (integer sums, maxima of ordered
// images, or), so that a slot's words do not depend on the order rows arrive
// in: integer results are exact, and a REAL SUM is an exact fixed-point sum
// of the values (30-bit pieces in bins) rounded once at the end.
//
// Work-group tables: on GPUs a work-group folds its rows into a table in
// local memory (atomics; DIRECT tables replicated so that work-items contend
// less) and flushes it into the device-wide table at the end. On CPUs a
// work-group is one sequential worker (work-item 0) over a contiguous range
// of rows with its own table in global memory, without atomics; DIRECT and
// IDS tables are then merged slot by slot (group_by_merge), hash tables
// flushed like the GPU's. Rows that find no place in a work-group table go
// to the device-wide table with atomics.

// Inlined everywhere: the per-row helpers take the kernel's many arguments,
// and a call per row (PoCL's clang left them calls) cost several times the
// row's own work.
#ifdef __clang__
#define HGB_INLINE inline __attribute__((always_inline))
#else
#define HGB_INLINE inline
#endif

#if DEVICE_IS_CPU
#define HGB_PRIV __global
#define HGB_ITEMS HGB_CPU_BLOCK
#else
#define HGB_PRIV __local
#define HGB_ITEMS IPT
#endif

#define HGB_KEY_PARAMS                                                                 \
  __global const uchar *kv0, __global const uchar *kn0, __global const uchar *kv1,     \
      __global const uchar *kn1, __global const uchar *kv2, __global const uchar *kn2, \
      __global const uchar *kv3, __global const uchar *kn3
#define HGB_KEY_ARGS kv0, kn0, kv1, kn1, kv2, kn2, kv3, kn3
#define HGB_ARG_PARAMS                                                                 \
  __global const uchar *av0, __global const uchar *an0, __global const uchar *av1,     \
      __global const uchar *an1, __global const uchar *av2, __global const uchar *an2, \
      __global const uchar *av3, __global const uchar *an3, __global const uchar *av4, \
      __global const uchar *an4, __global const uchar *av5, __global const uchar *an5, \
      __global const uchar *av6, __global const uchar *an6, __global const uchar *av7, \
      __global const uchar *an7

// Buffer i of four or eight, picked by a switch (an array of pointers
// indexed at run time may land in a local-memory stack frame on NVIDIA).
HGB_INLINE __global const uchar* hgb_pick4(uint i, __global const uchar* a, __global const uchar* b,
                                           __global const uchar* c, __global const uchar* d) {
  switch (i) {
    case 0:
      return a;
    case 1:
      return b;
    case 2:
      return c;
    default:
      return d;
  }
}
#define HGB_KEY_VALUES_OF(k) hgb_pick4(k, kv0, kv1, kv2, kv3)
#define HGB_KEY_NULLS_OF(k) hgb_pick4(k, kn0, kn1, kn2, kn3)
#define HGB_ARG_VALUES_OF(a) \
  ((a) < 4 ? hgb_pick4(a, av0, av1, av2, av3) : hgb_pick4((a)-4, av4, av5, av6, av7))
#define HGB_ARG_NULLS_OF(a) \
  ((a) < 4 ? hgb_pick4(a, an0, an1, an2, an3) : hgb_pick4((a)-4, an4, an5, an6, an7))

// --- Keys -------------------------------------------------------------------

HGB_INLINE ulong hgb_mix(ulong h) {
  h ^= h >> 33;
  h *= 0xff51afd7ed558ccdUL;
  h ^= h >> 33;
  h *= 0xc4ceb9fe1a85ec53UL;
  h ^= h >> 33;
  return h;
}

// A key value's hash input: equal for keys group_by_differs calls equal.
HGB_INLINE ulong hgb_key_bits(__global const uchar* values, __global const uchar* nulls,
                              uint has_nulls, uint type, uint width, ulong row) {
  if (has_nulls != 0 && nulls[row] != 0) return 0x9e3779b97f4a7c15UL;
  if (type == SORT_TYPE_INT32) return (ulong)((__global const int*)values)[row];
  if (type == SORT_TYPE_CHAR) {
    ulong h = 0xcbf29ce484222325UL;
    for (uint i = 0; i < width; ++i)
      h = (h ^ values[row * width + i]) * 0x100000001b3UL;
    return h;
  }
  const ulong x = ((__global const ulong*)values)[row];
  return type == SORT_TYPE_DOUBLE && (x << 1) == 0 ? 0 : x;  // -0.0 hashes as 0.0
}

HGB_INLINE ulong hgb_hash(uint key_count, __global const long* key_desc, HGB_KEY_PARAMS,
                          ulong row) {
  ulong h = 0;
  for (uint k = 0; k < key_count; ++k) {
    __global const long* d = key_desc + k * HGB_KEY_LONGS;
    h = hgb_mix(h ^ (hgb_key_bits(HGB_KEY_VALUES_OF(k), HGB_KEY_NULLS_OF(k), (uint)d[HGB_KEY_NULLS],
                                  (uint)d[HGB_KEY_TYPE], (uint)d[HGB_KEY_WIDTH], row) +
                     0x9e3779b97f4a7c15UL * (k + 1)));
  }
  return h;
}

HGB_INLINE bool hgb_keys_equal(uint key_count, __global const long* key_desc, HGB_KEY_PARAMS,
                               ulong a, ulong b) {
  for (uint k = 0; k < key_count; ++k) {
    __global const long* d = key_desc + k * HGB_KEY_LONGS;
    if (group_by_differs(HGB_KEY_VALUES_OF(k), HGB_KEY_NULLS_OF(k), (uint)d[HGB_KEY_NULLS],
                         (uint)d[HGB_KEY_TYPE], (uint)d[HGB_KEY_WIDTH], a, b))
      return false;
  }
  return true;
}

// --- State word updates -----------------------------------------------------
// hgb_g_*: a device-wide table (atomics). hgb_p_*: a work-group table
// (atomics in local memory on GPUs; a CPU work-group's table belongs to its
// one working work-item).

#if HAS_INT64_ATOMICS
HGB_INLINE void hgb_g_add(__global ulong* w, ulong v) {
  atom_add((volatile __global ulong*)w, v);
}
HGB_INLINE ulong hgb_g_cas(__global ulong* w, ulong expected, ulong v) {
  return atom_cmpxchg((volatile __global ulong*)w, expected, v);
}
#if !DEVICE_IS_CPU
HGB_INLINE ulong hgb_p_cas(HGB_PRIV ulong* w, ulong expected, ulong v) {
  return atom_cmpxchg((volatile HGB_PRIV ulong*)w, expected, v);
}
#endif
#else
// Never launched: the host refuses group tables without 64-bit atomics
// (operators/group_by.cpp).
HGB_INLINE void hgb_g_add(__global ulong* w, ulong v) {
  *w += v;
}
HGB_INLINE ulong hgb_g_cas(__global ulong* w, ulong expected, ulong v) {
  const ulong old = *w;
  if (old == expected) *w = v;
  return old;
}
#if !DEVICE_IS_CPU
HGB_INLINE ulong hgb_p_cas(HGB_PRIV ulong* w, ulong expected, ulong v) {
  const ulong old = *w;
  if (old == expected) *w = v;
  return old;
}
#endif
#endif
HGB_INLINE void hgb_g_max(__global ulong* w, ulong v) {
  ulong old = *(volatile __global ulong*)w;
  while (old < v) {
    const ulong seen = hgb_g_cas(w, old, v);
    if (seen == old) break;
    old = seen;
  }
}
HGB_INLINE void hgb_g_or(__global ulong* w, ulong v) {
  ulong old = *(volatile __global ulong*)w;
  while ((old | v) != old) {
    const ulong seen = hgb_g_cas(w, old, old | v);
    if (seen == old) break;
    old = seen;
  }
}
#if DEVICE_IS_CPU
HGB_INLINE void hgb_p_add(HGB_PRIV ulong* w, ulong v) {
  *w += v;
}
HGB_INLINE void hgb_p_max(HGB_PRIV ulong* w, ulong v) {
  *w = max(*w, v);
}
HGB_INLINE void hgb_p_or(HGB_PRIV ulong* w, ulong v) {
  *w |= v;
}
#else
// A 64-bit add to a work-group table as two 32-bit atomic adds, the low
// half's carry going into the high half's: the word ends up holding the same
// sum modulo 2^64, whatever the order, and a value of less than 32 bits
// usually costs one atomic. (A 64-bit atomic add in local memory can be a
// compare-and-swap loop, NVIDIA's for one, which contending work-items
// serialise.) Words that take adds are read only after the fold's barrier.
HGB_INLINE void hgb_p_add(HGB_PRIV ulong* w, ulong v) {
#ifdef __ENDIAN_LITTLE__
  volatile HGB_PRIV uint* low_half = (volatile HGB_PRIV uint*)w;
  volatile HGB_PRIV uint* high_half = low_half + 1;
#else
  volatile HGB_PRIV uint* high_half = (volatile HGB_PRIV uint*)w;
  volatile HGB_PRIV uint* low_half = high_half + 1;
#endif
  const uint low = (uint)v;
  const uint before = low != 0 ? atomic_add(low_half, low) : 0u;
  const uint high = (uint)(v >> 32) + ((uint)(before + low) < before ? 1u : 0u);
  if (high != 0) atomic_add(high_half, high);
}
HGB_INLINE void hgb_p_max(HGB_PRIV ulong* w, ulong v) {
  ulong old = *(volatile HGB_PRIV ulong*)w;
  while (old < v) {
    const ulong seen = hgb_p_cas(w, old, v);
    if (seen == old) break;
    old = seen;
  }
}
HGB_INLINE void hgb_p_or(HGB_PRIV ulong* w, ulong v) {
  ulong old = *(volatile HGB_PRIV ulong*)w;
  while ((old | v) != old) {
    const ulong seen = hgb_p_cas(w, old, old | v);
    if (seen == old) break;
    old = seen;
  }
}
#endif

// A finite double as m * 2^p, m its 53-bit significand (0 for zero);
// returns m.
HGB_INLINE ulong hgb_real_parts(ulong bits, int* p) {
  const uint exponent = (uint)(bits >> 52) & 0x7ffu;
  *p = (exponent != 0 ? (int)exponent : 1) - 1075;
  return (bits & 0xfffffffffffffUL) | (exponent != 0 ? 0x10000000000000UL : 0);
}

#if HAS_FP64
// Folds value d into the SUM_REAL words at w: bins [0, bins) of 30-bit
// pieces of d / 2^base, then the flags word. `base` is at most the position
// of any value's lowest significand bit, and bins reach two past the highest
// (group_by_window), so that every value adds its three pieces
// unconditionally. (On CPUs, the pieces of a block's values computed first
// in a loop left for PoCL to vectorise, then added, was slower.)
#define HGB_FOLD_REAL(ADD, OR, w, d, base, bins)                                           \
  do {                                                                                     \
    const ulong hgb_bits = as_ulong(d);                                                    \
    if ((~hgb_bits & 0x7ff0000000000000UL) == 0) {                                         \
      OR((w) + (bins), (hgb_bits & 0xfffffffffffffUL) != 0 ? (ulong)HGB_FLAG_NAN           \
                       : (hgb_bits >> 63) != 0             ? (ulong)HGB_FLAG_NEG_INF       \
                                                           : (ulong)HGB_FLAG_POS_INF);                 \
    } else {                                                                               \
      int hgb_p;                                                                           \
      const ulong hgb_m = hgb_real_parts(hgb_bits, &hgb_p);                                \
      const uint hgb_o = hgb_m != 0 ? (uint)(hgb_p - (base)) : 0u;                         \
      const uint hgb_k = hgb_o / HGB_BIN_BITS;                                             \
      const uint hgb_s = hgb_o - hgb_k * HGB_BIN_BITS;                                     \
      const ulong hgb_sign = 0 - (hgb_bits >> 63);                                         \
      ADD((w) + hgb_k, (((hgb_m << hgb_s) & 0x3fffffffUL) ^ hgb_sign) - hgb_sign);         \
      ADD((w) + hgb_k + 1,                                                                 \
          (((hgb_m >> (HGB_BIN_BITS - hgb_s)) & 0x3fffffffUL) ^ hgb_sign) - hgb_sign);     \
      ADD((w) + hgb_k + 2, ((hgb_m >> (2 * HGB_BIN_BITS - hgb_s)) ^ hgb_sign) - hgb_sign); \
    }                                                                                      \
  } while (0)
#endif

HGB_INLINE void hgb_merge_word(__global ulong* target, uint kind, ulong v) {
  if (v == 0) return;  // every kind's identity
  if (kind == HGB_MERGE_ADD) {
    hgb_g_add(target, v);
  } else if (kind == HGB_MERGE_MAX) {
    hgb_g_max(target, v);
  } else {
    hgb_g_or(target, v);
  }
}

// --- Slots ------------------------------------------------------------------

// Whether a slot's header `held` is the group of `row` whose header would
// be `mine`: PACKED headers are the keys' image, HASH ones a hash tag and a
// row whose keys decide.
#define HGB_SAME_GROUP(held, mine)       \
  (mode == HGB_MODE_PACKED               \
       ? (held) == (mine)                \
       : ((held) ^ (mine)) >> 32 == 0 && \
             hgb_keys_equal(key_count, key_desc, HGB_KEY_ARGS, row, (uint)(held)-1))

// The slot of the device-wide hash table holding the group whose header is
// `mine` (row: a row of it), claimed if the group is new; HGB_NO_SLOT (and
// the overflow flag) when the table holds `max_groups` groups or has no free
// slot, and from then on. Header reads are volatile: another work-group may have claimed the
// slot since (NVIDIA's L1 is not coherent across SMs).
HGB_INLINE uint hgb_table_probe(uint mode, __global ulong* table, ulong slots, uint words,
                                uint max_groups, ulong h, ulong mine, ulong row, uint key_count,
                                __global const long* key_desc, HGB_KEY_PARAMS,
                                __global uint* control) {
  // A table that filled is rebuilt larger and the pass folded again
  // (GroupBy): the rest of this pass need not probe it, and a full table
  // would cost every new group's row a probe of every slot.
  if ((*(volatile __global uint*)control & HGB_OVERFLOW_TABLE) != 0) return HGB_NO_SLOT;
  ulong s = h & (slots - 1);
  for (ulong probe = 0; probe < slots; ++probe) {
    __global ulong* header = table + s * words + HGB_WORD_HEADER;
    ulong held = *(volatile __global ulong*)header;
    if (held == 0) {
      held = hgb_g_cas(header, 0, mine);
      if (held == 0) {
        if (atomic_inc(&control[1]) >= max_groups) atomic_or(&control[0], HGB_OVERFLOW_TABLE);
        return (uint)s;
      }
    }
    if (HGB_SAME_GROUP(held, mine)) return (uint)s;
    s = (s + 1) & (slots - 1);
  }
  atomic_or(&control[0], HGB_OVERFLOW_TABLE);
  return HGB_NO_SLOT;
}

// The same in a work-group table, HGB_NO_SLOT after `probes` slots of other
// groups.
HGB_INLINE uint hgb_private_probe(uint mode, HGB_PRIV ulong* table, uint slots, uint words,
                                  uint probes, ulong h, ulong mine, ulong row, uint key_count,
                                  __global const long* key_desc, HGB_KEY_PARAMS) {
  uint s = (uint)h & (slots - 1);
  for (uint probe = 0; probe < probes; ++probe) {
    HGB_PRIV ulong* header = table + (ulong)s * words + HGB_WORD_HEADER;
#if DEVICE_IS_CPU
    const ulong held = *header;
    if (held == 0) {
      *header = mine;
      return s;
    }
#else
    ulong held = *(volatile HGB_PRIV ulong*)header;
    if (held == 0) {
      held = hgb_p_cas(header, 0, mine);
      if (held == 0) return s;
    }
#endif
    if (HGB_SAME_GROUP(held, mine)) return s;
    s = (s + 1) & (slots - 1);
  }
  return HGB_NO_SLOT;
}

// The kernel's parameters that the per-row code reads.
#define HGB_ROW_PARAMS                                                                         \
  uint mode, __global const long *key_desc, uint key_count, HGB_KEY_PARAMS,                    \
      __global const uint *row_groups, __global const uint *agg_desc, uint agg_count,          \
      HGB_ARG_PARAMS, uint words, uint track_rows, __global ulong *table, ulong table_slots,   \
      uint max_groups, HGB_PRIV ulong *private_table, uint private_slots, uint private_probes, \
      uint private_copies, __global uint *control
#define HGB_ROW_ARGS                                                                            \
  mode, key_desc, key_count, HGB_KEY_ARGS, row_groups, agg_desc, agg_count, av0, an0, av1, an1, \
      av2, an2, av3, an3, av4, an4, av5, an5, av6, an6, av7, an7, words, track_rows, table,     \
      table_slots, max_groups, private_table, private_slots, private_probes, private_copies,    \
      control

// PACKED and HASH: the slot of the group whose header is `mine` (row: a row
// of it) in the work-group table, or HGB_GLOBAL_SLOT | its slot in the
// device-wide table, or HGB_NO_SLOT (the table overflowed).
HGB_INLINE uint hgb_hash_slot(HGB_ROW_PARAMS, ulong h, ulong mine, ulong row, bool use_private) {
  if (use_private) {
    const uint s = hgb_private_probe(mode, private_table, private_slots, words, private_probes, h,
                                     mine, row, key_count, key_desc, HGB_KEY_ARGS);
    if (s != HGB_NO_SLOT) return s;
  }
  const uint s = hgb_table_probe(mode, table, table_slots, words, max_groups, h, mine, row,
                                 key_count, key_desc, HGB_KEY_ARGS, control);
  return s == HGB_NO_SLOT ? s : HGB_GLOBAL_SLOT | s;
}

// For each item k < count (row first_row + k * step) with slot[k] other
// than HGB_NO_SLOT and a non-NULL argument: PRIVATE with `w` the slot's words
// in the work-group table, else GLOBAL with `w` those in the device-wide one.
#if DEVICE_IS_CPU
// CPUs: DIRECT and IDS rows of a work-group with its own table all have a
// slot there, so the loop needs neither test.
#define HGB_FOR_ITEMS(PRIVATE, GLOBAL)                      \
  if (all_private) {                                        \
    for (uint k = 0; k < count; ++k) {                      \
      const uint s = slot[k];                               \
      const ulong row = first_row + k;                      \
      if (has_nulls && nulls[row] != 0) continue;           \
      HGB_PRIV ulong* w = private_table + (ulong)s * words; \
      PRIVATE;                                              \
    }                                                       \
  } else                                                    \
    HGB_FOR_EACH_ITEM(PRIVATE, GLOBAL)
#else
#define HGB_FOR_ITEMS(PRIVATE, GLOBAL) HGB_FOR_EACH_ITEM(PRIVATE, GLOBAL)
#endif
#define HGB_FOR_EACH_ITEM(PRIVATE, GLOBAL)                               \
  for (uint k = 0; k < count; ++k) {                                     \
    const uint s = slot[k];                                              \
    if (s == HGB_NO_SLOT) continue;                                      \
    const ulong row = first_row + k * step;                              \
    if (has_nulls && nulls[row] != 0) continue;                          \
    if ((s & HGB_GLOBAL_SLOT) == 0) {                                    \
      HGB_PRIV ulong* w = private_table + (ulong)s * words;              \
      PRIVATE;                                                           \
    } else {                                                             \
      __global ulong* w = table + (ulong)(s & ~HGB_GLOBAL_SLOT) * words; \
      GLOBAL;                                                            \
    }                                                                    \
  }
// The same for an operation OP(w + word, value) of the argument's value,
// loaded as TYPE and converted by CONVERT.
#define HGB_FOLD(P_OP, G_OP, TYPE, CONVERT)                                   \
  HGB_FOR_ITEMS(P_OP(w + word, CONVERT(((__global const TYPE*)values)[row])), \
                G_OP(w + word, CONVERT(((__global const TYPE*)values)[row])))
#define HGB_FOLD_INT(P_OP, G_OP, CONVERT) \
  if (type == SORT_TYPE_INT32) {          \
    HGB_FOLD(P_OP, G_OP, int, CONVERT)    \
  } else {                                \
    HGB_FOLD(P_OP, G_OP, long, CONVERT)   \
  }

inline ulong hgb_int_image(long v) {
  return (ulong)v ^ 0x8000000000000000UL;
}
inline ulong hgb_int_image_min(long v) {
  return ~hgb_int_image(v);
}
inline ulong hgb_split_low(long v) {
  return (ulong)v & 0xffffffffUL;
}
#if HAS_FP64
// Ordered images of doubles, -0.0 below 0.0 (MIN and MAX of zeros do not
// depend on the order of rows).
inline ulong hgb_real_image(double d) {
  const ulong bits = as_ulong(d);
  return (bits >> 63) != 0 ? ~bits : bits | 0x8000000000000000UL;
}
inline ulong hgb_real_image_min(double d) {
  return ~hgb_real_image(d);
}
#endif
#define HGB_AS_ULONG(v) ((ulong)(long)(v))
#define HGB_HIGH_HALF(v) ((ulong)((long)(v) >> 32))

// DIRECT and PACKED: adds one key's digit to image[k] (a NULL key is digit 0
// of a key with NULLs, value v digit v - lo + 1; without NULLs v - lo) and
// flags a non-NULL value outside the key's range in `bad`.
#define HGB_DIRECT_DIGITS(TYPE)                                       \
  __global const TYPE* v = (__global const TYPE*)values;              \
  if (with_nulls) {                                                   \
    VECTORIZE_ITEMS                                                   \
    for (uint k = 0; k < count; ++k) {                                \
      const ulong row = first_row + k * step;                         \
      const ulong offset = (ulong)(long)v[row] - lo;                  \
      const bool is_null = nulls[row] != 0;                           \
      bad |= !is_null && offset >= card ? 1 : 0;                      \
      image[k] += is_null ? 0 : (offset + 1) * stride;                \
    }                                                                 \
  } else {                                                            \
    VECTORIZE_ITEMS                                                   \
    for (uint k = 0; k < count; ++k) {                                \
      const ulong offset = (ulong)(long)v[first_row + k * step] - lo; \
      bad |= offset >= card ? 1 : 0;                                  \
      image[k] += offset * stride;                                    \
    }                                                                 \
  }

// Folds rows first_row + k * step (k < HGB_ITEMS, row < end) into their
// groups' slots: the slots first (a vectorisable loop per key for images),
// then the rows and first positions, then each aggregate in a loop of its
// own operation and type. (One pass of all aggregates per row, the
// operation chosen per row, was slower on PoCL.) *use_private: hash rows
// still probe the work-group table; cleared once most rows of a batch miss
// it (more groups than it holds), after which they go to the device-wide
// table directly.
HGB_INLINE void hgb_fold_rows(HGB_ROW_PARAMS, ulong first_row, ulong step, ulong end,
                              bool* use_private) {
  const uint count =
      first_row >= end ? 0 : (uint)min((ulong)HGB_ITEMS, (end - first_row + step - 1) / step);
  uint slot[HGB_ITEMS];
  const bool all_private = (mode == HGB_MODE_DIRECT || mode == HGB_MODE_IDS) && private_slots != 0;
  if (mode == HGB_MODE_HASH) {
    const bool probe_private = *use_private;
    uint misses = 0;
    for (uint k = 0; k < count; ++k) {
      const ulong row = first_row + k * step;
      const ulong h = hgb_hash(key_count, key_desc, HGB_KEY_ARGS, row);
      slot[k] = hgb_hash_slot(HGB_ROW_ARGS, h, (h & 0xffffffff00000000UL) | (row + 1), row,
                              probe_private);
      misses += (slot[k] & HGB_GLOBAL_SLOT) != 0 ? 1 : 0;
    }
    if (2 * misses > count) *use_private = false;
  } else if (mode == HGB_MODE_IDS) {
    const uint global_bit = private_slots != 0 ? 0u : HGB_GLOBAL_SLOT;
    for (uint k = 0; k < count; ++k)
      slot[k] = row_groups[first_row + k * step] | global_bit;
  } else {
    ulong image[HGB_ITEMS];
    for (uint k = 0; k < count; ++k)
      image[k] = 0;
    ulong bad = 0;
    for (uint key = 0; key < key_count; ++key) {
      __global const long* d = key_desc + key * HGB_KEY_LONGS;
      const ulong lo = (ulong)d[HGB_KEY_LO], card = (ulong)d[HGB_KEY_CARD];
      const ulong stride = (ulong)d[HGB_KEY_STRIDE];
      __global const uchar* values = HGB_KEY_VALUES_OF(key);
      __global const uchar* nulls = HGB_KEY_NULLS_OF(key);
      const bool with_nulls = d[HGB_KEY_NULLS] != 0;
      if (d[HGB_KEY_TYPE] == SORT_TYPE_INT32) {
        HGB_DIRECT_DIGITS(int)
      } else {
        HGB_DIRECT_DIGITS(long)
      }
    }
    if (bad != 0) {
      atomic_or(&control[0], HGB_OVERFLOW_RANGE);
      return;
    }
    if (mode == HGB_MODE_DIRECT) {
      const uint global_bit = private_slots != 0 ? 0u : HGB_GLOBAL_SLOT;
      for (uint k = 0; k < count; ++k)
        slot[k] = (uint)image[k] | global_bit;
    } else {
      const bool probe_private = *use_private;
      uint misses = 0;
      for (uint k = 0; k < count; ++k) {
        slot[k] = hgb_hash_slot(HGB_ROW_ARGS, hgb_mix(image[k]), image[k] + 1, first_row + k * step,
                                probe_private);
        misses += (slot[k] & HGB_GLOBAL_SLOT) != 0 ? 1 : 0;
      }
      if (2 * misses > count) *use_private = false;
    }
  }
  if (track_rows != 0) {
    const bool has_nulls = false;
    __global const uchar* nulls = 0;
#if DEVICE_IS_CPU
    // One worker takes its rows in order: a slot's first row is the one that
    // finds its row count 0 (or its first word unset), no maximum per row.
    if (words > HGB_WORD_ROWS) {
      HGB_FOR_ITEMS(const ulong before = w[HGB_WORD_ROWS]; w[HGB_WORD_ROWS] = before + 1;
                    if (before == 0) w[HGB_WORD_FIRST] = ~(uint)row,
                    hgb_g_max(w + HGB_WORD_FIRST, ~(uint)row);
                    hgb_g_add(w + HGB_WORD_ROWS, 1))
    } else {
      HGB_FOR_ITEMS(if (w[HGB_WORD_FIRST] == 0) w[HGB_WORD_FIRST] = ~(uint)row,
                    hgb_g_max(w + HGB_WORD_FIRST, ~(uint)row))
    }
#else
    HGB_FOR_ITEMS(hgb_p_max(w + HGB_WORD_FIRST, ~(uint)row);
                  if (words > HGB_WORD_ROWS) hgb_p_add(w + HGB_WORD_ROWS, 1),
                  hgb_g_max(w + HGB_WORD_FIRST, ~(uint)row);
                  if (words > HGB_WORD_ROWS) hgb_g_add(w + HGB_WORD_ROWS, 1))
#endif
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
        HGB_FOLD_INT(hgb_p_add, hgb_g_add, HGB_AS_ULONG)
        break;
      case HGB_OP_SUM_SPLIT:
        HGB_FOLD_INT(hgb_p_add, hgb_g_add, hgb_split_low)
        HGB_FOR_ITEMS(hgb_p_add(w + word + 1, HGB_HIGH_HALF(group_by_load_int(values, type, row))),
                      hgb_g_add(w + word + 1, HGB_HIGH_HALF(group_by_load_int(values, type, row))))
        break;
      case HGB_OP_MAX:
      case HGB_OP_MIN:
#if HAS_FP64
        if (real) {
          if (type == SORT_TYPE_DOUBLE) {
            if (op == HGB_OP_MAX) {
              HGB_FOLD(hgb_p_max, hgb_g_max, double, hgb_real_image)
            } else {
              HGB_FOLD(hgb_p_max, hgb_g_max, double, hgb_real_image_min)
            }
          } else if (op == HGB_OP_MAX) {
            HGB_FOR_ITEMS(
                hgb_p_max(w + word, hgb_real_image((double)group_by_load_int(values, type, row))),
                hgb_g_max(w + word, hgb_real_image((double)group_by_load_int(values, type, row))))
          } else {
            HGB_FOR_ITEMS(
                hgb_p_max(w + word,
                          hgb_real_image_min((double)group_by_load_int(values, type, row))),
                hgb_g_max(w + word,
                          hgb_real_image_min((double)group_by_load_int(values, type, row))))
          }
          break;
        }
#endif
        if (op == HGB_OP_MAX) {
          HGB_FOLD_INT(hgb_p_max, hgb_g_max, hgb_int_image)
        } else {
          HGB_FOLD_INT(hgb_p_max, hgb_g_max, hgb_int_image_min)
        }
        break;
      case HGB_OP_SUM_REAL: {
#if HAS_FP64
        const int base = (int)agg[HGB_AGG_BASE];
        const uint bins = agg[HGB_AGG_BINS];
        HGB_FOR_ITEMS(HGB_FOLD_REAL(hgb_p_add, hgb_p_or, w + word,
                                    group_by_load_real(values, type, row), base, bins),
                      HGB_FOLD_REAL(hgb_g_add, hgb_g_or, w + word,
                                    group_by_load_real(values, type, row), base, bins))
#endif
        break;
      }
    }
    const uint count_word = agg[HGB_AGG_COUNT];
    if (count_word != HGB_NO_WORD)
      HGB_FOR_ITEMS(hgb_p_add(w + count_word, 1), hgb_g_add(w + count_word, 1))
  }
}

// Merges work-group table entries [from, to) (step `step`; `private_slots`
// slots per copy) into the device-wide table.
HGB_INLINE void hgb_flush(HGB_ROW_PARAMS, __global const uint* word_kinds, uint from, uint to,
                          uint step) {
  const bool hashed = mode == HGB_MODE_HASH || mode == HGB_MODE_PACKED;
  for (uint i = from; i < to; i += step) {
    HGB_PRIV ulong* entry = private_table + (ulong)i * words;
    // A hashed entry is taken once its header is claimed. A direct entry
    // that saw no row has only zero words (which merge as no-ops); only the
    // first pass sets first positions, so later passes cannot test them.
    if (hashed ? entry[HGB_WORD_HEADER] == 0 : track_rows != 0 && entry[HGB_WORD_FIRST] == 0)
      continue;
    ulong g = i % private_slots;
    if (hashed) {
      const ulong mine = entry[HGB_WORD_HEADER];
      const ulong row = (uint)mine - 1;  // HASH: the group's representative row
      const ulong h = mode == HGB_MODE_PACKED ? hgb_mix(mine - 1)
                                              : hgb_hash(key_count, key_desc, HGB_KEY_ARGS, row);
      const uint s = hgb_table_probe(mode, table, table_slots, words, max_groups, h, mine, row,
                                     key_count, key_desc, HGB_KEY_ARGS, control);
      if (s == HGB_NO_SLOT) return;
      g = s;
    }
    for (uint w = HGB_WORD_FIRST; w < words; ++w)
      hgb_merge_word(&table[g * words + w], word_kinds[w], entry[w]);
  }
}

// Folds rows [group * rows_per_group, +rows_per_group) of `rows` into their
// groups' slots. private_slots == 0: no work-group tables. Work-group tables
// hold `private_copies` copies of private_slots slots: on GPUs in local
// memory, work-item l using copy l % copies; on CPUs one table per
// work-group in private_table (one copy). `flush`: merge the work-group
// tables into the device-wide table here (else group_by_merge does, CPUs
// only). The first pass (track_rows) adds the rows of each work-group
// that finished with the table not yet full to control[2], from which
// GroupBy sizes the table that replaces a full one.
KERNEL void hash_group_by_aggregate(ulong rows, ulong rows_per_group, HGB_ROW_PARAMS,
                                    __global const uint* word_kinds, uint flush) {
  const uint lid = get_local_id(0);
  const ulong begin = (ulong)get_group_id(0) * rows_per_group;
  const ulong end = min(rows, begin + rows_per_group);
  const uint entries = private_slots * private_copies;
#if DEVICE_IS_CPU
  if (lid != 0) return;
  private_table += get_group_id(0) * (ulong)entries * words;
  for (ulong i = 0; i < (ulong)entries * words; ++i)
    private_table[i] = 0;
  bool use_private = private_slots != 0;
  for (ulong block = begin; block < end; block += HGB_CPU_BLOCK) {
    if (*(volatile __global uint*)control != 0) return;
    hgb_fold_rows(HGB_ROW_ARGS, block, 1, end, &use_private);
  }
  if (flush != 0 && private_slots != 0) hgb_flush(HGB_ROW_ARGS, word_kinds, 0, entries, 1);
  if (track_rows != 0 && *(volatile __global uint*)control == 0)
    atomic_add(&control[2], (uint)(end - begin));
#else
  for (uint i = lid; i < entries * words; i += WG_SIZE)
    private_table[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  HGB_PRIV ulong* all_copies = private_table;
  private_table += (ulong)(lid % private_copies) * private_slots * words;
  bool use_private = private_slots != 0;
  for (ulong start = begin; start < end; start += TILE) {
    if (*(volatile __global uint*)control != 0) break;
    hgb_fold_rows(HGB_ROW_ARGS, start + lid, WG_SIZE, end, &use_private);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (private_slots != 0 && *(volatile __global uint*)control == 0) {
    private_table = all_copies;
    hgb_flush(HGB_ROW_ARGS, word_kinds, lid, entries, WG_SIZE);
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (track_rows != 0 && lid == 0 && *(volatile __global uint*)control == 0)
    atomic_add(&control[2], (uint)(end - begin));
#endif
}
