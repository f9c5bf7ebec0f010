// Shared pieces of the Google Benchmark binaries: the device under test
// ($CLQ_DEVICE, default as the clq command line), the table size
// ($CLQ_BENCH_ROWS), Wisconsin tables resident on the device, device time from
// profiling events, and the device's copy bandwidth measured in the same run
// (the ceiling every number is reported against).
#pragma once

#include <benchmark/benchmark.h>

#include <functional>
#include <span>

#include "runtime/engine.hpp"
#include "runtime/kernel_sources.hpp"
#include "storage/table.hpp"

namespace clq {
std::span<const KernelSource> YardstickKernelSources();
}

namespace clq::bench {

Engine& BenchEngine();

// $CLQ_BENCH_ROWS, else `fallback`.
RowCount BenchRows(RowCount fallback);

// tenktup1 with `rows` rows (generated once per size).
TablePtr Tenktup1(RowCount rows);

// Device milliseconds of the kernels and device copies `work` enqueues
// (uploads and downloads excluded), from profiling events.
double DeviceMilliseconds(Engine& engine, const std::function<void()>& work);

// Prints the device under test ("device: NAME (PLATFORM), GEOMETRY", plus its
// copy bandwidth when `with_copy_bandwidth`), calls `register_benchmarks`
// (when given) and runs the benchmarks the command line selects. Returns
// false after printing "PROGRAM: error" to stderr when anything throws.
bool RunBenchmarks(const char* program, bool with_copy_bandwidth,
                   const std::function<void()>& register_benchmarks = {});

// Row counts for the primitive benchmarks: 1M, 10M, ... below the largest,
// then the largest (BenchRows of 100M on GPUs, 10M elsewhere); manual time
// in milliseconds, the argument named "rows".
void PrimitiveSizes(benchmark::internal::Benchmark* b);

// The device's copy bandwidth (GB/s, read + write) with bandwidth_copy over
// the largest buffer up to 1 GiB; measured once.
double CopyGbps(Engine& engine);

}  // namespace clq::bench
