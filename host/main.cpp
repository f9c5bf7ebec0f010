// The clq program: parses the command line and runs one subcommand. Every
// clq::Error becomes one message on stderr and exit status 1 (standard
// output that cannot be written included); a usage error prints the
// subcommand's help and exits 2.
//
// The subcommands' options are declared here, not beside each command's work:
// CLI11's header takes seconds to compile, and this way it is compiled once.
#include <malloc.h>

#include <CLI/CLI.hpp>
#include <iostream>
#include <memory>

#include "clq_version.hpp"
#include "common/errors.hpp"
#include "host/cli_common.hpp"
#include "host/commands.hpp"
#include "host/environment_options.hpp"
#include "runtime/cl_error.hpp"

namespace clq {
namespace {

void AddNoCacheFlag(CLI::App& command, bool& no_cache) {
  command.add_flag("--no-cache", no_cache,
                   "Build kernels from source, bypassing the program-binary cache");
}

// Adds the repeatable --option NAME=VALUE (common/options.hpp).
void AddSettingOption(CLI::App& command, std::vector<std::string>& settings) {
  command
      .add_option("--option", settings,
                  "A setting NAME=VALUE (repeatable; names in the README, e.g. "
                  "host_memory=8G, short_real=off); after $CLQ_OPTIONS")
      ->type_name("NAME=VALUE")
      ->allow_extra_args(false);
}

// Adds --device, --no-cache and --option to a subcommand.
void AddDeviceOptions(CLI::App& command, DeviceOptions& options, bool several_devices,
                      const char* device_help = nullptr) {
  command.add_option("--device,-d", options.selector,
                     device_help != nullptr ? device_help
                     : several_devices
                         ? "Devices: all, index, platform:device, gpu|cpu|accelerator, name "
                           "substring; comma-separated (default: $CLQ_DEVICE, else first GPU, "
                           "else first CPU)"
                         : "Device: index, platform:device, gpu|cpu|accelerator or name "
                           "substring (default: $CLQ_DEVICE, else first GPU, else first CPU)");
  AddNoCacheFlag(command, options.no_cache);
  AddSettingOption(command, options.settings);
  command
      .add_option_function<std::string>(
          "--device-memory",
          [&options](const std::string& size) {
            options.settings.push_back("device_memory=" + size);
          },
          "Use at most SIZE of device memory, as if the device had no more (e.g. 512M, 16G); "
          "tables larger than half of it stream through in tablets")
      ->type_name("SIZE");
}

// Adds --rows N and repeatable --table NAME=FILE to a subcommand.
void AddDatasetOptions(CLI::App& command, DatasetOptions& options) {
  options.python = PythonInterpreter();
  command
      .add_option_function<std::string>(
          "--rows",
          [&options](const std::string& text) { options.rows = ParseRowCount(text, "--rows"); },
          "Rows of tenktup1/tenktup2 (onektup and bprime get a tenth), e.g. 10000, 100K, 1M "
          "(default 1M)")
      ->type_name("N");
  command
      .add_option("--table", options.table_files,
                  "Also register a table file (from clq gen or clq import, or a .parquet file "
                  "read by pyarrow, $CLQ_PYTHON's) as NAME; repeatable; replaces a built-in "
                  "table of the same name")
      ->type_name("NAME=FILE")
      // One value per flag, so that `--table t=f.clq "SELECT ..."` leaves the
      // SQL to the positional argument.
      ->allow_extra_args(false);
}

// Each Register* adds one subcommand whose callback runs it. The options live
// as long as the callback that reads them, which the app owns.

void RegisterDevicesCommand(CLI::App& app) {
  auto options = std::make_shared<DevicesCommandOptions>();
  CLI::App* command = app.add_subcommand("devices", "List OpenCL platforms and devices");
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}));
  command->callback([options] { RunDevicesCommand(*options); });
}

void RegisterBandwidthCommand(CLI::App& app) {
  auto options = std::make_shared<BandwidthCommandOptions>();
  CLI::App* command =
      app.add_subcommand("bandwidth", "Measure host<->device transfer and device memory bandwidth");
  AddDeviceOptions(*command, options->device, true);
  command->add_option("--min-size", options->min_size, "Smallest buffer (default 1M)");
  command->add_option("--max-size", options->max_size,
                      "Largest buffer, capped by the device's max allocation (default 1G)");
  command->add_option("--repeat", options->repeats, "Timed repetitions per size (default 5)")
      ->check(CLI::Range(1, 1000));
  command->add_option("--format", options->format, "Output format")
      ->check(CLI::IsMember({"table", "json"}));
  command->callback([options] { RunBandwidthCommand(*options); });
}

void RegisterQueryCommand(CLI::App& app) {
  auto options = std::make_shared<QueryCommandOptions>();
  CLI::App* command =
      app.add_subcommand("query", "Run SQL statements on a device, or on several at once");
  AddDeviceOptions(*command, options->device, false,
                   "Device: index, platform:device, gpu|cpu|accelerator or name substring "
                   "(default: $CLQ_DEVICE, else first GPU, else first CPU); all, or a "
                   "comma-separated list: several devices, each query whose result merges "
                   "from parts (GROUP BY, aggregates) split by rows across them");
  AddDatasetOptions(*command, options->dataset);
  command->add_option("--format", options->format, "Output format (default table)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  command->add_flag("--profile", options->profile,
                    "Print each pipeline stage's device time to stderr");
  command->add_option("--out,-o", options->out, "Write the results to FILE");
  command->add_option("-f,--file", options->file, "Read the SQL from FILE");
  command->add_option("sql", options->sql,
                      "SQL statements separated by ';' (or - to read standard input)");
  command->callback([options] { RunQueryCommand(*options); });
}

void RegisterGenCommand(CLI::App& app) {
  auto options = std::make_shared<GenCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "gen", "Generate a Wisconsin benchmark relation (DeWitt 1993) into a file");
  command
      ->add_option("--rows", options->rows,
                   "N, the rows of tenktup1/tenktup2; onektup and bprime get N/10 "
                   "(e.g. 10000, 100K, 1M)")
      ->required()
      ->type_name("N");
  command->add_option("--table", options->table, "Relation (default tenktup1)")
      ->check(CLI::IsMember({kTenktup1, kTenktup2, kOnektup, kBprime}, CLI::ignore_case));
  command
      ->add_option("--format", options->format,
                   "clq (binary table file) or csv (default: csv when --out ends in .csv, "
                   "else clq)")
      ->check(CLI::IsMember({"clq", "csv"}, CLI::ignore_case));
  command->add_option("--out,-o", options->out, "Output file")->required()->type_name("FILE");
  command->add_option("--threads", options->threads, "Generator threads (default: all cores)");
  AddSettingOption(*command, options->settings);
  command->callback([options] { RunGenCommand(*options); });
}

void RegisterImportCommand(CLI::App& app) {
  auto options = std::make_shared<ImportCommandOptions>();
  CLI::App* command =
      app.add_subcommand("import", "Convert a CSV (or other delimited) file into a clq table file");
  command
      ->add_option("--csv", options->csv,
                   "Delimited file, with a header row unless --no-header. A row may end with "
                   "one extra delimiter (as dbgen's .tbl rows do): one empty last field beyond "
                   "the columns is dropped")
      ->required()
      ->type_name("FILE");
  command
      ->add_option("--delimiter", options->delimiter,
                   "The field delimiter, one byte, e.g. '|' or \\t for a tab (default ',')")
      ->type_name("C");
  command->add_flag("--no-header", options->no_header,
                    "The file has no header row: every record is a row, and --schema, required, "
                    "names the columns");
  command->add_option("--out,-o", options->out, "Table file to write")
      ->required()
      ->type_name("FILE");
  command->add_option("--schema", options->schema,
                      "Column names and types, e.g. \"id INT, name CHAR(20), price DOUBLE\" "
                      "(INT, BIGINT, DOUBLE, CHAR(n), TEXT; default: inferred)");
  command->add_option("--name", options->name, "Table name (default: the CSV file's stem)");
  AddSettingOption(*command, options->settings);
  command->callback([options] { RunImportCommand(*options); });
}

void RegisterBenchCommand(CLI::App& app) {
  auto options = std::make_shared<BenchCommandOptions>();
  CLI::App* command = app.add_subcommand(
      "bench", "Benchmark a query suite on devices: hot/cold times, GB/s, agreement, peers");
  command->add_option("--devices,--device,-d", options->devices,
                      "Devices: all (default), index, platform:device, gpu|cpu|accelerator, "
                      "name substring; comma-separated");
  AddNoCacheFlag(*command, options->no_cache);
  AddSettingOption(*command, options->settings);
  command
      ->add_option("--rows", options->rows,
                   "Table sizes N, comma-separated, e.g. 1K,1M (default: thesis 1K,10K,100K,1M; "
                   "wisconsin 1M)")
      ->type_name("N[,N...]");
  command->add_option("--suite", options->suite,
                      "thesis (default), wisconsin, general, tpch (the 22 TPC-H queries over "
                      "--tpch-dir's tables) or all (every suite but tpch)");
  command
      ->add_option("--tpch-dir", options->tpch_dir,
                   "tpch: the directory of the 8 TPC-H tables as clq table files "
                   "(scripts/tpch_data.sh SF DIR writes them)")
      ->type_name("DIR");
  command
      ->add_option("--sf", options->sf,
                   "tpch: the scale factor, checked against the tables (default: theirs); "
                   "SQLite is no peer of tpch, DuckDB is: scripts/peers/duckdb_peer.py "
                   "--report")
      ->type_name("N");
  command->add_option("--queries", options->queries,
                      "Only these query ids of the suite, comma-separated, e.g. "
                      "L2_projection,L14_max (default: all)");
  command->add_option("--repeat", options->repeat, "Timed runs per measurement (default 5)")
      ->check(CLI::Range(1, 1000));
  command->add_option("--format", options->format, "Output format (default table)")
      ->check(CLI::IsMember({"table", "csv", "json"}));
  command->add_option("--out,-o", options->out, "Write the report to FILE");
  command
      ->add_option("--peers", options->peers,
                   "Host peers, comma-separated: cpu (CPU reference), sqlite, duckdb "
                   "(scripts/peers/duckdb_peer.py with $CLQ_PYTHON, on the same data after "
                   "clq's runs), none (default cpu,sqlite; tpch: duckdb); agreement is "
                   "always checked against the CPU reference")
      ->type_name("LIST");
  command
      ->add_option("--duckdb-threads", options->duckdb_threads,
                   "Threads of the DuckDB peer (default: DuckDB's, every core)")
      ->type_name("N");
  command
      ->add_option("--check", options->check,
                   "cpu (default): check every answer against the CPU reference; none: skip "
                   "the reference (no agreement column), for sizes where it would take longest")
      ->check(CLI::IsMember({"cpu", "none"}));
  command->callback([options] { RunBenchCommand(*options); });
}

// `status`, unless what the help or version flag printed could not be
// written: FinishStandardOutput's error then ends main's try.
int FinishedWith(int status) {
  FinishStandardOutput();
  return status;
}

const CLI::App* DeepestParsed(const CLI::App& app) {
  for (const CLI::App* sub : app.get_subcommands())
    if (sub->parsed()) return DeepestParsed(*sub);
  return &app;
}

}  // namespace
}  // namespace clq

int main(int argc, char** argv) {
  clq::ReserveStandardDescriptors();
  // Keep freed memory for reuse: query results up to 32 MiB per column come
  // from the heap and stay mapped after they are freed, so the next query's
  // result does not fault in fresh pages (the largest share of a big result's
  // host time). glibc's default returns them to the system each time.
  mallopt(M_MMAP_THRESHOLD, 32 << 20);
  mallopt(M_TRIM_THRESHOLD, 1 << 30);
  CLI::App app{
      "clq: an OpenCL query engine that runs the same relational pipelines on any "
      "OpenCL device",
      "clq"};
  app.set_version_flag("--version", std::string("clq ") + clq::kVersion);
  app.require_subcommand(1);
  clq::RegisterDevicesCommand(app);
  clq::RegisterBandwidthCommand(app);
  clq::RegisterQueryCommand(app);
  clq::RegisterGenCommand(app);
  clq::RegisterImportCommand(app);
  clq::RegisterBenchCommand(app);

  try {
    try {
      app.parse(argc, argv);
    } catch (const CLI::CallForHelp& e) {
      return clq::FinishedWith(app.exit(e));
    } catch (const CLI::CallForAllHelp& e) {
      return clq::FinishedWith(app.exit(e));
    } catch (const CLI::CallForVersion& e) {
      return clq::FinishedWith(app.exit(e));
    }
    clq::FinishStandardOutput();
  } catch (const CLI::ParseError& e) {
    std::string message = e.what();
    if (argc > 1 && argv[1][0] != '-' &&
        app.get_subcommands([&](const CLI::App* sub) { return sub->get_name() == argv[1]; })
            .empty())
      message = std::string("unknown subcommand '") + argv[1] + "'";
    std::cerr << "clq: error: " << message << "\n\n" << clq::DeepestParsed(app)->help();
    return 2;
  } catch (const clq::Error& e) {
    std::cerr << "clq: error: " << e.what() << "\n";
    return 1;
  } catch (const cl::Error& e) {
    std::cerr << "clq: error: " << clq::TranslateClError(e).what() << "\n";
    return 1;
  } catch (const std::bad_alloc&) {
    std::cerr << "clq: error: out of host memory\n";
    return 1;
  } catch (const std::exception& e) {
    std::cerr << "clq: internal error: " << e.what() << "\n";
    return 3;
  }
  return 0;
}
