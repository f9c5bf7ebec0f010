#include "host/dataset_options.hpp"

#include <unistd.h>

#include <cctype>
#include <cstdio>
#include <memory>

#include "common/errors.hpp"
#include "host/parquet_import.hpp"
#include "storage/table_file.hpp"
#include "wisconsin/dataset.hpp"

namespace clq {
namespace {

bool IsIdentifier(std::string_view name) {
  if (name.empty() || std::isdigit(static_cast<unsigned char>(name.front()))) return false;
  for (char c : name)
    if (!std::isalnum(static_cast<unsigned char>(c)) && c != '_') return false;
  return true;
}

void AddTableFile(Catalog& catalog, const std::string& spec, const std::string& python,
                  std::uint64_t host_memory) {
  const std::size_t equals = spec.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == spec.size())
    throw InvalidInputError("--table '" + spec + "': expected NAME=FILE, such as sales=sales.clq");
  const std::string name = spec.substr(0, equals);
  const std::string path = spec.substr(equals + 1);
  if (!IsIdentifier(name))
    throw InvalidInputError("--table '" + spec + "': '" + name +
                            "' is not a table name (letters, digits and _, not starting with a "
                            "digit)");
  if (IsParquetFile(path)) {
    // Read now: its schema comes from pyarrow with its rows.
    catalog.Add(ReadParquetThroughPyarrow(path, name, python, host_memory));
    return;
  }
  TableFileInfo info = ReadTableFileInfo(path);
  catalog.Add(name, std::move(info.schema),
              [path, name, host_memory] { return ReadTableFile(path, name, host_memory); });
}

}  // namespace

Catalog BuildCatalog(const DatasetOptions& options, std::uint64_t host_memory) {
  Catalog catalog;
  GenerateOptions generate;
  generate.progress = TerminalProgress();
  generate.host_memory = host_memory;
  AddWisconsinTables(catalog, options.rows, generate);
  for (const std::string& spec : options.table_files)
    AddTableFile(catalog, spec, options.python, host_memory);
  return catalog;
}

RowCount ParseRowCount(const std::string& text, const std::string& what) {
  std::size_t digits = 0;
  while (digits < text.size() && std::isdigit(static_cast<unsigned char>(text[digits])))
    ++digits;
  RowCount multiplier = 1;
  const std::string suffix = text.substr(digits);
  if (suffix == "K" || suffix == "k") {
    multiplier = 1000;
  } else if (suffix == "M" || suffix == "m") {
    multiplier = 1000000;
  } else if (suffix == "G" || suffix == "g") {
    multiplier = 1000000000;
  } else if (!suffix.empty()) {
    digits = 0;
  }
  // 11 digits bound the value before multiplying, so nothing overflows.
  if (digits > 0 && digits <= 11) {
    const RowCount rows = std::stoull(text.substr(0, digits)) * multiplier;
    if (rows <= kMaxWisconsinRows) return rows;
  }
  throw InvalidInputError(what + ": '" + text + "' is not a row count from 0 to " +
                          std::to_string(kMaxWisconsinRows) +
                          " (suffixes K, M, G multiply by 1e3, 1e6, 1e9)");
}

ProgressCallback TerminalProgress() {
  if (!::isatty(STDERR_FILENO)) return nullptr;
  auto last_percent = std::make_shared<int>(-1);
  return [last_percent](std::string_view table, RowCount done, RowCount total) {
    const int percent = total == 0 ? 100 : static_cast<int>(done * 100 / total);
    if (percent == *last_percent) return;
    *last_percent = percent;
    constexpr int kWidth = 30;
    const int filled = percent * kWidth / 100;
    std::fprintf(stderr, "\rgenerating %.*s: [%.*s%*s] %3d%%", static_cast<int>(table.size()),
                 table.data(), filled, "##############################", kWidth - filled, "",
                 percent);
    if (done == total) {
      std::fputc('\n', stderr);
      *last_percent = -1;  // ready for the next table
    }
    std::fflush(stderr);
  };
}

}  // namespace clq
