// Kernels of `clq bandwidth`: the device's copy and read ceilings, against
// which every query is judged. 16-byte accesses, one tile per work-group.

KERNEL void bandwidth_copy(__global const uint4* restrict source, __global uint4* restrict target,
                           ulong count) {
  const ulong start = tile_start();
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < count) target[i] = source[i];
  }
}

// Per-group sums of 32-bit words (as ulong, so they are exact); the host adds
// the partials to check the kernel really read every word.
KERNEL void bandwidth_sum(__global const uint4* restrict source, ulong count,
                          __global ulong* restrict partials) {
  __local ulong scratch[WG_SIZE];
  const ulong start = tile_start();
  ulong sum = 0;
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < count) {
      const uint4 v = source[i];
      sum += (ulong)v.x + v.y + v.z + v.w;
    }
  }
  const ulong total = work_group_sum_ulong(sum, scratch);
  if (get_local_id(0) == 0) partials[get_group_id(0)] = total;
}
