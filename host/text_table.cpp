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

}  // namespace

std::string TextTable::Render() const {
  std::vector<std::size_t> widths(header_.size(), 0);
  for (std::size_t c = 0; c < header_.size(); ++c)
    widths[c] = Width(header_[c]);
  for (const auto& row : rows_)
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
  emit_row(header_, true);
  std::string rule;
  for (std::size_t c = 0; c < widths.size(); ++c) {
    if (c > 0) rule += "  ";
    rule += std::string(widths[c], '-');
  }
  out += rule + "\n";
  for (const auto& row : rows_)
    emit_row(row, false);
  return out;
}

std::string FormatBytes(unsigned long long bytes) {
  static const char* kUnits[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  int unit = 0;
  while (value >= 1024.0 && unit < 4) {
    value /= 1024.0;
    ++unit;
  }
  char text[32];
  if (unit == 0) {
    std::snprintf(text, sizeof(text), "%llu B", bytes);
  } else {
    std::snprintf(text, sizeof(text), "%.2f %s", value, kUnits[unit]);
  }
  return text;
}

std::string FormatFixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof(text), "%.*f", decimals, value);
  return text;
}

}  // namespace clq
