// `clq query`: runs SQL statements on a device, or on several at once
// (plan/device_split.hpp), and prints their results.
#include <algorithm>
#include <chrono>
#include <fstream>
#include <iostream>
#include <iterator>
#include <memory>
#include <sstream>

#include "common/errors.hpp"
#include "host/cli_common.hpp"
#include "host/commands.hpp"
#include "host/dataset_options.hpp"
#include "host/result_format.hpp"
#include "host/text_table.hpp"
#include "plan/query_executor.hpp"
#include "runtime/pinned_host_blocks.hpp"
#include "runtime/profiler.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "sql/sql_error_format.hpp"
#include "sql/statement_split.hpp"

namespace clq {
namespace {

constexpr std::uint64_t kTableRowsShown = 100;

std::string ReadScript(const QueryCommandOptions& options) {
  if (!options.file.empty() && !options.sql.empty())
    throw InvalidInputError("give the SQL either as an argument or with -f, not both");
  if (!options.file.empty()) {
    std::ifstream in(options.file, std::ios::binary);
    if (!in) throw FileError("cannot open " + options.file);
    return std::string(std::istreambuf_iterator<char>(in), std::istreambuf_iterator<char>());
  }
  if (options.sql == "-") {
    return std::string(std::istreambuf_iterator<char>(std::cin), std::istreambuf_iterator<char>());
  }
  if (options.sql.empty())
    throw InvalidInputError("no SQL given (an argument, -f FILE, or - for stdin)");
  return options.sql;
}

std::string FormatProfile(const std::vector<StageTiming>& stages, double wall_ms) {
  TextTable table({"stage", "kind", "launches", "ms", "MB"});
  double total = 0;
  double host = 0;
  for (const StageTiming& s : stages) {
    if (s.kind != StageKind::kNodeWall)
      (s.kind == StageKind::kHost ? host : total) += s.milliseconds;
    table.AddRow({s.name, StageKindName(s.kind), std::to_string(s.launches),
                  FormatFixed(s.milliseconds, 3),
                  s.bytes ? FormatFixed(static_cast<double>(s.bytes) / 1e6, 1) : ""});
  }
  table.AddRow({"total device time", "", "", FormatFixed(total, 3), ""});
  if (host > 0) table.AddRow({"total host steps", "", "", FormatFixed(host, 3), ""});
  return table.Render() + "wall time " + FormatFixed(wall_ms, 3) +
         " ms (the program build at start-up is not included; on PoCL a kernel's first launch "
         "on this machine includes compiling it)\n";
}

// `host_memory`: what the text may take beside the result.
std::string Render(const QueryResult& result, const QueryCommandOptions& options,
                   std::uint64_t host_memory) {
  if (options.format == "csv") return FormatCsv(result, host_memory);
  if (options.format == "json") return FormatJson(result, host_memory);
  return FormatTable(result, options.out.empty() ? kTableRowsShown : ~std::uint64_t{0},
                     host_memory);
}

}  // namespace

void RunQueryCommand(const QueryCommandOptions& options) {
  const std::string script = ReadScript(options);
  const std::vector<sql::StatementText> statements = sql::SplitStatements(script);
  if (statements.empty()) throw InvalidInputError("no SQL statement given");
  // Parse everything first: a syntax error in the last statement should not
  // wait for the first to run.
  std::vector<sql::ast::Statement> parsed;
  for (const sql::StatementText& statement : statements) {
    try {
      parsed.push_back(sql::Parse(statement.text));
    } catch (const SqlError& error) {
      const std::size_t at =
          error.offset() == std::string::npos ? error.offset() : statement.offset + error.offset();
      throw SqlError(sql::FormatSqlError(script, SqlError(error.what(), at)));
    }
  }
  const QueryOptions query_options = ResolveOptions(options.device).query;
  double discovery_seconds = 0;
  const std::vector<std::unique_ptr<Engine>> engines =
      OpenEngines(options.device, SelectsSeveralDevices(options.device), &discovery_seconds);
  std::vector<Engine*> devices;
  for (const std::unique_ptr<Engine>& e : engines)
    devices.push_back(e.get());
  Engine* engine = devices.front();
  // Tables built from here on sit in pinned memory on GPUs (one DMA each to upload).
  const ScopedHostBlockAllocator pinned_tables(
      PinnedTableMemoryFor(*engine, engine->options().pinned_tables));
  Catalog catalog = BuildCatalog(options.dataset, query_options.host_memory);
  if (options.profile) {
    const ProgramBuildReport& report = engine->build_report();
    std::cerr << "start-up: device discovery " << FormatFixed(discovery_seconds * 1e3, 1)
              << " ms, context " << FormatFixed(report.context_seconds * 1e3, 1) << " ms, kernels "
              << FormatFixed(report.seconds * 1e3, 1) << " ms ("
              << (report.from_cache ? "cached binary"
                  : report.driver_caches_kernels
                      ? "built; PoCL compiles each kernel at its first launch and caches it"
                      : "compiled")
              << ")\n";
  }
  QueryExecutor executor(devices, query_options);
  std::string output;
  for (std::size_t i = 0; i < statements.size(); ++i) {
    sql::BoundStatement bound;
    try {
      bound = sql::Bind(parsed[i], catalog, statements[i].text);
    } catch (const SqlError& error) {
      const std::size_t at = error.offset() == std::string::npos
                                 ? error.offset()
                                 : statements[i].offset + error.offset();
      throw SqlError(sql::FormatSqlError(script, SqlError(error.what(), at)));
    }
    if (i > 0 && options.format == "table") output += "\n";
    if (bound.explain) {
      output += executor.Explain(bound.select);
    } else {
      if (options.profile)
        for (Engine* device : devices)
          device->profiler().Start();
      const auto start = std::chrono::steady_clock::now();
      const QueryResult result = executor.Execute(bound.select);
      const double wall_ms =
          std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start)
              .count();
      // Text of earlier statements kept for --out counts against the budget.
      const std::uint64_t budget =
          query_options.host_memory == kUnlimitedHostMemory
              ? kUnlimitedHostMemory
              : query_options.host_memory -
                    std::min<std::uint64_t>(query_options.host_memory, output.size());
      output += Render(result, options, budget);
      if (options.profile) {
        std::cout << std::flush;
        for (std::size_t d = 0; d < devices.size(); ++d)
          std::cerr << "profile of statement " << i + 1
                    << (devices.size() > 1 ? " (device " + std::to_string(d) + ")" : "") << " on "
                    << devices[d]->info().name << " (" << devices[d]->tuning().Describe() << "):\n"
                    << FormatProfile(devices[d]->profiler().Stop(), wall_ms);
      }
    }
    if (options.out.empty()) {
      WriteStandardOutput(output);
      output.clear();
    }
  }
  if (!options.out.empty()) WriteOutput(options.out, output);
}

}  // namespace clq
