// Reading the SQL test files of tests/sql_files/ (sqllogictest format, with
// clq's directives) and comparing a QueryResult with an expected block.
//
// File format (records are separated by blank lines):
//
//   # rows: 10000            Wisconsin scale N of this file (default 1000):
//                            tenktup1/tenktup2 get N rows, onektup/bprime N/10
//   # requires: join, order_by
//                            features (kSqlFeatures) the device executor needs
//                            for this file; see kFeaturesAvailable
//   # anything else          a comment
//
//   load NAME FILE.csv [SCHEMA]
//                            registers the CSV file (a path relative to the
//                            .test file) as table NAME, imported by
//                            storage/csv.hpp; SCHEMA, the rest of the
//                            line, is ParseSchema's "name TYPE, ..." (without
//                            it, types are inferred; an empty field is NULL).
//
//   statement ok             the SQL (the lines up to the next blank line)
//   SQL                      parses, binds and executes without error
//
//   statement error TEXT     the SQL fails, and its message contains TEXT
//   SQL                      (case-sensitive). SQL errors are formatted by
//                            FormatSqlError, so "line 1, column 8: ..." is
//                            part of the message.
//
//   query TYPES [SORT]       the SQL's result, one letter per output column:
//   SQL                      I (INTEGER), R (REAL), T (TEXT); the result's
//   ----                     column types must match (a column of the NULL
//   VALUES                   type matches any letter). SORT: nosort (the
//                            default: rows compared in order), rowsort (rows
//                            sorted first) or valuesort (all values sorted).
//
// Expected values follow `----` up to the next blank line: one value per line
// (sqllogictest's layout, which scripts/make_sql_tests.py writes) or the
// values of a row separated by tabs. NULL is `NULL`, the empty string
// `(empty)`. REAL values are compared numerically within 1e-9 relative
// (|a - b| <= 1e-9 * max(|a|, |b|, 1)); expected REALs are written with
// Python's repr (the shortest text that reads back exactly) and actual REALs
// are rendered with std::to_chars (also shortest), so equal doubles print
// alike and sort alike. INTEGER and TEXT compare exactly.
#pragma once

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <stdexcept>
#include <string>
#include <vector>

#include "operators/query_result.hpp"

namespace clq::sql_test {

// Every feature a file may require: the five being added to the device
// executor, and two beyond its planned subset (cross_join: cross products and
// non-integer join keys; text_expr: TEXT other than CHAR column vs literal
// comparisons), whose files document what the device rejects today.
inline const std::vector<std::string> kSqlFeatures = {
    "join", "group_by", "distinct", "order_by", "median", "cross_join", "text_expr"};

enum class SortMode { kNoSort, kRowSort, kValueSort };

struct Record {
  enum class Kind { kLoad, kStatementOk, kStatementError, kQuery };
  Kind kind = Kind::kQuery;
  int line = 0;  // 1-based line of the record's first line
  std::string sql;
  std::string error_text;  // kStatementError
  std::string types;       // kQuery
  SortMode sort = SortMode::kNoSort;
  std::vector<std::string> expected;  // kQuery: values, row-major
  std::string table, csv, schema;     // kLoad
};

struct TestFile {
  std::string path;
  std::uint64_t rows = 1000;
  std::vector<std::string> requires_features;
  std::vector<Record> records;
};

inline std::string Trim(const std::string& s) {
  const auto begin = s.find_first_not_of(" \t\r");
  if (begin == std::string::npos) return "";
  const auto end = s.find_last_not_of(" \t\r");
  return s.substr(begin, end - begin + 1);
}

inline std::vector<std::string> SplitWords(const std::string& s) {
  std::istringstream in(s);
  std::vector<std::string> words;
  std::string w;
  while (in >> w)
    words.push_back(w);
  return words;
}

// Throws std::runtime_error("path:line: ...") for a malformed file.
inline TestFile ReadTestFile(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  if (!in) throw std::runtime_error("cannot open " + path);
  std::vector<std::string> lines;
  for (std::string line; std::getline(in, line);) {
    if (!line.empty() && line.back() == '\r') line.pop_back();
    lines.push_back(line);
  }
  TestFile file;
  file.path = path;
  const auto fail = [&](std::size_t i, const std::string& what) {
    throw std::runtime_error(path + ":" + std::to_string(i + 1) + ": " + what);
  };
  std::size_t i = 0;
  while (i < lines.size()) {
    const std::string line = Trim(lines[i]);
    if (line.empty()) {
      ++i;
      continue;
    }
    if (line[0] == '#') {
      const std::string body = Trim(line.substr(1));
      if (body.rfind("rows:", 0) == 0) {
        file.rows = std::strtoull(body.c_str() + 5, nullptr, 10);
        if (file.rows == 0) fail(i, "bad rows: line");
      } else if (body.rfind("requires:", 0) == 0) {
        std::string list = body.substr(9);
        std::replace(list.begin(), list.end(), ',', ' ');
        for (const std::string& f : SplitWords(list)) {
          if (std::find(kSqlFeatures.begin(), kSqlFeatures.end(), f) == kSqlFeatures.end())
            fail(i, "unknown feature '" + f + "'");
          file.requires_features.push_back(f);
        }
      }
      ++i;
      continue;
    }
    Record record;
    record.line = static_cast<int>(i + 1);
    const std::vector<std::string> words = SplitWords(line);
    if (words[0] == "load") {
      if (words.size() < 3) fail(i, "load needs a table name and a CSV file");
      record.kind = Record::Kind::kLoad;
      record.table = words[1];
      record.csv = words[2];
      const std::size_t at = line.find(words[2], line.find(words[1]) + words[1].size());
      record.schema = Trim(line.substr(at + words[2].size()));
      file.records.push_back(record);
      ++i;
      continue;
    }
    if (words[0] == "statement" && words.size() >= 2 && words[1] == "ok") {
      record.kind = Record::Kind::kStatementOk;
    } else if (words[0] == "statement" && words.size() >= 2 && words[1] == "error") {
      record.kind = Record::Kind::kStatementError;
      record.error_text = Trim(line.substr(line.find("error") + 5));
    } else if (words[0] == "query" && words.size() >= 2) {
      record.kind = Record::Kind::kQuery;
      record.types = words[1];
      if (record.types.find_first_not_of("IRT") != std::string::npos)
        fail(i, "column types are letters I, R, T");
      if (words.size() >= 3) {
        if (words[2] == "nosort")
          record.sort = SortMode::kNoSort;
        else if (words[2] == "rowsort")
          record.sort = SortMode::kRowSort;
        else if (words[2] == "valuesort")
          record.sort = SortMode::kValueSort;
        else
          fail(i, "unknown sort mode '" + words[2] + "'");
      }
    } else {
      fail(i, "unknown record '" + line + "'");
    }
    ++i;
    bool has_results = false;
    while (i < lines.size() && !Trim(lines[i]).empty()) {
      if (record.kind == Record::Kind::kQuery && Trim(lines[i]) == "----") {
        has_results = true;
        ++i;
        break;
      }
      record.sql += (record.sql.empty() ? "" : "\n") + lines[i];
      ++i;
    }
    if (record.sql.empty()) fail(static_cast<std::size_t>(record.line - 1), "record without SQL");
    if (has_results) {
      for (; i < lines.size() && !lines[i].empty(); ++i) {
        std::string_view rest = lines[i];
        for (;;) {
          const std::size_t tab = rest.find('\t');
          record.expected.emplace_back(rest.substr(0, tab));
          if (tab == std::string_view::npos) break;
          rest.remove_prefix(tab + 1);
        }
      }
      if (record.expected.size() % record.types.size() != 0)
        fail(static_cast<std::size_t>(record.line - 1),
             "the number of expected values is not a multiple of the column count");
    }
    file.records.push_back(record);
  }
  return file;
}

// --- Values ------------------------------------------------------------------------

inline std::string RealText(double v) {
  char buffer[64];
  const auto result = std::to_chars(buffer, buffer + sizeof(buffer), v);
  return std::string(buffer, result.ptr);
}

// Canonical text of an expected value of type `type` (I, R, T).
inline std::string CanonicalExpected(const std::string& text, char type) {
  if (text == "NULL" || type != 'R') return text;
  char* end = nullptr;
  const double v = std::strtod(text.c_str(), &end);
  if (end == text.c_str() || *end != '\0') return text;  // left as is; will not match
  return RealText(v);
}

inline std::string CanonicalActual(const ResultColumn& column, RowCount row) {
  if (column.IsNull(row)) return "NULL";
  switch (column.type) {
    case sql::ValueType::kInteger:
      return std::to_string(column.integers[row]);
    case sql::ValueType::kReal:
      return RealText(column.reals[row]);
    case sql::ValueType::kText: {
      const std::string text(column.TextAt(row));
      return text.empty() ? "(empty)" : text;
    }
    case sql::ValueType::kNull:
      return "NULL";
  }
  return "?";
}

inline bool ValuesMatch(const std::string& expected, const std::string& actual, char type) {
  if (expected == actual) return true;
  if (type != 'R' || expected == "NULL" || actual == "NULL") return false;
  char* end1 = nullptr;
  char* end2 = nullptr;
  const double e = std::strtod(expected.c_str(), &end1);
  const double a = std::strtod(actual.c_str(), &end2);
  if (*end1 != '\0' || *end2 != '\0') return false;
  if (std::isnan(e) || std::isnan(a)) return false;
  return std::fabs(e - a) <= 1e-9 * std::max({std::fabs(e), std::fabs(a), 1.0});
}

// Sorts `values` (row-major, `width` per row) as rows or as values.
inline void SortValues(std::vector<std::string>& values, std::size_t width, SortMode mode) {
  if (mode == SortMode::kValueSort) {
    std::sort(values.begin(), values.end());
    return;
  }
  if (mode != SortMode::kRowSort || width == 0) return;
  std::vector<std::vector<std::string>> rows;
  for (std::size_t r = 0; r + width <= values.size(); r += width)
    rows.emplace_back(values.begin() + static_cast<std::ptrdiff_t>(r),
                      values.begin() + static_cast<std::ptrdiff_t>(r + width));
  std::sort(rows.begin(), rows.end());
  values.clear();
  for (const auto& row : rows)
    values.insert(values.end(), row.begin(), row.end());
}

// Renders up to `max_rows` rows of row-major values, tab-separated.
inline std::string RenderRows(const std::vector<std::string>& values, std::size_t width,
                              std::size_t max_rows = 20) {
  std::string out;
  const std::size_t rows = width == 0 ? 0 : values.size() / width;
  for (std::size_t r = 0; r < rows && r < max_rows; ++r) {
    out += "    ";
    for (std::size_t c = 0; c < width; ++c)
      out += (c > 0 ? "\t" : "") + values[r * width + c];
    out += "\n";
  }
  if (rows > max_rows) out += "    ... (" + std::to_string(rows) + " rows)\n";
  if (rows == 0) out += "    (no rows)\n";
  return out;
}

// Empty when `actual` matches the record's expected block; else what differs.
inline std::string CheckResult(const Record& record, const QueryResult& actual) {
  const std::size_t width = record.types.size();
  if (actual.columns.size() != width) {
    return "expected " + std::to_string(width) + " columns, got " +
           std::to_string(actual.columns.size());
  }
  for (std::size_t c = 0; c < width; ++c) {
    const sql::ValueType t = actual.columns[c].type;
    const char letter = t == sql::ValueType::kInteger ? 'I'
                        : t == sql::ValueType::kReal  ? 'R'
                        : t == sql::ValueType::kText  ? 'T'
                                                      : record.types[c];
    if (letter != record.types[c]) {
      return "column " + std::to_string(c + 1) + " has type " + std::string(1, letter) +
             ", expected " + std::string(1, record.types[c]);
    }
  }
  std::vector<std::string> expected, got;
  for (std::size_t i = 0; i < record.expected.size(); ++i)
    expected.push_back(CanonicalExpected(record.expected[i], record.types[i % width]));
  for (RowCount r = 0; r < actual.rows; ++r)
    for (std::size_t c = 0; c < width; ++c)
      got.push_back(CanonicalActual(actual.columns[c], r));
  SortValues(expected, width, record.sort);
  SortValues(got, width, record.sort);
  std::string difference;
  if (expected.size() != got.size()) {
    difference = "expected " + std::to_string(expected.size() / width) + " rows, got " +
                 std::to_string(got.size() / width);
  } else {
    for (std::size_t i = 0; i < expected.size(); ++i) {
      const char type = record.sort == SortMode::kValueSort ? 'R' : record.types[i % width];
      if (!ValuesMatch(expected[i], got[i], type)) {
        difference = "row " + std::to_string(i / width + 1) + ", column " +
                     std::to_string(i % width + 1) + ": expected " + expected[i] + ", got " +
                     got[i];
        break;
      }
    }
  }
  if (difference.empty()) return "";
  return difference + "\n  expected:\n" + RenderRows(expected, width) + "  actual:\n" +
         RenderRows(got, width);
}

}  // namespace clq::sql_test
