#include "host/result_format.hpp"

#include <cmath>
#include <cstdio>

#include "common/byte_size.hpp"
#include "common/calendar.hpp"
#include "common/decimal.hpp"
#include "host/json_writer.hpp"
#include "host/text_table.hpp"

namespace clq {
namespace {

std::string RoundTripReal(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Inf" : "-Inf";
  char text[40];
  std::snprintf(text, sizeof(text), "%.17g", value);
  return text;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\r\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

// Holds the text of a result being rendered to the budget: at its 1024th
// row and every 65536th after, the bytes so far, extrapolated to every row,
// with the result's own.
class TextBudget {
 public:
  TextBudget(const QueryResult& result, RowCount rows, std::uint64_t host_memory,
             const char* format)
      : rows_(rows),
        host_memory_(host_memory),
        result_bytes_(ResultBytes(result)),
        format_(format) {}

  void Check(RowCount done, std::uint64_t bytes) {
    if (done != next_ || host_memory_ == kUnlimitedHostMemory) return;
    next_ = done < kEvery ? kEvery : done + kEvery;
    const std::uint64_t per_row = (bytes + done - 1) / done;
    CheckHostMemory(host_memory_,
                    "the result (" + std::to_string(rows_) + " rows) as " + format_ +
                        " text of about " + std::to_string(per_row) + " bytes a row",
                    SaturatingAdd(SaturatingMultiply(per_row, rows_), result_bytes_));
  }

 private:
  static constexpr RowCount kEvery = 65536;
  RowCount rows_;
  std::uint64_t host_memory_;
  std::uint64_t result_bytes_;
  const char* format_;
  RowCount next_ = 1024;
};

}  // namespace

std::string FormatReal(double value) {
  if (std::isnan(value)) return "NaN";
  if (std::isinf(value)) return value > 0 ? "Inf" : "-Inf";
  char text[40];
  std::snprintf(text, sizeof(text), "%.15g", value);
  std::string s = text;
  if (s.find_first_of(".eE") == std::string::npos) s += ".0";
  return s;
}

std::string FormatValue(const ResultColumn& column, RowCount row) {
  if (column.type == sql::ValueType::kNull || column.IsNull(row)) return "NULL";
  switch (column.type) {
    case sql::ValueType::kInteger:
      if (column.logical.is_date()) return FormatDate(column.integers[row]);
      if (column.logical.is_decimal())
        return FormatDecimal(column.integers[row], column.logical.scale);
      return std::to_string(column.integers[row]);
    case sql::ValueType::kReal:
      return FormatReal(column.reals[row]);
    case sql::ValueType::kText:
      return std::string(column.TextAt(row));
    case sql::ValueType::kNull:
      break;
  }
  return "NULL";
}

std::string FormatTable(const QueryResult& result, std::uint64_t max_rows,
                        std::uint64_t host_memory) {
  std::vector<std::string> header;
  for (const ResultColumn& c : result.columns)
    header.push_back(c.name);
  TextTable table(header);
  const RowCount shown = std::min<RowCount>(result.rows, max_rows);
  TextBudget budget(result, shown, host_memory, "table");
  // The cells are kept until the table is rendered, then the text made.
  std::uint64_t bytes = 0;
  for (RowCount r = 0; r < shown; ++r) {
    std::vector<std::string> row;
    for (const ResultColumn& c : result.columns) {
      row.push_back(FormatValue(c, r));
      bytes += sizeof(std::string) + 2 * row.back().size() + 2;
    }
    bytes += sizeof(row);
    table.AddRow(std::move(row));
    budget.Check(r + 1, bytes);
  }
  std::string text = table.Render();
  if (shown < result.rows) {
    text += "... " + std::to_string(result.rows - shown) + " more rows (" +
            std::to_string(result.rows) + " in all; use --out FILE for everything)\n";
  } else {
    text += "(" + std::to_string(result.rows) + (result.rows == 1 ? " row)\n" : " rows)\n");
  }
  return text;
}

std::string FormatCsv(const QueryResult& result, std::uint64_t host_memory) {
  TextBudget budget(result, result.rows, host_memory, "csv");
  std::string text;
  for (std::size_t c = 0; c < result.columns.size(); ++c) {
    if (c > 0) text += ',';
    text += CsvField(result.columns[c].name);
  }
  text += "\r\n";
  for (RowCount r = 0; r < result.rows; ++r) {
    for (std::size_t c = 0; c < result.columns.size(); ++c) {
      if (c > 0) text += ',';
      const ResultColumn& column = result.columns[c];
      // NULL is an empty field and '' a quoted one (PostgreSQL's CSV rule), so
      // the two stay apart; a one-column row holding NULL is an empty line.
      if (column.type == sql::ValueType::kNull || column.IsNull(r)) continue;
      if (column.type == sql::ValueType::kReal) {
        text += RoundTripReal(column.reals[r]);
      } else if (column.type == sql::ValueType::kText && column.TextAt(r).empty()) {
        text += "\"\"";
      } else {
        text += CsvField(FormatValue(column, r));
      }
    }
    text += "\r\n";
    budget.Check(r + 1, text.size());
  }
  return text;
}

std::string FormatJson(const QueryResult& result, std::uint64_t host_memory) {
  TextBudget budget(result, result.rows, host_memory, "json");
  JsonWriter json;
  json.BeginArray();
  for (RowCount r = 0; r < result.rows; ++r) {
    json.BeginObject();
    for (const ResultColumn& c : result.columns) {
      json.Key(c.name);
      if (c.type == sql::ValueType::kNull || c.IsNull(r)) {
        json.Null();
        continue;
      }
      switch (c.type) {
        case sql::ValueType::kInteger:
          if (c.logical.is_date()) {
            json.String(FormatDate(c.integers[r]));
          } else if (c.logical.is_decimal()) {
            json.Number(FormatDecimal(c.integers[r], c.logical.scale));
          } else {
            json.Int(c.integers[r]);
          }
          break;
        case sql::ValueType::kReal:
          json.Double(c.reals[r]);
          break;
        case sql::ValueType::kText:
          json.String(c.TextAt(r));
          break;
        case sql::ValueType::kNull:
          json.Null();
          break;
      }
    }
    json.EndObject();
    budget.Check(r + 1, json.str().size());
  }
  json.EndArray();
  return json.str() + "\n";
}

}  // namespace clq
