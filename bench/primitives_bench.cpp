// The primitives every pipeline is built from, on tenktup1 resident on the
// device, rows as the benchmark argument:
//   reduce      SUM(unique1) (vm_aggregate + merge)
//   scan        exclusive scan of 32-bit counts (scan_tiles, scan_add_offsets)
//   compaction  row ids where unique1 < rows / 10 (filter -> scan -> scatter)
//   gather      unique2 at the 10% row ids of the compaction
//
//   CLQ_DEVICE=nvidia build/bench/primitives_bench --benchmark_filter=Scan
//
// Time is device time from profiling events (manual time); bytes processed
// are the bytes each primitive must read and write, so Google Benchmark
// prints GB/s; `of_copy` relates it to the device's copy bandwidth measured
// in the same run. Each benchmark checks its answer once against the host.
#include <benchmark/benchmark.h>

#include <cstdio>
#include <numeric>
#include <vector>

#include "bench/bench_support.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "operators/device_program.hpp"
#include "operators/device_vector.hpp"
#include "operators/gather.hpp"
#include "operators/query_context.hpp"
#include "operators/relation.hpp"
#include "operators/scan.hpp"
#include "operators/selection.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq::bench {
namespace {

using namespace clq::testing;  // NOLINT: expression builders

constexpr std::size_t kUnique1 = 0, kUnique2 = 1;

struct Setup {
  Engine& engine = BenchEngine();
  RowCount rows;
  TablePtr table;
  TableRelation relation;
  explicit Setup(RowCount n) : rows(n), table(Tenktup1(n)), relation(engine, table) {}
};

template <typename F>
void Time(benchmark::State& state, Engine& engine, double bytes, F&& run) {
  run();  // warm-up, uploads
  double total_ms = 0;
  for (auto _ : state) {
    const double ms = DeviceMilliseconds(engine, run);
    state.SetIterationTime(ms * 1e-3);
    total_ms += ms;
  }
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  const double gbps = bytes * static_cast<double>(state.iterations()) / (total_ms * 1e6);
  state.counters["GBps"] = gbps;
  state.counters["of_copy"] = gbps / CopyGbps(engine);
}

void BM_ReduceSum(benchmark::State& state) {
  Setup s(static_cast<RowCount>(state.range(0)));
  ExpressionProgram program(s.relation.columns(), [](std::size_t, std::size_t c) { return c; });
  const std::size_t entry = program.AddValue(IntCol(kUnique1));
  QueryContext context(s.engine);
  DeviceProgram device_program(s.engine, program);
  std::vector<AggregateValue> result;
  Time(state, s.engine, 4.0 * static_cast<double>(s.rows), [&] {
    result = Aggregate(context, s.relation, device_program, std::nullopt, {{VM_AGG_SUM_I, entry}});
  });
  const std::int64_t n = static_cast<std::int64_t>(s.rows);
  if (result[0].bits != n * (n - 1) / 2) state.SkipWithError("wrong sum");
}

void BM_ExclusiveScan(benchmark::State& state) {
  Engine& engine = BenchEngine();
  const auto n = static_cast<RowCount>(state.range(0));
  std::vector<std::uint32_t> counts(n);
  for (RowCount i = 0; i < n; ++i)
    counts[i] = static_cast<std::uint32_t>((i * 2654435761u) >> 29);
  DeviceBuffer input = engine.pool().Acquire(n * 4, "scan input");
  DeviceBuffer output = engine.pool().Acquire(n * 4, "scan output");
  DeviceBuffer total = engine.pool().Acquire(4, "scan total");
  engine.Upload(input.get(), 0, n * 4, counts.data(), "scan input");
  const cl::Buffer total_buffer = total.get();
  Time(state, engine, 8.0 * static_cast<double>(n),
       [&] { ExclusiveScan(engine, input.get(), n, output.get(), &total_buffer); });
  std::uint32_t got = 0;
  engine.Download(total.get(), 0, 4, &got, "scan total");
  const std::uint64_t want = std::accumulate(counts.begin(), counts.end(), std::uint64_t{0});
  if (got != static_cast<std::uint32_t>(want)) state.SkipWithError("wrong scan total");
}

// Row ids of unique1 < rows / 10 (10% selectivity).
void BM_Compaction(benchmark::State& state) {
  Setup s(static_cast<RowCount>(state.range(0)));
  ExpressionProgram program(s.relation.columns(), [](std::size_t, std::size_t c) { return c; });
  const std::int64_t bound = static_cast<std::int64_t>(s.rows / 10);
  const std::size_t entry =
      program.AddPredicate(Bin(sql::BinaryOp::kLess, IntCol(kUnique1), Int(bound)));
  QueryContext context(s.engine);
  DeviceProgram device_program(s.engine, program);
  RowIds ids;
  // Reads unique1, writes one id per selected row.
  Time(state, s.engine, 4.0 * static_cast<double>(s.rows) + 4.0 * static_cast<double>(bound),
       [&] { ids = Select(context, s.relation, device_program, entry); });
  if (ids.size != static_cast<RowCount>(bound)) state.SkipWithError("wrong selection size");
}

void BM_Gather(benchmark::State& state) {
  Setup s(static_cast<RowCount>(state.range(0)));
  ExpressionProgram program(s.relation.columns(), [](std::size_t, std::size_t c) { return c; });
  const std::int64_t bound = static_cast<std::int64_t>(s.rows / 10);
  const std::size_t entry =
      program.AddPredicate(Bin(sql::BinaryOp::kLess, IntCol(kUnique1), Int(bound)));
  QueryContext context(s.engine);
  DeviceProgram device_program(s.engine, program);
  const RowIds ids = Select(context, s.relation, device_program, entry);
  DeviceVector out;
  // Reads the ids and the gathered values, writes the values.
  Time(state, s.engine, 12.0 * static_cast<double>(ids.size),
       [&] { out = GatherColumn(s.engine, s.relation, kUnique2, ids); });
  const std::vector<std::int32_t> values = DownloadValues<std::int32_t>(s.engine, out);
  const std::vector<std::uint32_t> host_ids = DownloadRowIds(s.engine, ids);
  const auto unique2 = s.table->column(kUnique2).int32s();
  for (std::size_t i = 0; i < values.size(); i += 997)
    if (values[i] != unique2[host_ids[i]]) state.SkipWithError("wrong gather");
}

BENCHMARK(BM_ReduceSum)->Apply(PrimitiveSizes);
BENCHMARK(BM_ExclusiveScan)->Apply(PrimitiveSizes);
BENCHMARK(BM_Compaction)->Apply(PrimitiveSizes);
BENCHMARK(BM_Gather)->Apply(PrimitiveSizes);

}  // namespace
}  // namespace clq::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!clq::bench::RunBenchmarks("primitives_bench", true)) return 1;
  return 0;
}
