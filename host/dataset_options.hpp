// The data options of the commands that run queries: the Wisconsin scale
// (--rows) and table files (--table NAME=FILE), and the catalog they make.
// Also the row-count parser and the terminal progress bar shared with
// `clq gen`. Not thread-safe (command-line setup).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "storage/catalog.hpp"
#include "wisconsin/sequence.hpp"

namespace clq {

struct DatasetOptions {
  RowCount rows = 1000000;
  std::vector<std::string> table_files;  // "NAME=FILE"
  std::string python = "python3";         // reads Parquet files (the edge sets it)
};

// tenktup1, tenktup2, onektup and bprime for options.rows, then every table
// file under its name (a name of a built-in table replaces it). Files are
// checked now (header, size) and read on first use. Throws InvalidInputError
// for a malformed NAME=FILE, FileError for a bad file. Tables are generated
// or read on first use, each checked then against `host_memory`
// (ResourceLimitError when it does not fit).
Catalog BuildCatalog(const DatasetOptions& options, std::uint64_t host_memory);

// "10000", "10K", "1M", "2G" (decimal: 1e3, 1e6, 1e9), 0 to
// kMaxWisconsinRows. `what` names the option in the message. Throws
// InvalidInputError.
RowCount ParseRowCount(const std::string& text, const std::string& what);

// A progress bar on stderr when stderr is a terminal; otherwise empty (no
// output), so redirected and test output stays clean.
ProgressCallback TerminalProgress();

}  // namespace clq
