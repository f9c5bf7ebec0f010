// `clq import`: converts a CSV file into a clq table file.
#include <filesystem>
#include <iostream>
#include <memory>
#include <optional>

#include "host/commands.hpp"
#include "runtime/errors.hpp"
#include "runtime/storage/csv.hpp"
#include "runtime/storage/table_file.hpp"

namespace clq {
namespace {

struct ImportCommandOptions {
  std::string csv;
  std::string out;
  std::string schema;
  std::string name;
};

void RunImport(const ImportCommandOptions& options) {
  std::optional<Schema> schema;
  if (!options.schema.empty()) schema = ParseSchema(options.schema);
  const std::string name =
      options.name.empty() ? std::filesystem::path(options.csv).stem().string() : options.name;
  const TablePtr table = ImportCsv(options.csv, name, std::move(schema));
  WriteTableFile(*table, options.out);
  std::cout << table->name() << ": " << table->rows() << " rows (";
  for (std::size_t c = 0; c < table->columns().size(); ++c)
    std::cout << (c > 0 ? ", " : "") << table->column(c).name() << " "
              << table->column(c).type().ToString();
  std::cout << ") -> " << options.out << "\n";
}

}  // namespace

void RegisterImportCommand(CLI::App& app) {
  auto options = std::make_shared<ImportCommandOptions>();
  CLI::App* command = app.add_subcommand("import", "Convert a CSV file into a clq table file");
  command->add_option("--csv", options->csv, "CSV file with a header row")
      ->required()
      ->type_name("FILE");
  command->add_option("--out,-o", options->out, "Table file to write")
      ->required()
      ->type_name("FILE");
  command->add_option("--schema", options->schema,
                      "Column names and types, e.g. \"id INT, name CHAR(20), price DOUBLE\" "
                      "(INT, BIGINT, DOUBLE, CHAR(n), TEXT; default: inferred)");
  command->add_option("--name", options->name, "Table name (default: the CSV file's stem)");
  command->callback([options] { RunImport(*options); });
}

}  // namespace clq
