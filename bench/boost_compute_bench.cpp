// clq's primitives against Boost.Compute's on the same OpenCL device, primitive
// against primitive, on identical inputs, rows as the benchmark argument:
//   Reduce         SUM(unique1) by Aggregate | reduce of unique1 widened to
//                  long (plus<int> would sum in 32 bits and overflow)
//   ExclusiveScan  ExclusiveScan of 32-bit counts | exclusive_scan (1.74 has
//                  it, so like with like; clq also writes the total)
//   Compaction     Select of unique1 < rows / 10 | detail::copy_index_if, the
//                  primitive behind Boost's copy_if, which writes the row ids
//   Sort           SortPermutation of int32 keys | sort of the keys, and
//                  sort_by_key of keys and positions (clq's result is a
//                  permutation, so that is the like-with-like peer)
//
//   CLQ_DEVICE=nvidia build/bench/boost_compute_bench --benchmark_filter=Sort
//
// Boost.Compute runs on the engine's own in-order queue, so both sides share
// context, device and queue, and are timed alike: wall time of the call until
// the queue drains (manual time), after one warm-up call (Boost.Compute builds
// its kernels on first use). `device_ms` is clq's device time from profiling
// events; Boost.Compute's enqueues bypass the engine's profiler. Bytes are
// those each primitive must read and write (for sorts one read of the keys and
// one write of the result), so GB/s compares with `of_copy`, the device's copy
// bandwidth. On CPU devices Boost.Compute picks its CPU algorithms
// (reduce_on_cpu, scan_on_cpu, merge_sort_on_cpu). Each benchmark checks its
// answer once; a Boost.Compute exception (a kernel that does not build) skips
// the benchmark.
#include <benchmark/benchmark.h>

#include <boost/compute/algorithm/copy.hpp>
#include <boost/compute/algorithm/copy_if.hpp>
#include <boost/compute/algorithm/exclusive_scan.hpp>
#include <boost/compute/algorithm/iota.hpp>
#include <boost/compute/algorithm/reduce.hpp>
#include <boost/compute/algorithm/sort.hpp>
#include <boost/compute/algorithm/sort_by_key.hpp>
#include <boost/compute/command_queue.hpp>
#include <boost/compute/container/vector.hpp>
#include <boost/compute/functional/convert.hpp>
#include <boost/compute/iterator/transform_iterator.hpp>
#include <boost/compute/lambda.hpp>

#include <algorithm>
#include <chrono>
#include <cstdint>
#include <functional>
#include <numeric>
#include <random>
#include <span>
#include <vector>

#include "bench/bench_support.hpp"
#include "kernels_cl/vm_shared.h"
#include "operators/aggregation.hpp"
#include "operators/device_program.hpp"
#include "operators/device_vector.hpp"
#include "operators/query_context.hpp"
#include "operators/relation.hpp"
#include "operators/scan.hpp"
#include "operators/selection.hpp"
#include "operators/sort.hpp"
#include "tests/support/expr_builder.hpp"

namespace clq::bench {
namespace {

namespace bc = boost::compute;
using namespace clq::testing;  // NOLINT: expression builders

constexpr std::size_t kUnique1 = 0;

RowCount Rows(const benchmark::State& state) {
  return static_cast<RowCount>(state.range(0));
}

// Retained, not created: Boost.Compute must see the engine's device and queue.
bc::command_queue& BoostQueue() {
  static bc::command_queue queue(BenchEngine().queue()(), true);
  return queue;
}

template <typename T>
bc::vector<T> BoostUpload(std::span<const T> host) {
  bc::vector<T> vector(host.data(), host.data() + host.size(), BoostQueue());
  BoostQueue().finish();
  return vector;
}

template <typename T>
std::vector<T> BoostDownload(const bc::vector<T>& vector, std::size_t size) {
  std::vector<T> host(size);
  bc::copy(vector.begin(), vector.begin() + static_cast<std::ptrdiff_t>(size), host.begin(),
           BoostQueue());
  return host;
}

// `run` is already warmed up and checked; `reset` restores an in-place
// algorithm's input, untimed.
void Time(benchmark::State& state, double bytes, const std::function<void()>& run,
          const std::function<void()>& reset = {}) {
  Engine& engine = BenchEngine();
  double seconds = 0, device_ms = 0;
  for (auto _ : state) {
    if (reset) {
      reset();
      engine.Finish();
    }
    double wall = 0;
    device_ms += DeviceMilliseconds(engine, [&] {
      const auto begin = std::chrono::steady_clock::now();
      run();
      engine.Finish();
      wall = std::chrono::duration<double>(std::chrono::steady_clock::now() - begin).count();
    });
    state.SetIterationTime(wall);
    seconds += wall;
  }
  const auto iterations = static_cast<double>(state.iterations());
  state.SetBytesProcessed(static_cast<std::int64_t>(bytes) * state.iterations());
  state.counters["GBps"] = bytes * iterations / (seconds * 1e9);
  state.counters["of_copy"] = state.counters["GBps"] / CopyGbps(engine);
  if (device_ms > 0) state.counters["device_ms"] = device_ms / iterations;
}

struct TableSetup {
  Engine& engine = BenchEngine();
  RowCount rows;
  TablePtr table;
  TableRelation relation;
  ExpressionProgram program;
  explicit TableSetup(RowCount n)
      : rows(n),
        table(Tenktup1(n)),
        relation(engine, table),
        program(relation.columns(), [](std::size_t, std::size_t c) { return c; }) {}
  std::span<const std::int32_t> unique1() const { return table->column(kUnique1).int32s(); }
};

void ReduceClq(benchmark::State& state) {
  TableSetup s(Rows(state));
  const std::size_t entry = s.program.AddValue(IntCol(kUnique1));
  QueryContext context(s.engine);
  DeviceProgram device_program(s.engine, s.program);
  std::vector<AggregateValue> result;
  const auto run = [&] {
    result = Aggregate(context, s.relation, device_program, std::nullopt, {{VM_AGG_SUM_I, entry}});
  };
  run();
  const auto n = static_cast<std::int64_t>(s.rows);
  if (result[0].bits != n * (n - 1) / 2) return state.SkipWithError("wrong sum");
  Time(state, 4.0 * static_cast<double>(s.rows), run);
}

void ReduceBoost(benchmark::State& state) {
  const RowCount rows = Rows(state);
  bc::vector<bc::int_> column = BoostUpload(Tenktup1(rows)->column(kUnique1).int32s());
  const auto first = bc::make_transform_iterator(column.begin(), bc::convert<bc::long_>());
  const auto last = bc::make_transform_iterator(column.end(), bc::convert<bc::long_>());
  bc::long_ sum = 0;
  const auto run = [&] { bc::reduce(first, last, &sum, bc::plus<bc::long_>(), BoostQueue()); };
  run();
  const auto n = static_cast<std::int64_t>(rows);
  if (sum != n * (n - 1) / 2) return state.SkipWithError("wrong sum");
  Time(state, 4.0 * static_cast<double>(rows), run);
}

// The counts of primitives_bench's scan and their exclusive scan.
std::vector<std::uint32_t> ScanCounts(RowCount n) {
  std::vector<std::uint32_t> counts(n);
  for (RowCount i = 0; i < n; ++i)
    counts[i] = static_cast<std::uint32_t>((i * 2654435761u) >> 29);
  return counts;
}

std::vector<std::uint32_t> ExclusiveSums(const std::vector<std::uint32_t>& counts) {
  std::vector<std::uint32_t> sums(counts.size());
  std::exclusive_scan(counts.begin(), counts.end(), sums.begin(), std::uint32_t{0});
  return sums;
}

void ExclusiveScanClq(benchmark::State& state) {
  Engine& engine = BenchEngine();
  const RowCount n = Rows(state);
  const std::vector<std::uint32_t> counts = ScanCounts(n);
  DeviceBuffer input = engine.pool().Acquire(n * 4, "scan input");
  DeviceBuffer output = engine.pool().Acquire(n * 4, "scan output");
  DeviceBuffer total = engine.pool().Acquire(4, "scan total");
  engine.Upload(input.get(), 0, n * 4, counts.data(), "scan input");
  const cl::Buffer total_buffer = total.get();
  const auto run = [&] { ExclusiveScan(engine, input.get(), n, output.get(), &total_buffer); };
  run();
  std::vector<std::uint32_t> got(n);
  engine.Download(output.get(), 0, n * 4, got.data(), "scan output");
  if (got != ExclusiveSums(counts)) return state.SkipWithError("wrong scan");
  Time(state, 8.0 * static_cast<double>(n), run);
}

void ExclusiveScanBoost(benchmark::State& state) {
  const RowCount n = Rows(state);
  const std::vector<std::uint32_t> counts = ScanCounts(n);
  bc::vector<bc::uint_> input = BoostUpload(std::span<const std::uint32_t>(counts));
  bc::vector<bc::uint_> output(n, BoostQueue().get_context());
  const auto run = [&] {
    bc::exclusive_scan(input.begin(), input.end(), output.begin(), BoostQueue());
  };
  run();
  if (BoostDownload(output, n) != ExclusiveSums(counts)) return state.SkipWithError("wrong scan");
  Time(state, 8.0 * static_cast<double>(n), run);
}

// Row ids of unique1 < bound (10% selectivity), in row order.
std::vector<std::uint32_t> SelectedIds(std::span<const std::int32_t> unique1, std::int32_t bound) {
  std::vector<std::uint32_t> ids;
  for (std::size_t i = 0; i < unique1.size(); ++i)
    if (unique1[i] < bound) ids.push_back(static_cast<std::uint32_t>(i));
  return ids;
}

void CompactionClq(benchmark::State& state) {
  TableSetup s(Rows(state));
  const auto bound = static_cast<std::int32_t>(s.rows / 10);
  const std::size_t entry =
      s.program.AddPredicate(Bin(sql::BinaryOp::kLess, IntCol(kUnique1), Int(bound)));
  QueryContext context(s.engine);
  DeviceProgram device_program(s.engine, s.program);
  RowIds ids;
  const auto run = [&] { ids = Select(context, s.relation, device_program, entry); };
  run();
  if (DownloadRowIds(s.engine, ids) != SelectedIds(s.unique1(), bound))
    return state.SkipWithError("wrong row ids");
  Time(state, 4.0 * static_cast<double>(s.rows) + 4.0 * static_cast<double>(bound), run);
}

void CompactionBoost(benchmark::State& state) {
  const RowCount rows = Rows(state);
  const std::span<const std::int32_t> unique1 = Tenktup1(rows)->column(kUnique1).int32s();
  const auto bound = static_cast<std::int32_t>(rows / 10);
  bc::vector<bc::int_> column = BoostUpload(unique1);
  bc::vector<bc::uint_> ids(rows, BoostQueue().get_context());
  std::size_t selected = 0;
  const auto run = [&] {
    using bc::lambda::_1;
    const auto end = bc::detail::copy_index_if(column.begin(), column.end(), ids.begin(),
                                               _1 < bound, BoostQueue());
    selected = static_cast<std::size_t>(end - ids.begin());
  };
  run();
  if (BoostDownload(ids, selected) != SelectedIds(unique1, bound))
    return state.SkipWithError("wrong row ids");
  Time(state, 4.0 * static_cast<double>(rows) + 4.0 * static_cast<double>(bound), run);
}

// sort_bench's random keys and their sorted order.
struct SortInput {
  std::vector<std::int32_t> keys;
  std::vector<std::int32_t> sorted;
  explicit SortInput(RowCount n) : keys(n) {
    std::mt19937_64 rng(1);
    for (std::int32_t& k : keys)
      k = static_cast<std::int32_t>(static_cast<std::uint32_t>(rng()));
    sorted = keys;
    std::sort(sorted.begin(), sorted.end());
  }
  bool SortedBy(const std::vector<std::uint32_t>& permutation) const {
    if (permutation.size() != sorted.size()) return false;
    for (std::size_t i = 0; i < sorted.size(); ++i)
      if (keys[permutation[i]] != sorted[i]) return false;
    return true;
  }
};

void SortClq(benchmark::State& state) {
  Engine& engine = BenchEngine();
  const RowCount n = Rows(state);
  const SortInput input(n);
  DeviceVector keys = UploadValues(engine, ColumnType::Int32(), input.keys);
  QueryContext context(engine);
  RowIds permutation;
  const auto run = [&] { permutation = SortPermutation(context, {{View(keys), false}}, n); };
  run();
  if (!input.SortedBy(DownloadRowIds(engine, permutation))) return state.SkipWithError("unsorted");
  Time(state, 8.0 * static_cast<double>(n), run);
}

void SortBoost(benchmark::State& state, bool by_key) {
  const RowCount n = Rows(state);
  const SortInput input(n);
  bc::command_queue& queue = BoostQueue();
  const bc::vector<bc::int_> original = BoostUpload(std::span<const std::int32_t>(input.keys));
  bc::vector<bc::int_> keys(n, queue.get_context());
  bc::vector<bc::uint_> positions(by_key ? n : 0, queue.get_context());
  const auto reset = [&] {
    bc::copy(original.begin(), original.end(), keys.begin(), queue);
    if (by_key) bc::iota(positions.begin(), positions.end(), bc::uint_{0}, queue);
  };
  const auto run = [&] {
    if (by_key)
      bc::sort_by_key(keys.begin(), keys.end(), positions.begin(), queue);
    else
      bc::sort(keys.begin(), keys.end(), queue);
  };
  reset();
  run();
  if (BoostDownload(keys, n) != input.sorted ||
      (by_key && !input.SortedBy(BoostDownload(positions, n))))
    return state.SkipWithError("unsorted");
  Time(state, 8.0 * static_cast<double>(n), run, reset);
}

void Register() {
  const std::pair<const char*, std::function<void(benchmark::State&)>> benchmarks[] = {
      {"BM_Reduce_Clq", ReduceClq},
      {"BM_Reduce_BoostCompute", ReduceBoost},
      {"BM_ExclusiveScan_Clq", ExclusiveScanClq},
      {"BM_ExclusiveScan_BoostCompute", ExclusiveScanBoost},
      {"BM_Compaction_Clq", CompactionClq},
      {"BM_Compaction_BoostCompute", CompactionBoost},
      {"BM_Sort_Clq", SortClq},
      {"BM_Sort_BoostCompute", [](benchmark::State& state) { SortBoost(state, false); }},
      {"BM_Sort_BoostComputeByKey", [](benchmark::State& state) { SortBoost(state, true); }},
  };
  for (const auto& [name, body] : benchmarks)
    benchmark::RegisterBenchmark(name, [body](benchmark::State& state) {
      // A kernel Boost.Compute cannot build on this device skips the pair's
      // half instead of ending the run.
      try {
        body(state);
      } catch (const std::exception& e) {
        state.SkipWithError(e.what());
      }
    })->Apply(PrimitiveSizes);
}

}  // namespace
}  // namespace clq::bench

int main(int argc, char** argv) {
  benchmark::Initialize(&argc, argv);
  if (benchmark::ReportUnrecognizedArguments(argc, argv)) return 1;
  if (!clq::bench::RunBenchmarks("boost_compute_bench", true, clq::bench::Register)) return 1;
  return 0;
}
