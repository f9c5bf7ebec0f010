#include "sql/sql_error_format.hpp"

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

  // The line's characters with their display columns (tabs expanded).
  struct Character {
    std::size_t byte = 0;    // offset in sql_text
    std::size_t bytes = 0;   // UTF-8 length
    std::size_t column = 0;  // display column, 0-based
    std::size_t width = 0;   // display cells
  };
  std::vector<Character> characters;
  std::size_t width = 0;
  std::size_t caret = std::string::npos;  // display column of the offset, 0-based
  std::size_t column = 1;                 // character column of the offset, 1-based
  for (std::size_t i = line_begin; i < line_end; ++i) {
    const char c = sql_text[i];
    if (IsContinuationByte(c) && !characters.empty()) {
      ++characters.back().bytes;
      continue;
    }
    if (i == offset) caret = width;
    if (i < offset) ++column;
    if (c == '\r' && i + 1 == line_end) break;
    const std::size_t cells = c == '\t' ? kTabWidth - width % kTabWidth : 1;
    characters.push_back(Character{i, 1, width, cells});
    width += cells;
  }
  if (caret == std::string::npos) caret = width;

  // A window of the line around the caret when it is too long to show.
  std::size_t window_begin = 0;
  std::size_t window_end = width;
  if (width > kMaxShownWidth) {
    window_begin = caret > kMaxShownWidth / 2 ? caret - kMaxShownWidth / 2 : 0;
    window_end = std::min(width, window_begin + kMaxShownWidth);
  }
  std::string line;
  std::size_t caret_shift = 0;
  if (window_begin > 0) {
    line += kEllipsis;
    caret_shift = kEllipsis.size();
  }
  for (const Character& character : characters) {
    const char first = sql_text[character.byte];
    if (first == '\t') {
      // A tab may straddle an edge of the window: show the part inside.
      const std::size_t begin = std::max(character.column, window_begin);
      const std::size_t end = std::min(character.column + character.width, window_end);
      if (begin < end) line.append(end - begin, ' ');
      continue;
    }
    if (character.column < window_begin || character.column >= window_end) continue;
    if (static_cast<unsigned char>(first) < 0x20) {
      line += ' ';
    } else {
      line.append(sql_text.substr(character.byte, character.bytes));
    }
  }
  if (window_end < width) line += kEllipsis;

  std::string text = "line " + std::to_string(line_number) + ", column " + std::to_string(column) +
                     ": " + message + "\n" + line + "\n";
  text.append(caret - window_begin + caret_shift, ' ');
  text += "^";
  return text;
}

}  // namespace clq::sql
