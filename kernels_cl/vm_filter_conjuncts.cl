// The first pass of a selection whose predicate is only tests of INT32
// columns without NULLs, or of their remainders by constants, against
// constants (the thesis selection: unique1 > 1000 AND unique1 < 6000 AND
// unique2 % 2 = 0 AND two = 0), without the interpreter: the host turns such
// a program into conjunct descriptors (vm_shared.h, VM_CONJUNCT_LONGS) and
// this small kernel tests them in order, each item reading a later conjunct's
// column only while it still passes. One launch at the occupancy of a
// hand-written kernel, where the interpreter's registers leave fewer groups
// per multiprocessor (the range test and the refining vm_filter together
// took longer than this kernel, which comes close to the hand-written one).

// Whether a conjunct with these fields keeps value x of its column.
inline uchar vm_conjunct_keeps(int x, uint flags, int lo, int hi, uint magic, uint shift,
                               uint mode, int divisor) {
  if (flags & VM_CONJUNCT_MOD) {
    const int q = vm_div_magic32(x, magic, shift, mode);
    x = as_int(as_uint(x) - as_uint(q) * as_uint(divisor));
  }
  return ((x >= lo) & (x <= hi)) ^ (uchar)(flags & VM_CONJUNCT_NEGATE);
}

// The first conjunct arrives as arguments (its column and descriptor
// fields), the others' descriptors from consts[at], `rest` of them; each
// bound is clamped to int32 by the host (an empty range is lo > hi). Bitmap
// words and tile counts as vm_filter writes them. Taking the first conjunct
// from the descriptors put a chain of dependent loads (descriptor, slot,
// column) ahead of each work-group's first column load, well behind the
// hand-written kernel.
KERNEL void vm_filter_conjuncts(__constant const long* consts, uint at, uint rest,
                                __global const int* first_column, uint first_header, int first_lo,
                                int first_hi, uint first_magic, int first_divisor, VM_SLOT_PARAMS,
                                ulong n, __global uint* bits, __global uint* tile_counts) {
  __local uchar flags[TILE + TILE / 8];
  __local uint word_counts[TILE / 32];
  const uint tile = get_group_id(0);
  const ulong start = (ulong)tile * TILE;
  const uint rows = tile_rows(start, n);
  uchar flag[IPT];
  uchar any = 0;
  {
    const uint test = (first_header >> 8) & 0xffu;
    const uint shift = (first_header >> 16) & 0xffu, mode = first_header >> 24;
    if (rows == TILE) {
      // Every item is a row: loads without guards, which CPUs vectorise.
      VECTORIZE_ITEMS for (uint k = 0; k < IPT; ++k) {
        flag[k] = vm_conjunct_keeps(first_column[start + tile_offset(k)], test, first_lo, first_hi,
                                    first_magic, shift, mode, first_divisor);
        any |= flag[k];
      }
    } else {
      for (uint k = 0; k < IPT; ++k) {
        const uint p = tile_offset(k);
        flag[k] = p < rows && vm_conjunct_keeps(first_column[start + p], test, first_lo, first_hi,
                                                first_magic, shift, mode, first_divisor);
        any |= flag[k];
      }
    }
  }
  if (any) {
    VM_SLOTS_INIT(slots);
    for (uint c = 0; c < rest; ++c) {
      __constant const long* d = consts + at + c * VM_CONJUNCT_LONGS;
      const uint header = (uint)d[0];
      const uint test = (header >> 8) & 0xffu;
      const int lo = (int)d[1], hi = (int)d[2];
      const uint magic = (uint)d[3];
      const int divisor = (int)d[4];
      const uint shift = (header >> 16) & 0xffu, mode = header >> 24;
      __global const int* column = (__global const int*)vm_slot_values(&slots, header & 0xffu);
      any = 0;
      for (uint k = 0; k < IPT; ++k) {
        if (flag[k])
          flag[k] = vm_conjunct_keeps(column[start + tile_offset(k)], test, lo, hi, magic, shift,
                                      mode, divisor);
        any |= flag[k];
      }
      if (!any) break;
    }
  }
  tile_bitmap(flag, tile, rows, bits, tile_counts, flags, word_counts);
}
