// The equi-join (operators/hash_join.hpp) on Wisconsin-style keys resident on
// the device: build of tenktup1.unique1 (N unique INT32 keys), probe with
// tenktup2.unique1 (0.6 N keys, all matching; a tenktup1 of 0.6 N rows), and
// the full HashJoin, and the thesis join's SELECT * (join + gather of every
// integer column of both sides), each for the direct table (the default for
// these dense keys), the cuckoo table and the chained fallback.
//
//   CLQ_BENCH_ROWS=1000000 build/bench/join_bench
//
// Build and probe time is device time of their stages (profiling events:
// "join build" / "join key range" versus the "join probe ..." stages); the
// full join is wall time including its blocking reads. Each benchmark runs
// one join per repetition, ten repetitions, and reports min / median / max;
// keys_per_s is per repetition (so its min / median / max are meaningful).
// The answer is checked once per configuration before timing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <map>
#include <set>
#include <string>

#include "bench/bench_support.hpp"
#include "common/errors.hpp"
#include "operators/gather.hpp"
#include "operators/hash_join.hpp"
#include "operators/relation.hpp"

namespace clq::bench {
namespace {

constexpr std::size_t kUnique1 = 0;

struct JoinData {
  Engine& engine;
  RowCount rows;
  TablePtr tenktup1, tenktup2;
  TableRelation r1, r2;
  DeviceVector one_key;  // a 1-row probe, so that a join is (almost) only its build
  DeviceVector quarter;  // tenktup1.unique1 / 4: every key four times (many-to-one)

  JoinData(Engine& e, RowCount n)
      : engine(e),
        rows(n),
        tenktup1(Tenktup1(n)),
        tenktup2(Tenktup1(std::max<RowCount>(1, n * 6 / 10))),
        r1(e, tenktup1),
        r2(e, tenktup2),
        one_key(UploadValues(e, ColumnType::Int32(), std::vector<std::int32_t>{1})),
        quarter(UploadValues(e, ColumnType::Int32(), Quarter(tenktup1))) {
    if (r1.tablets().size() != 1 || r2.tablets().size() != 1)
      throw DeviceLimitError("join_bench needs each table in one tablet on this device");
  }
  VectorView Build() { return {r1.values(kUnique1, 0), cl::Buffer(), ColumnType::Int32(), rows}; }
  VectorView Probe() {
    return {r2.values(kUnique1, 0), cl::Buffer(), ColumnType::Int32(), tenktup2->rows()};
  }
  VectorView OneKey() { return View(one_key); }
  VectorView Quartered() { return View(quarter); }

  static std::vector<std::int32_t> Quarter(const TablePtr& table) {
    const auto u1 = table->column(kUnique1).int32s();
    std::vector<std::int32_t> keys(u1.begin(), u1.end());
    for (auto& k : keys)
      k /= 4;
    return keys;
  }
};

JoinData& Data() {
  Engine& engine = BenchEngine();
  static JoinData data(engine,
                       BenchRows(engine.info().kind == DeviceKind::kGpu ? 100'000'000 : 1'000'000));
  return data;
}

enum class Method { kDirect, kCuckoo, kChained };

const char* MethodName(Method method) {
  return method == Method::kDirect ? "direct" : method == Method::kCuckoo ? "cuckoo" : "chained";
}

JoinOptions OptionsFor(Method method) {
  JoinOptions options;
  options.allow_direct = method == Method::kDirect;
  options.allow_cuckoo = method == Method::kCuckoo;
  return options;
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

// Once per method: the full join gives 0.6 N pairs with equal keys, and the
// method is the expected one.
void CheckOnce(benchmark::State& state, Method method) {
  static std::set<Method> checked;
  if (!checked.insert(method).second) return;
  JoinData& d = Data();
  QueryContext context(d.engine);
  JoinStats stats;
  d.engine.profiler().Start();
  const auto start = std::chrono::steady_clock::now();
  JoinResult result = HashJoin(context, d.Build(), d.Probe(), OptionsFor(method), &stats);
  d.engine.Finish();
  const double wall_ms =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
  // The stage breakdown of one join, as --profile would print it.
  std::printf("%s join of %llu x %llu keys: %.3f ms wall; stages:", stats.method.c_str(),
              static_cast<unsigned long long>(stats.build_rows),
              static_cast<unsigned long long>(stats.probe_rows), wall_ms);
  for (const StageTiming& s : d.engine.profiler().Stop())
    std::printf(" [%s %s %.3f ms x%u]", s.name.c_str(), StageKindName(s.kind), s.milliseconds,
                s.launches);
  std::printf("\n");
  const auto b = DownloadRowIds(d.engine, result.build_positions);
  const auto p = DownloadRowIds(d.engine, result.probe_positions);
  const auto u1 = d.tenktup1->column(kUnique1).int32s();
  const auto u2 = d.tenktup2->column(kUnique1).int32s();
  bool ok = result.size == d.tenktup2->rows();
  for (std::size_t i = 0; ok && i < b.size(); ++i)
    ok = u1[b[i]] == u2[p[i]] && (i == 0 || p[i] > p[i - 1]);
  if (!ok) state.SkipWithError("wrong join answer");
  const bool cuckoo_possible = d.engine.info().int64_atomics;
  const std::string expected =
      method == Method::kCuckoo && !cuckoo_possible ? "chained" : MethodName(method);
  if (stats.method != expected) state.SkipWithError(("unexpected method " + stats.method).c_str());
}

void BM_JoinBuild(benchmark::State& state, Method method) {
  CheckOnce(state, method);
  JoinData& d = Data();
  QueryContext context(d.engine);
  double ms = 0;
  JoinStats stats;
  for (auto _ : state) {
    ms = Profiled(d.engine, [&] {
           HashJoin(context, d.Build(), d.OneKey(), OptionsFor(method), &stats);
         }).build_ms;
    state.SetIterationTime(ms * 1e-3);
  }
  state.counters["keys_per_s"] = static_cast<double>(d.rows) / (ms * 1e-3);
  state.counters["rows"] = static_cast<double>(d.rows);
  // Rebuilds with new seeds are the first suspect when build times vary.
  state.counters["rebuilds"] = static_cast<double>(stats.rebuilds);
}

void BM_JoinProbe(benchmark::State& state, Method method) {
  CheckOnce(state, method);
  JoinData& d = Data();
  QueryContext context(d.engine);
  double ms = 0;
  for (auto _ : state) {
    ms = Profiled(d.engine, [&] {
           HashJoin(context, d.Build(), d.Probe(), OptionsFor(method));
         }).probe_ms;
    state.SetIterationTime(ms * 1e-3);
  }
  state.counters["keys_per_s"] = static_cast<double>(d.tenktup2->rows()) / (ms * 1e-3);
  state.counters["probe_rows"] = static_cast<double>(d.tenktup2->rows());
}

void BM_HashJoin(benchmark::State& state, Method method) {
  CheckOnce(state, method);
  JoinData& d = Data();
  QueryContext context(d.engine);
  double ms = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    JoinResult result = HashJoin(context, d.Build(), d.Probe(), OptionsFor(method));
    d.engine.Finish();
    ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(ms * 1e-3);
  }
  state.counters["keys_per_s"] =
      static_cast<double>(d.rows + d.tenktup2->rows()) / (ms * 1e-3);  // build + probe keys
}

// Duplicate build keys (always the chained table): tenktup1.unique1 / 4 x
// tenktup2.unique1, about 0.6 N pairs (N / 4 keys, four rows each, the probe
// keys below N / 4 match), with and without ordering one probe row's matches.
void BM_HashJoinDuplicates(benchmark::State& state, bool ordered) {
  JoinData& d = Data();
  QueryContext context(d.engine);
  JoinOptions options;
  options.ordered_matches = ordered;
  JoinStats stats;
  double ms = 0;
  for (auto _ : state) {
    const auto start = std::chrono::steady_clock::now();
    JoinResult result = HashJoin(context, d.Quartered(), d.Probe(), options, &stats);
    d.engine.Finish();
    ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    state.SetIterationTime(ms * 1e-3);
  }
  if (stats.method != "chained") state.SkipWithError("expected the chained table");
  state.counters["pairs"] = static_cast<double>(stats.output_rows);
  state.counters["keys_per_s"] = static_cast<double>(d.rows + d.tenktup2->rows()) / (ms * 1e-3);
}

// The thesis join SELECT * FROM tenktup1 t1, tenktup2 t2 WHERE t1.unique1 =
// t2.unique1 on the device: the join (building on tenktup2, the smaller side,
// as the executor does), then a gather of every integer column
// of both sides into device-resident result columns (no download). Wall time
// to the last kernel. `write_ms` is the time just to write the output's bytes
// at the copy bandwidth measured in this run (the copy bandwidth counts bytes
// read plus written, so writing B bytes takes B / copy); `of_write` is that
// floor over the measured time (1 would be the floor; issue 5 asks >= 0.5).
void BM_ThesisJoinSelectStar(benchmark::State& state, Method method) {
  CheckOnce(state, method);
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
    JoinResult result = HashJoin(context, d.Probe(), d.Build(), OptionsFor(method));
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

void Register() {
  const RowCount rows = Data().rows;
  const std::string size = rows % 1'000'000 == 0 ? std::to_string(rows / 1'000'000) + "M"
                           : rows % 1'000 == 0   ? std::to_string(rows / 1'000) + "K"
                                                 : std::to_string(rows);
  for (Method method : {Method::kDirect, Method::kCuckoo, Method::kChained}) {
    auto add = [&](const char* name, void (*fn)(benchmark::State&, Method)) {
      benchmark::RegisterBenchmark(
          (std::string(name) + "/" + MethodName(method) + "/rows:" + size).c_str(),
          [fn, method](benchmark::State& s) { fn(s, method); })
          ->UseManualTime()
          ->Unit(benchmark::kMillisecond)
          ->Iterations(1)
          ->Repetitions(10)
          ->ComputeStatistics(
              "min",
              [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
          ->ComputeStatistics(
              "max",
              [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); })
          ->DisplayAggregatesOnly(true);
    };
    add("BM_JoinBuild", BM_JoinBuild);
    add("BM_JoinProbe", BM_JoinProbe);
    add("BM_HashJoin", BM_HashJoin);
    add("BM_ThesisJoinSelectStar", BM_ThesisJoinSelectStar);
  }
  for (bool ordered : {true, false}) {
    benchmark::RegisterBenchmark(
        (std::string("BM_HashJoinDuplicates/") + (ordered ? "ordered" : "unordered") +
         "/rows:" + size)
            .c_str(),
        [ordered](benchmark::State& s) { BM_HashJoinDuplicates(s, ordered); })
        ->UseManualTime()
        ->Unit(benchmark::kMillisecond)
        ->Iterations(1)
        ->Repetitions(10)
        ->ComputeStatistics(
            "min",
            [](const std::vector<double>& v) { return *std::min_element(v.begin(), v.end()); })
        ->ComputeStatistics(
            "max",
            [](const std::vector<double>& v) { return *std::max_element(v.begin(), v.end()); })
        ->DisplayAggregatesOnly(true);
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
