// The expression machine's interpreter and the kernels that run it
// (projection, filter, aggregation). The program is built from this file
// four times (scripts/embed_kernels.cmake, the `clq:instantiate` line below):
//
// VM_NARROW=0: values are 64-bit (INTEGER as int64, REAL as the bits of a
//   double), with overflow checks where the host could not rule overflow out.
// VM_NARROW=1: values are 32-bit ints; kernel names end in _narrow. The host
//   picks it only for programs whose every value provably fits int32
//   (ExpressionProgram::IsNarrow: INT32 columns, int32 constants, integer
//   operations each flagged VM_OPND_NARROW by the range analysis), so no
//   check is needed and results equal the 64-bit machine's. Half the
//   registers per value on GPUs (more work-groups per SM), twice the lanes
//   per vector register on CPUs.
// VM_LEAN=1: without the rare operations, those whose loops are
//   VM_RARE_ITEMS below (overflow-checked arithmetic, division and modulo by
//   a column, REAL modulo, IN lists, text comparisons, NaN to NULL,
//   EXTRACT); names
//   end in _lean.
//   The host picks it for programs without them
//   (ExpressionProgram::UsesRareOperations). On GPUs the smaller kernel
//   was the REAL MAX's largest gain; a rare operation reaching it raises
//   VM_STATUS_UNSUPPORTED instead of a wrong answer.
//
// clq:instantiate VM_NARROW=0,VM_LEAN=0 VM_NARROW=1,VM_LEAN=0 VM_NARROW=0,VM_LEAN=1 VM_NARROW=1,VM_LEAN=1
#if VM_NARROW
#define VM_VALUE int
#else
#define VM_VALUE long
#endif
#if VM_NARROW && VM_LEAN
#define VM_NAME(name) name##_narrow_lean
#elif VM_NARROW
#define VM_NAME(name) name##_narrow
#elif VM_LEAN
#define VM_NAME(name) name##_lean
#else
#define VM_NAME(name) name
#endif
#if VM_LEAN
#define VM_RARE_ITEMS if ((unsupported = 1u) == 0u) VM_FOR_ITEMS_COLD
#else
#define VM_RARE_ITEMS VM_FOR_ITEMS_COLD
#endif
// REAL operations exist on the 64-bit machine of devices with fp64. Devices
// without it are given no REAL program (the planner refuses REAL there), and
// a REAL instruction that reaches them anyway raises VM_STATUS_UNSUPPORTED
// (vm_is_real in vm.cl) instead of computing anything.
#define VM_REAL (!VM_NARROW && HAS_FP64)

// Loads the operand of one instruction into opd (and opn when tracking NULLs).
// Columns are tested first: they are the commonest operands, and NVIDIA
// compiles these tests as a chain of compare-and-branch (the REAL MAX ran
// faster than with the constant, NULL and stack kinds first).
inline void VM_NAME(vm_fetch)(uint kind, uint arg, uint word1, __constant const long* consts,
                              const vm_slots* slots, ulong start, uint rows, uint track,
                              VM_VALUE* opd, uchar* opn, const VM_VALUE* stack,
                              const uchar* stackn, uint* sp) {
  const uint base = kind & VM_OPND_BASE_MASK;
  if (base < VM_OPND_COL_I32) {
    if (base == VM_OPND_NONE) return;
    if (base == VM_OPND_CONST) {
      const VM_VALUE c = (VM_VALUE)consts[word1];
      VM_FOR_ITEMS opd[k] = c;
      if (track) VM_FOR_ITEMS opn[k] = 0;
      return;
    }
    if (base == VM_OPND_NULL) {
      VM_FOR_ITEMS opd[k] = 0;
      if (track) VM_FOR_ITEMS opn[k] = 1;
      return;
    }
    // VM_OPND_POP
    *sp -= 1;
    const uint b = *sp * IPT;
    VM_FOR_ITEMS opd[k] = stack[b + k];
    if (track) VM_FOR_ITEMS opn[k] = stackn[b + k];
    return;
  }
  __global const uchar* p = vm_slot_values(slots, arg);
#if VM_NARROW
  VM_LOAD_COLUMN(int, )  // VM_OPND_COL_I32: the only column kind of a narrow program
#else
  if (base == VM_OPND_COL_I32) {
    VM_LOAD_COLUMN(int, VM_AS_LONG)
  } else if (base == VM_OPND_COL_I64 || base == VM_OPND_COL_F64) {
    VM_LOAD_COLUMN(long, VM_AS_LONG)
  } else if (base == VM_OPND_COL_I32_R) {
    VM_LOAD_COLUMN(int, VM_AS_REAL_BITS)
  } else {  // VM_OPND_COL_I64_R
    VM_LOAD_COLUMN(long, VM_AS_REAL_BITS)
  }
#endif
  if (!track) return;
  if (kind & VM_OPND_NULLABLE) {
    __global const uchar* z = vm_slot_nulls(slots, arg);
    VM_FOR_ITEMS opn[k] = VM_IN_TILE(k) ? z[VM_ROW(k)] : 0;
  } else {
    VM_FOR_ITEMS opn[k] = 0;
  }
}

// 32-bit a OP b, wrapping: the range proof covers the values of real rows,
// but rows past the end of a tablet read 0 and NULL rows hold any value, and
// their (discarded) results must not be undefined behaviour.
#define VM_WRAP32(OP, a, b) ((VM_VALUE)as_int(as_uint((int)(a)) OP as_uint((int)(b))))

// The operands of a non-commutative operation: acc OP opd, or opd OP acc
// when the instruction is reversed.
#define VM_LEFT (reversed ? opd[k] : acc[k])
#define VM_RIGHT (reversed ? acc[k] : opd[k])

// After a KEEP: when no item passes, the TAKE_PASS at the KEEP's target
// (word1) would load all-zero flags; they are loaded here and its decode
// skipped (in a selective filter almost every work-item stops at the first
// conjunct).
#define VM_KEEP_SKIP                     \
  if (!any && ins.y > pc) {              \
    VM_FOR_ITEMS acc[k] = 0;             \
    if (track) VM_FOR_ITEMS accn[k] = 0; \
    pc = ins.y;                          \
  }

// CPUs: the column loads of an interpreter pass miss the caches with no
// other work to overlap them (the hand-written kernel's single loop overlaps
// them with its arithmetic), so before running a program a work-item asks
// for the next IPT rows (the next work-item's, run next by the same thread)
// of the columns the program reads before its first KEEP (later columns are
// read only by work-items a conjunct left alive). Projections and
// aggregates ran markedly faster with it. (NVIDIA's prefetch() compiles to
// nothing: no prefetch in its PTX.)
#if DEVICE_IS_CPU && HOST_PREFETCH
inline void VM_NAME(vm_prefetch_next)(__constant const uint2* code, uint pc, uint end,
                                      const vm_slots* slots, ulong start) {
  const ulong next_row = tile_item(start, 0) + IPT;
  for (; pc < end; ++pc) {
    const uint2 ins = code[pc];
    const uint op = ins.x & 0xffu;
    const uint kind = (ins.x >> 8) & 0xffu;
    const uint base = kind & VM_OPND_BASE_MASK;
    if (op == VM_KEEP || op == VM_STR_CMP || op == VM_STR_LIKE || op == VM_CASE_BEGIN) break;
    if (base < VM_OPND_COL_I32) continue;
    const uint slot = op == VM_KEEP_CMP ? (ins.x >> 16) & 7u : ins.x >> 16;
    const uint width = (base == VM_OPND_COL_I32 || base == VM_OPND_COL_I32_R) ? 4u : 8u;
    __global const uchar* p = vm_slot_values(slots, slot) + next_row * width;
    for (uint b = 0; b < IPT * width; b += 64) CLQ_PREFETCH(p + b);
    if (op == VM_KEEP_CMP) break;
  }
}
#define VM_PREFETCH_NEXT(pc, end) VM_NAME(vm_prefetch_next)(code, pc, end, slots, start)
#else
#define VM_PREFETCH_NEXT(pc, end)
#endif

// CPUs: whether the instruction's constant operand stays a scalar instead of
// being copied to every item's operand (that copy is a pass over all items,
// a visible share of the REAL MAX's profile). Only for the operations
// whose loops below read `b` (VM_WITH_OPERAND), on their unchecked paths.
#if DEVICE_IS_CPU
inline bool VM_NAME(vm_scalar_operand)(uint op, uint kind, uint track) {
  if ((kind & VM_OPND_BASE_MASK) != VM_OPND_CONST) return false;
  switch (op) {
    case VM_ADD_I:
    case VM_SUB_I:
    case VM_MUL_I:
      return VM_NARROW || (kind & (VM_OPND_NARROW | VM_OPND_NOCHECK)) != 0;
    case VM_ADD_R:
    case VM_SUB_R:
    case VM_MUL_R:
      return !VM_NARROW;
    case VM_DIV_R:
      return !VM_NARROW && !track;
    case VM_EQ_I:
    case VM_NE_I:
    case VM_LT_I:
    case VM_LE_I:
    case VM_GT_I:
    case VM_GE_I:
      return true;
    case VM_EQ_R:
    case VM_NE_R:
    case VM_LT_R:
    case VM_LE_R:
    case VM_GT_R:
    case VM_GE_R:
      return !VM_NARROW;
    default:
      return false;
  }
}
#define VM_SCALAR_OPERAND(op, kind, track) VM_NAME(vm_scalar_operand)(op, kind, track)
#else
#define VM_SCALAR_OPERAND(op, kind, track) false
#endif
// CPUs: whether the instruction reads its INT32 column operand inside its
// own loop (on full tiles, for columns without NULLs) instead of after a
// fetch pass that stores the converted values for it to read back: the
// narrow integer ADD, SUB and MUL, and REAL ADD, SUB, MUL and DIV of an INT32
// column read as REAL (the loops below that use VM_WITH_OPERAND_OR_COLUMN).
#if DEVICE_IS_CPU
inline bool VM_NAME(vm_direct_operand)(uint op, uint kind, uint track, uint rows) {
  if (rows != TILE || (kind & VM_OPND_NULLABLE) != 0) return false;
  const uint base = kind & VM_OPND_BASE_MASK;
  switch (op) {
    case VM_ADD_I:
    case VM_SUB_I:
    case VM_MUL_I:
      return base == VM_OPND_COL_I32 && (VM_NARROW || (kind & VM_OPND_NARROW) != 0);
    case VM_ADD_R:
    case VM_SUB_R:
    case VM_MUL_R:
      return !VM_NARROW && base == VM_OPND_COL_I32_R;
    case VM_DIV_R:
      return !VM_NARROW && !track && base == VM_OPND_COL_I32_R;
    default:
      return false;
  }
}
#define VM_DIRECT_OPERAND(op, kind, track, rows) \
  VM_NAME(vm_direct_operand)(op, kind, track, rows)
#else
#define VM_DIRECT_OPERAND(op, kind, track, rows) false
#endif
// STATEMENT for every item, with its operand as `b`: the scalar constant or
// the item's fetched operand.
#define VM_WITH_OPERAND(STATEMENT)                       \
  if (scalar) {                                          \
    VM_FOR_ITEMS {                                       \
      const VM_VALUE b = scalar_value;                   \
      STATEMENT;                                         \
    }                                                    \
  } else {                                               \
    VM_FOR_ITEMS {                                       \
      const VM_VALUE b = opd[k];                         \
      STATEMENT;                                         \
    }                                                    \
  }
#define VM_AS_VALUE(x) ((VM_VALUE)(x))
// VM_WITH_OPERAND, or with `b` read from the INT32 column and converted
// by CONVERT when the operand is direct.
#define VM_WITH_OPERAND_OR_COLUMN(STATEMENT, CONVERT)     \
  if (direct) {                                           \
    VM_FOR_ITEMS {                                        \
      const VM_VALUE b = CONVERT(direct_column[VM_ROW(k)]); \
      STATEMENT;                                          \
    }                                                     \
  } else                                                  \
    VM_WITH_OPERAND(STATEMENT)
// The operands of a non-commutative operation given its operand `b`.
#define VM_LEFT_B (reversed ? b : acc[k])
#define VM_RIGHT_B (reversed ? acc[k] : b)

// Runs program instructions [pc, end) over this work-item's IPT items of the
// tile starting at `start`; leaves the result in acc (and accn when `track`,
// which the host sets whenever a NULL can occur anywhere in the entry).
// Items start as live[k] (a row of the tablet that an enclosing filter
// passed); KEEP clears the ones a conjunct rejects, and a work-item with no
// live item left jumps to the KEEP's target (short-circuit AND). Returns the
// VM_STATUS_* bits raised by live, non-NULL items, so that a row a filter
// rejected never raises an error, whatever the device's geometry.
inline uint VM_NAME(vm_run)(__constant const uint2* code, uint pc, uint end,
                            __constant const long* consts, const vm_slots* slots, ulong start,
                            ulong n, uint track, VM_VALUE* acc, uchar* accn,
                            const uchar* live, const uint ranges_first) {
  VM_VALUE stack[VM_MAX_STACK * IPT];
  uchar stackn[VM_MAX_STACK * IPT];
  uchar pass[IPT];
  uint sp = 0;
  uint overflow = 0;
  uint unsupported = 0;  // raised only by the lean machine (VM_RARE_ITEMS)
  const uint rows = tile_rows(start, n);
  // The first instruction sets acc and accn (ExpressionProgram::
  // CheckEntryStart); clearing them was a pass over every item on CPUs.
  VM_FOR_ITEMS pass[k] = live[k];
  if (pc == end) {
    VM_FOR_ITEMS acc[k] = 0;
    if (track) VM_FOR_ITEMS accn[k] = 0;  // untracked, no one reads accn
  }
  VM_PREFETCH_NEXT(pc, end);
  for (; pc < end; ++pc) {
    const uint2 ins = code[pc];
    const uint op = ins.x & 0xffu;
    const uint kind = (ins.x >> 8) & 0xffu;
    const uint arg = ins.x >> 16;
    // The filter kernel decodes the commonest first conjunct, a range test of
    // an INT32 column without NULLs, before the generic dispatch, in one loop
    // (the filter ran faster; compiled into the other kernels it slowed the
    // REAL MAX, so `ranges_first` is a constant per kernel).
    if (ranges_first && op == VM_KEEP_CMP && ((arg >> 3) & 7u) == VM_KEEP_CMP_RANGE &&
        kind == VM_OPND_COL_I32 && rows == TILE) {
      __global const int* v = (__global const int*)vm_slot_values(slots, arg & 7u);
      const VM_VALUE lo = (VM_VALUE)consts[arg >> 6];
      const VM_VALUE hi = (VM_VALUE)consts[(arg >> 6) + 1];
      uchar any = 0;
      VM_FOR_ITEMS {
        const VM_VALUE x = (VM_VALUE)v[VM_ROW(k)];
        const uchar in_range = (x >= lo) & (x <= hi);
        acc[k] = in_range;
        pass[k] &= in_range;
        any |= pass[k];
      }
      if (track) VM_FOR_ITEMS accn[k] = 0;
      VM_KEEP_SKIP
      continue;
    }
#if !VM_NARROW && !HAS_FP64
    if (vm_is_real(op, kind)) unsupported = 1u;
#endif
    const bool reversed = (kind & VM_OPND_REVERSED) != 0;
    VM_VALUE opd[IPT];
    uchar opn[IPT];
    const bool scalar = VM_SCALAR_OPERAND(op, kind, track);
    const VM_VALUE scalar_value = scalar ? (VM_VALUE)consts[ins.y] : 0;
    const bool direct = VM_DIRECT_OPERAND(op, kind, track, rows);
    __global const int* direct_column =
        direct ? (__global const int*)vm_slot_values(slots, arg) : 0;
    const bool fetched = !scalar && !direct;
    // LOAD fetches straight into the accumulator (a copy is a pass over
    // every item on CPUs).
    if (op == VM_LOAD)
      VM_NAME(vm_fetch)(kind, arg, ins.y, consts, slots, start, rows, track, acc, accn, stack,
                        stackn, &sp);
    else if (op != VM_STR_CMP && op != VM_STR_LIKE && op != VM_KEEP_CMP && fetched)
      VM_NAME(vm_fetch)(kind, arg, ins.y, consts, slots, start, rows, track, opd, opn, stack,
                        stackn, &sp);
    switch (op) {
      case VM_LOAD:
        break;
      case VM_PUSH: {
        const uint b = sp * IPT;
        VM_FOR_ITEMS stack[b + k] = acc[k];
        if (track) VM_FOR_ITEMS stackn[b + k] = accn[k];
        sp += 1;
        break;
      }
      case VM_ADD_I:
        if (VM_NARROW || (kind & VM_OPND_NARROW)) {
          VM_WITH_OPERAND_OR_COLUMN(acc[k] = VM_WRAP32(+, acc[k], b), VM_AS_VALUE)
        } else if (kind & VM_OPND_NOCHECK) {
          VM_WITH_OPERAND(acc[k] += b)
        } else VM_RARE_ITEMS {
          const long a = acc[k], b = opd[k];
          const long r = as_long(as_ulong(a) + as_ulong(b));
          const uint nul = track ? (accn[k] | opn[k]) : 0;
          overflow |= (uint)(((a ^ r) & (b ^ r)) < 0) & (nul ^ 1u) & pass[k];
          acc[k] = r;
        }
        if (track && fetched) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_SUB_I:
        if (VM_NARROW || (kind & VM_OPND_NARROW)) {
          VM_WITH_OPERAND_OR_COLUMN(acc[k] = VM_WRAP32(-, VM_LEFT_B, VM_RIGHT_B), VM_AS_VALUE)
        } else if (kind & VM_OPND_NOCHECK) {
          VM_WITH_OPERAND(acc[k] = VM_LEFT_B - VM_RIGHT_B)
        } else VM_RARE_ITEMS {
          const long a = VM_LEFT, b = VM_RIGHT;
          const long r = as_long(as_ulong(a) - as_ulong(b));
          const uint nul = track ? (accn[k] | opn[k]) : 0;
          overflow |= (uint)(((a ^ b) & (a ^ r)) < 0) & (nul ^ 1u) & pass[k];
          acc[k] = r;
        }
        if (track && fetched) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_MUL_I:
        if (VM_NARROW || (kind & VM_OPND_NARROW)) {
          VM_WITH_OPERAND_OR_COLUMN(acc[k] = VM_WRAP32(*, acc[k], b), VM_AS_VALUE)
        } else if (kind & VM_OPND_NOCHECK) {
          VM_WITH_OPERAND(acc[k] *= b)
        } else VM_RARE_ITEMS {
          const long a = acc[k], b = opd[k];
          const long r = as_long(as_ulong(a) * as_ulong(b));
          const uint nul = track ? (accn[k] | opn[k]) : 0;
          overflow |= (uint)(mul_hi(a, b) != (r >> 63)) & (nul ^ 1u) & pass[k];
          acc[k] = r;
        }
        if (track && fetched) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
#if VM_NARROW
      case VM_DIV_I:
      case VM_MOD_I:
        // The host proved the quotient fits int32, so a is not INT_MIN where
        // b is -1; the divisor is made 1 where it is 0 or -1 so that no item
        // traps and the division stays branch-free (vectorisable on CPUs).
        VM_RARE_ITEMS {
          const int a = VM_LEFT, b = VM_RIGHT;
          const int safe_b = (b == 0 || b == -1) ? 1 : b;
          int r = op == VM_DIV_I ? a / safe_b : a % safe_b;
          if (b == -1) r = op == VM_DIV_I ? as_int(0u - as_uint(a)) : 0;
          accn[k] = (track ? (accn[k] | opn[k]) : 0) | (b == 0);
          acc[k] = b == 0 ? 0 : r;
        }
        break;
#else
      case VM_DIV_I:
        VM_RARE_ITEMS {
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
        VM_RARE_ITEMS {
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
#endif
      case VM_DIV_CONST_I:
      case VM_MOD_CONST_I: {
        const long magic = consts[ins.y];
        const long shift_mode = consts[ins.y + 1];
        const long d = consts[ins.y + 2];
        const uint shift = (uint)(shift_mode & 0xff);
        const uint mode = (uint)(shift_mode >> 8);
        if (VM_NARROW || (kind & VM_OPND_NARROW)) {
          const int divisor = (int)d;
          // Unswitched on the operation, so that each loop vectorises plainly.
          if (op == VM_DIV_CONST_I) {
            VM_FOR_ITEMS acc[k] = vm_div_magic32((int)acc[k], (uint)magic, shift, mode);
          } else {
            VM_FOR_ITEMS {
              const int x = (int)acc[k];
              const int q = vm_div_magic32(x, (uint)magic, shift, mode);
              acc[k] = as_int(as_uint(x) - as_uint(q) * as_uint(divisor));
            }
          }
        } else if (op == VM_DIV_CONST_I) {
          VM_FOR_ITEMS acc[k] = vm_div_magic(acc[k], magic, shift, mode);
        } else {
          VM_FOR_ITEMS acc[k] = acc[k] - vm_div_magic(acc[k], magic, shift, mode) * d;
        }
        break;
      }
#if VM_REAL
      case VM_ADD_R:
        VM_WITH_OPERAND_OR_COLUMN(acc[k] = as_long(as_double(acc[k]) + as_double(b)),
                                  VM_AS_REAL_BITS)
        if (track && fetched) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_SUB_R:
        VM_WITH_OPERAND_OR_COLUMN(acc[k] = as_long(as_double(VM_LEFT_B) - as_double(VM_RIGHT_B)),
                                  VM_AS_REAL_BITS)
        if (track && fetched) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_MUL_R:
        VM_WITH_OPERAND_OR_COLUMN(acc[k] = as_long(as_double(acc[k]) * as_double(b)),
                                  VM_AS_REAL_BITS)
        if (track && fetched) VM_FOR_ITEMS accn[k] |= opn[k];
        break;
      case VM_DIV_R:
        // Untracked, the host proved every divisor non-zero (a possible
        // division by zero is a possible NULL, ExpressionProgram::AnyNull):
        // a plain division. PoCL 5 left the guarded loop below scalar
        // (vdivsd) on x86.
        if (!track) {
          if (reversed) {
            VM_WITH_OPERAND_OR_COLUMN(acc[k] = as_long(as_double(b) / as_double(acc[k])),
                                      VM_AS_REAL_BITS)
          } else {
            VM_WITH_OPERAND_OR_COLUMN(acc[k] = as_long(as_double(acc[k]) / as_double(b)),
                                      VM_AS_REAL_BITS)
          }
          break;
        }
        // Unswitched on `reversed`, and dividing by 1.0 where the divisor is
        // 0: PoCL leaves the division scalar otherwise (vdivsd, not vdivpd).
        if (reversed) {
          VM_FOR_ITEMS {
            const double b = as_double(acc[k]);
            const double q = as_double(opd[k]) / (b == 0.0 ? 1.0 : b);
            accn[k] = (track ? (accn[k] | opn[k]) : 0) | (b == 0.0);
            acc[k] = as_long(b == 0.0 ? 0.0 : q);
          }
        } else {
          VM_FOR_ITEMS {
            const double b = as_double(opd[k]);
            const double q = as_double(acc[k]) / (b == 0.0 ? 1.0 : b);
            accn[k] = (track ? (accn[k] | opn[k]) : 0) | (b == 0.0);
            acc[k] = as_long(b == 0.0 ? 0.0 : q);
          }
        }
        break;
      case VM_NAN_NULL:
        // Where the host could not rule NaN out; the entry tracks NULLs.
        VM_RARE_ITEMS {
          const uchar nan = isnan(as_double(acc[k])) ? 1 : 0;
          if (track) accn[k] |= nan;
          acc[k] = nan ? 0 : acc[k];
        }
        break;
      case VM_MOD_R:
        // SQLite: both operands cast to INTEGER, integer remainder, REAL result.
        VM_RARE_ITEMS {
          const long a = convert_long_sat_rtz(as_double(VM_LEFT));
          const long b = convert_long_sat_rtz(as_double(VM_RIGHT));
          const uint nul = (track ? (accn[k] | opn[k]) : 0) | (b == 0);
          acc[k] = as_long((b == 0 || b == -1) ? 0.0 : (double)(a % b));
          accn[k] = nul;
        }
        break;
#endif
      case VM_NEG_I:
#if VM_NARROW
        VM_FOR_ITEMS acc[k] = as_int(0u - as_uint(acc[k]));
#else
        if (kind & VM_OPND_NOCHECK) {
          VM_FOR_ITEMS acc[k] = -acc[k];
        } else VM_RARE_ITEMS {
          const uint nul = track ? accn[k] : 0;
          overflow |= (uint)(acc[k] == LONG_MIN) & (nul ^ 1u) & pass[k];
          acc[k] = as_long(0ul - as_ulong(acc[k]));
        }
#endif
        break;
      case VM_EXTRACT:
        // Rare: the lean machines leave it out, so that queries without
        // dates keep their smaller kernels. On CPUs one loop per field, each
        // with the field a literal (vm.cl), which vectorises; on GPUs one
        // loop, whose smaller code the other operations' kernels keep.
#if VM_LEAN
        unsupported = 1u;
#else
        if (VM_NARROW || (kind & VM_OPND_NARROW)) {
#if !DEVICE_IS_CPU
          VM_FOR_ITEMS acc[k] = (VM_VALUE)vm_extract32((int)acc[k], arg);
#else
          if (arg == VM_EXTRACT_YEAR) {
            VM_FOR_ITEMS acc[k] = (VM_VALUE)vm_extract32((int)acc[k], VM_EXTRACT_YEAR);
          } else if (arg == VM_EXTRACT_MONTH) {
            VM_FOR_ITEMS acc[k] = (VM_VALUE)vm_extract32((int)acc[k], VM_EXTRACT_MONTH);
          } else {
            VM_FOR_ITEMS acc[k] = (VM_VALUE)vm_extract32((int)acc[k], VM_EXTRACT_DAY);
          }
#endif
        }
#if !VM_NARROW
        else VM_FOR_ITEMS_COLD {
          acc[k] = vm_extract64(acc[k], arg);
        }
#endif
#endif
        break;
#if VM_REAL
      case VM_NEG_R:
        VM_FOR_ITEMS acc[k] = as_long(-as_double(acc[k]));
        break;
      case VM_I2R:
        VM_FOR_ITEMS acc[k] = as_long((double)acc[k]);
        break;
      case VM_R2I:
        VM_FOR_ITEMS acc[k] = convert_long_sat_rtz(as_double(acc[k]));
        break;
#endif
#define VM_COMPARE(OPCODE, TYPE_CAST, OPERATOR)                \
  case OPCODE:                                                 \
    VM_WITH_OPERAND(acc[k] = TYPE_CAST(acc[k]) OPERATOR TYPE_CAST(b))   \
    if (track && fetched) VM_FOR_ITEMS accn[k] |= opn[k];                 \
    break;
        VM_COMPARE(VM_EQ_I, , ==)
        VM_COMPARE(VM_NE_I, , !=)
        VM_COMPARE(VM_LT_I, , <)
        VM_COMPARE(VM_LE_I, , <=)
        VM_COMPARE(VM_GT_I, , >)
        VM_COMPARE(VM_GE_I, , >=)
#if VM_REAL
        VM_COMPARE(VM_EQ_R, as_double, ==)
        VM_COMPARE(VM_NE_R, as_double, !=)
        VM_COMPARE(VM_LT_R, as_double, <)
        VM_COMPARE(VM_LE_R, as_double, <=)
        VM_COMPARE(VM_GT_R, as_double, >)
        VM_COMPARE(VM_GE_R, as_double, >=)
#endif
#undef VM_COMPARE
      case VM_TRUTH_I:
        VM_FOR_ITEMS acc[k] = acc[k] != 0;
        break;
#if VM_REAL
      case VM_TRUTH_R:
        VM_FOR_ITEMS acc[k] = as_double(acc[k]) != 0.0;
        break;
#endif
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
        VM_RARE_ITEMS {
          uchar found = 0;
          for (uint j = 0; j < arg; ++j) {
            const long c = consts[ins.y + j];
#if VM_NARROW
            found |= (long)acc[k] == c;  // the list's constants need not fit int32
#elif VM_REAL
            found |= op == VM_IN_I ? acc[k] == c : as_double(acc[k]) == as_double(c);
#else
            found |= acc[k] == c;  // VM_IN_R raised VM_STATUS_UNSUPPORTED
#endif
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
        // The kind field is the slot, with VM_OPND_NULLABLE where the column has a NULL map.
        const uint slot = kind & ~(uint)VM_OPND_NULLABLE;
        __global const uchar* column = vm_slot_values(slots, slot);
        VM_RARE_ITEMS {
          int c = 0;
          if (VM_IN_TILE(k)) c = vm_compare_text(column + VM_ROW(k) * (ulong)arg, arg, literal, length);
          acc[k] = vm_compare_result(c, cmp);
        }
        if (track) {
          if (kind & VM_OPND_NULLABLE) {
            __global const uchar* z = vm_slot_nulls(slots, slot);
            VM_FOR_ITEMS accn[k] = VM_IN_TILE(k) ? z[VM_ROW(k)] : 0;
          } else {
            VM_FOR_ITEMS accn[k] = 0;
          }
        }
        break;
      }
      case VM_STR_LIKE: {
        const long descriptor = consts[ins.y];
        const uint length = (uint)(descriptor & 0xffffffffl);
        const uchar negated = (uchar)((descriptor >> 32) & 1);
        const uint suffix_from = (uint)(descriptor >> 40);
        __constant const uchar* pattern = (__constant const uchar*)(consts + ins.y + 1);
        const uint slot = kind & ~(uint)VM_OPND_NULLABLE;
        __global const uchar* column = vm_slot_values(slots, slot);
        VM_RARE_ITEMS {
          uchar m = 0;
          if (VM_IN_TILE(k)) m = vm_like_text(column + VM_ROW(k) * (ulong)arg, arg, pattern, length, suffix_from);
          acc[k] = m ^ negated;
        }
        if (track) {
          if (kind & VM_OPND_NULLABLE) {
            __global const uchar* z = vm_slot_nulls(slots, slot);
            VM_FOR_ITEMS accn[k] = VM_IN_TILE(k) ? z[VM_ROW(k)] : 0;
          } else {
            VM_FOR_ITEMS accn[k] = 0;
          }
        }
        break;
      }
      case VM_CASE_BEGIN: {
        const uint b = sp * IPT;
        VM_FOR_ITEMS {
          stack[b + k] = pass[k];
          stack[b + IPT + k] = 0;
        }
        if (track) VM_FOR_ITEMS {
            stackn[b + k] = 0;
            stackn[b + IPT + k] = 1;
          }
        sp += 2;
        break;
      }
      case VM_CASE_WHEN: {
        const uint b = sp * IPT;
        if (track) {
          VM_FOR_ITEMS {
            stack[b + k] = pass[k];
            pass[k] &= (uchar)(accn[k] == 0 && acc[k] != 0);
          }
        } else {
          VM_FOR_ITEMS {
            stack[b + k] = pass[k];
            pass[k] &= (uchar)(acc[k] != 0);
          }
        }
        sp += 1;
        break;
      }
      case VM_CASE_THEN: {
        sp -= 1;
        const uint u = sp * IPT;
        const uint r = u - IPT;
        VM_FOR_ITEMS {
          if (pass[k]) stack[r + k] = acc[k];
        }
        if (track) VM_FOR_ITEMS {
            if (pass[k]) stackn[r + k] = accn[k];
          }
        VM_FOR_ITEMS pass[k] = (uchar)(stack[u + k] != 0) & (uchar)(pass[k] ^ 1u);
        break;
      }
      case VM_CASE_END: {
        const uint r = (sp - 1) * IPT;
        const uint saved = r - IPT;
        VM_FOR_ITEMS {
          if (!pass[k]) acc[k] = stack[r + k];
        }
        if (track) VM_FOR_ITEMS {
            if (!pass[k]) accn[k] = stackn[r + k];
          }
        VM_FOR_ITEMS pass[k] = (uchar)(stack[saved + k] != 0);
        sp -= 2;
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
        VM_KEEP_SKIP
        break;
      }
      case VM_KEEP_CMP: {
        const VM_VALUE c = (VM_VALUE)consts[arg >> 6];
        VM_NAME(vm_fetch)(kind, arg & 7u, 0, consts, slots, start, rows, track, opd, opn,
                          stack, stackn, &sp);
        switch ((arg >> 3) & 7u) {
          case VM_KEEP_CMP_EQ:
            VM_FOR_ITEMS acc[k] = opd[k] == c;
            break;
          case VM_KEEP_CMP_NE:
            VM_FOR_ITEMS acc[k] = opd[k] != c;
            break;
          case VM_KEEP_CMP_LT:
            VM_FOR_ITEMS acc[k] = opd[k] < c;
            break;
          case VM_KEEP_CMP_LE:
            VM_FOR_ITEMS acc[k] = opd[k] <= c;
            break;
          case VM_KEEP_CMP_GT:
            VM_FOR_ITEMS acc[k] = opd[k] > c;
            break;
          case VM_KEEP_CMP_GE:
            VM_FOR_ITEMS acc[k] = opd[k] >= c;
            break;
          default: {  // VM_KEEP_CMP_RANGE: c <= value <= hi
            const VM_VALUE hi = (VM_VALUE)consts[(arg >> 6) + 1];
            VM_FOR_ITEMS acc[k] = (opd[k] >= c) & (opd[k] <= hi);
            break;
          }
        }
        uchar any = 0;
        if (track) {
          VM_FOR_ITEMS {
            accn[k] = opn[k];
            pass[k] &= !opn[k] && acc[k] != 0;
          }
        } else {
          VM_FOR_ITEMS pass[k] &= acc[k] != 0;
        }
        VM_FOR_ITEMS any |= pass[k];
        VM_KEEP_SKIP
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
  return (overflow ? VM_STATUS_OVERFLOW : 0u) | (unsupported ? VM_STATUS_UNSUPPORTED : 0u);
}

// Runs program [pc, end) over all IPT items of this work-item into acc[IPT]
// / accn[IPT], with live[IPT] as vm_run's live items; ORs the status bits
// into `raised`.
#define VM_RUN_ALL(pc, end, track, live, raised, ranges_first)                                   \
  raised |= VM_NAME(vm_run)(code, pc, end, consts, &slots, start, n, track, acc, accn, (live), \
                            ranges_first);

inline void VM_NAME(vm_project_body)(VM_PROJECT_PARAMS) {
  VM_SLOTS_INIT(slots);
  __global uchar* out = out_values + out_base * (out_kind == 0 ? 8 : 4);
  __global uchar* out_nulls = out_null_map + (write_nulls ? out_base : 0);
  const ulong start = tile_start();
  const uint rows = tile_rows(start, n);
  VM_VALUE acc[IPT];
  uchar accn[IPT];
  uchar live[IPT];
  VM_SET_LIVE(live, rows)
  uint raised = 0;
  VM_RUN_ALL(begin, end, track, live, raised, 0);
  if (out_kind == 0) {
    __global long* o = (__global long*)out;
    VM_FOR_ROWS(rows, o[tile_item(start, k)] = acc[k])
  } else {
    __global int* o = (__global int*)out;
    VM_FOR_ROWS(rows, o[tile_item(start, k)] = (int)acc[k])
  }
  if (write_nulls) VM_FOR_ROWS(rows, out_nulls[tile_item(start, k)] = track ? accn[k] : 0)
  vm_raise(status, raised);
}
KERNEL void VM_NAME(vm_project)(VM_PROJECT_PARAMS) {
  VM_NAME(vm_project_body)(VM_PROJECT_ARGS, track, out_base, status);
}
KERNEL void VM_NAME(vm_project_untracked)(VM_PROJECT_PARAMS) {
  VM_NAME(vm_project_body)(VM_PROJECT_ARGS, 0, out_base, status);
}
inline void VM_NAME(vm_filter_body)(VM_FILTER_PARAMS, __local uchar* flags,
                                    __local uint* word_counts, uint tile) {
  VM_SLOTS_INIT(slots);
  const ulong start = (ulong)tile * TILE;
  const uint rows = tile_rows(start, n);
  VM_VALUE acc[IPT];
  uchar accn[IPT];
  uchar live[IPT];
  VM_SET_LIVE(live, rows)
  if (refine) {
    for (uint k = 0; k < IPT; ++k) {
      const uint p = tile_offset(k);
      if (p < rows) live[k] = (bits[(start + p) / 32] >> ((start + p) % 32)) & 1u;
    }
  }
  uint raised = 0;
  VM_RUN_ALL(begin, end, track, live, raised, 1);
#if DEVICE_IS_CPU && IPT % 32 == 0
  // A work-item's items are IPT consecutive rows, whole words of the bitmap:
  // each packs its own words in registers (a byte per item in local memory
  // and a 32-step loop per word cost CPUs several instructions per row).
  const uint lid = get_local_id(0);
  uint count = 0;
  for (uint w = 0; w < IPT / 32; ++w) {
    uint word = 0;
    VECTORIZE_ITEMS for (uint b = 0; b < 32; ++b) {
      const uint k = w * 32 + b;
      // Bitwise, not &&: a short-circuit makes CPUs mask the loads.
      word |= (uint)(live[k] & (uchar)!(track && accn[k]) & (uchar)(acc[k] != 0)) << b;
    }
    const ulong word_index = (start + tile_offset(w * 32)) / 32;
    if (tile_offset(w * 32) < rows) bits[word_index] = word;
    count += popcount(word);
  }
  word_counts[lid] = count;
  tile_count_total(word_counts, WG_SIZE, tile, tile_counts);
#else
  uchar flag[IPT];
  VM_FOR_TILE_ITEMS flag[k] = live[k] && !(track && accn[k]) && acc[k] != 0;
  tile_bitmap(flag, tile, rows, bits, tile_counts, flags, word_counts);
#endif
  vm_raise(status, raised);
}
// Group g filters tile g, or with `refine` the listed tiles g, g + groups, ...
#if DEVICE_IS_CPU
// PoCL: the plain filter outside any loop (wrapped in the refining loop,
// which holds a barrier, it ran slower there).
#define VM_FILTER_TILES(TRACK)                                                 \
  if (!refine) {                                                              \
    VM_NAME(vm_filter_body)(VM_FILTER_ARGS(TRACK), get_group_id(0));          \
  } else {                                                                    \
    const uint listed = live_tiles[0];                                        \
    for (uint i = get_group_id(0); i < listed; i += get_num_groups(0)) {      \
      VM_NAME(vm_filter_body)(VM_FILTER_ARGS(TRACK), live_tiles[1 + i]);      \
      barrier(CLK_LOCAL_MEM_FENCE); /* the next tile reuses local memory */   \
    }                                                                         \
  }
#else
// GPUs: one call site, so that the interpreter is inlined once.
#define VM_FILTER_TILES(TRACK)                                                  \
  const uint listed = refine ? live_tiles[0] : 1u;                             \
  const uint step = refine ? (uint)get_num_groups(0) : 1u;                     \
  for (uint i = refine ? (uint)get_group_id(0) : 0u; i < listed; i += step) {  \
    VM_NAME(vm_filter_body)                                                    \
    (VM_FILTER_ARGS(TRACK), refine ? live_tiles[1 + i] : (uint)get_group_id(0)); \
    if (refine) barrier(CLK_LOCAL_MEM_FENCE); /* the next tile reuses local memory */ \
  }
#endif
KERNEL void VM_NAME(vm_filter)(VM_FILTER_PARAMS) {
  VM_FILTER_LOCALS;
  VM_FILTER_TILES(track)
}
KERNEL void VM_NAME(vm_filter_untracked)(VM_FILTER_PARAMS) {
  VM_FILTER_LOCALS;
  VM_FILTER_TILES(0)
}
#undef VM_FILTER_TILES

#if VM_NARROW
// vm_agg_fold over 32-bit values: MIN and MAX compare in 32 bits, and SUM
// needs no overflow check (a work-item sums at most VM_MAX_TILES_PER_GROUP *
// IPT int32 values, far from int64's limits).
inline void VM_NAME(vm_agg_fold)(uint op, const int* acc, const uchar* counted, long* value,
                                 ulong* count) {
  uint c = 0;
  VM_FOR_TILE_ITEMS c += counted[k];
  *count += c;
  if (c == 0) return;
  // Uncounted items combine the identity (see VM_AGG_FOLD_LOOP in vm.cl).
  if (op == VM_AGG_SUM_I) {
    long v = 0;
    VM_FOR_TILE_ITEMS {
      const int x = acc[k];
      v += counted[k] ? (long)x : 0;
    }
    *value += v;
  } else if (op == VM_AGG_MIN_I) {
    int v = INT_MAX;
    VM_FOR_TILE_ITEMS {
      const int x = acc[k];
      v = min(v, counted[k] ? x : INT_MAX);
    }
    *value = min(*value, (long)v);
  } else if (op == VM_AGG_MAX_I) {
    int v = INT_MIN;
    VM_FOR_TILE_ITEMS {
      const int x = acc[k];
      v = max(v, counted[k] ? x : INT_MIN);
    }
    *value = max(*value, (long)v);
  }  // VM_AGG_COUNT: the count is the value
}
#endif

inline void VM_NAME(vm_aggregate_body)(VM_AGGREGATE_PARAMS, __local long* values,
                                       __local ulong* counts, uint allow_track) {
  VM_SLOTS_INIT(slots);
  uint raised = 0;
  // Each aggregate's value and count over this work-item's rows of all the
  // group's tiles; the work-group reduction then runs once per group.
  long totals[VM_MAX_AGGREGATES];
  ulong totals_counted[VM_MAX_AGGREGATES];
  for (uint a = 0; a < aggregate_count; ++a) {
    totals[a] = vm_agg_identity(aggregates[a].x);
    totals_counted[a] = 0;
  }
  for (uint t = 0; t < tiles_per_group; ++t) {
    const ulong start = ((ulong)get_group_id(0) * tiles_per_group + t) * TILE;
    if (start >= n) break;  // the same for every work-item of the group
    const uint rows = tile_rows(start, n);
    VM_VALUE acc[IPT];
    uchar accn[IPT];
    uchar pass[IPT];
    VM_SET_LIVE(pass, rows)
    // Step -1 is the WHERE predicate, steps 0.. the aggregates' arguments:
    // one inlined copy of the interpreter for both.
    for (int a = pred_begin < pred_end ? -1 : 0; a < (int)aggregate_count; ++a) {
      const uint4 agg = a < 0 ? (uint4)(0u, pred_begin, pred_end, pred_track) : aggregates[a];
      const uint track = allow_track && agg.y < agg.z ? agg.w : 0;
      if (agg.y < agg.z) VM_RUN_ALL(agg.y, agg.z, track, pass, raised, 0);
      if (a < 0) {
        uchar any_pass = 0;
        VM_FOR_TILE_ITEMS {
          pass[k] = pass[k] && !(track && accn[k]) && acc[k] != 0;
          any_pass |= pass[k];
        }
        // A work-item none of whose rows passed the filter skips the
        // arguments' loads and arithmetic altogether.
        if (!any_pass) break;
        continue;
      }
      uchar null_free[IPT];  // NULL arguments do not count
      if (track) VM_FOR_TILE_ITEMS null_free[k] = pass[k] & (uchar)(accn[k] == 0);
      const uchar* counted = track ? null_free : pass;
      long value = totals[a];
      ulong count = totals_counted[a];
#if VM_NARROW
      VM_NAME(vm_agg_fold)(agg.x, acc, counted, &value, &count);
#else
      vm_agg_fold(agg.x, acc, counted, &value, &count);
#endif
      totals[a] = value;
      totals_counted[a] = count;
    }
  }
  for (uint a = 0; a < aggregate_count; ++a) {
    vm_agg_write_partial(aggregates[a].x, totals[a], totals_counted[a], values, counts, partials,
                         group_base + get_group_id(0), aggregate_count, a);
  }
  vm_raise(status, raised);
}
KERNEL void VM_NAME(vm_aggregate)(VM_AGGREGATE_PARAMS) {
  VM_AGGREGATE_LOCALS;
  VM_NAME(vm_aggregate_body)(VM_AGGREGATE_ARGS(1));
}
KERNEL void VM_NAME(vm_aggregate_untracked)(VM_AGGREGATE_PARAMS) {
  VM_AGGREGATE_LOCALS;
  VM_NAME(vm_aggregate_body)(VM_AGGREGATE_ARGS(0));
}

#undef VM_WRAP32
#undef VM_LEFT
#undef VM_RIGHT
#undef VM_LEFT_B
#undef VM_RIGHT_B
#undef VM_WITH_OPERAND
#undef VM_WITH_OPERAND_OR_COLUMN
#undef VM_AS_VALUE
#undef VM_DIRECT_OPERAND
#undef VM_SCALAR_OPERAND
#undef VM_PREFETCH_NEXT
#undef VM_RUN_ALL
#undef VM_NAME
#undef VM_VALUE
#undef VM_RARE_ITEMS
#undef VM_REAL
