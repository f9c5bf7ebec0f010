// CSV (RFC 4180) export and import of tables, and the schema strings of
// `clq import --schema "name TYPE, ..."`.
//
// Writing: a header row of column names, then one record per row; NULL is
// an empty field (a one-column row holding NULL an empty line); a field is
// quoted (quotes doubled) when it holds a comma, quote, CR or LF, when it is
// an empty string (so it reads back as one, not as NULL), or when it is the
// first column name and begins with a UTF-8 byte order mark (which the
// reader drops at the start of the text); doubles in the shortest form that
// reads back to the same value.
//
// Reading: the first non-empty record is the header; quoted fields may hold
// commas, doubled quotes and line breaks; LF, CRLF and CR line endings; empty
// lines are skipped, except after the header of a file of one column, where
// an empty line is a row holding NULL (as the writer writes one); a UTF-8
// byte order mark starting the text is ignored. Numbers may be surrounded by
// spaces and have one sign; DATE fields are YYYY-MM-DD; DECIMAL fields are
// digits with at most one point (no exponent), rounded half away from zero to
// the column's scale; strings are taken verbatim. An empty field is
// NULL: in a numeric column a field empty but for spaces, quoted or not; in
// a CHAR column an unquoted empty field, while a quoted one ("") is the empty
// string, so that NULL and '' stay apart as in PostgreSQL's and DuckDB's CSV
// (SQLite's import makes every empty field ''; NULL is what an empty field
// means in a number column, and a CHAR column reads it alike). A column that
// holds a NULL is nullable (ColumnSpec::nullable). Every error is an InvalidInputError (FileError
// for I/O) naming the file and, for data, the line and column. Reentrant; returned tables own their
// data.
#pragma once

#include <cstdio>
#include <optional>
#include <string>
#include <string_view>

#include "storage/table.hpp"

namespace clq {

// How delimited text is read (clq import's --delimiter and --no-header).
// Whatever the delimiter, a record may end with one more: exactly one field
// beyond the columns, empty and unquoted, is dropped (dbgen's .tbl rows end
// with '|'), so such a record reads as one without it.
struct CsvReadOptions {
  char delimiter = ',';  // one byte; not a quote, CR or LF
  // Whether the first non-empty record names the columns. Without one the
  // schema is required and names them, and every record is a row.
  bool header = true;
};

// Writes the table as CSV (through a temporary file, as WriteTableFile).
void WriteCsvFile(const Table& table, const std::string& path);

// Writes the table as CSV to an open stream; `name` names it in errors.
void WriteCsvContents(const Table& table, std::FILE* file, const std::string& name);

// The CSV text of a table; for tests and small tables.
std::string FormatCsv(const Table& table);

// Parses "name TYPE, name TYPE, ...". Types (case-insensitive): INT, INT32 ->
// INT32; BIGINT, INT64, INTEGER -> INT64 (INTEGER is SQLite's 64-bit type);
// DOUBLE, REAL, FLOAT -> DOUBLE; DATE; DECIMAL(p,s), NUMERIC(p,s) (p <= 18;
// DECIMAL(p) is scale 0); CHAR(n), VARCHAR(n) -> CHAR(n); TEXT, VARCHAR
// -> ColumnType::Char(0), meaning CHAR as wide as the longest value. A name
// may be double-quoted. Throws InvalidInputError.
Schema ParseSchema(std::string_view text);

// Imports a CSV file. With a schema, its column count must match the header
// and its names replace the header's; CHAR(0) columns take the width of their
// longest value (at least 1). Without one, each column is INT32 if every value
// fits, else INT64, else DOUBLE, else CHAR(longest value, at least 1); an
// unquoted field empty but for spaces takes no part in choosing (it is NULL
// if the column is numeric; a quoted one is a string), so a column of
// nothing but such fields is INT32, every row NULL.
// The file is read whole, then the table built beside it: ResourceLimitError
// when the file, or the table with the file, does not fit `host_memory`
// (common/host_memory.hpp), each checked before it is allocated.
// `options`: the delimiter, and whether there is a header (without one, the
// schema is required).
TablePtr ImportCsv(const std::string& path, std::string table_name,
                   std::optional<Schema> schema = std::nullopt,
                   std::uint64_t host_memory = kUnlimitedHostMemory,
                   const CsvReadOptions& options = {});

// The same, from CSV text; `source` names it in messages.
TablePtr ImportCsvText(std::string_view text, const std::string& source, std::string table_name,
                       std::optional<Schema> schema = std::nullopt,
                       std::uint64_t host_memory = kUnlimitedHostMemory,
                       const CsvReadOptions& options = {});

}  // namespace clq
