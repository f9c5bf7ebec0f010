// Sorting and grouping operators on random device-resident columns:
// SortPermutation of INT32 keys, GroupBy with 10 and 1M groups (COUNT(*) and
// SUM of an INT64 column), TopK (ORDER BY DESC LIMIT k, random and
// ascending keys), SelectKth (the
// median).
//
//   CLQ_DEVICE=pocl CLQ_BENCH_ROWS=1000000 build/bench/sort_bench
//
// Time is wall time of the whole operator (it reads small counts back between
// passes, so host round trips count); `device_ms` is the kernels' share from
// profiling events, and `ms:<stage>` each stage's. Each benchmark checks its answer on the CPU
// once.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <functional>
#include <map>
#include <numeric>
#include <random>

#include "bench/bench_support.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/group_by.hpp"
#include "operators/sort.hpp"
#include "operators/top_k.hpp"
#include "common/errors.hpp"

namespace clq::bench {
namespace {

RowCount Rows() {
  return BenchRows(BenchEngine().info().kind == DeviceKind::kGpu ? 100'000'000 : 4'000'000);
}

template <typename T>
std::vector<T> RandomValues(RowCount rows, std::uint64_t modulus, std::uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<T> values(rows);
  for (T& v : values)
    v = static_cast<T>(rng() % modulus);
  return values;
}

template <typename F>
void Loop(benchmark::State& state, Engine& engine, RowCount rows, F&& run) {
  run();  // warm-up
  double device_ms = 0;
  std::map<std::string, double> stage_ms;
  for (auto _ : state) {
    const auto begin = std::chrono::steady_clock::now();
    engine.profiler().Start();
    run();
    engine.Finish();
    for (const StageTiming& s : engine.profiler().Stop()) {
      if (s.kind != StageKind::kKernel && s.kind != StageKind::kDeviceCopy) continue;
      device_ms += s.milliseconds;
      stage_ms[s.name] += s.milliseconds;
    }
    const std::chrono::duration<double> seconds = std::chrono::steady_clock::now() - begin;
    state.SetIterationTime(seconds.count());
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.counters["device_ms"] = device_ms / iterations;
  // Per-stage device time, for --benchmark_counters_tabular or JSON output.
  for (const auto& [name, ms] : stage_ms)
    state.counters["ms:" + name] = ms / iterations;
  state.counters["rows"] = static_cast<double>(rows);
  state.SetItemsProcessed(static_cast<std::int64_t>(rows) * state.iterations());
}

void BM_SortInt32(benchmark::State& state) {
  Engine& engine = BenchEngine();
  QueryContext context(engine);
  const RowCount rows = Rows();
  const std::vector<std::int32_t> host =
      RandomValues<std::int32_t>(rows, std::uint64_t{1} << 32, 1);
  DeviceVector keys = UploadValues(engine, ColumnType::Int32(), host);
  {
    const std::vector<std::uint32_t> got =
        DownloadRowIds(engine, SortPermutation(context, {{View(keys), false}}, rows));
    for (RowCount i = 1; i < rows; ++i)
      if (host[got[i - 1]] > host[got[i]]) throw InternalError("sort_bench: unsorted result");
  }
  Loop(state, engine, rows, [&] { SortPermutation(context, {{View(keys), false}}, rows); });
}

void BM_GroupBy(benchmark::State& state) {
  Engine& engine = BenchEngine();
  QueryContext context(engine);
  const RowCount rows = Rows();
  const auto groups = static_cast<std::uint64_t>(state.range(0));
  const std::vector<std::int32_t> host_keys = RandomValues<std::int32_t>(rows, groups, 2);
  const std::vector<std::int64_t> host_values = RandomValues<std::int64_t>(rows, 1000, 3);
  DeviceVector keys = UploadValues(engine, ColumnType::Int32(), host_keys);
  DeviceVector values = UploadValues(engine, ColumnType::Int64(), host_values);
  const std::vector<GroupAggregateSpec> specs = {{VM_AGG_COUNT, std::nullopt},
                                                 {VM_AGG_SUM_I, View(values)}};
  {
    const GroupByResult result = GroupBy(context, {View(keys)}, specs, rows);
    const std::vector<std::int64_t> sums =
        DownloadValues<std::int64_t>(engine, result.aggregates[1].values);
    const std::int64_t total = std::accumulate(sums.begin(), sums.end(), std::int64_t{0});
    if (total != std::accumulate(host_values.begin(), host_values.end(), std::int64_t{0}))
      throw InternalError("sort_bench: group sums do not add up");
    state.counters["groups"] = static_cast<double>(result.groups);
  }
  Loop(state, engine, rows, [&] { GroupBy(context, {View(keys)}, specs, rows); });
}

// ORDER BY key DESC LIMIT k over INT32 keys: random (range(1) == 0) or
// ascending (range(1) == 1, every row beats the rows before it); with
// range(2) == 1 top_k_groups whatever k (to place the plan's limit).
void BM_TopK(benchmark::State& state) {
  Engine& engine = BenchEngine();
  QueryContext context(engine);
  const RowCount rows = Rows();
  const auto k = static_cast<RowCount>(state.range(0));
  std::vector<std::int32_t> host = RandomValues<std::int32_t>(rows, std::uint64_t{1} << 32, 5);
  if (state.range(1) == 1) std::iota(host.begin(), host.end(), 0);
  DeviceVector keys = UploadValues(engine, ColumnType::Int32(), host);
  const std::vector<SortKey> sort_keys = {{View(keys), true}};
  TopKOptions options;
  if (state.range(2) == 1) options.max_group_k = k;
  const TopKPlan plan =
      PlanTopK(engine.info(), engine.tuning(), TopKKeysOf(sort_keys), rows, k, options);
  state.SetLabel(plan.Describe());
  {
    const std::vector<std::uint32_t> got =
        DownloadRowIds(engine, TopK(context, plan, sort_keys, rows).positions);
    std::vector<std::int32_t> want = host;
    std::partial_sort(want.begin(), want.begin() + static_cast<std::ptrdiff_t>(k), want.end(),
                      std::greater<>());
    for (RowCount i = 0; i < k; ++i)
      if (host[got[i]] != want[i]) throw InternalError("sort_bench: wrong top-k");
  }
  Loop(state, engine, rows, [&] { TopK(context, plan, sort_keys, rows); });
}

void BM_SelectKth(benchmark::State& state) {
  Engine& engine = BenchEngine();
  QueryContext context(engine);
  const RowCount rows = Rows();
  std::vector<std::int64_t> host = RandomValues<std::int64_t>(rows, std::uint64_t{1} << 40, 4);
  DeviceVector values = UploadValues(engine, ColumnType::Int64(), host);
  {
    const auto got = SelectKth(context, View(values), rows, rows / 2);
    std::nth_element(host.begin(), host.begin() + static_cast<std::ptrdiff_t>(rows / 2),
                     host.end());
    if (!got || got->integer != host[rows / 2]) throw InternalError("sort_bench: wrong median");
  }
  Loop(state, engine, rows, [&] { SelectKth(context, View(values), rows, rows / 2); });
}

BENCHMARK(BM_SortInt32)->UseManualTime()->Unit(benchmark::kMillisecond);
BENCHMARK(BM_GroupBy)
    ->ArgName("groups")
    ->Arg(10)
    ->Arg(1'000'000)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_TopK)
    ->ArgNames({"k", "ascending", "groups"})
    ->ArgsProduct({{10, 100, 1000, 4096}, {0, 1}, {0}})
    ->ArgsProduct({{16384, 65536, 262144}, {0, 1}, {1}})
    ->Args({65536, 0, 0})
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond);
BENCHMARK(BM_SelectKth)->UseManualTime()->Unit(benchmark::kMillisecond);

}  // namespace
}  // namespace clq::bench

BENCHMARK_MAIN();
