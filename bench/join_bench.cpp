// The equi-join (operators/hash_join.hpp) on Wisconsin-style keys resident on
// the device.
//
// Per method (the plan's own, and each method forced: direct with the CPU
// and with the GPU kernels, dense, cuckoo, chained):
//  - BM_JoinBuild / BM_JoinProbe / BM_HashJoin: build of tenktup1.unique1
//    (N unique INT32 keys), probe with tenktup2.unique1 (0.6 N keys, all
//    matching; a tenktup1 of 0.6 N rows), and the full HashJoin;
//  - BM_ThesisJoinSelectStar: the thesis join's SELECT * (join + gather of
//    every integer column of both sides);
//  - BM_JoinShape: the joins of `clq bench --suite general` (and the thesis
//    L11), keys built on the host as the executor would hand them over:
//      G6   tenktup2.unique1 where ten = 3 (N / 10 keys over N values) x
//           tenktup1.unique1 (N, random order), 10% of the probe matches;
//      G7   tenktup1.unique1 (N) x tenktup2.unique2 (N, ascending);
//      G8b  tenktup1.unique2 of the rows with unique1 < N / 10 x
//           tenktup2.unique2 (G8's second join);
//      G9   onektup.onePercent where unique2 < 100 (100 keys, 100 values,
//           repeated) x tenktup2.onePercent (N): about N pairs;
//      L11  tenktup2.unique1 (0.6 N) x tenktup1.unique1 (N);
//      Q4   tenktup1.unique1 / 4 (N keys, each value four times) x a
//           tenktup1.unique1 of 0.6 N rows: N pairs, repeated build keys
//           over a range of N / 4 values.
//
//   CLQ_BENCH_ROWS=10000000 build/bench/join_bench --benchmark_filter=Shape
//
// Build and probe time is device time of their stages (profiling events:
// "join build" / "join key range" versus the "join probe ..." stages); the
// full join and the shapes are wall time including their blocking reads,
// with the process's CPU time beside it (cpu_ms: user + system time of
// every thread, the device's worker threads included on CPU devices; on a
// shared machine it varies far less than wall time). Each benchmark runs
// one join per repetition, ten repetitions, and reports min / median / max.
// The answer is checked once per configuration before timing.
#include <benchmark/benchmark.h>
#include <sys/resource.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <functional>
#include <map>
#include <optional>
#include <set>
#include <span>
#include <string>
#include <unordered_map>
#include <vector>

#include "bench/bench_support.hpp"
#include "common/errors.hpp"
#include "operators/gather.hpp"
#include "operators/hash_join.hpp"
#include "operators/relation.hpp"
#include "wisconsin/generator.hpp"

namespace clq::bench {
namespace {

constexpr std::size_t kUnique1 = 0, kUnique2 = 1, kTen = 4, kOnePercent = 6;

struct JoinData {
  Engine& engine;
  RowCount rows;
  TablePtr tenktup1, tenktup2;
  TableRelation r1, r2;
  DeviceVector one_key;  // a 1-row probe, so that a join is (almost) only its build

  JoinData(Engine& e, RowCount n)
      : engine(e),
        rows(n),
        tenktup1(Tenktup1(n)),
        tenktup2(Tenktup1(std::max<RowCount>(1, n * 6 / 10))),
        r1(e, tenktup1),
        r2(e, tenktup2),
        one_key(UploadValues(e, ColumnType::Int32(), std::vector<std::int32_t>{1})) {
    if (r1.tablets().size() != 1 || r2.tablets().size() != 1)
      throw DeviceLimitError("join_bench needs each table in one tablet on this device");
  }
  VectorView Build() { return {r1.values(kUnique1, 0), cl::Buffer(), ColumnType::Int32(), rows}; }
  VectorView Probe() {
    return {r2.values(kUnique1, 0), cl::Buffer(), ColumnType::Int32(), tenktup2->rows()};
  }
  VectorView OneKey() { return View(one_key); }
};

JoinData& Data() {
  Engine& engine = BenchEngine();
  static JoinData data(engine,
                       BenchRows(engine.info().kind == DeviceKind::kGpu ? 100'000'000 : 1'000'000));
  return data;
}

// A configuration: the plan's own methods, or one method forced.
struct Config {
  const char* name;
  std::vector<JoinMethod> methods;  // empty: the plan's
  std::optional<bool> cpu_kernels;
};

const std::vector<Config>& Configs() {
  static const std::vector<Config> configs = {
      {"plan", {}, std::nullopt},
      {"direct-cpu", {JoinMethod::kDirect}, true},
      {"direct-gpu", {JoinMethod::kDirect}, false},
      {"rank", {JoinMethod::kRank}, std::nullopt},
      {"dense", {JoinMethod::kDense}, std::nullopt},
      {"cuckoo", {JoinMethod::kCuckoo}, std::nullopt},
      {"chained", {JoinMethod::kChained}, std::nullopt},
  };
  return configs;
}

JoinOptions OptionsFor(const Config& config) {
  JoinOptions options;
  options.methods = config.methods;
  options.cpu_kernels = config.cpu_kernels;
  return options;
}

double CpuMilliseconds() {
  rusage usage{};
  getrusage(RUSAGE_SELF, &usage);
  const auto ms = [](const timeval& t) {
    return static_cast<double>(t.tv_sec) * 1e3 + static_cast<double>(t.tv_usec) * 1e-3;
  };
  return ms(usage.ru_utime) + ms(usage.ru_stime);
}

struct Split {
  double build_ms = 0, probe_ms = 0;
};

Split Profiled(Engine& engine, const std::function<void()>& work) {
  engine.profiler().Start();
  work();
  Split split;
  for (const StageTiming& s : engine.profiler().Stop()) {
    if (s.kind != StageKind::kKernel && s.kind != StageKind::kDeviceCopy) continue;
    const bool build = s.name.starts_with("join build") || s.name.starts_with("join key range");
    (build ? split.build_ms : split.probe_ms) += s.milliseconds;
  }
  return split;
}

// Checks the pairs against the host keys: equal keys, ascending probe
// positions, `expected` pairs.
bool PairsAgree(Engine& engine, const JoinResult& result, std::span<const std::int32_t> build,
                std::span<const std::int32_t> probe, RowCount expected) {
  const auto b = DownloadRowIds(engine, result.build_positions);
  const auto p = DownloadRowIds(engine, result.probe_positions);
  bool ok = result.size == expected;
  for (std::size_t i = 0; ok && i < b.size(); ++i)
    ok = build[b[i]] == probe[p[i]] &&
         (i == 0 || p[i] > p[i - 1] || (p[i] == p[i - 1] && b[i] > b[i - 1]));
  return ok;
}

// Once per configuration: the full join gives 0.6 N pairs with equal keys.
void CheckOnce(benchmark::State& state, const Config& config) {
  static std::set<std::string> checked;
  if (!checked.insert(config.name).second) return;
  JoinData& d = Data();
  QueryContext context(d.engine);
  JoinStats stats;
  d.engine.profiler().Start();
  const auto start = std::chrono::steady_clock::now();
  JoinResult result = HashJoin(context, d.Build(), d.Probe(), OptionsFor(config), &stats);
  d.engine.Finish();
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // The stage breakdown of one join, as --profile would print it.
  std::printf("%s: %s join of %llu x %llu keys: %.3f ms wall; stages:", config.name,
              stats.method.c_str(), static_cast<unsigned long long>(stats.build_rows),
              static_cast<unsigned long long>(stats.probe_rows), wall_ms);
  for (const StageTiming& s : d.engine.profiler().Stop())
    std::printf(" [%s %s %.3f ms x%u]", s.name.c_str(), StageKindName(s.kind), s.milliseconds,
                s.launches);
  std::printf("\n");
  if (!PairsAgree(d.engine, result, d.tenktup1->column(kUnique1).int32s(),
                  d.tenktup2->column(kUnique1).int32s(), d.tenktup2->rows()))
    state.SkipWithError("wrong join answer");
}

void BM_JoinBuild(benchmark::State& state, const Config& config) {
  CheckOnce(state, config);
  JoinData& d = Data();
  QueryContext context(d.engine);
  double ms = 0;
  JoinStats stats;
  for (auto _ : state) {
    ms = Profiled(d.engine, [&] {
           HashJoin(context, d.Build(), d.OneKey(), OptionsFor(config), &stats);
         }).build_ms;
    state.SetIterationTime(ms * 1e-3);
  }
  state.counters["keys_per_s"] = static_cast<double>(d.rows) / (ms * 1e-3);
  state.counters["rows"] = static_cast<double>(d.rows);
  // Rebuilds with new seeds are the first suspect when build times vary.
  state.counters["rebuilds"] = static_cast<double>(stats.rebuilds);
}

void BM_JoinProbe(benchmark::State& state, const Config& config) {
  CheckOnce(state, config);
  JoinData& d = Data();
  QueryContext context(d.engine);
  double ms = 0;
  for (auto _ : state) {
    ms = Profiled(d.engine, [&] {
           HashJoin(context, d.Build(), d.Probe(), OptionsFor(config));
         }).probe_ms;
    state.SetIterationTime(ms * 1e-3);
  }
  state.counters["keys_per_s"] = static_cast<double>(d.tenktup2->rows()) / (ms * 1e-3);
  state.counters["probe_rows"] = static_cast<double>(d.tenktup2->rows());
}

void BM_HashJoin(benchmark::State& state, const Config& config) {
  CheckOnce(state, config);
  JoinData& d = Data();
  QueryContext context(d.engine);
  double ms = 0, cpu_ms = 0;
  for (auto _ : state) {
    const double cpu_start = CpuMilliseconds();
    const auto start = std::chrono::steady_clock::now();
    JoinResult result = HashJoin(context, d.Build(), d.Probe(), OptionsFor(config));
    d.engine.Finish();
    ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    cpu_ms = CpuMilliseconds() - cpu_start;
    state.SetIterationTime(ms * 1e-3);
  }
  state.counters["cpu_ms"] = cpu_ms;
  state.counters["keys_per_s"] =
      static_cast<double>(d.rows + d.tenktup2->rows()) / (ms * 1e-3);  // build + probe keys
}

// The thesis join SELECT * FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 =
// t2.unique1 on the device: the join (building on tenktup2, the smaller side,
// as the executor does), then a gather of every integer column
// of both sides into device-resident result columns (no download). Wall time
// to the last kernel. `write_ms` is the time just to write the output's bytes
// at the copy bandwidth measured in this run (the copy bandwidth counts bytes
// read plus written, so writing B bytes takes B / copy); `of_write` is that
// floor over the measured time (1 would be the floor; issue 5 asks >= 0.5).
void BM_ThesisJoinSelectStar(benchmark::State& state, const Config& config) {
  CheckOnce(state, config);
  JoinData& d = Data();
  QueryContext context(d.engine);
  std::vector<std::size_t> columns;
  double row_bytes = 0;
  for (std::size_t c = 0; c < d.tenktup1->columns().size(); ++c) {
    if (!d.tenktup1->column(c).type().is_integer()) continue;
    columns.push_back(c);
    row_bytes += 2.0 * d.tenktup1->column(c).type().width;  // both sides
  }
  double ms = 0, join_ms = 0;
  RowCount pairs = 0;
  for (auto _ : state) {
    std::vector<DeviceVector> outputs;
    const auto start = std::chrono::steady_clock::now();
    // The executor builds on the smaller input: tenktup2's 0.6 N keys.
    JoinResult result = HashJoin(context, d.Probe(), d.Build(), OptionsFor(config));
    d.engine.Finish();
    join_ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    // As the executor gathers: the columns of one side together.
    outputs = GatherColumns(d.engine, d.r1, columns, result.probe_positions);
    for (DeviceVector& v : GatherColumns(d.engine, d.r2, columns, result.build_positions))
      outputs.push_back(std::move(v));
    d.engine.Finish();
    ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    pairs = result.size;
    state.SetIterationTime(ms * 1e-3);
  }
  const double output_bytes = row_bytes * static_cast<double>(pairs);
  const double write_ms = output_bytes / (CopyGbps(d.engine) * 1e6);
  state.counters["pairs"] = static_cast<double>(pairs);
  state.counters["output_GB"] = output_bytes * 1e-9;
  state.counters["join_ms"] = join_ms;
  state.counters["write_ms"] = write_ms;
  state.counters["of_write"] = write_ms / ms;
}

// The general suite's join shapes (see the top of the file), N = the
// tenktup1 rows of Data().
struct Shape {
  std::vector<std::int32_t> build, probe;
  DeviceVector build_keys, probe_keys;
  RowCount pairs = 0;  // checked once per configuration
};

std::vector<std::int32_t> Column(const TablePtr& table, std::size_t column) {
  const auto values = table->column(column).int32s();
  return {values.begin(), values.end()};
}

Shape& ShapeData(const std::string& name) {
  static std::map<std::string, Shape> shapes;
  auto it = shapes.find(name);
  if (it != shapes.end()) return it->second;
  JoinData& d = Data();
  const RowCount n = d.rows;
  static const TablePtr tenktup2 = GenerateWisconsinTable("tenktup2", n);
  static const TablePtr onektup = GenerateWisconsinTable("onektup", std::max<RowCount>(n / 10, 1));
  Shape shape;
  if (name == "G6") {
    const auto keys = Column(tenktup2, kUnique1), ten = Column(tenktup2, kTen);
    for (std::size_t i = 0; i < keys.size(); ++i)
      if (ten[i] == 3) shape.build.push_back(keys[i]);
    shape.probe = Column(d.tenktup1, kUnique1);
  } else if (name == "G7") {
    shape.build = Column(d.tenktup1, kUnique1);
    shape.probe = Column(tenktup2, kUnique2);
  } else if (name == "G8b") {
    const auto u1 = Column(d.tenktup1, kUnique1), u2 = Column(d.tenktup1, kUnique2);
    for (std::size_t i = 0; i < u1.size(); ++i)
      if (static_cast<RowCount>(u1[i]) < n / 10) shape.build.push_back(u2[i]);
    shape.probe = Column(tenktup2, kUnique2);
  } else if (name == "G9") {
    const auto u2 = Column(onektup, kUnique2), one_percent = Column(onektup, kOnePercent);
    for (std::size_t i = 0; i < u2.size(); ++i)
      if (u2[i] < 100) shape.build.push_back(one_percent[i]);
    shape.probe = Column(tenktup2, kOnePercent);
  } else if (name == "Q4") {
    shape.build = Column(d.tenktup1, kUnique1);
    for (std::int32_t& key : shape.build)
      key /= 4;
    shape.probe = Column(d.tenktup2, kUnique1);
  } else {  // L11
    shape.build = Column(d.tenktup2, kUnique1);
    shape.probe = Column(d.tenktup1, kUnique1);
  }
  std::unordered_map<std::int32_t, RowCount> per_key;
  for (const std::int32_t k : shape.build)
    ++per_key[k];
  for (const std::int32_t k : shape.probe) {
    const auto found = per_key.find(k);
    if (found != per_key.end()) shape.pairs += found->second;
  }
  shape.build_keys = UploadValues(d.engine, ColumnType::Int32(), shape.build);
  shape.probe_keys = UploadValues(d.engine, ColumnType::Int32(), shape.probe);
  return shapes.emplace(name, std::move(shape)).first->second;
}

void BM_JoinShape(benchmark::State& state, const std::string& name, const Config& config) {
  JoinData& d = Data();
  Shape& shape = ShapeData(name);
  QueryContext context(d.engine);
  JoinStats stats;
  static std::set<std::string> checked;
  if (checked.insert(name + config.name).second) {
    const JoinResult result = HashJoin(context, View(shape.build_keys), View(shape.probe_keys),
                                       OptionsFor(config), &stats);
    if (!PairsAgree(d.engine, result, shape.build, shape.probe, shape.pairs))
      state.SkipWithError("wrong join answer");
  }
  double ms = 0, cpu_ms = 0;
  for (auto _ : state) {
    const double cpu_start = CpuMilliseconds();
    const auto start = std::chrono::steady_clock::now();
    JoinResult result = HashJoin(context, View(shape.build_keys), View(shape.probe_keys),
                                 OptionsFor(config), &stats);
    d.engine.Finish();
    ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    cpu_ms = CpuMilliseconds() - cpu_start;
    state.SetIterationTime(ms * 1e-3);
  }
  state.SetLabel(stats.method);
  state.counters["cpu_ms"] = cpu_ms;
  state.counters["pairs"] = static_cast<double>(stats.output_rows);
  state.counters["build_rows"] = static_cast<double>(shape.build.size());
}

benchmark::internal::Benchmark* Timed(benchmark::internal::Benchmark* b) {
  return b->UseManualTime()
      ->Unit(benchmark::kMillisecond)
      ->Iterations(1)
      ->Repetitions(10)
      ->ComputeStatistics(
          "min", [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
      ->ComputeStatistics(
          "max", [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); })
      ->DisplayAggregatesOnly(true);
}

void Register() {
  const RowCount rows = Data().rows;
  const std::string size = rows % 1'000'000 == 0 ? std::to_string(rows / 1'000'000) + "M"
                           : rows % 1'000 == 0   ? std::to_string(rows / 1'000) + "K"
                                                 : std::to_string(rows);
  for (const Config& config : Configs()) {
    if (config.methods == std::vector<JoinMethod>{JoinMethod::kDense}) continue;  // unique keys
    auto add = [&](const char* name, void (*fn)(benchmark::State&, const Config&)) {
      Timed(benchmark::RegisterBenchmark(
          (std::string(name) + "/" + config.name + "/rows:" + size).c_str(),
          [fn, &config](benchmark::State& s) { fn(s, config); }));
    };
    add("BM_JoinBuild", BM_JoinBuild);
    add("BM_JoinProbe", BM_JoinProbe);
    add("BM_HashJoin", BM_HashJoin);
    add("BM_ThesisJoinSelectStar", BM_ThesisJoinSelectStar);
  }
  for (const char* shape : {"G6", "G7", "G8b", "G9", "L11", "Q4"}) {
    for (const Config& config : Configs()) {
      Timed(benchmark::RegisterBenchmark(
          (std::string("BM_JoinShape/") + shape + "/" + config.name + "/rows:" + size).c_str(),
          [shape, &config](benchmark::State& s) { BM_JoinShape(s, shape, config); }));
    }
  }
}

}  // namespace
}  // namespace clq::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!clq::bench::RunBenchmarks("join_bench", false, clq::bench::Register)) return 1;
  benchmark::Shutdown();
  return 0;
}
