#include "storage/csv.hpp"

#include <cctype>
#include <cerrno>
#include <charconv>
#include <cstdio>
#include <cstring>
#include <filesystem>
#include <limits>
#include <memory>
#include <unordered_set>
#include <vector>

#include "common/byte_size.hpp"
#include "common/calendar.hpp"
#include "common/decimal.hpp"
#include "common/errors.hpp"
#include "storage/table_file.hpp"

namespace clq {
namespace {

// A UTF-8 byte order mark, which the reader drops where it starts the text.
constexpr std::string_view kByteOrderMark = "\xEF\xBB\xBF";

// ---------------------------------------------------------------------------
// Writing

bool NeedsQuotes(std::string_view field) {
  return field.find_first_of(",\"\r\n") != std::string_view::npos;
}

// `ambiguous`: the field, unquoted, would read back as something else though
// it holds none of the characters that need quotes (an empty only field of
// a record reads as an empty line; a byte order mark starting the text is
// dropped).
void AppendField(std::string& out, std::string_view field, bool ambiguous) {
  if (!NeedsQuotes(field) && !ambiguous) {
    out.append(field);
    return;
  }
  out.push_back('"');
  for (char c : field) {
    if (c == '"') out.push_back('"');
    out.push_back(c);
  }
  out.push_back('"');
}

template <typename T>
void AppendNumber(std::string& out, T value) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), value);
  out.append(buffer, result.ptr);
}

// NULL is an empty field and the empty string a quoted one, so the two read
// back apart; a one-column row holding NULL is an empty line.
void AppendValue(std::string& out, const Column& column, RowCount row) {
  if (column.IsNull(row)) return;
  const LogicalType logical = column.type().logical;
  if (logical.is_date()) {
    out += FormatDate(column.int32s()[row]);
    return;
  }
  if (logical.is_decimal()) {
    out += FormatDecimal(column.int64s()[row], logical.scale);
    return;
  }
  switch (column.type().type) {
    case DataType::kInt32:
      AppendNumber(out, column.int32s()[row]);
      break;
    case DataType::kInt64:
      AppendNumber(out, column.int64s()[row]);
      break;
    case DataType::kDouble:
      AppendNumber(out, column.doubles()[row]);  // shortest round-trip form
      break;
    case DataType::kChar: {
      const std::string_view value = column.StringAt(row);
      AppendField(out, value, value.empty());
      break;
    }
  }
}

// Appends the CSV text to `out`, calling flush(out) whenever it holds
// `flush_bytes` or more and at the end; flush may consume and clear it.
template <typename Flush>
void EmitCsv(const Table& table, std::string& out, std::size_t flush_bytes, Flush&& flush) {
  const std::size_t columns = table.columns().size();
  for (std::size_t c = 0; c < columns; ++c) {
    if (c > 0) out.push_back(',');
    const std::string& name = table.column(c).name();
    AppendField(out, name,
                (columns == 1 && name.empty()) || (c == 0 && name.starts_with(kByteOrderMark)));
  }
  out.append("\r\n");
  for (RowCount row = 0; row < table.rows(); ++row) {
    for (std::size_t c = 0; c < columns; ++c) {
      if (c > 0) out.push_back(',');
      AppendValue(out, table.column(c), row);
    }
    out.append("\r\n");
    if (out.size() >= flush_bytes) flush(out);
  }
  flush(out);
}

// ---------------------------------------------------------------------------
// Reading: records

// Splits CSV text into records. Fields stay valid until the next Next().
class CsvTokenizer {
 public:
  CsvTokenizer(std::string_view text, const std::string& source, char delimiter)
      : text_(text), source_(source), delimiter_(delimiter), stops_{delimiter, '\r', '\n'} {
    if (text_.starts_with(kByteOrderMark)) text_.remove_prefix(kByteOrderMark.size());
  }

  // Makes each empty line from here on a record of one empty, unquoted
  // field (for a file of one column, where that is how a NULL is written).
  void KeepEmptyLines() { keep_empty_lines_ = true; }

  // The next record (skipping empty lines unless kept); false at the end
  // of the text.
  bool Next() {
    if (keep_empty_lines_ && pos_ < text_.size() && (text_[pos_] == '\n' || text_[pos_] == '\r')) {
      record_line_ = line_;
      SkipLineEnd();
      count_ = 1;
      if (fields_.empty()) fields_.emplace_back();
      fields_[0].clear();
      quoted_.assign(1, false);
      return true;
    }
    while (pos_ < text_.size() && (text_[pos_] == '\n' || text_[pos_] == '\r'))
      SkipLineEnd();
    if (pos_ >= text_.size()) return false;
    record_line_ = line_;
    count_ = 0;
    quoted_.clear();
    for (;;) {
      if (count_ == fields_.size()) fields_.emplace_back();
      std::string& field = fields_[count_++];
      field.clear();
      quoted_.push_back(pos_ < text_.size() && text_[pos_] == '"');
      if (quoted_.back()) {
        ReadQuoted(field);
      } else {
        const std::size_t end = text_.find_first_of(std::string_view(stops_, 3), pos_);
        const std::size_t stop = end == std::string_view::npos ? text_.size() : end;
        field.assign(text_.substr(pos_, stop - pos_));
        pos_ = stop;
      }
      if (pos_ < text_.size() && text_[pos_] == delimiter_) {
        ++pos_;  // "a," ending the text still has a second, empty field
        continue;
      }
      if (pos_ < text_.size()) SkipLineEnd();
      break;
    }
    return true;
  }

  std::size_t size() const { return count_; }
  const std::string& field(std::size_t i) const { return fields_[i]; }
  // Whether field i was quoted ("" is the empty string, an empty unquoted
  // field NULL).
  bool quoted(std::size_t i) const { return quoted_[i]; }
  // The line on which the current record starts (1-based).
  std::uint64_t line() const { return record_line_; }

 private:
  void SkipLineEnd() {
    if (text_[pos_] == '\r' && pos_ + 1 < text_.size() && text_[pos_ + 1] == '\n') ++pos_;
    ++pos_;
    ++line_;
  }

  void ReadQuoted(std::string& field) {
    const std::uint64_t start_line = line_;
    ++pos_;
    for (;;) {
      const std::size_t quote = text_.find('"', pos_);
      if (quote == std::string_view::npos)
        throw InvalidInputError(source_ + " line " + std::to_string(start_line) +
                                ": unterminated quoted field");
      const std::string_view piece = text_.substr(pos_, quote - pos_);
      for (char c : piece)
        line_ += c == '\n';
      field.append(piece);
      pos_ = quote + 1;
      if (pos_ < text_.size() && text_[pos_] == '"') {
        field.push_back('"');
        ++pos_;
        continue;
      }
      break;
    }
    if (pos_ < text_.size() && text_[pos_] != delimiter_ && text_[pos_] != '\r' &&
        text_[pos_] != '\n')
      throw InvalidInputError(source_ + " line " + std::to_string(line_) +
                              ": unexpected character after a closing quote");
  }

  std::string_view text_;
  const std::string& source_;
  char delimiter_;
  char stops_[3];  // the bytes that end an unquoted field
  std::size_t pos_ = 0;
  std::uint64_t line_ = 1;
  std::uint64_t record_line_ = 1;
  std::vector<std::string> fields_;
  std::vector<bool> quoted_;
  std::size_t count_ = 0;
  bool keep_empty_lines_ = false;
};

// The fields of a record that hold columns when `columns` are expected: one
// more, the last empty and unquoted, is a delimiter ending the record (as
// dbgen's .tbl rows end), so `columns` of them count.
std::size_t ColumnFields(const CsvTokenizer& records, std::size_t columns) {
  const std::size_t fields = records.size();
  if (fields == columns + 1 && records.field(fields - 1).empty() && !records.quoted(fields - 1))
    return columns;
  return fields;
}

// ---------------------------------------------------------------------------
// Reading: values

std::string_view TrimSpaces(std::string_view text) {
  while (!text.empty() && (text.front() == ' ' || text.front() == '\t'))
    text.remove_prefix(1);
  while (!text.empty() && (text.back() == ' ' || text.back() == '\t'))
    text.remove_suffix(1);
  return text;
}

// Drops a leading '+', which std::from_chars does not take; false when a
// '-' follows it, which std::from_chars would then take.
bool DropPlusSign(std::string_view& text) {
  if (!text.starts_with('+')) return true;
  text.remove_prefix(1);
  return !text.starts_with('-');
}

std::optional<std::int64_t> ParseInteger(std::string_view text) {
  text = TrimSpaces(text);
  if (!DropPlusSign(text)) return std::nullopt;
  std::int64_t value;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (text.empty() || error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

std::optional<double> ParseDouble(std::string_view text) {
  text = TrimSpaces(text);
  if (!DropPlusSign(text)) return std::nullopt;
  // from_chars also takes "infinity" and "NaN" in any case; accept only the
  // forms the writer produces, so a column of words never reads as numbers.
  // Not "nan": NaN is no value in clq (as in SQLite, a REAL operation that
  // yields one gives NULL), so a table never holds one.
  const std::string_view unsigned_text = text.starts_with('-') ? text.substr(1) : text;
  if (unsigned_text.empty()) return std::nullopt;
  const char first = unsigned_text.front();
  if (!(first >= '0' && first <= '9') && first != '.' && unsigned_text != "inf")
    return std::nullopt;
  double value;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size()) return std::nullopt;
  return value;
}

bool FitsInt32(std::int64_t value) {
  return value >= std::numeric_limits<std::int32_t>::min() &&
         value <= std::numeric_limits<std::int32_t>::max();
}

std::string Quote(std::string_view value) {
  constexpr std::size_t kShown = 40;
  if (value.size() <= kShown) return "'" + std::string(value) + "'";
  return "'" + std::string(value.substr(0, kShown)) + "...'";
}

// Whether a field is NULL in a numeric column: empty but for spaces, quoted
// or not (a number column holds no empty string).
bool IsNumericNull(std::string_view value) {
  return TrimSpaces(value).empty();
}

// Whether a field is NULL in a CHAR column: empty and unquoted ("" is the
// empty string).
bool IsCharNull(std::string_view value, bool quoted) {
  return value.empty() && !quoted;
}

// What pass 1 learns about a column.
struct ColumnStats {
  bool all_int32 = true;
  bool all_int64 = true;
  bool all_double = true;
  bool numeric_null = false;  // a field that is NULL if the column is numeric
  bool char_null = false;     // a field that is NULL if the column is CHAR
  std::size_t longest = 0;
  std::uint64_t longest_line = 0;

  void Add(std::string_view value, bool quoted, std::uint64_t line, bool infer) {
    if (value.size() > longest) {
      longest = value.size();
      longest_line = line;
    }
    char_null = char_null || IsCharNull(value, quoted);
    if (IsNumericNull(value)) {
      numeric_null = true;
      // Inference takes an unquoted blank field for a NULL of whatever type
      // the other fields make, and a quoted one for a string.
      if (!quoted) return;
    }
    if (!infer || !all_double) return;
    if (all_int64) {
      const auto integer = ParseInteger(value);
      all_int64 = integer.has_value();
      all_int32 = all_int64 && all_int32 && FitsInt32(*integer);
      if (all_int64) return;
    }
    all_double = ParseDouble(value).has_value();
  }
};

class CsvImporter {
 public:
  CsvImporter(std::string_view text, const std::string& source, std::optional<Schema> schema,
              std::uint64_t host_memory, const CsvReadOptions& options)
      : text_(text),
        source_(source),
        schema_(std::move(schema)),
        host_memory_(host_memory),
        options_(options) {}

  TablePtr Import(std::string table_name) {
    const RowCount rows = ScanRecords();
    // The text stays in memory while the table is built from it.
    CheckHostMemory(host_memory_,
                    "table " + table_name + " (" + std::to_string(rows) + " rows of " +
                        std::to_string(RowWidth(*schema_)) + " bytes) beside the " +
                        FormatBytes(text_.size()) + " of " + source_ + " it is built from",
                    SaturatingAdd(TableBytes(*schema_, rows), text_.size()));
    TableBuilder builder(std::move(table_name), *schema_, rows, host_memory_);
    CsvTokenizer records(text_, source_, options_.delimiter);
    if (options_.header) records.Next();
    if (schema_->size() == 1) records.KeepEmptyLines();
    for (RowCount row = 0; records.Next(); ++row) {
      for (std::size_t c = 0; c < schema_->size(); ++c)
        Store(builder, c, row, records.field(c), records.quoted(c), records.line());
    }
    return builder.Finish();
  }

 private:
  // Pass 1: header, field counts, row count, types; fills in schema_.
  RowCount ScanRecords() {
    CsvTokenizer records(text_, source_, options_.delimiter);
    if (!options_.header && !schema_)
      throw InvalidInputError(source_ +
                              ": without a header row the schema must name the columns "
                              "(clq import --schema \"name TYPE, ...\")");
    std::vector<std::string> header;
    if (options_.header) {
      if (!records.Next()) throw InvalidInputError(source_ + ": empty file: no header row");
      // A header ending in a delimiter, as its rows may.
      const std::size_t named =
          records.size() > 1 ? ColumnFields(records, records.size() - 1) : records.size();
      for (std::size_t c = 0; c < named; ++c)
        header.push_back(records.field(c));
    } else {
      for (const ColumnSpec& spec : *schema_)
        header.push_back(spec.name);
    }
    const char* const counted_by = options_.header ? " as in the header" : " as in the schema";
    const bool infer = !schema_.has_value();
    if (infer) {
      schema_.emplace();
      for (std::size_t c = 0; c < header.size(); ++c) {
        if (header[c].empty())
          throw InvalidInputError(source_ + " line " + std::to_string(records.line()) +
                                  ": column " + std::to_string(c + 1) + " has no name");
        schema_->push_back({header[c], ColumnType::Char(0)});
      }
    } else if (schema_->size() != header.size()) {
      throw InvalidInputError(source_ + ": the header has " + std::to_string(header.size()) +
                              " columns but the schema " + std::to_string(schema_->size()));
    }
    // A set, not a pairwise comparison: a header may name 100,000 columns.
    std::unordered_set<std::string> names;  // lowercase: names are SQL identifiers
    for (const ColumnSpec& spec : *schema_)
      if (!names.insert(LowercaseIdentifier(spec.name)).second)
        throw InvalidInputError(source_ + ": two columns are named " + spec.name);

    std::vector<ColumnStats> stats(header.size());
    RowCount rows = 0;
    if (header.size() == 1) records.KeepEmptyLines();
    while (records.Next()) {
      if (ColumnFields(records, header.size()) != header.size())
        throw InvalidInputError(source_ + " line " + std::to_string(records.line()) + ": " +
                                std::to_string(records.size()) + " fields, expected " +
                                std::to_string(header.size()) + counted_by +
                                " (or one more, empty, after a delimiter ending the line)");
      for (std::size_t c = 0; c < header.size(); ++c)
        stats[c].Add(records.field(c), records.quoted(c), records.line(), infer);
      ++rows;
    }
    for (std::size_t c = 0; c < header.size(); ++c)
      ResolveType(c, stats[c], infer, rows);
    return rows;
  }

  // An inferred column of no value but NULLs (every field blank and
  // unquoted) is INT32: its fields fit every type, and a number column takes
  // part in arithmetic, aggregates and comparisons with numbers.
  void ResolveType(std::size_t c, const ColumnStats& stats, bool infer, RowCount rows) {
    ColumnSpec& spec = (*schema_)[c];
    if (infer && stats.all_int32) {
      spec.type = ColumnType::Int32();
    } else if (infer && stats.all_int64) {
      spec.type = ColumnType::Int64();
    } else if (infer && stats.all_double && rows > 0) {
      spec.type = ColumnType::Double();
    } else if (spec.type.type == DataType::kChar && spec.type.width == 0) {
      if (stats.longest > kMaxCharWidth)
        throw InvalidInputError(ValueContext(stats.longest_line, spec.name) + "a " +
                                std::to_string(stats.longest) +
                                "-byte value is longer than the longest CHAR clq stores (" +
                                std::to_string(kMaxCharWidth) + ")");
      spec.type =
          ColumnType::Char(static_cast<std::uint32_t>(std::max<std::size_t>(1, stats.longest)));
    }
    spec.nullable = spec.type.is_numeric() ? stats.numeric_null : stats.char_null;
  }

  std::string ValueContext(std::uint64_t line, const std::string& column) const {
    return source_ + " line " + std::to_string(line) + ", column " + column + ": ";
  }

  void Store(TableBuilder& builder, std::size_t c, RowCount row, const std::string& value,
             bool quoted, std::uint64_t line) {
    const ColumnSpec& spec = (*schema_)[c];
    if (spec.type.is_numeric() ? IsNumericNull(value) : IsCharNull(value, quoted)) {
      builder.SetNull(c, row);
      return;
    }
    auto not_a = [&] {
      return InvalidInputError(ValueContext(line, spec.name) + Quote(value) + " is not " +
                               (spec.type.is_integer() ? "an " : "a ") + spec.type.ToString());
    };
    if (spec.type.logical.is_date()) {
      const auto parsed = ParseDate(TrimSpaces(value));
      if (!parsed) throw not_a();
      builder.column_values<std::int32_t>(c)[row] = *parsed;
      return;
    }
    if (spec.type.logical.is_decimal()) {
      const auto parsed =
          ParseDecimal(TrimSpaces(value), spec.type.logical.precision, spec.type.logical.scale);
      if (!parsed) throw not_a();
      builder.column_values<std::int64_t>(c)[row] = *parsed;
      return;
    }
    switch (spec.type.type) {
      case DataType::kInt32: {
        const auto parsed = ParseInteger(value);
        if (!parsed || !FitsInt32(*parsed)) throw not_a();
        builder.column_values<std::int32_t>(c)[row] = static_cast<std::int32_t>(*parsed);
        break;
      }
      case DataType::kInt64: {
        const auto parsed = ParseInteger(value);
        if (!parsed) throw not_a();
        builder.column_values<std::int64_t>(c)[row] = *parsed;
        break;
      }
      case DataType::kDouble: {
        const auto parsed = ParseDouble(value);
        if (!parsed) throw not_a();
        builder.column_values<double>(c)[row] = *parsed;
        break;
      }
      case DataType::kChar:
        if (value.find('\0') != std::string::npos)
          throw InvalidInputError(ValueContext(line, spec.name) +
                                  "a string holds a NUL byte, which clq strings cannot");
        if (value.size() > spec.type.width)
          throw InvalidInputError(ValueContext(line, spec.name) + "a " +
                                  std::to_string(value.size()) + "-byte value does not fit " +
                                  spec.type.ToString());
        builder.SetString(c, row, value);
        break;
    }
  }

  std::string_view text_;
  const std::string& source_;
  std::optional<Schema> schema_;
  std::uint64_t host_memory_;
  CsvReadOptions options_;
};

// ---------------------------------------------------------------------------
// Schema strings

std::optional<ColumnType> ParseTypeName(std::string_view type) {
  std::string name;
  for (char c : type)
    if (c != ' ' && c != '\t')
      name.push_back(static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  if (name == "INT" || name == "INT32") return ColumnType::Int32();
  if (name == "BIGINT" || name == "INT64" || name == "INTEGER") return ColumnType::Int64();
  if (name == "DOUBLE" || name == "REAL" || name == "FLOAT" || name == "DOUBLEPRECISION")
    return ColumnType::Double();
  if (name == "TEXT" || name == "VARCHAR" || name == "STRING") return ColumnType::Char(0);
  if (name == "DATE") return ColumnType::Date();
  if (name.starts_with("DECIMAL(") || name.starts_with("NUMERIC(")) {
    // DECIMAL(p, s) with 1 <= p <= 18 and 0 <= s <= p; DECIMAL(p) is scale 0.
    if (!name.ends_with(')')) return std::nullopt;
    const std::size_t open = name.find('(');
    const std::string_view inside = std::string_view(name).substr(open + 1, name.size() - open - 2);
    const std::size_t comma = inside.find(',');
    auto number = [](std::string_view digits, unsigned& out) {
      const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), out);
      return error == std::errc() && end == digits.data() + digits.size();
    };
    unsigned precision = 0, scale = 0;
    if (!number(inside.substr(0, comma), precision)) return std::nullopt;
    if (comma != std::string_view::npos && !number(inside.substr(comma + 1), scale))
      return std::nullopt;
    if (precision < 1 || precision > kMaxDecimalPrecision || scale > precision) return std::nullopt;
    return ColumnType::Decimal(static_cast<std::uint8_t>(precision),
                               static_cast<std::uint8_t>(scale));
  }
  for (std::string_view prefix : {"CHAR(", "VARCHAR(", "CHARACTER("}) {
    if (!name.starts_with(prefix) || !name.ends_with(')')) continue;
    const std::string_view digits =
        std::string_view(name).substr(prefix.size(), name.size() - prefix.size() - 1);
    std::uint32_t width = 0;
    const auto [end, error] = std::from_chars(digits.data(), digits.data() + digits.size(), width);
    if (error != std::errc() || end != digits.data() + digits.size() || width == 0 ||
        width > kMaxCharWidth)
      return std::nullopt;
    return ColumnType::Char(width);
  }
  return std::nullopt;
}

// Splits at commas outside parentheses and double quotes.
std::vector<std::string_view> SplitDefinitions(std::string_view text) {
  std::vector<std::string_view> items;
  int depth = 0;
  bool quoted = false;
  std::size_t start = 0;
  for (std::size_t i = 0; i < text.size(); ++i) {
    const char c = text[i];
    if (c == '"') quoted = !quoted;
    if (quoted) continue;
    if (c == '(') ++depth;
    if (c == ')') --depth;
    if (c == ',' && depth == 0) {
      items.push_back(text.substr(start, i - start));
      start = i + 1;
    }
  }
  items.push_back(text.substr(start));
  return items;
}

// REQUIRES: `path` fits `host_memory` (checked by the caller, who names it).
std::string ReadWholeFile(const std::string& path) {
  std::error_code error;
  if (std::filesystem::is_directory(path, error))
    throw FileError("cannot read " + path + ": it is a directory");
  struct Close {
    void operator()(std::FILE* f) const { std::fclose(f); }
  };
  std::unique_ptr<std::FILE, Close> file(std::fopen(path.c_str(), "rb"));
  if (!file) throw FileError("cannot open " + path + ": " + std::strerror(errno));
  std::string text;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error) text.reserve(static_cast<std::size_t>(size));
  char buffer[1 << 16];
  std::size_t got;
  while ((got = std::fread(buffer, 1, sizeof(buffer), file.get())) > 0)
    text.append(buffer, got);
  if (std::ferror(file.get())) throw FileError("reading " + path + " failed");
  return text;
}

}  // namespace

void WriteCsvContents(const Table& table, std::FILE* file, const std::string& name) {
  std::string buffer;
  EmitCsv(table, buffer, std::size_t{1} << 20, [&](std::string& piece) {
    if (!piece.empty() && std::fwrite(piece.data(), 1, piece.size(), file) != piece.size())
      throw FileError("writing " + name + " failed: " + std::strerror(errno));
    piece.clear();
  });
}

void WriteCsvFile(const Table& table, const std::string& path) {
  WriteFileAtomically(
      path, [&](std::FILE* file, const std::string& name) { WriteCsvContents(table, file, name); });
}

std::string FormatCsv(const Table& table) {
  std::string text;
  EmitCsv(table, text, std::numeric_limits<std::size_t>::max(), [](std::string&) {});
  return text;
}

Schema ParseSchema(std::string_view text) {
  auto fail = [&](const std::string& problem) {
    return InvalidInputError("schema \"" + std::string(text) + "\": " + problem);
  };
  Schema schema;
  std::unordered_set<std::string> names;  // lowercase: names are SQL identifiers
  for (std::string_view item : SplitDefinitions(text)) {
    item = TrimSpaces(item);
    if (item.empty()) throw fail("an empty column definition");
    std::string name;
    std::size_t pos = 0;
    if (item.front() == '"') {
      for (pos = 1; pos < item.size(); ++pos) {
        if (item[pos] != '"') {
          name.push_back(item[pos]);
        } else if (pos + 1 < item.size() && item[pos + 1] == '"') {
          name.push_back('"');
          ++pos;
        } else {
          break;
        }
      }
      if (pos >= item.size()) throw fail("unterminated quoted name");
      ++pos;
    } else {
      pos = std::min(item.find_first_of(" \t"), item.size());
      name = item.substr(0, pos);
    }
    const std::string_view type_text = TrimSpaces(item.substr(pos));
    if (name.empty()) throw fail("a column without a name");
    if (type_text.empty()) throw fail("column " + name + " has no type");
    const std::optional<ColumnType> type = ParseTypeName(type_text);
    if (!type)
      throw fail("column " + name + ": unknown type '" + std::string(type_text) +
                 "' (use INT, BIGINT, DOUBLE, DATE, DECIMAL(p,s) with p from 1 to 18, "
                 "CHAR(n) or VARCHAR(n) with n from 1 to " +
                 std::to_string(kMaxCharWidth) + ", or TEXT)");
    if (!names.insert(LowercaseIdentifier(name)).second)
      throw fail("two columns are named " + name);
    schema.push_back({std::move(name), *type});
  }
  return schema;
}

TablePtr ImportCsv(const std::string& path, std::string table_name, std::optional<Schema> schema,
                   std::uint64_t host_memory, const CsvReadOptions& options) {
  std::error_code error;
  const std::uintmax_t size = std::filesystem::file_size(path, error);
  if (!error) CheckHostMemory(host_memory, "reading " + path + " whole", size);
  const std::string text = ReadWholeFile(path);
  return ImportCsvText(text, path, std::move(table_name), std::move(schema), host_memory, options);
}

TablePtr ImportCsvText(std::string_view text, const std::string& source, std::string table_name,
                       std::optional<Schema> schema, std::uint64_t host_memory,
                       const CsvReadOptions& options) {
  if (options.delimiter == '"' || options.delimiter == '\r' || options.delimiter == '\n')
    throw InvalidInputError("the delimiter cannot be a quote or a line break");
  return CsvImporter(text, source, std::move(schema), host_memory, options)
      .Import(std::move(table_name));
}

}  // namespace clq
