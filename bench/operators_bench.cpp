// The thesis's single-table queries through the engine's operators (the
// expression machine), each beside a hand-written kernel for the same query
// (bench/yardstick.cl), on tenktup1 resident on the device.
//
//   CLQ_DEVICE=nvidia CLQ_BENCH_ROWS=100000000 build/bench/operators_bench
//
// Time is device time from profiling events (manual time); bytes are the
// bytes each query must read and write; `of_copy` is the achieved GB/s over
// the device's copy bandwidth measured in the same run. The summary at the
// end gives machine/yardstick time ratios. Each benchmark checks its answer
// against the yardstick (or the CPU) once before timing.
#include <benchmark/benchmark.h>

#include <algorithm>
#include <bit>
#include <cstdio>
#include <cstdlib>
#include <limits>
#include <map>
#include <numeric>

#include "bench/bench_support.hpp"
#include "common/errors.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "operators/device_program.hpp"
#include "operators/projection.hpp"
#include "operators/query_context.hpp"
#include "operators/relation.hpp"
#include "operators/selection.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq::bench {
namespace {

using namespace clq::testing;  // NOLINT: expression builders

constexpr std::size_t kUnique1 = 0, kUnique2 = 1, kTwo = 2, kOnePercent = 6, kTenPercent = 7;

std::map<std::string, double>& MeanMilliseconds() {
  static std::map<std::string, double> means;
  return means;
}

struct Fixture {
  Engine& engine = BenchEngine();
  RowCount rows = BenchRows(engine.info().kind == DeviceKind::kGpu ? 100'000'000 : 20'000'000);
  TablePtr table = Tenktup1(rows);
  TableRelation relation{engine, table};
  std::map<std::string, cl::Kernel, std::less<>> hand = [this] {
    static std::map<const Engine*, std::map<std::string, cl::Kernel, std::less<>>> built;
    auto& kernels = built[&engine];
    if (kernels.empty()) kernels = engine.BuildExtraKernels(YardstickKernelSources());
    return kernels;
  }();
  cl::Buffer Column(std::size_t c) { return relation.values(c, 0); }
  void RequireOneTablet() {
    if (relation.tablets().size() != 1)
      throw DeviceLimitError("the yardsticks need tenktup1 in one tablet on this device");
  }
};

void Report(benchmark::State& state, const std::string& name, double bytes_per_row, RowCount rows,
            double total_ms, Engine& engine) {
  const double mean_ms = total_ms / static_cast<double>(state.iterations());
  MeanMilliseconds()[name] = mean_ms;
  const double gbps = bytes_per_row * static_cast<double>(rows) / (mean_ms * 1e6);
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes_per_row * static_cast<double>(rows)) *
                          state.iterations());
  state.counters["GBps"] = gbps;
  state.counters["of_copy"] = gbps / CopyGbps(engine);
  state.counters["rows"] = static_cast<double>(rows);
}

template <typename F>
void Loop(benchmark::State& state, const std::string& name, double bytes_per_row, Fixture& f,
          F&& run) {
  run();  // warm-up (and uploads)
  double total = 0;
  for (auto _ : state) {
    const double ms = DeviceMilliseconds(f.engine, run);
    state.SetIterationTime(ms * 1e-3);
    total += ms;
  }
  Report(state, name, bytes_per_row, f.rows, total, f.engine);
}

// Reduces yardstick partials (one long per work-group) on the host.
std::int64_t HostMax(Engine& e, const cl::Buffer& partials, std::uint64_t groups) {
  std::vector<std::int64_t> host(groups);
  e.Download(partials, 0, groups * 8, host.data(), "partials");
  return *std::max_element(host.begin(), host.end());
}

void BM_Projection_Machine(benchmark::State& state) {
  Fixture f;
  ExpressionProgram program(f.relation.columns(), [](std::size_t, std::size_t c) { return c; });
  const std::size_t entry = program.AddValue(Bin(Op::kAdd, IntCol(kUnique1), IntCol(kUnique2)));
  QueryContext context(f.engine);
  DeviceProgram device_program(f.engine, program);
  DeviceVector out;
  // 4 + 4 bytes read, 4 written: the range analysis proves the sum fits INT32.
  Loop(state, "projection/machine", 12, f,
       [&] { out = Project(context, f.relation, device_program, entry); });
  context.CheckStatus();
  if (out.type != ColumnType::Int32()) state.SkipWithError("projection not narrowed to INT32");
  const auto values = DownloadValues<std::int32_t>(f.engine, out);
  const auto u1 = f.table->column(kUnique1).int32s();
  const auto u2 = f.table->column(kUnique2).int32s();
  for (RowCount i = 0; i < f.rows; i += 9973)
    if (values[i] != static_cast<std::int64_t>(u1[i]) + u2[i]) state.SkipWithError("wrong answer");
}

void BM_Projection_Handwritten(benchmark::State& state) {
  Fixture f;
  f.RequireOneTablet();
  DeviceBuffer out = f.engine.pool().Acquire(f.rows * 4, "out");
  cl::Kernel& k = f.hand.at("yardstick_projection");
  k.setArg(0, f.Column(kUnique1));
  k.setArg(1, f.Column(kUnique2));
  k.setArg(2, static_cast<cl_ulong>(f.rows));
  k.setArg(3, out.get());
  Loop(state, "projection/handwritten", 12, f,
       [&] { f.engine.Launch(k, f.engine.TilesFor(f.rows), "yardstick"); });
}

void AggregateMachine(benchmark::State& state, const std::string& name, const sql::Expr& expr,
                      std::uint32_t op, const QueryOptions& options = {}) {
  Fixture f;
  ExpressionProgram program(f.relation.columns(), [](std::size_t, std::size_t c) { return c; });
  const std::size_t entry = program.AddValue(expr);
  QueryContext context(f.engine, options);
  DeviceProgram device_program(f.engine, program, options);
  std::vector<AggregateValue> result;
  Loop(state, name, 8, f, [&] {
    result = Aggregate(context, f.relation, device_program, std::nullopt, {{op, entry}});
  });
  state.counters["result"] =
      op == VM_AGG_MAX_R ? result[0].real() : static_cast<double>(result[0].bits);
}

void BM_MaxAggregate_Machine(benchmark::State& state) {
  AggregateMachine(
      state, "max_int/machine",
      Bin(Op::kDivide, Bin(Op::kMultiply, IntCol(kUnique1), IntCol(kTenPercent)), Int(100)),
      VM_AGG_MAX_I);
}

void BM_MaxAggregate_Handwritten(benchmark::State& state) {
  Fixture f;
  f.RequireOneTablet();
  const std::uint64_t groups = f.engine.TilesFor(f.rows);
  DeviceBuffer partials = f.engine.pool().Acquire(groups * 8, "partials");
  cl::Kernel& k = f.hand.at("yardstick_max_int");
  k.setArg(0, f.Column(kUnique1));
  k.setArg(1, f.Column(kTenPercent));
  k.setArg(2, static_cast<cl_ulong>(f.rows));
  k.setArg(3, static_cast<cl_long>(100));
  k.setArg(4, partials.get());
  Loop(state, "max_int/handwritten", 8, f, [&] { f.engine.Launch(k, groups, "yardstick"); });
  state.counters["result"] = static_cast<double>(HostMax(f.engine, partials.get(), groups));
}

void FloatMaxMachine(benchmark::State& state, const std::string& name,
                     const QueryOptions& options = {}) {
  AggregateMachine(
      state, name,
      Bin(Op::kDivide, IntCol(kUnique1), Bin(Op::kAdd, Real(0.173), IntCol(kOnePercent))),
      VM_AGG_MAX_R, options);
}

void BM_FloatMax_Machine(benchmark::State& state) {
  FloatMaxMachine(state, "max_real/machine");
}

// The same query in the interpreter (short_real off), so that one process
// compares the two kernels: PoCL-16's times drift from one process to the
// next.
void BM_FloatMax_Interpreter(benchmark::State& state) {
  QueryOptions options;
  options.short_real = Choice::kOff;
  FloatMaxMachine(state, "max_real/interpreter", options);
}

// The same with state.range(0) tiles a work-group (aggregate_tiles), for the
// sweep in docs/BENCHMARKS.md.
void BM_FloatMax_TilesPerGroup(benchmark::State& state) {
  QueryOptions options;
  options.aggregate_tiles = static_cast<std::uint32_t>(state.range(0));
  FloatMaxMachine(state, "max_real/tiles " + std::to_string(state.range(0)), options);
}

void BM_FloatMax_Handwritten(benchmark::State& state) {
  Fixture f;
  f.RequireOneTablet();
  const std::uint64_t groups = f.engine.TilesFor(f.rows);
  DeviceBuffer partials = f.engine.pool().Acquire(groups * 8, "partials");
  cl::Kernel& k = f.hand.at("yardstick_max_real");
  k.setArg(0, f.Column(kUnique1));
  k.setArg(1, f.Column(kOnePercent));
  k.setArg(2, static_cast<cl_ulong>(f.rows));
  k.setArg(3, 0.173);
  k.setArg(4, partials.get());
  Loop(state, "max_real/handwritten", 8, f, [&] { f.engine.Launch(k, groups, "yardstick"); });
  state.counters["result"] = std::bit_cast<double>(HostMax(f.engine, partials.get(), groups));
}

sql::Expr ThesisPredicate() {
  return Bin(Op::kAnd,
             Bin(Op::kAnd,
                 Bin(Op::kAnd, Bin(Op::kGreater, IntCol(kUnique1), Int(1000)),
                     Bin(Op::kLess, IntCol(kUnique1), Int(6000))),
                 Bin(Op::kEqual, Bin(Op::kModulo, IntCol(kUnique2), Int(2)), Int(0))),
             Bin(Op::kEqual, IntCol(kTwo), Int(0)));
}

// Both filter variants: 12 bytes read per row, a bit written.
constexpr double kSelectionBytes = 12.0 + 1.0 / 8.0;

// The filter's bitmap and per-tile counts against the predicate on the host.
template <typename RowPredicate>
void CheckSelectionBits(benchmark::State& state, Fixture& f, const DeviceBuffer& bits,
                        const DeviceBuffer& counts, std::uint64_t groups, RowPredicate keep) {
  std::vector<std::uint32_t> words((f.rows + 31) / 32);
  std::vector<std::uint32_t> tile_counts(groups);
  f.engine.Download(bits.get(), 0, words.size() * 4, words.data(), "bits");
  f.engine.Download(counts.get(), 0, groups * 4, tile_counts.data(), "counts");
  const std::uint64_t tile = f.engine.tuning().tile_size();
  std::vector<std::uint32_t> expected_counts(groups, 0);
  for (std::size_t w = 0; w < words.size(); ++w) {
    std::uint32_t word = 0;
    for (RowCount i = w * 32; i < std::min<RowCount>(f.rows, w * 32 + 32); ++i) {
      if (keep(i)) {
        word |= 1u << (i % 32);
        ++expected_counts[i / tile];
      }
    }
    if (words[w] != word) {
      state.SkipWithError("wrong bitmap word");
      return;
    }
  }
  if (tile_counts != expected_counts) state.SkipWithError("wrong tile counts");
}

// The filter kernel alone on `predicate`, its bitmap checked against the
// host's row predicate make_keep(table).
template <typename MakeRowPredicate>
void FilterMachine(benchmark::State& state, const std::string& name, const sql::Expr& predicate,
                   MakeRowPredicate make_keep) {
  Fixture f;
  f.RequireOneTablet();
  ExpressionProgram program(f.relation.columns(), [](std::size_t, std::size_t c) { return c; });
  const std::size_t entry = program.AddPredicate(predicate);
  QueryContext context(f.engine);
  DeviceProgram device_program(f.engine, program);
  const std::uint64_t groups = f.engine.TilesFor(f.rows);
  DeviceBuffer bits = f.engine.pool().Acquire((f.rows + 31) / 32 * 4, "bits");
  DeviceBuffer counts = f.engine.pool().Acquire(groups * 4, "counts");
  // The selection's first pass as Select runs it (on GPUs, a selective
  // leading range test alone first, then vm_filter on the tiles it kept).
  Loop(state, name, kSelectionBytes, f, [&] {
    FilterTablet(context, f.relation, device_program, entry, 0, bits.get(), counts.get());
  });
  CheckSelectionBits(state, f, bits, counts, groups, make_keep(*f.table));
}

// The thesis predicate as the host evaluates it.
auto ThesisRows(const Table& t) {
  return [u1 = t.column(kUnique1).int32s(), u2 = t.column(kUnique2).int32s(),
          two = t.column(kTwo).int32s()](RowCount i) {
    return u1[i] > 1000 && u1[i] < 6000 && u2[i] % 2 == 0 && two[i] == 0;
  };
}

void BM_SelectionFilter_Machine(benchmark::State& state) {
  FilterMachine(state, "selection_filter/machine", ThesisPredicate(), ThesisRows);
}

// A filter no conjunct short-circuits: every work-item runs the generic
// interpreter on every row ((unique1 + unique2) % 3 = 0 keeps a third).
void BM_DenseFilter_Machine(benchmark::State& state) {
  FilterMachine(
      state, "dense_filter/machine",
      Bin(Op::kAnd,
          Bin(Op::kEqual,
              Bin(Op::kModulo, Bin(Op::kAdd, IntCol(kUnique1), IntCol(kUnique2)), Int(3)), Int(0)),
          Bin(Op::kEqual, IntCol(kTwo), Int(0))),
      [](const Table& t) {
        return [u1 = t.column(kUnique1).int32s(), u2 = t.column(kUnique2).int32s(),
                two = t.column(kTwo).int32s()](RowCount i) {
          return (u1[i] + u2[i]) % 3 == 0 && two[i] == 0;
        };
      });
}

void BM_SelectionFilter_Handwritten(benchmark::State& state) {
  Fixture f;
  f.RequireOneTablet();
  const std::uint64_t groups = f.engine.TilesFor(f.rows);
  DeviceBuffer bits = f.engine.pool().Acquire((f.rows + 31) / 32 * 4, "bits");
  DeviceBuffer counts = f.engine.pool().Acquire(groups * 4, "counts");
  cl::Kernel& k = f.hand.at("yardstick_selection");
  k.setArg(0, f.Column(kUnique1));
  k.setArg(1, f.Column(kUnique2));
  k.setArg(2, f.Column(kTwo));
  k.setArg(3, static_cast<cl_ulong>(f.rows));
  k.setArg(4, static_cast<cl_int>(1000));
  k.setArg(5, static_cast<cl_int>(6000));
  k.setArg(6, bits.get());
  k.setArg(7, counts.get());
  Loop(state, "selection_filter/handwritten", kSelectionBytes, f,
       [&] { f.engine.Launch(k, groups, "yardstick"); });
  CheckSelectionBits(state, f, bits, counts, groups, ThesisRows(*f.table));
}

// The whole selection (filter, scan of tile counts, scatter of row ids).
void BM_Selection_Machine(benchmark::State& state) {
  Fixture f;
  ExpressionProgram program(f.relation.columns(), [](std::size_t, std::size_t c) { return c; });
  const std::size_t entry = program.AddPredicate(ThesisPredicate());
  QueryContext context(f.engine);
  DeviceProgram device_program(f.engine, program);
  RowIds ids;
  f.engine.profiler().Start();
  Loop(state, "selection/machine", kSelectionBytes, f,
       [&] { ids = Select(context, f.relation, device_program, entry); });
  // Stage breakdown of one run: is the prefix scan the largest stage?
  f.engine.profiler().Start();
  ids = Select(context, f.relation, device_program, entry);
  for (const StageTiming& s : f.engine.profiler().Stop())
    if (s.kind == StageKind::kKernel) state.counters["ms_" + s.name] = s.milliseconds;
  state.counters["selected"] = static_cast<double>(ids.size);
}

BENCHMARK(BM_Projection_Machine)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_Projection_Handwritten)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_MaxAggregate_Machine)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_MaxAggregate_Handwritten)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);
BENCHMARK(BM_FloatMax_Machine)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_FloatMax_Interpreter)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_FloatMax_TilesPerGroup)
    ->RangeMultiplier(2)
    ->Range(1, VM_MAX_TILES_PER_GROUP)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);
BENCHMARK(BM_FloatMax_Handwritten)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_SelectionFilter_Machine)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_SelectionFilter_Handwritten)
    ->UseManualTime()
    ->Unit(benchmark::kMillisecond)
    ->MinTime(0.5);
BENCHMARK(BM_DenseFilter_Machine)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);
BENCHMARK(BM_Selection_Machine)->UseManualTime()->Unit(benchmark::kMillisecond)->MinTime(0.5);

}  // namespace
}  // namespace clq::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!clq::bench::RunBenchmarks("operators_bench", true)) return 1;
  std::printf("\nmachine / handwritten time:\n");
  const auto& means = clq::bench::MeanMilliseconds();
  for (const auto& [name, ms] : means) {
    const auto slash = name.find("/machine");
    if (slash == std::string::npos) continue;
    const auto hand = means.find(name.substr(0, slash) + "/handwritten");
    if (hand != means.end())
      std::printf("  %-20s %.3f ms / %.3f ms = %.3f\n", name.substr(0, slash).c_str(), ms,
                  hand->second, ms / hand->second);
  }
  benchmark::Shutdown();
  return 0;
}
