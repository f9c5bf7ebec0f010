// Renders a SqlError for a person: where it is, what is wrong, and the
// offending line with a caret under the spot.
//
//   line 2, column 8: no column named 'uniqe1'; did you mean 'unique1'?
//   WHERE uniqe1 > 5
//         ^
//
// Lines and columns count from 1; columns count characters (UTF-8 code
// points). In the echoed line a tab is expanded to the next multiple of 8
// and other control characters show as spaces, so the caret lines up in a
// terminal; a very long line is cut to a window around the caret, marked
// with "...". No trailing newline.
#pragma once

#include <string>
#include <string_view>

#include "common/errors.hpp"

namespace clq::sql {

// `sql_text` is the text the error's offset refers to (the statement). When
// the offset is npos the result is just the message.
std::string FormatSqlError(std::string_view sql_text, const SqlError& error);

}  // namespace clq::sql
