// Hash GROUP BY (operators/hash_group_by.cpp). Each row finds its group's
// slot (kernels_cl/group_by_shared.h: DIRECT image, HASH probe or sorted
// IDS) and folds its aggregates into the slot's 64-bit state words with
// operations that commute (integer sums, maxima of ordered images, or), so
// that the state is the same whatever order rows arrive in: integer results
// are exact, and a REAL SUM is an exact fixed-point sum of the values (30-bit
// pieces in bins) rounded once at the end.
//
// Work-group tables: on GPUs a work-group folds its rows into a table in
// local memory (atomics; DIRECT tables replicated so that work-items contend
// less) and flushes it into the device-wide table at the end. On CPUs a
// work-group is one sequential worker (work-item 0) over a contiguous range
// of rows with its own table in global memory, without atomics; DIRECT and
// IDS tables are then merged slot by slot (hash_group_by_merge), HASH tables
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

#define HGB_KEY_PARAMS                                                                     \
  __global const uchar *kv0, __global const uchar *kn0, __global const uchar *kv1,         \
      __global const uchar *kn1, __global const uchar *kv2, __global const uchar *kn2,     \
      __global const uchar *kv3, __global const uchar *kn3
#define HGB_KEY_ARGS kv0, kn0, kv1, kn1, kv2, kn2, kv3, kn3
#define HGB_ARG_PARAMS                                                                     \
  __global const uchar *av0, __global const uchar *an0, __global const uchar *av1,         \
      __global const uchar *an1, __global const uchar *av2, __global const uchar *an2,     \
      __global const uchar *av3, __global const uchar *an3, __global const uchar *av4,     \
      __global const uchar *an4, __global const uchar *av5, __global const uchar *an5,     \
      __global const uchar *av6, __global const uchar *an6, __global const uchar *av7,     \
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
    for (uint i = 0; i < width; ++i) h = (h ^ values[row * width + i]) * 0x100000001b3UL;
    return h;
  }
  const ulong x = ((__global const ulong*)values)[row];
  return type == SORT_TYPE_DOUBLE && (x << 1) == 0 ? 0 : x;  // -0.0 hashes as 0.0
}

HGB_INLINE ulong hgb_hash(uint key_count, __global const long* key_desc, HGB_KEY_PARAMS, ulong row) {
  ulong h = 0;
  for (uint k = 0; k < key_count; ++k) {
    __global const long* d = key_desc + k * HGB_KEY_LONGS;
    h = hgb_mix(h ^ (hgb_key_bits(HGB_KEY_VALUES_OF(k), HGB_KEY_NULLS_OF(k), (uint)d[HGB_KEY_NULLS],
                                  (uint)d[HGB_KEY_TYPE], (uint)d[HGB_KEY_WIDTH], row) +
                     0x9e3779b97f4a7c15UL * (k + 1)));
  }
  return h;
}

HGB_INLINE bool hgb_keys_equal(uint key_count, __global const long* key_desc, HGB_KEY_PARAMS, ulong a,
                           ulong b) {
  for (uint k = 0; k < key_count; ++k) {
    __global const long* d = key_desc + k * HGB_KEY_LONGS;
    if (group_by_differs(HGB_KEY_VALUES_OF(k), HGB_KEY_NULLS_OF(k), (uint)d[HGB_KEY_NULLS],
                         (uint)d[HGB_KEY_TYPE], (uint)d[HGB_KEY_WIDTH], a, b))
      return false;
  }
  return true;
}

// --- State word updates -----------------------------------------------------

#if HAS_INT64_ATOMICS
HGB_INLINE void hgb_g_add(__global ulong* w, ulong v) { atom_add((volatile __global ulong*)w, v); }
HGB_INLINE void hgb_g_max(__global ulong* w, ulong v) {
  ulong old = *(volatile __global ulong*)w;
  while (old < v) {
    const ulong seen = atom_cmpxchg((volatile __global ulong*)w, old, v);
    if (seen == old) break;
    old = seen;
  }
}
HGB_INLINE void hgb_g_or(__global ulong* w, ulong v) {
  ulong old = *(volatile __global ulong*)w;
  while ((old | v) != old) {
    const ulong seen = atom_cmpxchg((volatile __global ulong*)w, old, old | v);
    if (seen == old) break;
    old = seen;
  }
}
#else
// Never launched with state words: the host refuses aggregates without
// 64-bit atomics (operators/group_by.cpp).
HGB_INLINE void hgb_g_add(__global ulong* w, ulong v) { *w += v; }
HGB_INLINE void hgb_g_max(__global ulong* w, ulong v) { *w = max(*w, v); }
HGB_INLINE void hgb_g_or(__global ulong* w, ulong v) { *w |= v; }
#endif
HGB_INLINE void hgb_g_first(__global uint* f, uint row) {
  if (row < *(volatile __global uint*)f) atomic_min((volatile __global uint*)f, row);
}

#if DEVICE_IS_CPU
// A CPU work-group's table belongs to its one working work-item.
HGB_INLINE void hgb_p_add(HGB_PRIV ulong* w, ulong v) { *w += v; }
HGB_INLINE void hgb_p_max(HGB_PRIV ulong* w, ulong v) { *w = max(*w, v); }
HGB_INLINE void hgb_p_or(HGB_PRIV ulong* w, ulong v) { *w |= v; }
// Rows come in ascending order: the first position is set once (a branch,
// not a store per row).
HGB_INLINE void hgb_p_first(HGB_PRIV uint* f, uint row) {
  if (row < *f) *f = row;
}
#else
#if HAS_INT64_ATOMICS
HGB_INLINE void hgb_p_add(HGB_PRIV ulong* w, ulong v) { atom_add((volatile HGB_PRIV ulong*)w, v); }
HGB_INLINE void hgb_p_max(HGB_PRIV ulong* w, ulong v) {
  ulong old = *(volatile HGB_PRIV ulong*)w;
  while (old < v) {
    const ulong seen = atom_cmpxchg((volatile HGB_PRIV ulong*)w, old, v);
    if (seen == old) break;
    old = seen;
  }
}
HGB_INLINE void hgb_p_or(HGB_PRIV ulong* w, ulong v) {
  ulong old = *(volatile HGB_PRIV ulong*)w;
  while ((old | v) != old) {
    const ulong seen = atom_cmpxchg((volatile HGB_PRIV ulong*)w, old, old | v);
    if (seen == old) break;
    old = seen;
  }
}
#else
HGB_INLINE void hgb_p_add(HGB_PRIV ulong* w, ulong v) { *w += v; }
HGB_INLINE void hgb_p_max(HGB_PRIV ulong* w, ulong v) { *w = max(*w, v); }
HGB_INLINE void hgb_p_or(HGB_PRIV ulong* w, ulong v) { *w |= v; }
#endif
HGB_INLINE void hgb_p_first(HGB_PRIV uint* f, uint row) {
  if (row < *(volatile HGB_PRIV uint*)f) atomic_min((volatile HGB_PRIV uint*)f, row);
}
#endif

HGB_INLINE long hgb_load_int(__global const uchar* values, uint type, ulong row) {
  return type == SORT_TYPE_INT32 ? (long)((__global const int*)values)[row]
                                 : ((__global const long*)values)[row];
}

#if HAS_FP64
HGB_INLINE double hgb_load_real(__global const uchar* values, uint type, ulong row) {
  return type == SORT_TYPE_DOUBLE ? ((__global const double*)values)[row]
                                  : (double)hgb_load_int(values, type, row);
}

// A finite double as m * 2^p, m its 53-bit significand (0 for zero);
// returns m.
HGB_INLINE ulong hgb_real_parts(ulong bits, int* p) {
  const uint exponent = (uint)(bits >> 52) & 0x7ffu;
  *p = (exponent != 0 ? (int)exponent : 1) - 1075;
  return (bits & 0xfffffffffffffUL) | (exponent != 0 ? 0x10000000000000UL : 0);
}

// Folds value d into the SUM_REAL words at w: bins [0, bins) of 30-bit
// pieces of d / 2^base, then the flags word. `base` is at most the position
// of any value's lowest significand bit, and bins reach two past the highest
// (hgb_window), so that every value adds its three pieces unconditionally.
#define HGB_FOLD_REAL(ADD, OR, w, d, base, bins)                                   \
  do {                                                                             \
    const ulong hgb_bits = as_ulong(d);                                            \
    if ((~hgb_bits & 0x7ff0000000000000UL) == 0) {                                 \
      OR((w) + (bins),                                                             \
         (hgb_bits & 0xfffffffffffffUL) != 0 ? (ulong)HGB_FLAG_NAN                 \
         : (hgb_bits >> 63) != 0             ? (ulong)HGB_FLAG_NEG_INF             \
                                             : (ulong)HGB_FLAG_POS_INF);           \
    } else {                                                                       \
      int hgb_p;                                                                   \
      const ulong hgb_m = hgb_real_parts(hgb_bits, &hgb_p);                        \
      const uint hgb_o = hgb_m != 0 ? (uint)(hgb_p - (base)) : 0u;                 \
      const uint hgb_k = hgb_o / HGB_BIN_BITS;                                     \
      const uint hgb_s = hgb_o - hgb_k * HGB_BIN_BITS;                             \
      const ulong hgb_sign = 0 - (hgb_bits >> 63);                                 \
      ADD((w) + hgb_k, (((hgb_m << hgb_s) & 0x3fffffffUL) ^ hgb_sign) - hgb_sign); \
      ADD((w) + hgb_k + 1,                                                         \
          (((hgb_m >> (HGB_BIN_BITS - hgb_s)) & 0x3fffffffUL) ^ hgb_sign) - hgb_sign); \
      ADD((w) + hgb_k + 2, ((hgb_m >> (2 * HGB_BIN_BITS - hgb_s)) ^ hgb_sign) - hgb_sign); \
    }                                                                              \
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

// HASH: the slot of the device-wide table holding row's group, claimed for
// it if the group is new; HGB_NO_SLOT (and the overflow flag) when the table
// holds `max_groups` groups or has no free slot. Slot reads are volatile:
// another work-group may have claimed the slot since (NVIDIA's L1 is not
// coherent across SMs).
HGB_INLINE uint hgb_table_probe(__global uint* table_rows, ulong slots, uint max_groups, ulong h,
                            ulong row, uint key_count, __global const long* key_desc,
                            HGB_KEY_PARAMS, __global uint* control) {
  ulong s = h & (slots - 1);
  for (ulong probe = 0; probe < slots; ++probe) {
    uint r = ((volatile __global uint*)table_rows)[s];
    if (r == 0) {
      r = atomic_cmpxchg((volatile __global uint*)&table_rows[s], 0u, (uint)row + 1);
      if (r == 0) {
        if (atomic_inc(&control[1]) >= max_groups) atomic_or(&control[0], HGB_OVERFLOW_TABLE);
        return (uint)s;
      }
    }
    if (hgb_keys_equal(key_count, key_desc, HGB_KEY_ARGS, row, r - 1)) return (uint)s;
    s = (s + 1) & (slots - 1);
  }
  atomic_or(&control[0], HGB_OVERFLOW_TABLE);
  return HGB_NO_SLOT;
}

// HASH: the slot of the work-group table holding row's group, claimed for it
// if free; HGB_NO_SLOT after `probes` occupied slots of other groups.
HGB_INLINE uint hgb_private_probe(HGB_PRIV uint* private_rows, uint slots, uint probes, ulong h,
                              ulong row, uint key_count, __global const long* key_desc,
                              HGB_KEY_PARAMS) {
  uint s = (uint)(h >> 40) & (slots - 1);
  for (uint probe = 0; probe < probes; ++probe) {
#if DEVICE_IS_CPU
    const uint r = private_rows[s];
    if (r == 0) {
      private_rows[s] = (uint)row + 1;
      return s;
    }
#else
    uint r = ((volatile HGB_PRIV uint*)private_rows)[s];
    if (r == 0) {
      r = atomic_cmpxchg((volatile HGB_PRIV uint*)&private_rows[s], 0u, (uint)row + 1);
      if (r == 0) return s;
    }
#endif
    if (hgb_keys_equal(key_count, key_desc, HGB_KEY_ARGS, row, r - 1)) return s;
    s = (s + 1) & (slots - 1);
  }
  return HGB_NO_SLOT;
}

// The kernel's parameters that the per-row code reads.
#define HGB_ROW_PARAMS                                                                   \
  uint mode, __global const long *key_desc, uint key_count, HGB_KEY_PARAMS,              \
      __global const uint *row_groups, __global const uint *agg_desc, uint agg_count,    \
      HGB_ARG_PARAMS, uint words, uint track_rows, __global uint *table_rows, __global uint *table_first, \
      __global ulong *table_state, ulong table_slots, uint max_groups,                   \
      HGB_PRIV uint *private_rows, HGB_PRIV uint *private_first,                         \
      HGB_PRIV ulong *private_state, uint private_slots, uint private_probes,            \
      uint private_copies, __global uint *control
#define HGB_ROW_ARGS                                                                       \
  mode, key_desc, key_count, HGB_KEY_ARGS, row_groups, agg_desc, agg_count, av0, an0, av1, \
      an1, av2, an2, av3, an3, av4, an4, av5, an5, av6, an6, av7, an7, words, track_rows,  \
      table_rows,                                                                        \
      table_first, table_state, table_slots, max_groups, private_rows, private_first,      \
      private_state, private_slots, private_probes, private_copies, control

// HASH: the slot of row's group in the work-group table, or HGB_GLOBAL_SLOT |
// its slot in the device-wide table, or HGB_NO_SLOT (the table overflowed).
HGB_INLINE uint hgb_hash_slot(HGB_ROW_PARAMS, ulong row, bool use_private) {
  const ulong h = hgb_hash(key_count, key_desc, HGB_KEY_ARGS, row);
  if (use_private) {
    const uint s = hgb_private_probe(private_rows, private_slots, private_probes, h, row,
                                     key_count, key_desc, HGB_KEY_ARGS);
    if (s != HGB_NO_SLOT) return s;
  }
  const uint s = hgb_table_probe(table_rows, table_slots, max_groups, h, row, key_count,
                                 key_desc, HGB_KEY_ARGS, control);
  return s == HGB_NO_SLOT ? s : HGB_GLOBAL_SLOT | s;
}

// For each item k < count (row first_row + k * step) with slot[k] other
// than HGB_NO_SLOT and a non-NULL argument: PRIVATE with `w` the slot's words
// in the work-group table, else GLOBAL with `w` those in the device-wide one.
#if DEVICE_IS_CPU
// CPUs: DIRECT and IDS rows of a work-group with its own table all have a
// slot there, so the loop needs neither test.
#define HGB_FOR_ITEMS(PRIVATE, GLOBAL)                                           \
  if (all_private) {                                                             \
    for (uint k = 0; k < count; ++k) {                                           \
      const uint s = slot[k];                                                    \
      const ulong row = first_row + k;                                           \
      if (has_nulls && nulls[row] != 0) continue;                                \
      HGB_PRIV ulong* w = private_state + (ulong)s * words;                      \
      PRIVATE;                                                                   \
    }                                                                            \
  } else                                                                         \
    HGB_FOR_EACH_ITEM(PRIVATE, GLOBAL)
#else
#define HGB_FOR_ITEMS(PRIVATE, GLOBAL) HGB_FOR_EACH_ITEM(PRIVATE, GLOBAL)
#endif
#define HGB_FOR_EACH_ITEM(PRIVATE, GLOBAL)                                       \
  for (uint k = 0; k < count; ++k) {                                             \
    const uint s = slot[k];                                                      \
    if (s == HGB_NO_SLOT) continue;                                              \
    const ulong row = first_row + k * step;                                      \
    if (has_nulls && nulls[row] != 0) continue;                                  \
    if ((s & HGB_GLOBAL_SLOT) == 0) {                                            \
      HGB_PRIV ulong* w = private_state + (ulong)s * words;                       \
      PRIVATE;                                                                   \
    } else {                                                                     \
      __global ulong* w = table_state + (ulong)(s & ~HGB_GLOBAL_SLOT) * words;   \
      GLOBAL;                                                                    \
    }                                                                            \
  }
// The same for an operation OP(w + word, value) of the argument's value,
// loaded as TYPE and converted by CONVERT.
#define HGB_FOLD(P_OP, G_OP, TYPE, CONVERT)                                            \
  HGB_FOR_ITEMS(P_OP(w + word, CONVERT(((__global const TYPE*)values)[row])),          \
                G_OP(w + word, CONVERT(((__global const TYPE*)values)[row])))
#define HGB_FOLD_INT(P_OP, G_OP, CONVERT)      \
  if (type == SORT_TYPE_INT32) {               \
    HGB_FOLD(P_OP, G_OP, int, CONVERT)         \
  } else {                                     \
    HGB_FOLD(P_OP, G_OP, long, CONVERT)        \
  }

inline ulong hgb_int_image(long v) { return (ulong)v ^ 0x8000000000000000UL; }
inline ulong hgb_int_image_min(long v) { return ~hgb_int_image(v); }
inline ulong hgb_split_low(long v) { return (ulong)v & 0xffffffffUL; }
#if HAS_FP64
inline ulong hgb_real_image(double d) {
  const ulong bits = as_ulong(d);
  return (bits >> 63) != 0 ? ~bits : bits | 0x8000000000000000UL;
}
inline ulong hgb_real_image_min(double d) { return ~hgb_real_image(d); }
#endif
#define HGB_AS_ULONG(v) ((ulong)(long)(v))
#define HGB_HIGH_HALF(v) ((ulong)((long)(v) >> 32))
#define HGB_AS_DOUBLE(v) ((double)(v))

// DIRECT: adds one key's digit to image[k] (a NULL key is digit 0 of a key
// with NULLs, value v digit v - lo + 1; without NULLs v - lo) and flags a
// non-NULL value outside the key's range in `bad`.
#define HGB_DIRECT_DIGITS(TYPE)                                            \
  __global const TYPE* v = (__global const TYPE*)values;                   \
  if (with_nulls) {                                                        \
    VECTORIZE_ITEMS                                                        \
    for (uint k = 0; k < count; ++k) {                                     \
      const ulong row = first_row + k * step;                              \
      const ulong offset = (ulong)(long)v[row] - lo;                       \
      const bool is_null = nulls[row] != 0;                                \
      bad |= !is_null && offset >= card ? 1 : 0;                           \
      image[k] += is_null ? 0 : (offset + 1) * stride;                     \
    }                                                                      \
  } else {                                                                 \
    VECTORIZE_ITEMS                                                        \
    for (uint k = 0; k < count; ++k) {                                     \
      const ulong offset = (ulong)(long)v[first_row + k * step] - lo;      \
      bad |= offset >= card ? 1 : 0;                                       \
      image[k] += offset * stride;                                         \
    }                                                                      \
  }

// Folds rows first_row + k * step (k < HGB_ITEMS, row < end) into their
// groups' slots: the slots first (a vectorisable loop per key on DIRECT),
// then the rows and first positions, then each aggregate in a loop of its
// own operation and type.
// *use_private: HASH rows still probe the work-group table; cleared once
// most rows of a batch miss it (more groups than it holds), after which they
// go to the device-wide table directly.
HGB_INLINE void hgb_fold_rows(HGB_ROW_PARAMS, ulong first_row, ulong step, ulong end,
                              bool* use_private) {
  const uint count =
      first_row >= end ? 0 : (uint)min((ulong)HGB_ITEMS, (end - first_row + step - 1) / step);
  uint slot[HGB_ITEMS];
  const bool all_private = mode != HGB_MODE_HASH && private_slots != 0;
  if (mode == HGB_MODE_HASH) {
    const bool probe_private = *use_private;
    uint misses = 0;
    for (uint k = 0; k < count; ++k) {
      slot[k] = hgb_hash_slot(HGB_ROW_ARGS, first_row + k * step, probe_private);
      misses += (slot[k] & HGB_GLOBAL_SLOT) != 0 ? 1 : 0;
    }
    if (2 * misses > count) *use_private = false;
  } else {
    const uint global_bit = private_slots != 0 ? 0u : HGB_GLOBAL_SLOT;
    if (mode == HGB_MODE_IDS) {
      for (uint k = 0; k < count; ++k) slot[k] = row_groups[first_row + k * step] | global_bit;
    } else {
      ulong image[HGB_ITEMS];
      for (uint k = 0; k < count; ++k) image[k] = 0;
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
      for (uint k = 0; k < count; ++k) slot[k] = (uint)image[k] | global_bit;
    }
  }
  if (track_rows != 0) {
    const bool has_nulls = false;
    __global const uchar* nulls = 0;
#if DEVICE_IS_CPU
    // One worker takes its rows in order: a slot's first row is the one that
    // finds its row count 0 (no second load per row).
    if (words != 0) {
      HGB_FOR_ITEMS(const ulong before = w[0]; w[0] = before + 1;
                    if (before == 0) private_first[s] = (uint)row,
                    hgb_g_first(&table_first[s & ~HGB_GLOBAL_SLOT], (uint)row);
                    hgb_g_add(w, 1))
    } else
#endif
    {
      HGB_FOR_ITEMS(hgb_p_first(&private_first[s], (uint)row); if (words != 0) hgb_p_add(w, 1),
                    hgb_g_first(&table_first[s & ~HGB_GLOBAL_SLOT], (uint)row);
                    if (words != 0) hgb_g_add(w, 1))
    }
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
        HGB_FOR_ITEMS(hgb_p_add(w + word + 1, HGB_HIGH_HALF(hgb_load_int(values, type, row))),
                      hgb_g_add(w + word + 1, HGB_HIGH_HALF(hgb_load_int(values, type, row))))
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
                hgb_p_max(w + word, hgb_real_image((double)hgb_load_int(values, type, row))),
                hgb_g_max(w + word, hgb_real_image((double)hgb_load_int(values, type, row))))
          } else {
            HGB_FOR_ITEMS(
                hgb_p_max(w + word, hgb_real_image_min((double)hgb_load_int(values, type, row))),
                hgb_g_max(w + word, hgb_real_image_min((double)hgb_load_int(values, type, row))))
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
                                    hgb_load_real(values, type, row), base, bins),
                      HGB_FOLD_REAL(hgb_g_add, hgb_g_or, w + word,
                                    hgb_load_real(values, type, row), base, bins))
#endif
        break;
      }
    }
    const uint count_word = agg[HGB_AGG_COUNT];
    if (count_word != HGB_NO_WORD)
      HGB_FOR_ITEMS(hgb_p_add(w + count_word, 1), hgb_g_add(w + count_word, 1))
  }
}

// Merges work-group table entries [from, to) (step `step`) of `slots` slots
// per copy into the device-wide table.
HGB_INLINE void hgb_flush(HGB_ROW_PARAMS, __global const uint* word_kinds, uint from, uint to,
                      uint step) {
  for (uint i = from; i < to; i += step) {
    const uint first = private_first[i];
    if (first == HGB_EMPTY) continue;
    ulong g = i % private_slots;
    if (mode == HGB_MODE_HASH) {
      const ulong row = private_rows[i] - 1;
      const uint s =
          hgb_table_probe(table_rows, table_slots, max_groups,
                          hgb_hash(key_count, key_desc, HGB_KEY_ARGS, row), row, key_count,
                          key_desc, HGB_KEY_ARGS, control);
      if (s == HGB_NO_SLOT) return;
      g = s;
    }
    hgb_g_first(&table_first[g], first);
    for (uint w = 0; w < words; ++w)
      hgb_merge_word(&table_state[g * words + w], word_kinds[w],
                     private_state[(ulong)i * words + w]);
  }
}

// Folds rows [group * rows_per_group, +rows_per_group) of `rows` into their
// groups' slots. private_slots == 0: no work-group tables. Work-group tables
// hold `private_copies` copies of private_slots slots: on GPUs in local
// memory, work-item l using copy l % copies; on CPUs one table per
// work-group in private_* (one copy).
// `flush`: merge the work-group tables into the device-wide table here (else
// hash_group_by_merge does, CPUs only).
KERNEL void hash_group_by_aggregate(ulong rows, ulong rows_per_group, HGB_ROW_PARAMS,
                                    __global const uint* word_kinds, uint flush) {
  const uint lid = get_local_id(0);
  const ulong begin = (ulong)get_group_id(0) * rows_per_group;
  const ulong end = min(rows, begin + rows_per_group);
#if DEVICE_IS_CPU
  if (lid != 0) return;
  const uint entries = private_slots * private_copies;
  const ulong table = get_group_id(0) * (ulong)entries;
  private_rows += table;
  private_first += table;
  private_state += table * words;
  for (uint i = 0; i < entries; ++i) {
    private_first[i] = HGB_EMPTY;
    if (mode == HGB_MODE_HASH) private_rows[i] = 0;
  }
  for (ulong i = 0; i < (ulong)entries * words; ++i) private_state[i] = 0;
  bool use_private = private_slots != 0;
  for (ulong block = begin; block < end; block += HGB_CPU_BLOCK) {
    if (*(volatile __global uint*)control != 0) return;
    hgb_fold_rows(HGB_ROW_ARGS, block, 1, end, &use_private);
  }
  if (flush != 0 && private_slots != 0) hgb_flush(HGB_ROW_ARGS, word_kinds, 0, entries, 1);
#else
  const uint entries = private_slots * private_copies;
  for (uint i = lid; i < entries; i += WG_SIZE) {
    private_first[i] = HGB_EMPTY;
    if (mode == HGB_MODE_HASH) private_rows[i] = 0;
  }
  for (uint i = lid; i < entries * words; i += WG_SIZE) private_state[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (private_copies > 1) {
    const uint copy = lid % private_copies;
    private_first += copy * private_slots;
    private_state += (ulong)copy * private_slots * words;
  }
  bool use_private = private_slots != 0;
  for (ulong start = begin; start < end; start += TILE) {
    if (*(volatile __global uint*)control != 0) break;
    hgb_fold_rows(HGB_ROW_ARGS, start + lid, WG_SIZE, end, &use_private);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (private_slots == 0 || *(volatile __global uint*)control != 0) return;
  if (private_copies > 1) {
    const uint copy = lid % private_copies;
    private_first -= copy * private_slots;
    private_state -= (ulong)copy * private_slots * words;
  }
  hgb_flush(HGB_ROW_ARGS, word_kinds, lid, entries, WG_SIZE);
#endif
}

// CPUs, DIRECT and IDS: table slot s merges in slot s of the `parts`
// work-group tables (private_first: parts x slots, private_state: parts x
// slots x words).
KERNEL void hash_group_by_merge(__global const uint* private_first,
                                __global const ulong* private_state, uint parts, ulong slots,
                                uint words, __global const uint* word_kinds,
                                __global uint* table_first, __global ulong* table_state) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong s = tile_item(start, k);
    if (s >= slots) continue;
    uint first = table_first[s];
    for (uint p = 0; p < parts; ++p) first = min(first, private_first[p * slots + s]);
    table_first[s] = first;
    for (uint w = 0; w < words; ++w) {
      const uint kind = word_kinds[w];
      ulong v = table_state[s * words + w];
      for (uint p = 0; p < parts; ++p) {
        const ulong x = private_state[(p * slots + s) * words + w];
        v = kind == HGB_MERGE_ADD ? v + x : kind == HGB_MERGE_MAX ? max(v, x) : v | x;
      }
      table_state[s * words + w] = v;
    }
  }
}

// flags[s] = 1 where slot s holds a group.
KERNEL void hash_group_by_occupied(__global const uint* first, ulong slots, __global uint* flags) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong s = tile_item(start, k);
    if (s < slots) flags[s] = first[s] != HGB_EMPTY ? 1u : 0u;
  }
}

// Group offsets[s] (for occupied slots s) is slot s, first position first[s].
KERNEL void hash_group_by_compact(__global const uint* first, __global const uint* offsets,
                                  ulong slots, __global uint* group_slots,
                                  __global uint* group_first) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong s = tile_item(start, k);
    if (s < slots && first[s] != HGB_EMPTY) {
      group_slots[offsets[s]] = (uint)s;
      group_first[offsets[s]] = first[s];
    }
  }
}

// Over the finite non-zero values of rows [group * rows_per_group,
// +rows_per_group): window[2 * index] = min of the position of the lowest
// significand bit, window[2 * index + 1] = max of the position of the
// highest. Only exponent fields are compared (a vectorisable loop).
KERNEL void hash_group_by_window(__global const uchar* values, __global const uchar* nulls,
                                 uint has_nulls, uint type, ulong rows, ulong rows_per_group,
                                 __global int* window, uint index) {
  __local int scratch[2 * WG_SIZE];
  const uint lid = get_local_id(0);
  int low = INT_MAX, high = INT_MIN;
#if HAS_FP64
  const ulong begin = (ulong)get_group_id(0) * rows_per_group;
  const ulong end = min(rows, begin + rows_per_group);
  uint least = 0x7ffu, most = 0;  // exponent fields, 0 read as 1
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
        const ulong b = as_ulong(hgb_load_real(values, type, row));
        const uint e = (uint)(b >> 52) & 0x7ffu;
        if (e == 0x7ffu || (b << 1) == 0) continue;
        least = min(least, max(e, 1u));
        most = max(most, max(e, 1u));
      }
    }
  }
  if (most != 0) {
    low = (int)least - 1075;
    high = (int)most - 1075 + 52;
  }
#endif
  scratch[lid] = low;
  scratch[WG_SIZE + lid] = high;
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    for (uint i = 1; i < WG_SIZE; ++i) {
      low = min(low, scratch[i]);
      high = max(high, scratch[WG_SIZE + i]);
    }
    if (low != INT_MAX) {
      atomic_min(&window[2 * index], low);
      atomic_max(&window[2 * index + 1], high);
    }
  }
}
