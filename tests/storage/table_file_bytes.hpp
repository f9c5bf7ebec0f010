// Helpers of the table-file tests: a file's bytes in and out, and the check
// that reading a damaged file fails with a FileError naming it.
#pragma once

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include "common/errors.hpp"
#include "storage/table_file.hpp"

namespace clq::testing {

inline std::vector<char> ReadBytes(const std::filesystem::path& path) {
  std::ifstream file(path, std::ios::binary);
  return std::vector<char>(std::istreambuf_iterator<char>(file), {});
}

inline void WriteBytes(const std::filesystem::path& path, const std::vector<char>& bytes) {
  std::ofstream file(path, std::ios::binary | std::ios::trunc);
  file.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
}

// Expects a FileError whose message names the file and contains `problem`.
inline void ExpectFileError(const std::filesystem::path& path, const std::string& problem) {
  try {
    const TablePtr table = ReadTableFile(path.string());
    ADD_FAILURE() << "no error for " << problem << "; read " << table->columns().size()
                  << " columns of " << table->rows() << " rows";
  } catch (const FileError& e) {
    const std::string message = e.what();
    EXPECT_NE(message.find(path.string()), std::string::npos) << message;
    EXPECT_NE(message.find(problem), std::string::npos) << message;
  }
}

}  // namespace clq::testing
