// GROUP BY (operators/group_by.hpp) on random INT32 keys resident on the
// device: 10, 1K and 1M groups, each planned as a direct table (the keys'
// range known), a hash table (unknown) and the sort, with COUNT(*), SUM,
// MIN and MAX of an INT32 column (G1's aggregates), a REAL SUM of a DOUBLE
// column (G15's), and DISTINCT (no aggregates).
//
//   CLQ_DEVICE=pocl CLQ_BENCH_ROWS=10000000 build/bench/group_by_bench
//
// Time is wall time of the whole operator (it reads counts back between
// passes); `device_ms` is the kernels' share from profiling events and
// `ms:<stage>` each stage's. Each configuration checks its answer against a
// CPU count and sum once before timing. CLQ_BENCH_ITERATIONS=N runs exactly
// N timed iterations.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <chrono>
#include <cstdlib>
#include <map>
#include <numeric>
#include <random>
#include <string>

#include "bench/bench_support.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/group_by.hpp"
#include "common/errors.hpp"

namespace clq::bench {
namespace {

RowCount Rows() {
  return BenchRows(BenchEngine().info().kind == DeviceKind::kGpu ? 100'000'000 : 10'000'000);
}

enum class Aggregates { kIntegers, kRealSum, kDistinct };

struct Data {
  RowCount rows = 0;
  RowCount groups = 0;  // distinct keys
  std::vector<std::int32_t> host_keys;
  std::vector<std::int32_t> host_ints;
  DeviceVector keys, ints, reals;
};

// Keys in [0, groups), arguments below 10M (INT32) and their sevenths (DOUBLE).
Data& DataFor(std::uint32_t groups) {
  static std::map<std::uint32_t, Data> cache;
  auto it = cache.find(groups);
  if (it != cache.end()) return it->second;
  Engine& engine = BenchEngine();
  Data& d = cache[groups];
  d.rows = Rows();
  std::mt19937_64 rng(groups);
  d.host_keys.resize(d.rows);
  d.host_ints.resize(d.rows);
  std::vector<double> reals(d.rows);
  for (RowCount r = 0; r < d.rows; ++r) {
    d.host_keys[r] = static_cast<std::int32_t>(rng() % groups);
    d.host_ints[r] = static_cast<std::int32_t>(rng() % 10'000'000);
    reals[r] = d.host_ints[r] / 7.0;
  }
  std::vector<bool> seen(groups);
  for (const std::int32_t k : d.host_keys)
    seen[static_cast<std::size_t>(k)] = true;
  d.groups = static_cast<RowCount>(std::count(seen.begin(), seen.end(), true));
  d.keys = UploadValues(engine, ColumnType::Int32(), d.host_keys);
  d.ints = UploadValues(engine, ColumnType::Int32(), d.host_ints);
  d.reals = UploadValues(engine, ColumnType::Double(), reals);
  return d;
}

void BM_GroupBy(benchmark::State& state, std::uint32_t groups, GroupByStrategy strategy,
                Aggregates aggregates) {
  Engine& engine = BenchEngine();
  QueryContext context(engine);
  Data& d = DataFor(groups);
  std::vector<GroupAggregateSpec> specs;
  if (aggregates == Aggregates::kIntegers) {
    specs = {{VM_AGG_COUNT, std::nullopt},
             {VM_AGG_SUM_I, View(d.ints), 0.5, IntRange{0, 9'999'999}},
             {VM_AGG_MIN_I, View(d.ints)},
             {VM_AGG_MAX_I, View(d.ints)}};
  } else if (aggregates == Aggregates::kRealSum) {
    specs = {{VM_AGG_COUNT, std::nullopt}, {VM_AGG_SUM_R, View(d.reals)}};
  }
  std::vector<GroupAggregateInfo> infos;
  for (const GroupAggregateSpec& s : specs)
    infos.push_back(AggregateInfoOf(s));
  GroupByOptions options;
  options.strategy = strategy;
  const std::optional<IntRange> key_range =
      strategy == GroupByStrategy::kDirect
          ? std::optional<IntRange>(IntRange{0, static_cast<std::int64_t>(groups) - 1})
          : std::nullopt;
  const GroupByPlan plan =
      PlanGroupBy(engine.info(), engine.tuning(), {KeyInfoOf(View(d.keys), key_range)}, infos,
                  d.rows, std::nullopt, options);
  const auto run = [&] { return GroupBy(context, plan, {View(d.keys)}, specs, d.rows); };
  {
    const GroupByResult result = run();
    if (result.groups != d.groups) throw InternalError("group_by_bench: wrong group count");
    if (aggregates == Aggregates::kIntegers) {
      const std::vector<std::int64_t> sums =
          DownloadValues<std::int64_t>(engine, result.aggregates[1].values);
      if (std::accumulate(sums.begin(), sums.end(), std::int64_t{0}) !=
          std::accumulate(d.host_ints.begin(), d.host_ints.end(), std::int64_t{0}))
        throw InternalError("group_by_bench: group sums do not add up");
    }
    state.SetLabel(plan.Describe());
  }
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
  for (const auto& [name, ms] : stage_ms)
    state.counters["ms:" + name] = ms / iterations;
  state.counters["rows"] = static_cast<double>(d.rows);
  state.SetItemsProcessed(static_cast<std::int64_t>(d.rows) * state.iterations());
}

void Register() {
  // CLQ_BENCH_ITERATIONS=N: exactly N timed iterations (for measuring the
  // process's CPU time by difference; Google Benchmark 1.7 has no flag).
  const char* fixed = std::getenv("CLQ_BENCH_ITERATIONS");
  const long iterations = fixed != nullptr ? std::atol(fixed) : 0;
  const std::pair<GroupByStrategy, const char*> strategies[] = {
      {GroupByStrategy::kDirect, "direct"},
      {GroupByStrategy::kHash, "hash"},
      {GroupByStrategy::kSort, "sort"}};
  const std::pair<Aggregates, const char*> kinds[] = {{Aggregates::kIntegers, "count_sum_min_max"},
                                                      {Aggregates::kRealSum, "real_sum"},
                                                      {Aggregates::kDistinct, "distinct"}};
  for (const std::uint32_t groups : {10u, 1000u, 1'000'000u}) {
    for (const auto& [kind, kind_name] : kinds) {
      for (const auto& [strategy, name] : strategies) {
        benchmark::internal::Benchmark* bench =
            benchmark::RegisterBenchmark(
                (std::string("BM_GroupBy/") + kind_name + "/" + name +
                 "/groups:" + std::to_string(groups))
                    .c_str(),
                [groups, strategy = strategy, kind = kind](benchmark::State& s) {
                  BM_GroupBy(s, groups, strategy, kind);
                })
                ->UseManualTime()
                ->Unit(benchmark::kMillisecond);
        if (iterations > 0) {
          bench->Iterations(iterations);
        } else {
          bench->MinTime(0.5);
        }
      }
    }
  }
}

}  // namespace
}  // namespace clq::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!clq::bench::RunBenchmarks("group_by_bench", false, clq::bench::Register)) return 1;
  benchmark::Shutdown();
  return 0;
}
