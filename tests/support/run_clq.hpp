// Runs the clq binary built beside the tests ($CLQ_BINARY) with a shell
// command line and captures its combined stdout and stderr and exit code.
#pragma once

#include <sys/wait.h>

#include <array>
#include <cstdio>
#include <cstdlib>
#include <stdexcept>
#include <string>

namespace clq::testing {

struct ClqResult {
  int exit_code = -1;
  std::string output;
};

inline ClqResult RunClq(const std::string& arguments, const std::string& stdin_text = {}) {
  const char* binary = std::getenv("CLQ_BINARY");
  if (binary == nullptr) throw std::runtime_error("CLQ_BINARY is not set (run through ctest)");
  std::string command = std::string(binary) + " " + arguments + " 2>&1";
  if (!stdin_text.empty()) {
    command = "printf '%s' '" + stdin_text + "' | " + command;
  } else {
    command += " </dev/null";
  }
  FILE* pipe = popen(command.c_str(), "r");
  if (pipe == nullptr) throw std::runtime_error("popen failed");
  ClqResult result;
  std::array<char, 4096> buffer;
  std::size_t n;
  while ((n = std::fread(buffer.data(), 1, buffer.size(), pipe)) > 0)
    result.output.append(buffer.data(), n);
  const int status = pclose(pipe);
  result.exit_code = WIFEXITED(status) ? WEXITSTATUS(status) : 128 + WTERMSIG(status);
  return result;
}

}  // namespace clq::testing
