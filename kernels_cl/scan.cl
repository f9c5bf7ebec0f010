// Exclusive prefix sums of 32-bit counts over any length: each work-group
// scans one tile in local memory (Blelloch across work-items, serial within a
// work-item's IPT elements) and emits the tile's total; the host scans the
// totals recursively and adds them back with scan_add_offsets. Nothing is
// padded to a power of two beyond one tile.

KERNEL void scan_tiles(__global const uint* input, ulong n, __global uint* output,
                       __global uint* tile_totals) {
  __local uint tile[PADDED(TILE)];
  __local uint scratch[WG_SIZE + 1];
  const ulong start = tile_start();
  const uint lid = get_local_id(0);
  // Load in the coalesced layout, then give each work-item IPT consecutive elements.
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = start + (ulong)k * WG_SIZE + lid;
    const uint p = k * WG_SIZE + lid;
    tile[PADDED(p)] = i < n ? input[i] : 0;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint sum = 0;
  for (uint k = 0; k < IPT; ++k) {
    const uint p = lid * IPT + k;
    const uint v = tile[PADDED(p)];
    tile[PADDED(p)] = sum;
    sum += v;
  }
  uint total;
  const uint offset = work_group_scan_exclusive_uint(sum, scratch, &total);
  for (uint k = 0; k < IPT; ++k) tile[PADDED(lid * IPT + k)] += offset;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = start + (ulong)k * WG_SIZE + lid;
    if (i < n) output[i] = tile[PADDED(k * WG_SIZE + lid)];
  }
  if (lid == 0) tile_totals[get_group_id(0)] = total;
}

KERNEL void scan_add_offsets(__global uint* data, ulong n, __global const uint* tile_offsets) {
  const ulong start = tile_start();
  const uint offset = tile_offsets[get_group_id(0)];
  for (uint k = 0; k < IPT; ++k) {
    const ulong i = tile_item(start, k);
    if (i < n) data[i] += offset;
  }
}
