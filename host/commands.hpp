// The clq subcommands: each one's options and the function that runs it,
// which throws clq::Error for anything the user must fix. host/main.cpp fills
// the options from the command line; it is the one file that includes CLI11,
// whose header alone takes seconds to compile. A field's initial value is the
// command's default (the help texts there repeat it).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "host/dataset_options.hpp"
#include "host/device_options.hpp"
#include "wisconsin/dataset.hpp"

namespace clq {

struct DevicesCommandOptions {
  std::string format = "table";
};
void RunDevicesCommand(const DevicesCommandOptions& options);

struct BandwidthCommandOptions {
  DeviceOptions device;
  std::string min_size = "1M";
  std::string max_size = "1G";
  std::uint32_t repeats = 5;
  std::string format = "table";
};
void RunBandwidthCommand(const BandwidthCommandOptions& options);

struct QueryCommandOptions {
  DeviceOptions device;
  DatasetOptions dataset;
  std::string format = "table";
  bool profile = false;
  std::string out;
  std::string file;
  std::string sql;
};
void RunQueryCommand(const QueryCommandOptions& options);

struct GenCommandOptions {
  std::string rows;
  std::string table = kTenktup1;
  std::string format;  // empty: from the --out extension, else clq
  std::string out;
  unsigned threads = 0;
  std::vector<std::string> settings;  // --option NAME=VALUE (host_memory)
};
void RunGenCommand(const GenCommandOptions& options);

struct ImportCommandOptions {
  std::string csv;
  std::string out;
  std::string schema;
  std::string name;
  std::string delimiter = ",";  // one byte, or \t for a tab
  bool no_header = false;
  std::vector<std::string> settings;  // --option NAME=VALUE (host_memory)
};
void RunImportCommand(const ImportCommandOptions& options);

struct BenchCommandOptions {
  std::string devices = "all";
  bool no_cache = false;
  std::vector<std::string> settings;  // --option NAME=VALUE
  std::string rows;                   // "N[,N...]"; empty: the suite's defaults
  std::string suite = "thesis";
  std::string queries;  // "ID[,ID...]"; empty: all
  std::uint32_t repeat = 5;
  std::string format = "table";
  std::string out;
  std::string peers;                 // empty: cpu,sqlite (tpch: cpu,duckdb)
  std::uint32_t duckdb_threads = 0;  // 0: DuckDB's default
  std::string check = "cpu";         // "cpu" or "none"
  std::string sf;                    // tpch: the scale factor; empty: the tables'
  std::string tpch_dir;              // tpch: the directory of its clq table files
};
void RunBenchCommand(const BenchCommandOptions& options);

}  // namespace clq
