#include "host/text_table.hpp"

#include <algorithm>
#include <cctype>
#include <cstdio>

namespace clq {
namespace {

bool LooksNumeric(const std::string& cell) {
  if (cell.empty()) return false;
  std::size_t i = (cell[0] == '-' || cell[0] == '+') ? 1 : 0;
  bool digit = false;
  for (; i < cell.size(); ++i) {
    const unsigned char c = static_cast<unsigned char>(cell[i]);
    if (std::isdigit(c)) {
      digit = true;
    } else if (c != '.' && c != 'e' && c != 'E' && c != '-' && c != '+' && c != 'x') {
      return false;
    }
  }
  return digit;
}

// Display width: count UTF-8 code points, not bytes.
std::size_t Width(const std::string& text) {
  std::size_t width = 0;
  for (unsigned char c : text)
    if ((c & 0xC0) != 0x80) ++width;
  return width;
}

// The cell as one line of printable text: a line break in a cell would end
// the row and a tab or carriage return move the cursor, so control
// characters are written as C escapes (\n, \r, \t, \x07); the width then
// counts what is shown. csv and json keep the text exact.
std::string Printable(const std::string& cell) {
  std::string shown;
  for (const char c : cell) {
    const unsigned char byte = static_cast<unsigned char>(c);
    if (byte >= 0x20 && byte != 0x7F) {
      shown += c;
    } else if (c == '\n') {
      shown += "\\n";
    } else if (c == '\r') {
      shown += "\\r";
    } else if (c == '\t') {
      shown += "\\t";
    } else {
      char escape[8];
      std::snprintf(escape, sizeof(escape), "\\x%02x", byte);
      shown += escape;
    }
  }
  return shown;
}

std::vector<std::string> PrintableRow(const std::vector<std::string>& row) {
  std::vector<std::string> shown;
  for (const std::string& cell : row)
    shown.push_back(Printable(cell));
  return shown;
}

}  // namespace

std::string TextTable::Render() const {
  const std::vector<std::string> header = PrintableRow(header_);
  std::vector<std::vector<std::string>> rows;
  for (const auto& row : rows_)
    rows.push_back(PrintableRow(row));
  std::vector<std::size_t> widths(header.size(), 0);
  for (std::size_t c = 0; c < header.size(); ++c)
    widths[c] = Width(header[c]);
  for (const auto& row : rows)
    for (std::size_t c = 0; c < row.size() && c < widths.size(); ++c)
      widths[c] = std::max(widths[c], Width(row[c]));

  std::string out;
  auto emit_row = [&](const std::vector<std::string>& row, bool is_header) {
    std::string line;
    for (std::size_t c = 0; c < widths.size(); ++c) {
      const std::string cell = c < row.size() ? row[c] : std::string();
      const std::string pad(widths[c] - Width(cell), ' ');
      if (c > 0) line += "  ";
      if (!is_header && LooksNumeric(cell)) {
        line += pad + cell;
      } else {
        line += cell + pad;
      }
    }
    while (!line.empty() && line.back() == ' ')
      line.pop_back();
    out += line + "\n";
  };
  emit_row(header, true);
  std::string rule;
  for (std::size_t c = 0; c < widths.size(); ++c) {
    if (c > 0) rule += "  ";
    rule += std::string(widths[c], '-');
  }
  out += rule + "\n";
  for (const auto& row : rows)
    emit_row(row, false);
  return out;
}

std::string FormatFixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

}  // namespace clq
