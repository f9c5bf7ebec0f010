#include "bench/bench_support.hpp"

#include <benchmark/benchmark.h>

#include <cstdio>
#include <cstdlib>
#include <map>
#include <memory>

#include "host/environment_options.hpp"
#include "runtime/bandwidth.hpp"
#include "runtime/device_selector.hpp"
#include "wisconsin/generator.hpp"

namespace clq::bench {

Engine& BenchEngine() {
  static std::unique_ptr<Engine> engine = [] {
    const std::vector<DeviceHandle> devices = DiscoverDevices();
    std::vector<DeviceInfo> infos;
    for (const DeviceHandle& d : devices)
      infos.push_back(d.info);
    return std::make_unique<Engine>(devices[ResolveOneDevice(DefaultSelector(), infos)],
                                    OptionsFromEnvironment().engine);
  }();
  return *engine;
}

RowCount BenchRows(RowCount fallback) {
  const char* text = std::getenv("CLQ_BENCH_ROWS");
  return text != nullptr && *text != '\0' ? std::strtoull(text, nullptr, 10) : fallback;
}

TablePtr Tenktup1(RowCount rows) {
  static std::map<RowCount, TablePtr> tables;
  auto& table = tables[rows];
  if (!table) table = GenerateWisconsinTable("tenktup1", rows, {});
  return table;
}

double DeviceMilliseconds(Engine& engine, const std::function<void()>& work) {
  engine.profiler().Start();
  work();
  double total = 0;
  for (const StageTiming& s : engine.profiler().Stop())
    if (s.kind == StageKind::kKernel || s.kind == StageKind::kDeviceCopy) total += s.milliseconds;
  return total;
}

void PrimitiveSizes(benchmark::internal::Benchmark* b) {
  const bool gpu = BenchEngine().info().kind == DeviceKind::kGpu;
  const RowCount largest = BenchRows(gpu ? 100'000'000 : 10'000'000);
  for (RowCount n = 1'000'000; n < largest; n *= 10)
    b->Arg(static_cast<std::int64_t>(n));
  b->Arg(static_cast<std::int64_t>(largest));
  b->UseManualTime()->Unit(benchmark::kMillisecond)->ArgName("rows");
}

double CopyGbps(Engine& engine) {
  static std::map<const Engine*, double> measured;
  auto it = measured.find(&engine);
  if (it != measured.end()) return it->second;
  BandwidthOptions options;
  options.min_bytes =
      std::min<std::uint64_t>(1ull << 30, BandwidthSizeLimit(engine.info(), options));
  options.max_bytes = options.min_bytes;
  options.repeats = 5;
  const double gbps = MeasureBandwidth(engine, options).Peak("d2d-kernel");
  measured[&engine] = gbps;
  return gbps;
}

bool RunBenchmarks(const char* program, bool with_copy_bandwidth,
                   const std::function<void()>& register_benchmarks) {
  try {
    Engine& engine = BenchEngine();
    std::printf("device: %s (%s), %s", engine.info().name.c_str(),
                engine.info().platform_name.c_str(), engine.tuning().Describe().c_str());
    if (with_copy_bandwidth) std::printf(", copy bandwidth %.1f GB/s", CopyGbps(engine));
    std::printf("\n");
    if (register_benchmarks) register_benchmarks();
    benchmark::RunSpecifiedBenchmarks();
  } catch (const std::exception& e) {
    std::fprintf(stderr, "%s: %s\n", program, e.what());
    return false;
  }
  return true;
}

}  // namespace clq::bench
