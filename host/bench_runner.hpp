// The measurements of `clq bench`: every query of a suite at every size on
// every device, with the host peers (CPU reference, SQLite) once per query
// and size.
//
// Per query, size and device:
//   warm    one run that uploads the columns; its result is compared with the
//           CPU reference (CompareResults: integers exact, REAL within
//           kBenchRealTolerance relative, row order ignored)
//   hot     `repeat` runs with the tables resident
//   cold    `repeat` runs, each after DeviceTableCache::Clear(), so the
//           upload of every column the query reads is part of the time
//   device  one more hot run under the profiler: summed kernel/transfer time
// Times are host wall-clock milliseconds around QueryExecutor::Execute (the
// result is on the host when it returns); programs are built at engine start
// and never timed.
//
// Bytes a query must move (the GB/s column):
//   bytes_read   = sum over the distinct (table reference, column) pairs that
//                  a filter, join key, group key or aggregate reads of
//                  rows(table) x width(column), plus, for columns that only
//                  appear in the output list (SELECT *), min(rows(table),
//                  result rows) x width(column): they are gathered for the
//                  result rows alone. A self-join counts its table once per
//                  reference.
//   bytes_output = result rows x sum of the result columns' widths (8 bytes
//                  per INTEGER or REAL value, the text width for TEXT)
//   GB/s         = (bytes_read + bytes_output) / hot median
// and the copy fraction divides that by the device's d2d-kernel copy
// bandwidth (read + write) measured in the same run with a buffer of about the
// size of the tables (runtime/bandwidth.hpp).
//
// Peers, once per query and size, on the host: the CPU reference
// (ExecuteOnCpu, single-threaded) `repeat` times, and SQLite (in-memory, the
// same rows loaded untimed before the first run; prepare + step + reading
// every value) min(repeat, kSqliteMaxRuns) times, skipped ("skipped (size)")
// when a table it reads has more than kSqliteRowLimit rows.
//
// A query the engine cannot run yet (DeviceLimitError "... not available in
// this build yet") is "unsupported"; one clq refuses (SqlError: SQL it does
// not support; InvalidInputError but FileError: outside what devices run,
// e.g. a cross join) "refused"; any other
// clq::Error or OpenCL error is recorded with its message; none stops the
// run. Blocking; one thread.
//
// The tpch suite runs once, on the tables of `tpch_dir` (host/bench_tpch.hpp);
// its N is the rows of lineitem.
#pragma once

#include <cstdint>
#include <memory>
#include <string>
#include <vector>

#include "host/bench_suites.hpp"
#include "runtime/engine.hpp"

namespace clq {

inline constexpr double kBenchRealTolerance = 1e-9;
// SQLite runs only where every table the query reads has at most this many rows.
inline constexpr RowCount kSqliteRowLimit = 10000000;
// SQLite is slow (seconds per join at 1M rows): at most this many timed runs.
inline constexpr std::uint32_t kSqliteMaxRuns = 3;

struct BenchOptions {
  std::string suite = "thesis";
  std::vector<RowCount> rows;        // empty: the suites' default sizes
  std::vector<std::string> queries;  // query ids to run; empty: all of the suite
  std::uint32_t repeat = 5;
  bool cpu_peer = true;
  bool sqlite_peer = true;
  // Check each answer against the CPU reference (off: no agreement check,
  // for sizes where the single-threaded reference would take longest).
  bool check = true;
  QueryOptions query;    // the planner's settings for every query
  std::string tpch_dir;  // the tpch suite's clq table files
  // The tpch suite's scale factor as given (checked against the tables), or
  // empty: the report holds the one the tables have.
  std::string tpch_scale_factor;
};

struct TimeStats {
  std::vector<double> runs_ms;
  double median_ms = 0;
  double min_ms = 0;
  double max_ms = 0;
  static TimeStats Of(std::vector<double> runs_ms);
};

// status: "ok", "unsupported", "refused", "error", "off" (peer not
// requested), "skipped (size)".
struct PeerResult {
  std::string status = "off";
  std::string error;
  TimeStats time;
};

struct DeviceResult {
  std::size_t device = 0;     // index into BenchReport::devices
  std::string status = "ok";  // "ok", "unsupported", "refused", "error"
  std::string error;
  TimeStats hot;
  TimeStats cold;
  double device_ms = 0;  // profiled device time of one hot run
  bool agrees = false;
  std::string mismatch;  // CompareResults' description when it does not agree
  double gbps = 0;
  double copy_fraction = 0;
  double speedup_vs_cpu = 0;  // 0 when the CPU reference has no time
  bool checked = false;       // `agrees` compared with the reference
  RowCount result_rows = 0;   // of the device's answer
  std::uint64_t result_bytes = 0;
};

struct BenchCase {
  BenchQuery query;
  RowCount rows = 0;                                     // N
  std::vector<std::pair<std::string, RowCount>> tables;  // rows of each table read
  std::uint64_t bytes_read = 0;
  std::uint64_t bytes_output = 0;
  RowCount result_rows = 0;
  std::string reference_error;  // the CPU reference failed: nothing to compare with
  PeerResult cpu;
  PeerResult sqlite;
  PeerResult duckdb;  // host/bench_duckdb.hpp
  std::vector<DeviceResult> devices;
};

struct CopyBandwidth {
  RowCount rows = 0;        // the size it was measured for
  std::uint64_t bytes = 0;  // buffer size used
  double d2d_kernel_gbps = 0;
  double h2d_pinned_gbps = 0;
};

struct BenchDevice {
  DeviceInfo info;
  std::string tuning;
  bool copies_tables = true;  // false: reads host tables in place (a cold run moves nothing)
  std::vector<CopyBandwidth> bandwidth;  // one per size
  double CopyGbps(RowCount rows) const;
};

struct BenchReport {
  BenchOptions options;
  std::vector<RowCount> sizes;
  std::string date;  // UTC, ISO 8601
  std::vector<BenchDevice> devices;
  std::vector<BenchCase> cases;
  std::string duckdb;  // "duckdb VERSION threads N" when the DuckDB peer ran
};

// The suites `options` runs ("all": thesis, then wisconsin).
std::vector<std::string> BenchSuitesOf(const BenchOptions& options);
// Throws InvalidInputError naming the valid ids when one of `options.queries`
// is no query of the suites run.
void CheckBenchQueryIds(const BenchOptions& options);
// The queries of `suite` at `n` rows that `options` selects (its `queries`,
// or all of them).
std::vector<BenchQuery> SelectedBenchQueries(const BenchOptions& options, std::string_view suite,
                                             RowCount n);

// Runs everything. Throws only for errors of the whole run (a bad suite name);
// query failures are recorded in the report.
BenchReport RunBench(std::vector<std::unique_ptr<Engine>>& engines, const BenchOptions& options);

}  // namespace clq
