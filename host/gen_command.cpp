// `clq gen`: writes one Wisconsin relation to a table file or CSV.
#include <chrono>
#include <iomanip>
#include <sstream>

#include "common/errors.hpp"
#include "host/cli_common.hpp"
#include "host/commands.hpp"
#include "host/dataset_options.hpp"
#include "storage/csv.hpp"
#include "storage/table_file.hpp"
#include "wisconsin/dataset.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

std::string ChooseFormat(const GenCommandOptions& options) {
  if (!options.format.empty()) return options.format;
  const std::string& out = options.out;
  const bool csv_name =
      out.size() >= 4 && LowercaseIdentifier(out.substr(out.size() - 4)) == ".csv";
  return csv_name ? "csv" : "clq";
}

}  // namespace

void RunGenCommand(const GenCommandOptions& options) {
  const RowCount n = ParseRowCount(options.rows, "--rows");
  const std::string table = LowercaseIdentifier(options.table);
  const std::string format = ChooseFormat(options);
  GenerateOptions generate;
  generate.threads = options.threads;
  generate.progress = TerminalProgress();

  const auto start = std::chrono::steady_clock::now();
  TablePtr result;
  if (table == kOnektup) {
    result = GenerateWisconsinTable(table, SmallWisconsinRows(n), generate);
  } else if (table == kBprime) {
    result = GenerateWisconsinPrefix(table, n, SmallWisconsinRows(n), generate);
  } else {
    result = GenerateWisconsinTable(table, n, generate);
  }
  const auto generated = std::chrono::steady_clock::now();
  if (format == "csv") {
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
          << options.out << " (" << format << "); generated in " << seconds(start, generated)
          << " s, written in " << seconds(generated, written) << " s\n";
  WriteStandardOutput(summary.str());
}

}  // namespace clq
