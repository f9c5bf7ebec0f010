// `clq import`: converts a CSV (or other delimited) file into a clq table file.
#include <filesystem>
#include <optional>
#include <sstream>

#include "common/errors.hpp"
#include "host/cli_common.hpp"
#include "host/commands.hpp"
#include "host/environment_options.hpp"
#include "storage/csv.hpp"
#include "storage/table_file.hpp"

namespace clq {

void RunImportCommand(const ImportCommandOptions& options) {
  CsvReadOptions read;
  if (options.delimiter == "\\t") {
    read.delimiter = '\t';
  } else if (options.delimiter.size() == 1 && options.delimiter != "\"" &&
             options.delimiter != "\r" && options.delimiter != "\n") {
    read.delimiter = options.delimiter[0];
  } else {
    throw InvalidInputError("--delimiter '" + options.delimiter +
                            "': give one byte other than a quote or a line break (\\t for a tab)");
  }
  read.header = !options.no_header;
  if (options.no_header && options.schema.empty())
    throw InvalidInputError("--no-header needs --schema \"name TYPE, ...\" to name the columns");
  std::optional<Schema> schema;
  if (!options.schema.empty()) schema = ParseSchema(options.schema);
  const std::string name =
      options.name.empty() ? std::filesystem::path(options.csv).stem().string() : options.name;
  const TablePtr table =
      ImportCsv(options.csv, name, std::move(schema),
                OptionsFromEnvironment(options.settings).query.host_memory, read);
  WriteTableFile(*table, options.out);
  std::ostringstream summary;
  summary << table->name() << ": " << table->rows() << " rows (";
  for (std::size_t c = 0; c < table->columns().size(); ++c)
    summary << (c > 0 ? ", " : "") << table->column(c).name() << " "
            << table->column(c).type().ToString();
  summary << ") -> " << options.out << "\n";
  WriteStandardOutput(summary.str());
}

}  // namespace clq
