// Parquet files for `--table NAME=FILE.parquet`, read by pyarrow in a Python
// subprocess: clq links no Parquet or Arrow library. The script decodes the
// file into one chunk per column and writes each column's Arrow buffers to
// a private temporary directory, with a manifest of their layout; clq maps
// them, describes them as Arrow C Data arrays, and imports those like any
// Arrow data (arrow/arrow_import.hpp: the same types, the same refusals).
#pragma once

#include <cstdint>
#include <string>

#include "storage/table.hpp"

namespace clq {

// True when `path` names a Parquet file: it ends in ".parquet" or begins
// with Parquet's magic bytes.
bool IsParquetFile(const std::string& path);

// The file as table `name`. `python` is the interpreter to run (the edge
// reads $CLQ_PYTHON, else "python3"). Throws InvalidInputError naming the
// file when Python or pyarrow is missing, or pyarrow cannot read it, and
// ResourceLimitError when the table does not fit `host_memory`.
TablePtr ReadParquetThroughPyarrow(const std::string& path, const std::string& name,
                                   const std::string& python, std::uint64_t host_memory);

}  // namespace clq
