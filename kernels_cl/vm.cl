// The expression virtual machine (opcodes in vm_shared.h) and the generic
// kernels built on it: projection, filter to a bitmap, and filtered
// aggregation. Expressions arrive as bytecode, so a new query never compiles
// OpenCL; each work-item interprets the program once for its IPT items, so
// decoding is paid once per IPT rows.
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
// arguments where they are (CLQ_BUILD_OPTIONS=-DVM_SLOT_SWITCH=0 restores
// the indexing, for comparison).
#ifndef VM_SLOT_SWITCH
#define VM_SLOT_SWITCH 1
#endif
#if VM_SLOT_SWITCH
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
#else
#define VM_SLOT_ACCESSOR(NAME, FIELD)                                   \
  inline __global const uchar* NAME(const vm_slots* slots, uint slot) { \
    return slots->FIELD[slot];                                          \
  }
#endif
VM_SLOT_ACCESSOR(vm_slot_values, values)
VM_SLOT_ACCESSOR(vm_slot_nulls, nulls)
#undef VM_SLOT_ACCESSOR

// VM_LANES items are interpreted together (one decode per instruction for
// all of them); a work-item runs the program IPT / VM_LANES times. VM_LANES =
// IPT (the default) amortises decoding most; smaller values keep fewer values
// live per work-item (CLQ_VM_LANES, an experiment for GPUs, where the
// interpreter's arrays may not stay in registers).
#ifndef VM_LANES
#define VM_LANES IPT
#endif
#if IPT % VM_LANES != 0
#error "VM_LANES must divide IPT"
#endif
#define VM_FOR_ITEMS for (uint k = 0; k < VM_LANES; ++k)
// All IPT items of the work-item (kernel level, outside the interpreter).
#define VM_FOR_TILE_ITEMS for (uint k = 0; k < IPT; ++k)
// Row of lane k: item item0 + k of this work-item's tile.
#define VM_ROW(k) tile_item(start, item0 + (k))

// Loads a column operand. Full tiles skip the bounds test so that the loads
// vectorise; rows past n read as 0.
#define VM_LOAD_COLUMN(TYPE, CONVERT)                                  \
  {                                                                    \
    __global const TYPE* v = (__global const TYPE*)p;                  \
    if (full) {                                                        \
      VM_FOR_ITEMS opd[k] = CONVERT(v[VM_ROW(k)]);                     \
    } else {                                                           \
      VM_FOR_ITEMS {                                                   \
        const ulong i = VM_ROW(k);                                     \
        opd[k] = i < n ? CONVERT(v[i]) : CONVERT((TYPE)0);             \
      }                                                                \
    }                                                                  \
  }
#define VM_AS_LONG(x) ((long)(x))
#define VM_AS_REAL_BITS(x) as_long((double)(x))

// Loads the operand of one instruction into opd (and opn when tracking NULLs).
inline void vm_fetch(uint kind, uint arg, uint word1, __constant const long* consts,
                     const vm_slots* slots, ulong start, uint item0, ulong n, uint track, long* opd,
                     uchar* opn, const long* stack, const uchar* stackn, uint* sp) {
  const uint base = kind & VM_OPND_BASE_MASK;
  if (base == VM_OPND_NONE) return;
  if (base == VM_OPND_CONST) {
    const long c = consts[word1];
    VM_FOR_ITEMS opd[k] = c;
    if (track) VM_FOR_ITEMS opn[k] = 0;
    return;
  }
  if (base == VM_OPND_NULL) {
    VM_FOR_ITEMS opd[k] = 0;
    if (track) VM_FOR_ITEMS opn[k] = 1;
    return;
  }
  if (base == VM_OPND_POP) {
    *sp -= 1;
    const uint b = *sp * VM_LANES;
    VM_FOR_ITEMS opd[k] = stack[b + k];
    if (track) VM_FOR_ITEMS opn[k] = stackn[b + k];
    return;
  }
  const bool full = start + TILE <= n;
  __global const uchar* p = vm_slot_values(slots, arg);
  if (base == VM_OPND_COL_I32) {
    VM_LOAD_COLUMN(int, VM_AS_LONG)
  } else if (base == VM_OPND_COL_I64 || base == VM_OPND_COL_F64) {
    VM_LOAD_COLUMN(long, VM_AS_LONG)
  } else if (base == VM_OPND_COL_I32_R) {
    VM_LOAD_COLUMN(int, VM_AS_REAL_BITS)
  } else {  // VM_OPND_COL_I64_R
    VM_LOAD_COLUMN(long, VM_AS_REAL_BITS)
  }
  if (!track) return;
  if (kind & VM_OPND_NULLABLE) {
    __global const uchar* z = vm_slot_nulls(slots, arg);
    VM_FOR_ITEMS {
      const ulong i = VM_ROW(k);
      opn[k] = i < n ? z[i] : 0;
    }
  } else {
    VM_FOR_ITEMS opn[k] = 0;
  }
}

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

// The operands of a non-commutative operation: acc OP opd, or opd OP acc
// when the instruction is reversed.
#define VM_LEFT (reversed ? opd[k] : acc[k])
#define VM_RIGHT (reversed ? acc[k] : opd[k])

// Runs program instructions [pc, end) over this work-item's IPT items of the
// tile starting at `start`; leaves the result in acc (and accn when `track`,
// which the host sets whenever a NULL can occur anywhere in the entry).
// Items start as live[k] (a row of the tablet that an enclosing filter
// passed); KEEP clears the ones a conjunct rejects, and a work-item with no
// live item left jumps to the KEEP's target (short-circuit AND). Returns the
// VM_STATUS_* bits raised by live, non-NULL items, so that a row a filter
// rejected never raises an error, whatever the device's geometry.
inline uint vm_run(__constant const uint2* code, uint pc, uint end, __constant const long* consts,
                   const vm_slots* slots, ulong start, uint item0, ulong n, uint track, long* acc,
                   uchar* accn, const uchar* live) {
  long stack[VM_MAX_STACK * VM_LANES];
  uchar stackn[VM_MAX_STACK * VM_LANES];
  uchar pass[VM_LANES];
  uint sp = 0;
  uint overflow = 0;
  VM_FOR_ITEMS {
    acc[k] = 0;
    accn[k] = 0;
    pass[k] = live[k];
  }
  for (; pc < end; ++pc) {
    const uint2 ins = code[pc];
    const uint op = ins.x & 0xffu;
    const uint kind = (ins.x >> 8) & 0xffu;
    const uint arg = ins.x >> 16;
    const bool reversed = (kind & VM_OPND_REVERSED) != 0;
    long opd[VM_LANES];
    uchar opn[VM_LANES];
    if (op != VM_STR_CMP)
      vm_fetch(kind, arg, ins.y, consts, slots, start, item0, n, track, opd, opn, stack, stackn, &sp);
    switch (op) {
      case VM_LOAD:
        VM_FOR_ITEMS acc[k] = opd[k];
        if (track) VM_FOR_ITEMS accn[k] = opn[k];
        break;
      case VM_PUSH: {
        const uint b = sp * VM_LANES;
        VM_FOR_ITEMS stack[b + k] = acc[k];
        if (track) VM_FOR_ITEMS stackn[b + k] = accn[k];
        sp += 1;
        break;
      }
      case VM_ADD_I:
        if (kind & VM_OPND_NARROW) {
          VM_FOR_ITEMS acc[k] = (long)((int)acc[k] + (int)opd[k]);
        } else if (kind & VM_OPND_NOCHECK) {
          VM_FOR_ITEMS acc[k] += opd[k];
        } else VM_FOR_ITEMS {
          const long a = acc[k], b = opd[k];
          const long r = as_long(as_ulong(a) + as_ulong(b));
          const uint nul = track ? (accn[k] | opn[k]) : 0;
          overflow |= (uint)(((a ^ r) & (b ^ r)) < 0) & (nul ^ 1u) & pass[k];
          acc[k] = r;
        }
        if (track) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_SUB_I:
        if (kind & VM_OPND_NARROW) {
          VM_FOR_ITEMS acc[k] = (long)((int)VM_LEFT - (int)VM_RIGHT);
        } else if (kind & VM_OPND_NOCHECK) {
          VM_FOR_ITEMS acc[k] = VM_LEFT - VM_RIGHT;
        } else VM_FOR_ITEMS {
          const long a = VM_LEFT, b = VM_RIGHT;
          const long r = as_long(as_ulong(a) - as_ulong(b));
          const uint nul = track ? (accn[k] | opn[k]) : 0;
          overflow |= (uint)(((a ^ b) & (a ^ r)) < 0) & (nul ^ 1u) & pass[k];
          acc[k] = r;
        }
        if (track) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_MUL_I:
        if (kind & VM_OPND_NARROW) {
          VM_FOR_ITEMS acc[k] = (long)((int)acc[k] * (int)opd[k]);
        } else if (kind & VM_OPND_NOCHECK) {
          VM_FOR_ITEMS acc[k] *= opd[k];
        } else VM_FOR_ITEMS {
          const long a = acc[k], b = opd[k];
          const long r = as_long(as_ulong(a) * as_ulong(b));
          const uint nul = track ? (accn[k] | opn[k]) : 0;
          overflow |= (uint)(mul_hi(a, b) != (r >> 63)) & (nul ^ 1u) & pass[k];
          acc[k] = r;
        }
        if (track) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_DIV_I:
        VM_FOR_ITEMS {
          const long a = VM_LEFT, b = VM_RIGHT;
          const uint nul = (track ? (accn[k] | opn[k]) : 0) | (b == 0);
          long r;
          if (b == 0) {
            r = 0;
          } else if (b == -1) {
            overflow |= (uint)(a == LONG_MIN) & (nul ^ 1u) & pass[k];
            r = as_long(0ul - as_ulong(a));
          } else if (a == (long)(int)a && b == (long)(int)b) {
            r = (long)((int)a / (int)b);  // 32-bit division is several times cheaper
          } else {
            r = a / b;
          }
          acc[k] = r;
          accn[k] = nul;
        }
        break;
      case VM_MOD_I:
        VM_FOR_ITEMS {
          const long a = VM_LEFT, b = VM_RIGHT;
          const uint nul = (track ? (accn[k] | opn[k]) : 0) | (b == 0);
          long r;
          if (b == 0 || b == -1) {
            r = 0;
          } else if (a == (long)(int)a && b == (long)(int)b) {
            r = (long)((int)a % (int)b);
          } else {
            r = a % b;
          }
          acc[k] = r;
          accn[k] = nul;
        }
        break;
      case VM_DIV_CONST_I:
      case VM_MOD_CONST_I: {
        const long magic = consts[ins.y];
        const long shift_mode = consts[ins.y + 1];
        const long d = consts[ins.y + 2];
        const uint shift = (uint)(shift_mode & 0xff);
        const uint mode = (uint)(shift_mode >> 8);
        if (kind & VM_OPND_NARROW) {
          const int divisor = (int)d;
          VM_FOR_ITEMS {
            const int x = (int)acc[k];
            const uint a = x < 0 ? 0u - (uint)x : (uint)x;
            const uint q = mul_hi(a, (uint)magic) >> shift;
            const int signed_q = ((x < 0) != (mode == 1)) ? -(int)q : (int)q;
            acc[k] = op == VM_DIV_CONST_I ? signed_q : x - signed_q * divisor;
          }
        } else if (op == VM_DIV_CONST_I) {
          VM_FOR_ITEMS acc[k] = vm_div_magic(acc[k], magic, shift, mode);
        } else {
          VM_FOR_ITEMS acc[k] = acc[k] - vm_div_magic(acc[k], magic, shift, mode) * d;
        }
        break;
      }
      case VM_ADD_R:
        VM_FOR_ITEMS acc[k] = as_long(as_double(acc[k]) + as_double(opd[k]));
        if (track) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_SUB_R:
        VM_FOR_ITEMS acc[k] = as_long(as_double(VM_LEFT) - as_double(VM_RIGHT));
        if (track) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_MUL_R:
        VM_FOR_ITEMS acc[k] = as_long(as_double(acc[k]) * as_double(opd[k]));
        if (track) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_DIV_R:
        VM_FOR_ITEMS {
          const double b = as_double(VM_RIGHT);
          const uint nul = (track ? (accn[k] | opn[k]) : 0) | (b == 0.0);
          acc[k] = as_long(b == 0.0 ? 0.0 : as_double(VM_LEFT) / b);
          accn[k] = nul;
        }
        break;
      case VM_MOD_R:
        // SQLite: both operands cast to INTEGER, integer remainder, REAL result.
        VM_FOR_ITEMS {
          const long a = convert_long_sat_rtz(as_double(VM_LEFT));
          const long b = convert_long_sat_rtz(as_double(VM_RIGHT));
          const uint nul = (track ? (accn[k] | opn[k]) : 0) | (b == 0);
          acc[k] = as_long((b == 0 || b == -1) ? 0.0 : (double)(a % b));
          accn[k] = nul;
        }
        break;
      case VM_NEG_I:
        if (kind & VM_OPND_NOCHECK) {
          VM_FOR_ITEMS acc[k] = -acc[k];
        } else VM_FOR_ITEMS {
          const uint nul = track ? accn[k] : 0;
          overflow |= (uint)(acc[k] == LONG_MIN) & (nul ^ 1u) & pass[k];
          acc[k] = as_long(0ul - as_ulong(acc[k]));
        }
        break;
      case VM_NEG_R:
        VM_FOR_ITEMS acc[k] = as_long(-as_double(acc[k]));
        break;
      case VM_I2R:
        VM_FOR_ITEMS acc[k] = as_long((double)acc[k]);
        break;
      case VM_R2I:
        VM_FOR_ITEMS acc[k] = convert_long_sat_rtz(as_double(acc[k]));
        break;
#define VM_COMPARE(OPCODE, TYPE_CAST, OPERATOR)                \
  case OPCODE:                                                 \
    VM_FOR_ITEMS acc[k] = TYPE_CAST(acc[k]) OPERATOR TYPE_CAST(opd[k]); \
    if (track) VM_FOR_ITEMS accn[k] |= opn[k];                 \
    break;
        VM_COMPARE(VM_EQ_I, , ==)
        VM_COMPARE(VM_NE_I, , !=)
        VM_COMPARE(VM_LT_I, , <)
        VM_COMPARE(VM_LE_I, , <=)
        VM_COMPARE(VM_GT_I, , >)
        VM_COMPARE(VM_GE_I, , >=)
        VM_COMPARE(VM_EQ_R, as_double, ==)
        VM_COMPARE(VM_NE_R, as_double, !=)
        VM_COMPARE(VM_LT_R, as_double, <)
        VM_COMPARE(VM_LE_R, as_double, <=)
        VM_COMPARE(VM_GT_R, as_double, >)
        VM_COMPARE(VM_GE_R, as_double, >=)
#undef VM_COMPARE
      case VM_TRUTH_I:
        VM_FOR_ITEMS acc[k] = acc[k] != 0;
        break;
      case VM_TRUTH_R:
        VM_FOR_ITEMS acc[k] = as_double(acc[k]) != 0.0;
        break;
      case VM_NOT:
        VM_FOR_ITEMS acc[k] = acc[k] == 0;
        break;
      case VM_AND:
        // Three-valued: false wins over NULL, NULL over true.
        VM_FOR_ITEMS {
          const uchar an = track ? accn[k] : 0, bn = track ? opn[k] : 0;
          const uchar a_false = !an && acc[k] == 0;
          const uchar b_false = !bn && opd[k] == 0;
          const uchar nul = !(a_false || b_false) && (an || bn);
          acc[k] = !(a_false || b_false) && !nul;
          if (track) accn[k] = nul;
        }
        break;
      case VM_OR:
        VM_FOR_ITEMS {
          const uchar an = track ? accn[k] : 0, bn = track ? opn[k] : 0;
          const uchar a_true = !an && acc[k] != 0;
          const uchar b_true = !bn && opd[k] != 0;
          const uchar nul = !(a_true || b_true) && (an || bn);
          acc[k] = a_true || b_true;
          if (track) accn[k] = nul;
        }
        break;
      case VM_IS_NULL:
        VM_FOR_ITEMS {
          acc[k] = track ? accn[k] != 0 : 0;
          accn[k] = 0;
        }
        break;
      case VM_IS_NOT_NULL:
        VM_FOR_ITEMS {
          acc[k] = track ? accn[k] == 0 : 1;
          accn[k] = 0;
        }
        break;
      case VM_IN_I:
      case VM_IN_R:
        VM_FOR_ITEMS {
          uchar found = 0;
          for (uint j = 0; j < arg; ++j) {
            const long c = consts[ins.y + j];
            found |= op == VM_IN_I ? acc[k] == c : as_double(acc[k]) == as_double(c);
          }
          if (track) accn[k] = accn[k] || (!found && (kind & VM_OPND_BASE_MASK) != 0);
          acc[k] = found;
        }
        break;
      case VM_STR_CMP: {
        const long descriptor = consts[ins.y];
        const uint length = (uint)(descriptor & 0xffffffffl);
        const uint cmp = (uint)(descriptor >> 32);
        __constant const uchar* literal = (__constant const uchar*)(consts + ins.y + 1);
        __global const uchar* column = vm_slot_values(slots, kind);
        VM_FOR_ITEMS {
          const ulong i = VM_ROW(k);
          int c = 0;
          if (i < n) c = vm_compare_text(column + i * (ulong)arg, arg, literal, length);
          acc[k] = vm_compare_result(c, cmp);
        }
        if (track) VM_FOR_ITEMS accn[k] = 0;
        break;
      }
      case VM_KEEP: {
        uchar any = 0;
        if (track) {
          VM_FOR_ITEMS pass[k] &= !accn[k] && acc[k] != 0;
        } else {
          VM_FOR_ITEMS pass[k] &= acc[k] != 0;
        }
        VM_FOR_ITEMS any |= pass[k];
        if (!any && ins.y > pc) pc = ins.y - 1;
        break;
      }
      case VM_TAKE_PASS:
        VM_FOR_ITEMS {
          acc[k] = pass[k];
          accn[k] = 0;
        }
        break;
      default:
        break;
    }
  }
  return overflow ? VM_STATUS_OVERFLOW : 0u;
}

// Runs program [pc, end) over all IPT items of this work-item, VM_LANES at a
// time, into acc[IPT] / accn[IPT], with live[IPT] as vm_run's live items;
// ORs the status bits into `raised`.
#define VM_RUN_ALL(pc, end, track, live, raised)                                        \
  for (uint j = 0; j < IPT; j += VM_LANES) {                                            \
    long lane_acc[VM_LANES];                                                            \
    uchar lane_null[VM_LANES];                                                          \
    raised |= vm_run(code, pc, end, consts, &slots, start, j, n, track, lane_acc, lane_null, \
                     (live) + j);                                                       \
    for (uint k = 0; k < VM_LANES; ++k) {                                               \
      acc[j + k] = lane_acc[k];                                                         \
      accn[j + k] = lane_null[k];                                                       \
    }                                                                                   \
  }

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
inline void vm_project_body(VM_PROJECT_PARAMS) {
  VM_SLOTS_INIT(slots);
  __global uchar* out = out_values + out_base * (out_kind == 0 ? 8 : 4);
  __global uchar* out_nulls = out_null_map + (write_nulls ? out_base : 0);
  const ulong start = tile_start();
  long acc[IPT];
  uchar accn[IPT];
  uchar live[IPT];
  VM_FOR_TILE_ITEMS live[k] = tile_item(start, k) < n;
  uint raised = 0;
  VM_RUN_ALL(begin, end, track, live, raised);
  if (out_kind == 0) {
    __global long* o = (__global long*)out;
    VM_FOR_TILE_ITEMS {
      const ulong i = tile_item(start, k);
      if (i < n) o[i] = acc[k];
    }
  } else {
    __global int* o = (__global int*)out;
    VM_FOR_TILE_ITEMS {
      const ulong i = tile_item(start, k);
      if (i < n) o[i] = (int)acc[k];
    }
  }
  if (write_nulls) {
    VM_FOR_TILE_ITEMS {
      const ulong i = tile_item(start, k);
      if (i < n) out_nulls[i] = track ? accn[k] : 0;
    }
  }
  vm_raise(status, raised);
}
KERNEL void vm_project(VM_PROJECT_PARAMS) {
  vm_project_body(VM_PROJECT_ARGS, track, out_base, status);
}
KERNEL void vm_project_untracked(VM_PROJECT_PARAMS) {
  vm_project_body(VM_PROJECT_ARGS, 0, out_base, status);
}

// Evaluates a predicate; writes one bit per row (bit i % 32 of word i / 32,
// 1 = the predicate is true) and the number of true rows per tile. TILE is a
// multiple of 32, so a tile owns whole words.
#define VM_FILTER_PARAMS                                                                    \
  __constant const uint2 *code, __constant const long *consts, uint begin, uint end,          \
      uint track, VM_SLOT_PARAMS, ulong n, __global uint *bits, __global uint *tile_counts,     \
      __global uint *status
#define VM_FILTER_ARGS(TRACK)                                                                  \
  code, consts, begin, end, TRACK, s0, s1, s2, s3, s4, s5, s6, s7, z0, z1, z2, z3, z4, z5, z6, \
      z7, n, bits, tile_counts, status, flags, word_counts
inline void vm_filter_body(VM_FILTER_PARAMS, __local uchar* flags, __local uint* word_counts) {
  VM_SLOTS_INIT(slots);
  const ulong start = tile_start();
  long acc[IPT];
  uchar accn[IPT];
  uchar live[IPT];
  VM_FOR_TILE_ITEMS live[k] = tile_item(start, k) < n;
  uint raised = 0;
  VM_RUN_ALL(begin, end, track, live, raised);
  VM_FOR_TILE_ITEMS {
    const ulong i = tile_item(start, k);
    const uint p = (uint)(i - start);
    flags[p + (p / 32) * 4] = (i < n) && !(track && accn[k]) && acc[k] != 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint lid = get_local_id(0);
  for (uint w = lid; w < TILE / 32; w += WG_SIZE) {
    __local const uchar* f = flags + w * 36;
    uint word = 0;
    for (uint b = 0; b < 32; ++b) word |= (uint)f[b] << b;
    const ulong word_index = start / 32 + w;
    if (word_index * 32 < n) bits[word_index] = word;
    word_counts[w] = popcount(word);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    uint count = 0;
    for (uint w = 0; w < TILE / 32; ++w) count += word_counts[w];
    tile_counts[get_group_id(0)] = count;
  }
  vm_raise(status, raised);
}
// One byte per item, with 4 bytes of padding after every 32 so that the
// work-items assembling words read different banks.
#define VM_FILTER_LOCALS            \
  __local uchar flags[TILE + TILE / 8]; \
  __local uint word_counts[TILE / 32]
KERNEL void vm_filter(VM_FILTER_PARAMS) {
  VM_FILTER_LOCALS;
  vm_filter_body(VM_FILTER_ARGS(track));
}
KERNEL void vm_filter_untracked(VM_FILTER_PARAMS) {
  VM_FILTER_LOCALS;
  vm_filter_body(VM_FILTER_ARGS(0));
}

// Aggregate descriptors: (operation VM_AGG_*, first instruction, end, whether
// the argument can be NULL). A
// COUNT(*) has an empty program. Rows count when the predicate [pred_begin,
// pred_end) is true (an empty predicate is true) and the aggregate's value is
// not NULL. partials[((group_base + group) * count + a) * 2] is the value,
// [.. + 1] the number of rows that contributed.
inline long vm_agg_identity(uint op) {
  switch (op) {
    case VM_AGG_MIN_I:
      return LONG_MAX;
    case VM_AGG_MAX_I:
      return LONG_MIN;
    case VM_AGG_MIN_R:
      return as_long((double)INFINITY);
    case VM_AGG_MAX_R:
      return as_long(-(double)INFINITY);
    case VM_AGG_SUM_R:
      return as_long(0.0);
    default:
      return 0;
  }
}

inline long vm_agg_combine(uint op, long a, long b, uint* status) {
  switch (op) {
    case VM_AGG_SUM_I: {
      const long r = as_long(as_ulong(a) + as_ulong(b));
      if (((a ^ r) & (b ^ r)) < 0) *status |= VM_STATUS_OVERFLOW;
      return r;
    }
    case VM_AGG_SUM_R:
      return as_long(as_double(a) + as_double(b));
    case VM_AGG_MIN_I:
      return min(a, b);
    case VM_AGG_MAX_I:
      return max(a, b);
    case VM_AGG_MIN_R:
      return as_long(fmin(as_double(a), as_double(b)));
    case VM_AGG_MAX_R:
      return as_long(fmax(as_double(a), as_double(b)));
    default:
      return a + b;  // COUNT
  }
}

// Folds this work-item's counted items into value / count. The switch is
// outside the loops so that each loop is one operation on registers.
#define VM_AGG_FOLD_LOOP(COMBINE)                 \
  VM_FOR_TILE_ITEMS {                             \
    if (counted[k]) {                             \
      v = COMBINE;                                \
      c += 1;                                     \
    }                                             \
  }
inline void vm_agg_fold(uint op, const long* acc, const uchar* counted, long* value, ulong* count,
                        uint* status) {
  long v = *value;
  ulong c = *count;
  switch (op) {
    case VM_AGG_COUNT:
      VM_AGG_FOLD_LOOP(v)
      break;
    case VM_AGG_SUM_I: {
      uint overflow = 0;
      VM_FOR_TILE_ITEMS {
        if (counted[k]) {
          const long r = as_long(as_ulong(v) + as_ulong(acc[k]));
          overflow |= (uint)(((v ^ r) & (acc[k] ^ r)) < 0);
          v = r;
          c += 1;
        }
      }
      if (overflow) *status |= VM_STATUS_OVERFLOW;
      break;
    }
    case VM_AGG_SUM_R:
      VM_AGG_FOLD_LOOP(as_long(as_double(v) + as_double(acc[k])))
      break;
    case VM_AGG_MIN_I:
      VM_AGG_FOLD_LOOP(min(v, acc[k]))
      break;
    case VM_AGG_MAX_I:
      VM_AGG_FOLD_LOOP(max(v, acc[k]))
      break;
    case VM_AGG_MIN_R:
      VM_AGG_FOLD_LOOP(as_long(fmin(as_double(v), as_double(acc[k]))))
      break;
    default:  // VM_AGG_MAX_R
      VM_AGG_FOLD_LOOP(as_long(fmax(as_double(v), as_double(acc[k]))))
      break;
  }
  *value = v;
  *count = c;
}
#undef VM_AGG_FOLD_LOOP

// Combines value/count pairs over the work-group; the result is in
// values[0] / counts[0] after the call (all work-items must call it).
inline void vm_agg_group_reduce(uint op, long value, ulong count, __local long* values,
                                __local ulong* counts, uint* status) {
  const uint lid = get_local_id(0);
  values[lid] = value;
  counts[lid] = count;
  barrier(CLK_LOCAL_MEM_FENCE);
#if DEVICE_IS_CPU
  if (lid == 0) {
    long v = values[0];
    ulong c = counts[0];
    for (uint i = 1; i < WG_SIZE; ++i) {
      v = vm_agg_combine(op, v, values[i], status);
      c += counts[i];
    }
    values[0] = v;
    counts[0] = c;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
#else
  for (uint offset = WG_SIZE / 2; offset > 0; offset >>= 1) {
    if (lid < offset) {
      values[lid] = vm_agg_combine(op, values[lid], values[lid + offset], status);
      counts[lid] += counts[lid + offset];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
#endif
}

#define VM_AGGREGATE_PARAMS                                                                 \
  __constant const uint2 *code, __constant const long *consts, uint pred_begin,               \
      uint pred_end, uint pred_track, __constant const uint4 *aggregates,                     \
      uint aggregate_count, VM_SLOT_PARAMS, ulong n, __global long *partials,                  \
      ulong group_base, __global uint *status
#define VM_AGGREGATE_ARGS(TRACK)                                                               \
  code, consts, pred_begin, pred_end, (TRACK) ? pred_track : 0, aggregates, aggregate_count,    \
      s0, s1, s2, s3, s4, s5, s6, s7, z0, z1, z2, z3, z4, z5, z6, z7, n, partials, group_base,  \
      status, values, counts, TRACK
inline void vm_aggregate_body(VM_AGGREGATE_PARAMS, __local long* values, __local ulong* counts,
                              uint allow_track) {
  VM_SLOTS_INIT(slots);
  const ulong start = tile_start();
  uint raised = 0;
  long acc[IPT];
  uchar accn[IPT];
  uchar pass[IPT];
  VM_FOR_TILE_ITEMS pass[k] = tile_item(start, k) < n;
  if (pred_begin < pred_end) {
    VM_RUN_ALL(pred_begin, pred_end, pred_track, pass, raised);
    VM_FOR_TILE_ITEMS pass[k] = pass[k] && !(pred_track && accn[k]) && acc[k] != 0;
  }
  uchar any_pass = 0;
  VM_FOR_TILE_ITEMS any_pass |= pass[k];
  for (uint a = 0; a < aggregate_count; ++a) {
    const uint4 agg = aggregates[a];
    long value = vm_agg_identity(agg.x);
    ulong count = 0;
    // A work-item none of whose rows passed the filter skips the argument's
    // loads and arithmetic altogether.
    if (any_pass) {
      const uint track = allow_track ? agg.w : 0;
      if (agg.y < agg.z) {
        VM_RUN_ALL(agg.y, agg.z, track, pass, raised);
        if (!track) VM_FOR_TILE_ITEMS accn[k] = 0;
      } else {
        VM_FOR_TILE_ITEMS accn[k] = 0;
      }
      uchar counted[IPT];  // NULL arguments do not count
      VM_FOR_TILE_ITEMS counted[k] = pass[k] && !accn[k];
      vm_agg_fold(agg.x, acc, counted, &value, &count, &raised);
    }
    vm_agg_group_reduce(agg.x, value, count, values, counts, &raised);
    if (get_local_id(0) == 0) {
      const ulong slot = ((group_base + get_group_id(0)) * aggregate_count + a) * 2;
      partials[slot] = values[0];
      partials[slot + 1] = (long)counts[0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  vm_raise(status, raised);
}
#define VM_AGGREGATE_LOCALS      \
  __local long values[WG_SIZE]; \
  __local ulong counts[WG_SIZE]
KERNEL void vm_aggregate(VM_AGGREGATE_PARAMS) {
  VM_AGGREGATE_LOCALS;
  vm_aggregate_body(VM_AGGREGATE_ARGS(1));
}
KERNEL void vm_aggregate_untracked(VM_AGGREGATE_PARAMS) {
  VM_AGGREGATE_LOCALS;
  vm_aggregate_body(VM_AGGREGATE_ARGS(0));
}

// vm_aggregate for the commonest shape, chosen by the host: no WHERE, and
// every argument a bare column without NULLs or COUNT(*) (SUM(unique1),
// AVG, MIN, MAX of columns): the same partials, with typed loads in place of
// the interpreter (its register use is not yet measured with ptxas). Each
// argument program is one LOAD of a column slot.
#define VM_DIRECT_LOAD(TYPE, CONVERT)                                   \
  {                                                                     \
    __global const TYPE* v = (__global const TYPE*)p;                   \
    if (full) {                                                         \
      VM_FOR_TILE_ITEMS acc[k] = CONVERT(v[tile_item(start, k)]);       \
    } else {                                                            \
      VM_FOR_TILE_ITEMS {                                               \
        const ulong i = tile_item(start, k);                            \
        acc[k] = i < n ? CONVERT(v[i]) : 0;                             \
      }                                                                 \
    }                                                                   \
  }
KERNEL void vm_aggregate_columns(VM_AGGREGATE_PARAMS) {
  VM_AGGREGATE_LOCALS;
  VM_SLOTS_INIT(slots);
  const ulong start = tile_start();
  const bool full = start + TILE <= n;
  uint raised = 0;
  uchar counted[IPT];
  VM_FOR_TILE_ITEMS counted[k] = tile_item(start, k) < n;
  for (uint a = 0; a < aggregate_count; ++a) {
    const uint4 agg = aggregates[a];
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
    long value = vm_agg_identity(agg.x);
    ulong count = 0;
    vm_agg_fold(agg.x, acc, counted, &value, &count, &raised);
    vm_agg_group_reduce(agg.x, value, count, values, counts, &raised);
    if (get_local_id(0) == 0) {
      const ulong slot = ((group_base + get_group_id(0)) * aggregate_count + a) * 2;
      partials[slot] = values[0];
      partials[slot + 1] = (long)counts[0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  vm_raise(status, raised);
}
#undef VM_DIRECT_LOAD

// Merges `group_count` partial results (layout of vm_aggregate) into
// ceil(group_count / TILE) partial results.
KERNEL void vm_aggregate_merge(__global const long* partials, ulong group_count,
                               __constant const uint4* aggregates, uint aggregate_count,
                               __global long* merged, __global uint* status) {
  __local long values[WG_SIZE];
  __local ulong counts[WG_SIZE];
  const ulong start = tile_start();
  uint raised = 0;
  for (uint a = 0; a < aggregate_count; ++a) {
    const uint op = aggregates[a].x;
    long value = vm_agg_identity(op);
    ulong count = 0;
    VM_FOR_TILE_ITEMS {
      const ulong g = tile_item(start, k);
      if (g < group_count) {
        const ulong slot = (g * aggregate_count + a) * 2;
        if (partials[slot + 1] != 0) value = vm_agg_combine(op, value, partials[slot], &raised);
        count += (ulong)partials[slot + 1];
      }
    }
    vm_agg_group_reduce(op, value, count, values, counts, &raised);
    if (get_local_id(0) == 0) {
      const ulong slot = ((ulong)get_group_id(0) * aggregate_count + a) * 2;
      merged[slot] = values[0];
      merged[slot + 1] = (long)counts[0];
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  vm_raise(status, raised);
}
