// Aligned plain-text tables for people: a header, a rule, rows. Numbers (cells
// that look numeric) are right-aligned, text left-aligned. Control characters
// in cells are shown as C escapes (\n, \t, \x07), so each row is one line.
#pragma once

#include <string>
#include <vector>

namespace clq {

class TextTable {
 public:
  explicit TextTable(std::vector<std::string> header) : header_(std::move(header)) {}
  void AddRow(std::vector<std::string> row) { rows_.push_back(std::move(row)); }
  std::size_t row_count() const { return rows_.size(); }
  std::string Render() const;

 private:
  std::vector<std::string> header_;
  std::vector<std::vector<std::string>> rows_;
};

// Helpers for cells.
std::string FormatFixed(double value, int decimals);

}  // namespace clq
