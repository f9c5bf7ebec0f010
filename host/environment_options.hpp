// The environment variables clq reads, all in one place: the program's edge
// turns them into Options (common/options.hpp) and passes those down.
//
//   CLQ_DEVICE           default device selector
//   CLQ_CACHE_DIR        program-binary cache (default $XDG_CACHE_HOME/clq,
//                        else ~/.cache/clq)
//   CLQ_WG_SIZE, CLQ_IPT work-group size, items per work-item
//   CLQ_KERNEL_PATHS     cpu | gpu kernel variants
//   CLQ_BUILD_OPTIONS    extra OpenCL build options
//   CLQ_SYNC=1           finish the queue after every enqueue
//   CLQ_PRINT_BUILD_LOG=1  print the driver's build log
//   CLQ_TABLET_ROWS      most rows per device tablet
//   CLQ_PYTHON           the Python with pyarrow that reads Parquet files
//   CLQ_OPTIONS          more settings, "name=value,name=value" (any name
//                        of OptionNames())
//
// Settings given on the command line (--option name=value) apply after these.
// The host-memory budget (host_memory) starts as the memory available when
// the program starts (host/available_memory.hpp).
#pragma once

#include <filesystem>
#include <string>
#include <vector>

#include "common/options.hpp"

namespace clq {

// Options from the environment (and the available host memory), then each "name=value" of
// `settings` in order. Throws InvalidInputError for a bad value or an unknown name.
Options OptionsFromEnvironment(const std::vector<std::string>& settings = {});

// $CLQ_DEVICE, or empty.
std::string DefaultSelector();

// $CLQ_PYTHON, else "python3": the interpreter that reads Parquet files
// through pyarrow (host/parquet_import.hpp).
std::string PythonInterpreter();

// $CLQ_CACHE_DIR, else $XDG_CACHE_HOME/clq, else $HOME/.cache/clq; empty
// when none is set.
std::filesystem::path DefaultCacheDirectory();

}  // namespace clq
