#include "host/bench_runner.hpp"

#include <unistd.h>

#include <algorithm>
#include <bit>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <map>
#include <set>

#include "common/errors.hpp"
#include "host/bench_sqlite.hpp"
#include "host/bench_tpch.hpp"
#include "host/dataset_options.hpp"
#include "operators/cpu_reference/cpu_executor.hpp"
#include "plan/query_executor.hpp"
#include "runtime/bandwidth.hpp"
#include "runtime/cl_error.hpp"
#include "runtime/device_table.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "wisconsin/dataset.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

// Bytes per row of the copy-bandwidth buffer: about what a query of the
// suites reads (four INT32 columns).
constexpr std::uint64_t kBandwidthBytesPerRow = 16;
constexpr std::uint64_t kMinBandwidthBytes = 64 * 1024;

double ElapsedMs(std::chrono::steady_clock::time_point start) {
  return std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
      .count();
}

template <typename F>
double TimeMs(F&& f) {
  const auto start = std::chrono::steady_clock::now();
  f();
  return ElapsedMs(start);
}

std::string UtcNow() {
  const std::time_t now = std::time(nullptr);
  std::tm tm{};
  gmtime_r(&now, &tm);
  char text[32];
  std::strftime(text, sizeof text, "%Y-%m-%dT%H:%M:%SZ", &tm);
  return text;
}

// One line on stderr, rewritten in place, when stderr is a terminal.
class Progress {
 public:
  explicit Progress(std::size_t total) : on_(::isatty(STDERR_FILENO) != 0), total_(total) {}
  ~Progress() {
    if (on_) std::fputs("\r\033[K", stderr);
  }
  Progress(const Progress&) = delete;
  Progress& operator=(const Progress&) = delete;
  void Step() { ++done_; }
  void Show(const std::string& text) const {
    if (!on_) return;
    std::fprintf(stderr, "\r\033[K[%zu/%zu] %s", done_ + 1, total_, text.c_str());
    std::fflush(stderr);
  }

 private:
  bool on_;
  std::size_t total_;
  std::size_t done_ = 0;
};

void CollectColumns(const sql::Expr& expr, std::set<std::pair<std::size_t, std::size_t>>& out) {
  if (expr.kind == sql::Expr::Kind::kColumnRef) out.insert({expr.source, expr.index});
  for (const sql::Expr& child : expr.children)
    CollectColumns(child, out);
}

// See bench_runner.hpp: rows x width of every (table reference, column) a
// filter, join, grouping or aggregate reads; columns only in the output list
// are gathered for the result rows alone (at most the table's rows).
std::uint64_t BytesRead(const sql::BoundSelect& select, RowCount result_rows) {
  std::set<std::pair<std::size_t, std::size_t>> scanned;
  if (select.where) CollectColumns(*select.where, scanned);
  for (const sql::TableRef& ref : select.from)
    if (ref.on) CollectColumns(*ref.on, scanned);
  for (const sql::Expr& key : select.group_keys)
    CollectColumns(key, scanned);
  for (const sql::Aggregate& a : select.aggregates)
    if (a.argument) CollectColumns(*a.argument, scanned);
  if (select.having) CollectColumns(*select.having, scanned);
  // DISTINCT and ORDER BY read their keys on every input row, not only on
  // the rows of the result.
  for (const sql::OrderKey& key : select.order_by)
    CollectColumns(select.outputs.at(key.expr.index).expr, scanned);
  if (select.distinct)
    for (std::size_t o = 0; o < select.visible_outputs; ++o)
      CollectColumns(select.outputs[o].expr, scanned);
  std::set<std::pair<std::size_t, std::size_t>> outputs;
  for (const sql::OutputColumn& output : select.outputs)
    CollectColumns(output.expr, outputs);
  std::uint64_t bytes = 0;
  for (const auto& [source, column] : scanned) {
    const Table& table = *select.from.at(source).table;
    bytes += table.rows() * table.column(column).type().width;
  }
  for (const auto& [source, column] : outputs) {
    if (scanned.contains({source, column})) continue;
    const Table& table = *select.from.at(source).table;
    bytes += std::min(table.rows(), result_rows) * table.column(column).type().width;
  }
  return bytes;
}

std::uint64_t BytesOutput(const QueryResult& result) {
  std::uint64_t row_bytes = 0;
  for (const ResultColumn& column : result.columns)
    row_bytes += column.type == sql::ValueType::kText ? column.text_width : 8;
  return row_bytes * result.rows;
}

bool IsUnsupported(const DeviceLimitError& error) {
  return std::string_view(error.what()).find("not available in this build yet") !=
         std::string_view::npos;
}

// Runs `body`; records a failure in status/error instead of throwing.
template <typename F>
void Guarded(std::string& status, std::string& error, F&& body) {
  try {
    body();
  } catch (const DeviceLimitError& e) {
    status = IsUnsupported(e) ? "unsupported" : "error";
    error = e.what();
  } catch (const FileError& e) {
    status = "error";
    error = e.what();
  } catch (const SqlError& e) {
    // clq refuses the query: SQL it does not support, or a query outside what
    // devices run (an InvalidInputError: the tables are the suite's own).
    status = "refused";
    error = e.what();
  } catch (const InvalidInputError& e) {
    status = "refused";
    error = e.what();
  } catch (const Error& e) {
    status = "error";
    error = e.what();
  } catch (const cl::Error& e) {
    status = "error";
    error = TranslateClError(e).what();
  } catch (const std::bad_alloc&) {
    status = "error";
    error = "out of host memory";
  } catch (const std::exception& e) {
    // A bug in clq for this query; the other queries still run.
    status = "error";
    error = std::string("internal error: ") + e.what();
  }
}

// The tables of one size: the Wisconsin relations, and per tenktup2 fraction
// a catalog whose tenktup2 is a relation of its own with that many rows
// (tenktup1 stays shared, so it is generated and uploaded once).
class SizeData {
 public:
  SizeData(RowCount n, std::uint64_t host_memory) : n_(n), host_memory_(host_memory) {
    GenerateOptions generate;
    generate.progress = TerminalProgress();
    generate.host_memory = host_memory;
    AddWisconsinTables(base_, n, generate);
  }

  Catalog& CatalogFor(double fraction) {
    if (fraction >= 1.0) return base_;
    auto it = variants_.find(fraction);
    if (it == variants_.end()) {
      Catalog variant = base_;
      const RowCount rows = Tenktup2Rows(n_, fraction);
      variant.Add(kTenktup2, WisconsinSchema(), [rows, host_memory = host_memory_] {
        GenerateOptions generate;
        generate.progress = TerminalProgress();
        generate.host_memory = host_memory;
        return GenerateWisconsinTable(kTenktup2, rows, generate);
      });
      it = variants_.emplace(fraction, std::move(variant)).first;
    }
    return it->second;
  }

  SqlitePeer& SqliteFor(double fraction) {
    std::unique_ptr<SqlitePeer>& peer = sqlite_[fraction];
    if (!peer) peer = std::make_unique<SqlitePeer>();
    return *peer;
  }

 private:
  RowCount n_;
  std::uint64_t host_memory_;
  Catalog base_;
  std::map<double, Catalog> variants_;
  std::map<double, std::unique_ptr<SqlitePeer>> sqlite_;
};

void RunCpuReference(const sql::BoundSelect& select, const BenchOptions& options, BenchCase& c,
                     QueryResult& reference) {
  std::string status = "ok";
  std::string error;
  std::vector<double> runs;
  Guarded(status, error, [&] {
    const std::uint32_t runs_wanted = options.cpu_peer ? options.repeat : 1;
    for (std::uint32_t r = 0; r < runs_wanted; ++r)
      runs.push_back(TimeMs([&] { reference = ExecuteOnCpu(select, options.query.host_memory); }));
  });
  if (status != "ok") {
    c.reference_error = error;
    if (options.cpu_peer) c.cpu = {status, error, {}};
    return;
  }
  c.result_rows = reference.rows;
  c.bytes_output = BytesOutput(reference);
  if (options.cpu_peer) c.cpu = {"ok", "", TimeStats::Of(runs)};
}

void RunSqlite(const sql::BoundSelect& select, const BenchOptions& options, SqlitePeer& peer,
               BenchCase& c) {
  if (!options.sqlite_peer) return;
  for (const sql::TableRef& ref : select.from) {
    if (ref.table->rows() > kSqliteRowLimit) {
      c.sqlite.status = "skipped (size)";
      return;
    }
  }
  c.sqlite.status = "ok";
  std::vector<double> runs;
  Guarded(c.sqlite.status, c.sqlite.error, [&] {
    for (const sql::TableRef& ref : select.from)
      peer.Load(*ref.table);
    for (std::uint32_t r = 0; r < std::min(options.repeat, kSqliteMaxRuns); ++r)
      runs.push_back(TimeMs([&] { peer.Run(c.query.sql); }));
  });
  if (c.sqlite.status == "ok") c.sqlite.time = TimeStats::Of(runs);
}

DeviceResult RunOnDevice(Engine& engine, std::size_t index, const sql::BoundSelect& select,
                         const QueryResult* reference, const BenchOptions& options,
                         const Progress& progress, const std::string& label) {
  DeviceResult result;
  result.device = index;
  Guarded(result.status, result.error, [&] {
    QueryExecutor executor(engine, options.query);
    progress.Show(label + ": warm-up");
    {
      // Freed before the hot runs, as a client that holds one result at a
      // time frees it: they reuse its memory (a pinned block on GPUs).
      const QueryResult warm = executor.Execute(select);
      result.result_rows = warm.rows;
      result.result_bytes = BytesOutput(warm);
      result.checked = reference != nullptr;
      if (reference != nullptr) {
        CompareOptions compare;
        compare.ignore_row_order = true;
        compare.real_relative_tolerance = kBenchRealTolerance;
        result.mismatch = CompareResults(*reference, warm, compare);
        result.agrees = result.mismatch.empty();
      }
    }
    std::vector<double> hot;
    for (std::uint32_t r = 0; r < options.repeat; ++r) {
      progress.Show(label + ": hot " + std::to_string(r + 1) + "/" +
                    std::to_string(options.repeat));
      hot.push_back(TimeMs([&] { executor.Execute(select); }));
    }
    result.hot = TimeStats::Of(hot);
    engine.profiler().Start();
    try {
      executor.Execute(select);
    } catch (...) {
      engine.profiler().Stop();
      throw;
    }
    for (const StageTiming& stage : engine.profiler().Stop())
      if (stage.kind != StageKind::kHost && stage.kind != StageKind::kNodeWall)
        result.device_ms += stage.milliseconds;
    std::vector<double> cold;
    for (std::uint32_t r = 0; r < options.repeat; ++r) {
      progress.Show(label + ": cold " + std::to_string(r + 1) + "/" +
                    std::to_string(options.repeat));
      engine.tables().Clear();
      cold.push_back(TimeMs([&] { executor.Execute(select); }));
    }
    result.cold = TimeStats::Of(cold);
  });
  return result;
}

std::uint64_t BandwidthBytes(const Engine& engine, RowCount rows) {
  BandwidthOptions probe;
  const std::uint64_t limit = BandwidthSizeLimit(engine.info(), probe);
  std::uint64_t bytes =
      std::bit_ceil(std::max<std::uint64_t>(rows * kBandwidthBytesPerRow, kMinBandwidthBytes));
  while (bytes > limit && bytes > kMinBandwidthBytes)
    bytes /= 2;
  return bytes;
}

CopyBandwidth MeasureCopy(Engine& engine, RowCount rows, std::uint32_t repeat) {
  CopyBandwidth copy;
  copy.rows = rows;
  copy.bytes = BandwidthBytes(engine, rows);
  BandwidthOptions measure;
  measure.min_bytes = measure.max_bytes = copy.bytes;
  measure.repeats = std::max<std::uint32_t>(repeat, 3);
  const BandwidthReport report = MeasureBandwidth(engine, measure);
  copy.d2d_kernel_gbps = report.Peak("d2d-kernel");
  copy.h2d_pinned_gbps = report.Peak("h2d-pinned");
  return copy;
}

}  // namespace

TimeStats TimeStats::Of(std::vector<double> runs_ms) {
  TimeStats stats;
  stats.runs_ms = runs_ms;
  if (runs_ms.empty()) return stats;
  std::sort(runs_ms.begin(), runs_ms.end());
  const std::size_t n = runs_ms.size();
  stats.median_ms = n % 2 == 1 ? runs_ms[n / 2] : (runs_ms[n / 2 - 1] + runs_ms[n / 2]) / 2;
  stats.min_ms = runs_ms.front();
  stats.max_ms = runs_ms.back();
  return stats;
}

double BenchDevice::CopyGbps(RowCount rows) const {
  for (const CopyBandwidth& b : bandwidth)
    if (b.rows == rows) return b.d2d_kernel_gbps;
  return 0;
}

std::vector<std::string> BenchSuitesOf(const BenchOptions& options) {
  return options.suite == "all" ? std::vector<std::string>{"thesis", "wisconsin", "general"}
                                : std::vector<std::string>{options.suite};
}

void CheckBenchQueryIds(const BenchOptions& options) {
  std::vector<std::string> ids;
  for (const std::string& suite : BenchSuitesOf(options))
    for (const BenchQuery& q : BenchQueries(suite, 1000))
      ids.push_back(q.id);
  for (const std::string& id : options.queries) {
    if (std::find(ids.begin(), ids.end(), id) != ids.end()) continue;
    std::string known;
    for (const std::string& k : ids)
      known += (known.empty() ? "" : ", ") + k;
    throw InvalidInputError("--queries: no query '" + id + "' in the " + options.suite +
                            " suite (its queries: " + known + ")");
  }
}

std::vector<BenchQuery> SelectedBenchQueries(const BenchOptions& options, std::string_view suite,
                                             RowCount n) {
  std::vector<BenchQuery> queries = BenchQueries(suite, n);
  if (options.queries.empty()) return queries;
  std::erase_if(queries, [&](const BenchQuery& q) {
    return std::find(options.queries.begin(), options.queries.end(), q.id) == options.queries.end();
  });
  return queries;
}

namespace {

// One query at one size on every device, with the peers.
BenchCase RunCase(std::vector<std::unique_ptr<Engine>>& engines, const BenchOptions& options,
                  const BenchQuery& query, RowCount n, Catalog& catalog, SqlitePeer& sqlite,
                  const BenchReport& report, Progress& progress) {
  BenchCase c;
  c.query = query;
  c.rows = n;
  const std::string label = query.id + " at " + std::to_string(n) + " rows";
  progress.Show(label + ": generating and binding");
  sql::BoundStatement bound;
  std::string status = "ok";
  Guarded(status, c.reference_error,
          [&] { bound = sql::Bind(sql::Parse(query.sql), catalog, query.sql); });
  if (status != "ok") {
    for (std::size_t d = 0; d < engines.size(); ++d, progress.Step()) {
      DeviceResult failed;
      failed.device = d;
      failed.status = status;
      failed.error = c.reference_error;
      c.devices.push_back(std::move(failed));
    }
    return c;
  }
  const sql::BoundSelect& select = bound.select;
  for (const sql::TableRef& ref : select.from)
    c.tables.emplace_back(ref.table->name(), ref.table->rows());
  QueryResult reference;
  if (options.check || options.cpu_peer) {
    progress.Show(label + ": CPU reference");
    RunCpuReference(select, options, c, reference);
  } else {
    c.reference_error = "not checked (--check none)";
  }
  // Without a reference answer, assume every row is in the result (an upper bound).
  RowCount result_rows = c.result_rows;
  if (!c.reference_error.empty())
    for (const sql::TableRef& ref : select.from)
      result_rows = std::max(result_rows, ref.table->rows());
  c.bytes_read = BytesRead(select, result_rows);
  if (options.sqlite_peer) progress.Show(label + ": SQLite");
  RunSqlite(select, options, sqlite, c);
  const bool have_reference = c.reference_error.empty();
  for (std::size_t d = 0; d < engines.size(); ++d, progress.Step()) {
    DeviceResult r =
        RunOnDevice(*engines[d], d, select, have_reference ? &reference : nullptr, options,
                    progress, label + " on " + engines[d]->info().PairSelector());
    if (!have_reference && r.status == "ok" && c.result_rows == 0 && c.bytes_output == 0) {
      // Unchecked: the first device's answer sizes the bytes moved.
      c.result_rows = r.result_rows;
      c.bytes_output = r.result_bytes;
      c.bytes_read = BytesRead(select, c.result_rows);
    }
    if (r.status == "ok" && r.hot.median_ms > 0) {
      const double bytes = static_cast<double>(c.bytes_read + c.bytes_output);
      r.gbps = bytes / (r.hot.median_ms * 1e6);
      const double copy = report.devices[d].CopyGbps(n);
      r.copy_fraction = copy > 0 ? r.gbps / copy : 0;
      if (c.cpu.status == "ok") r.speedup_vs_cpu = c.cpu.time.median_ms / r.hot.median_ms;
    }
    c.devices.push_back(std::move(r));
  }
  return c;
}

void MeasureCopies(std::vector<std::unique_ptr<Engine>>& engines, const BenchOptions& options,
                   RowCount n, BenchReport& report, const Progress& progress) {
  for (std::size_t d = 0; d < engines.size(); ++d) {
    progress.Show("copy bandwidth on " + engines[d]->info().PairSelector());
    report.devices[d].bandwidth.push_back(MeasureCopy(*engines[d], n, options.repeat));
  }
}

}  // namespace

BenchReport RunBench(std::vector<std::unique_ptr<Engine>>& engines, const BenchOptions& options) {
  BenchReport report;
  report.options = options;
  report.date = UtcNow();
  CheckBenchQueryIds(options);
  for (const auto& engine : engines)
    report.devices.push_back({engine->info(),
                              engine->tuning().Describe(),
                              engine->tables().residency() == TableResidency::kCopy,
                              {}});
  if (options.suite == "tpch") {
    // One size: the tables of the directory; N is the rows of lineitem.
    TpchBenchData data =
        OpenTpchData(options.tpch_dir, options.tpch_scale_factor, options.query.host_memory);
    report.options.tpch_scale_factor = data.scale_factor;
    const RowCount n = data.lineitem_rows;
    report.sizes.push_back(n);
    const std::vector<BenchQuery> queries = SelectedBenchQueries(options, "tpch", n);
    Progress progress(queries.size() * engines.size());
    MeasureCopies(engines, options, n, report, progress);
    SqlitePeer sqlite;
    for (const BenchQuery& query : queries)
      report.cases.push_back(
          RunCase(engines, options, query, n, data.catalog, sqlite, report, progress));
    return report;
  }
  const std::vector<std::string> suites = BenchSuitesOf(options);
  std::map<RowCount, std::vector<std::string>> plan;  // size -> suites run at it
  for (const std::string& suite : suites) {
    BenchQueries(suite, 1000);  // rejects an unknown suite before any work
    for (RowCount n : options.rows.empty() ? DefaultBenchRows(suite) : options.rows)
      plan[n].push_back(suite);
  }
  std::size_t total = 0;
  for (const auto& [n, size_suites] : plan) {
    report.sizes.push_back(n);
    for (const std::string& suite : size_suites)
      total += SelectedBenchQueries(options, suite, n).size() * engines.size();
  }

  Progress progress(total);
  for (const auto& [n, size_suites] : plan) {
    MeasureCopies(engines, options, n, report, progress);
    SizeData data(n, options.query.host_memory);
    for (const std::string& suite : size_suites) {
      for (const BenchQuery& query : SelectedBenchQueries(options, suite, n)) {
        const double fraction = query.tenktup2_fraction;
        report.cases.push_back(RunCase(engines, options, query, n, data.CatalogFor(fraction),
                                       data.SqliteFor(fraction), report, progress));
      }
    }
    // The next size uses new tables: free the device memory of these now.
    for (const auto& engine : engines)
      engine->tables().Clear();
  }
  return report;
}

}  // namespace clq
