// `clq gen`: writes one Wisconsin relation to a table file or CSV, or to
// standard output.
#include <unistd.h>

#include <chrono>
#include <cstdio>
#include <iomanip>
#include <iostream>
#include <sstream>

#include "common/errors.hpp"
#include "common/host_memory.hpp"
#include "host/cli_common.hpp"
#include "host/commands.hpp"
#include "host/dataset_options.hpp"
#include "host/environment_options.hpp"
#include "storage/csv.hpp"
#include "storage/table_file.hpp"
#include "wisconsin/dataset.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

// `--out -` is standard output, as for most Unix tools; no file named '-'.
bool ToStandardOutput(const GenCommandOptions& options) {
  return options.out == "-";
}

// CSV for standard output (what a user reading it wants to see) and for a
// name ending in .csv, unless --format says otherwise.
std::string ChooseFormat(const GenCommandOptions& options) {
  if (!options.format.empty()) return LowercaseIdentifier(options.format);
  const std::string& out = options.out;
  const bool csv_name =
      out.size() >= 4 && LowercaseIdentifier(out.substr(out.size() - 4)) == ".csv";
  return csv_name || ToStandardOutput(options) ? "csv" : "clq";
}

void WriteToStandardOutput(const Table& table, const std::string& format) {
  const std::string name = "standard output";
  if (format == "csv") {
    WriteCsvContents(table, stdout, name);
  } else {
    WriteTableContents(table, stdout, name);
  }
  FinishStandardOutput();
}

}  // namespace

void RunGenCommand(const GenCommandOptions& options) {
  const RowCount n = ParseRowCount(options.rows, "--rows");
  const std::string table = LowercaseIdentifier(options.table);
  const std::string format = ChooseFormat(options);
  if (ToStandardOutput(options) && format == "clq" && ::isatty(STDOUT_FILENO))
    throw InvalidInputError(
        "--out -: not writing a binary table file to a terminal; redirect standard output, or "
        "use --format csv");
  GenerateOptions generate;
  generate.threads = options.threads;
  generate.progress = TerminalProgress();
  generate.host_memory = OptionsFromEnvironment(options.settings).query.host_memory;

  const auto start = std::chrono::steady_clock::now();
  const RowCount rows = table == kOnektup || table == kBprime ? SmallWisconsinRows(n) : n;
  // The file holds every column: the whole table is checked before any is made.
  CheckHostMemory(generate.host_memory,
                  "table " + table + " (" + std::to_string(rows) + " rows of " +
                      std::to_string(RowWidth(WisconsinSchema())) + " bytes)",
                  TableBytes(WisconsinSchema(), rows));
  TablePtr result;
  if (table == kOnektup) {
    result = GenerateWisconsinTable(table, rows, generate);
  } else if (table == kBprime) {
    result = GenerateWisconsinPrefix(table, n, rows, generate);
  } else {
    result = GenerateWisconsinTable(table, n, generate);
  }
  for (const Column& column : result->columns())
    (void)column.bytes();  // made now (a generated column is made on first read)
  const auto generated = std::chrono::steady_clock::now();
  if (ToStandardOutput(options)) {
    WriteToStandardOutput(*result, format);
  } else if (format == "csv") {
    WriteCsvFile(*result, options.out);
  } else {
    WriteTableFile(*result, options.out);
  }
  const auto written = std::chrono::steady_clock::now();
  auto seconds = [](auto from, auto to) {
    return std::chrono::duration<double>(to - from).count();
  };
  std::ostringstream summary;
  summary << std::fixed << std::setprecision(3) << table << ": " << result->rows() << " rows -> "
          << (ToStandardOutput(options) ? "standard output" : options.out) << " (" << format
          << "); generated in " << seconds(start, generated) << " s, written in "
          << seconds(generated, written) << " s\n";
  // Beside a table on standard output, the summary goes to stderr.
  if (ToStandardOutput(options)) {
    std::cerr << summary.str();
  } else {
    WriteStandardOutput(summary.str());
  }
}

}  // namespace clq
