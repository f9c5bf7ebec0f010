#include "operators/scan.hpp"

namespace clq {

void ExclusiveScan(Engine& engine, const cl::Buffer& input, RowCount n, const cl::Buffer& output,
                   const cl::Buffer* total, std::string_view stage) {
  if (n == 0) {
    if (total != nullptr) engine.Fill(*total, 0, 0, sizeof(cl_uint), "scan total");
    return;
  }
  const std::uint64_t tiles = engine.TilesFor(n);
  DeviceBuffer tile_totals = engine.pool().Acquire(tiles * sizeof(cl_uint), "scan tile totals");
  cl::Kernel& scan = engine.kernel("scan_tiles");
  scan.setArg(0, input);
  scan.setArg(1, static_cast<cl_ulong>(n));
  scan.setArg(2, output);
  scan.setArg(3, tile_totals.get());
  engine.Launch(scan, tiles, stage);
  if (tiles == 1) {
    if (total != nullptr)
      engine.Copy(tile_totals.get(), 0, *total, 0, sizeof(cl_uint), "scan total");
    return;
  }
  ExclusiveScan(engine, tile_totals.get(), tiles, tile_totals.get(), total, stage);
  cl::Kernel& add = engine.kernel("scan_add_offsets");
  add.setArg(0, output);
  add.setArg(1, static_cast<cl_ulong>(n));
  add.setArg(2, tile_totals.get());
  engine.Launch(add, tiles, stage);
}

KernelSet ExclusiveScanKernels(const Engine& engine, RowCount n, bool exact) {
  KernelSet kernels;
  if (n == 0) return kernels;
  kernels.Add("scan_tiles");
  if (engine.TilesFor(n) > 1) {
    if (exact) {
      kernels.Add("scan_add_offsets");
    } else {
      kernels.AddWhenNeeded("scan_add_offsets");
    }
  }
  return kernels;
}

}  // namespace clq
