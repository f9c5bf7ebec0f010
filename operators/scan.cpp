#include "operators/scan.hpp"

#include "operators/kernel_args.hpp"

namespace clq {
namespace {

// scan_tiles (kernels_cl/scan.cl), in order.
struct ScanTilesArgs {
  cl::Buffer input;
  cl_ulong n = 0;
  cl::Buffer output;       // may be `input`
  cl::Buffer tile_totals;  // one per tile
};

void Bind(cl::Kernel& kernel, const ScanTilesArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.input).Add(a.n).Add(a.output).Add(a.tile_totals);
  args.Done();
}

// scan_add_offsets (kernels_cl/scan.cl), in order.
struct ScanAddOffsetsArgs {
  cl::Buffer data;
  cl_ulong n = 0;
  cl::Buffer tile_offsets;  // the exclusive scan of the tile totals
};

void Bind(cl::Kernel& kernel, const ScanAddOffsetsArgs& a) {
  KernelArgs args(kernel);
  args.Add(a.data).Add(a.n).Add(a.tile_offsets);
  args.Done();
}

}  // namespace

void ExclusiveScan(Engine& engine, const cl::Buffer& input, RowCount n, const cl::Buffer& output,
                   const cl::Buffer* total, std::string_view stage) {
  if (n == 0) {
    if (total != nullptr) engine.Fill(*total, 0, 0, sizeof(cl_uint), "scan total");
    return;
  }
  const std::uint64_t tiles = engine.TilesFor(n);
  DeviceBuffer tile_totals = engine.pool().Acquire(tiles * sizeof(cl_uint), "scan tile totals");
  cl::Kernel& scan = engine.kernel("scan_tiles");
  Bind(scan, ScanTilesArgs{
                 .input = input,
                 .n = n,
                 .output = output,
                 .tile_totals = tile_totals.get(),
             });
  engine.Launch(scan, tiles, stage);
  if (tiles == 1) {
    if (total != nullptr)
      engine.Copy(tile_totals.get(), 0, *total, 0, sizeof(cl_uint), "scan total");
    return;
  }
  ExclusiveScan(engine, tile_totals.get(), tiles, tile_totals.get(), total, stage);
  cl::Kernel& add = engine.kernel("scan_add_offsets");
  Bind(add, ScanAddOffsetsArgs{.data = output, .n = n, .tile_offsets = tile_totals.get()});
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
