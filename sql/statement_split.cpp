#include "sql/statement_split.hpp"

namespace clq::sql {
namespace {

bool IsSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r' || c == '\f' || c == '\v';
}

// The index just past a literal or identifier quoted by script[begin], where
// a doubled quote stands for itself; the script's end if it is unterminated.
std::size_t SkipQuoted(std::string_view script, std::size_t begin) {
  const char quote = script[begin];
  std::size_t i = begin + 1;
  while (i < script.size()) {
    if (script[i] != quote) {
      ++i;
    } else if (i + 1 < script.size() && script[i + 1] == quote) {
      i += 2;
    } else {
      return i + 1;
    }
  }
  return script.size();
}

void AddStatement(std::string_view script, std::size_t begin, std::size_t end,
                  std::vector<StatementText>& statements) {
  while (begin < end && IsSpace(script[begin]))
    ++begin;
  while (end > begin && IsSpace(script[end - 1]))
    --end;
  statements.push_back(StatementText{std::string(script.substr(begin, end - begin)), begin});
}

}  // namespace

std::vector<StatementText> SplitStatements(std::string_view script) {
  std::vector<StatementText> statements;
  std::size_t begin = 0;
  bool has_content = false;  // anything but whitespace and comments since `begin`
  std::size_t i = 0;
  while (i < script.size()) {
    const char c = script[i];
    const char next = i + 1 < script.size() ? script[i + 1] : '\0';
    if (c == '\'' || c == '"') {
      has_content = true;
      i = SkipQuoted(script, i);
    } else if (c == '-' && next == '-') {
      const std::size_t newline = script.find('\n', i);
      i = newline == std::string_view::npos ? script.size() : newline + 1;
    } else if (c == '/' && next == '*') {
      const std::size_t close = script.find("*/", i + 2);
      i = close == std::string_view::npos ? script.size() : close + 2;
    } else if (c == ';') {
      if (has_content) AddStatement(script, begin, i, statements);
      begin = i + 1;
      has_content = false;
      ++i;
    } else {
      has_content |= !IsSpace(c);
      ++i;
    }
  }
  if (has_content) AddStatement(script, begin, script.size(), statements);
  return statements;
}

}  // namespace clq::sql
