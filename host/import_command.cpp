// `clq import`: converts a CSV file into a clq table file.
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
  std::optional<Schema> schema;
  if (!options.schema.empty()) schema = ParseSchema(options.schema);
  const std::string name =
      options.name.empty() ? std::filesystem::path(options.csv).stem().string() : options.name;
  const TablePtr table = ImportCsv(options.csv, name, std::move(schema),
                                   OptionsFromEnvironment(options.settings).query.host_memory);
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
