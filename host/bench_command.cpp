// `clq bench`: runs a query suite at one or more sizes on one or more devices
// and reports hot and cold times, bandwidth against the device's copy
// bandwidth, speedup over the CPU reference, SQLite's time and whether each
// device's answer agrees with the CPU reference (host/bench_runner.hpp says
// what is measured and how). The DuckDB and CuPy peers are standalone scripts
// (scripts/peers/), run on the same data and SQL.
#include <memory>
#include <sstream>

#include "common/errors.hpp"
#include "host/bench_duckdb.hpp"
#include "host/bench_report.hpp"
#include "host/bench_runner.hpp"
#include "host/bench_suites.hpp"
#include "host/bench_tpch.hpp"
#include "host/cli_common.hpp"
#include "host/commands.hpp"
#include "host/dataset_options.hpp"
#include "host/environment_options.hpp"
#include "runtime/pinned_host_blocks.hpp"

namespace clq {
namespace {

std::vector<std::string> SplitList(const std::string& text) {
  std::vector<std::string> items;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ','))
    items.push_back(item);
  if (!text.empty() && text.back() == ',') items.emplace_back();
  return items;
}

std::vector<RowCount> ParseRowList(const std::string& text) {
  std::vector<RowCount> rows;
  for (const std::string& item : SplitList(text)) {
    const RowCount n = ParseRowCount(item, "--rows");
    if (n == 0) throw InvalidInputError("--rows: a benchmark needs at least 1 row");
    rows.push_back(n);
  }
  if (rows.empty()) throw InvalidInputError("--rows: give at least one row count, e.g. 1M");
  return rows;
}

void ParsePeers(const std::string& text, BenchOptions& options, bool& duckdb) {
  options.cpu_peer = options.sqlite_peer = duckdb = false;
  for (const std::string& peer : SplitList(text)) {
    if (peer == "cpu") {
      options.cpu_peer = true;
    } else if (peer == "sqlite") {
      options.sqlite_peer = true;
    } else if (peer == "duckdb") {
      duckdb = true;
    } else if (peer == "none") {
      continue;
    } else if (peer == "cupy") {
      throw InvalidInputError("--peers: " + peer + " runs standalone: python3 scripts/peers/" +
                              peer + "_peer.py --rows N (prints JSON)");
    } else {
      throw InvalidInputError("--peers: unknown peer '" + peer +
                              "' (choose cpu, sqlite, duckdb, none)");
    }
  }
}

}  // namespace

void RunBenchCommand(const BenchCommandOptions& command) {
  BenchOptions options;
  options.suite = command.suite;
  BenchQueries(options.suite, 1000);  // an unknown suite fails before devices start
  if (!command.queries.empty()) options.queries = SplitList(command.queries);
  CheckBenchQueryIds(options);  // an unknown id fails before devices start too
  if (!command.rows.empty()) options.rows = ParseRowList(command.rows);
  options.repeat = command.repeat;
  bool duckdb = false;
  ParsePeers(
      command.peers.empty() ? (options.suite == "tpch" ? "duckdb" : "cpu,sqlite") : command.peers,
      options, duckdb);
  if (options.suite == "tpch") {
    if (!command.rows.empty())
      throw InvalidInputError("--rows: the tpch suite's size is its tables' (--sf, --tpch-dir)");
    // SQLite parses no date literals or intervals: the TPC-H queries' peer is
    // DuckDB (scripts/peers/duckdb_peer.py --report).
    options.sqlite_peer = false;
    options.tpch_dir = command.tpch_dir;
    options.tpch_scale_factor = command.sf;
  } else if (!command.sf.empty() || !command.tpch_dir.empty()) {
    throw InvalidInputError("--sf and --tpch-dir are for --suite tpch");
  }
  options.check = command.check == "cpu";
  DeviceOptions device;
  device.selector = command.devices;
  device.no_cache = command.no_cache;
  device.settings = command.settings;
  options.query = ResolveOptions(device).query;
  // The tpch suite's tables are checked before devices start.
  if (options.suite == "tpch")
    options.tpch_scale_factor =
        OpenTpchData(options.tpch_dir, options.tpch_scale_factor, options.query.host_memory)
            .scale_factor;
  std::vector<std::unique_ptr<Engine>> engines = OpenEngines(device, true);
  // The tables the run generates sit in pinned memory when a GPU is among the
  // devices (a cold run then uploads by DMA from host memory).
  HostBlockAllocator pinned;
  for (const std::unique_ptr<Engine>& engine : engines)
    if (!pinned) pinned = PinnedTableMemoryFor(*engine, engine->options().pinned_tables);
  const ScopedHostBlockAllocator pinned_tables(std::move(pinned));
  BenchReport report = RunBench(engines, options);
  if (duckdb) {
    DuckdbPeerOptions peer;
    peer.python = PythonInterpreter();
    peer.threads = command.duckdb_threads;
    RunDuckdbPeer(report, peer);
  }
  std::string text;
  if (command.format == "json") {
    text = RenderBenchJson(report);
  } else if (command.format == "csv") {
    text = RenderBenchCsv(report);
  } else {
    text = RenderBenchTable(report);
  }
  WriteOutput(command.out, text);
}

}  // namespace clq
