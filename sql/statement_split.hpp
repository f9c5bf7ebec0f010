// Splits a SQL script into statements at the semicolons that are not inside
// a string literal, a quoted identifier or a comment.
//
// Each statement keeps its byte offset in the script, so an error's offset
// within a statement maps back to the script (offset + error offset).
// Statements are trimmed of surrounding whitespace (comments are kept);
// pieces holding only whitespace and comments are dropped. Never throws: an
// unterminated literal or comment runs to the end of the script, and the
// parser then reports it.
#pragma once

#include <cstddef>
#include <string>
#include <string_view>
#include <vector>

namespace clq::sql {

struct StatementText {
  std::string text;        // without the terminating ';'
  std::size_t offset = 0;  // of text[0] in the script
};

std::vector<StatementText> SplitStatements(std::string_view script);

}  // namespace clq::sql
