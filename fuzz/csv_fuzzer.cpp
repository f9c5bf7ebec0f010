// libFuzzer target for the CSV importer (ImportCsvText, what `clq import`
// runs on a file's bytes) and the schema strings of `clq import --schema`
// (ParseSchema).
//
// Input: the first byte picks the mode. Bit 0 clear: the rest is the CSV
// text, imported without a schema (every column's type inferred); set: the
// rest up to the first LF is a schema string, the remainder the CSV text
// imported with that schema. Bit 1: '|' delimits the fields instead of ','
// (`clq import --delimiter '|'`); bit 2: the text has no header row
// (`--no-header`, which needs the schema).
//
// The contract (storage/csv.hpp): an import returns a table or throws an
// InvalidInputError naming the input. Anything else is a finding: an
// InternalError or another exception, a sanitizer's report, or a returned
// table that breaks an invariant a query relies on (columns of one length,
// the schema's names and types, CHAR values without NUL bytes within their
// width, DOUBLE values that are not NaN, NULL maps of 0 and 1 with zero
// value bytes at NULL rows) or that does not survive a round trip
// (FormatCsv, then an import with the table's own schema, must give the same
// bytes and the same NULLs back: a difference is a value the importer read
// wrong or the writer wrote wrong).
//
// Build (clang only): cmake -S . -B build-fuzz -G Ninja -DCLQ_FUZZ=ON
//   -DCMAKE_CXX_COMPILER=clang++ -DCMAKE_BUILD_TYPE=RelWithDebInfo
//   && cmake --build build-fuzz --target csv_fuzzer
// Run: build-fuzz/fuzz/csv_fuzzer -max_total_time=600 -rss_limit_mb=2048
//   -timeout=10 -dict=fuzz/csv.dict CORPUS  (CORPUS a scratch copy of
//   fuzz/corpus/csv, which takes the new inputs)
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <exception>
#include <iostream>
#include <optional>
#include <string>
#include <string_view>

#include "common/errors.hpp"
#include "storage/csv.hpp"
#include "storage/table.hpp"

namespace {

constexpr const char* kSource = "fuzz.csv";

[[noreturn]] void Finding(std::string_view what) {
  std::cerr << "csv_fuzzer: " << what << "\n";
  std::abort();
}

void Expect(bool condition, std::string_view what) {
  if (!condition) Finding(what);
}

// What every table the importer returns must satisfy.
void CheckTable(const clq::Table& table, const std::optional<clq::Schema>& schema) {
  Expect(table.name() == "t", "the table lost its name");
  Expect(!table.columns().empty(), "a table without columns");
  if (schema) {
    Expect(table.columns().size() == schema->size(), "column count differs from the schema's");
    for (std::size_t c = 0; c < schema->size(); ++c) {
      const clq::ColumnSpec& spec = (*schema)[c];
      const clq::ColumnType type = table.column(c).type();
      Expect(table.column(c).name() == spec.name, "column name differs from the schema's");
      const bool widest = spec.type == clq::ColumnType::Char(0);
      Expect(widest ? type.type == clq::DataType::kChar : type == spec.type,
             "column type differs from the schema's");
    }
  }
  for (const clq::Column& column : table.columns()) {
    Expect(column.rows() == table.rows(), "columns of different lengths");
    const clq::ColumnType type = column.type();
    for (clq::RowCount r = 0; column.nullable() && r < column.rows(); ++r) {
      const std::uint8_t n = column.null_map()[r];
      Expect(n <= 1, "a NULL map byte other than 0 and 1");
      const std::byte* value = column.bytes() + r * type.width;
      for (std::uint32_t b = 0; n == 1 && b < type.width; ++b)
        Expect(value[b] == std::byte{0}, "a NULL row with value bytes");
    }
    if (type.type == clq::DataType::kChar) {
      Expect(type.width >= 1 && type.width <= clq::kMaxCharWidth, "a CHAR width out of range");
      for (clq::RowCount r = 0; r < column.rows(); ++r) {
        const std::string_view value = column.StringAt(r);
        Expect(value.size() <= type.width, "a CHAR value wider than its column");
        Expect(value.find('\0') == std::string_view::npos, "a CHAR value holds a NUL byte");
      }
    } else if (type.type == clq::DataType::kDouble) {
      for (const double value : column.doubles())
        Expect(!std::isnan(value), "a DOUBLE column holds NaN");
    }
  }
}

// FormatCsv of the table, imported with the table's schema, gives it back.
void CheckRoundTrip(const clq::Table& table) {
  const std::string text = clq::FormatCsv(table);
  clq::TablePtr back;
  try {
    back = clq::ImportCsvText(text, "round trip", "t", table.schema());
  } catch (const std::exception& e) {
    Finding(std::string("the importer refuses the writer's CSV: ") + e.what());
  }
  Expect(back->rows() == table.rows(), "the round trip changed the row count");
  Expect(back->columns().size() == table.columns().size(), "the round trip changed the columns");
  for (std::size_t c = 0; c < table.columns().size(); ++c) {
    const clq::Column& a = table.column(c);
    const clq::Column& b = back->column(c);
    Expect(a.type() == b.type(), "the round trip changed a column's type");
    Expect(std::memcmp(a.bytes(), b.bytes(), a.byte_size()) == 0,
           "the round trip changed a value of column " + a.name());
    for (clq::RowCount r = 0; r < a.rows(); ++r)
      Expect(a.IsNull(r) == b.IsNull(r), "the round trip changed a NULL of column " + a.name());
  }
}

void Import(std::string_view csv, const std::optional<clq::Schema>& schema,
            const clq::CsvReadOptions& options) {
  clq::TablePtr table;
  try {
    table = clq::ImportCsvText(csv, kSource, "t", schema, clq::kUnlimitedHostMemory, options);
  } catch (const clq::InternalError& e) {
    Finding(e.what());
  } catch (const clq::InvalidInputError& e) {
    Expect(std::string_view(e.what()).find(kSource) != std::string_view::npos,
           std::string("an error that does not name the input: ") + e.what());
    return;
  } catch (const std::exception& e) {
    Finding(std::string("unexpected exception: ") + e.what());
  }
  CheckTable(*table, schema);
  CheckRoundTrip(*table);
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  if (size == 0) return 0;
  std::string_view input(reinterpret_cast<const char*>(data) + 1, size - 1);
  clq::CsvReadOptions options;
  if ((data[0] & 2) != 0) options.delimiter = '|';
  options.header = (data[0] & 4) == 0;
  if ((data[0] & 1) == 0) {
    Import(input, std::nullopt, options);
    return 0;
  }
  const std::size_t line_end = input.find('\n');
  const std::string_view schema_text = input.substr(0, line_end);
  input = line_end == std::string_view::npos ? std::string_view() : input.substr(line_end + 1);
  std::optional<clq::Schema> schema;
  try {
    schema = clq::ParseSchema(schema_text);
  } catch (const clq::InternalError& e) {
    Finding(e.what());
  } catch (const clq::InvalidInputError& e) {
    Expect(*e.what() != '\0', "an empty error message");
    return 0;
  } catch (const std::exception& e) {
    Finding(std::string("unexpected exception: ") + e.what());
  }
  Import(input, schema, options);
  return 0;
}
