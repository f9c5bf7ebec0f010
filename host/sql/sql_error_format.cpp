#include "host/sql/sql_error_format.hpp"

#include <algorithm>
#include <vector>

namespace clq::sql {
namespace {

constexpr std::size_t kTabWidth = 8;
constexpr std::size_t kMaxShownWidth = 160;  // display cells of the echoed line
constexpr std::string_view kEllipsis = "...";

bool IsContinuationByte(char c) {
  return (static_cast<unsigned char>(c) & 0xC0) == 0x80;
}

}  // namespace

std::string FormatSqlError(std::string_view sql_text, const SqlError& error) {
  const std::string message = error.what();
  if (error.offset() == std::string::npos) return message;
  const std::size_t offset = std::min(error.offset(), sql_text.size());

  const std::size_t line_begin =
      offset == 0 ? 0 : sql_text.rfind('\n', offset - 1) + 1;  // npos + 1 == 0
  std::size_t line_end = sql_text.find('\n', offset);
  if (line_end == std::string_view::npos) line_end = sql_text.size();
  const std::size_t line_number =
      1 + static_cast<std::size_t>(std::count(sql_text.begin(), sql_text.begin() + offset, '\n'));

  // The line as display cells: one string per character, tabs expanded.
  std::vector<std::string> cells;
  std::size_t width = 0;
  std::size_t caret = std::string::npos;  // display column of the offset, 0-based
  std::size_t column = 1;                 // character column of the offset, 1-based
  for (std::size_t i = line_begin; i < line_end; ++i) {
    const char c = sql_text[i];
    if (IsContinuationByte(c) && !cells.empty()) {
      cells.back().push_back(c);
      continue;
    }
    if (i == offset) caret = width;
    if (i < offset) ++column;
    if (c == '\r' && i + 1 == line_end) break;
    if (c == '\t') {
      const std::size_t spaces = kTabWidth - width % kTabWidth;
      for (std::size_t s = 0; s < spaces; ++s)
        cells.emplace_back(" ");
      width += spaces;
    } else {
      cells.emplace_back(1, static_cast<unsigned char>(c) < 0x20 ? ' ' : c);
      ++width;
    }
  }
  if (caret == std::string::npos) caret = width;

  // A window of the line around the caret when it is too long to show.
  std::size_t first = 0;
  std::size_t last = cells.size();
  if (cells.size() > kMaxShownWidth) {
    first = caret > kMaxShownWidth / 2 ? caret - kMaxShownWidth / 2 : 0;
    last = std::min(cells.size(), first + kMaxShownWidth);
  }
  std::string line;
  std::size_t caret_shift = 0;
  if (first > 0) {
    line += kEllipsis;
    caret_shift = kEllipsis.size();
  }
  for (std::size_t i = first; i < last; ++i)
    line += cells[i];
  if (last < cells.size()) line += kEllipsis;

  std::string text = "line " + std::to_string(line_number) + ", column " + std::to_string(column) +
                     ": " + message + "\n" + line + "\n";
  text.append(caret - first + caret_shift, ' ');
  text += "^";
  return text;
}

}  // namespace clq::sql
