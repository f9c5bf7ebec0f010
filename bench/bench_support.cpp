#include "bench/bench_support.hpp"

#include <cstdlib>
#include <map>
#include <memory>

#include "runtime/bandwidth.hpp"
#include "runtime/device_selector.hpp"
#include "wisconsin/generator.hpp"

namespace clq::bench {

Engine& BenchEngine() {
  static std::unique_ptr<Engine> engine = [] {
    const std::vector<DeviceHandle> devices = DiscoverDevices();
    std::vector<DeviceInfo> infos;
    for (const DeviceHandle& d : devices) infos.push_back(d.info);
    return std::make_unique<Engine>(devices[ResolveOneDevice(DefaultSelector(), infos)]);
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

double CopyGbps(Engine& engine) {
  static std::map<const Engine*, double> measured;
  auto it = measured.find(&engine);
  if (it != measured.end()) return it->second;
  BandwidthOptions options;
  options.min_bytes = std::min<std::uint64_t>(1ull << 30, BandwidthSizeLimit(engine.info(), options));
  options.max_bytes = options.min_bytes;
  options.repeats = 5;
  const double gbps = MeasureBandwidth(engine, options).Peak("d2d-kernel");
  measured[&engine] = gbps;
  return gbps;
}

}  // namespace clq::bench
