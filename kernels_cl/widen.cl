// INT32 values widened to INT64: target[i] = source[first + i] for i < n.
// A GPU result of INT32 values (the 32-bit expression machine's output) is
// INTEGER, int64 on the host; widened on the device, it travels in one DMA
// into the result's own memory, with no conversion pass on the host.

KERNEL void widen_int32(__global const int* source, ulong first, ulong n, __global long* target) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) target[i] = (long)source[first + i];
  }
}
