// Runs the clq binary built beside the tests ($CLQ_BINARY) with a shell
// command line and captures its combined stdout and stderr and exit code
// (or, with RunClqWithStdout, its stderr while stdout goes elsewhere).
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

inline std::string ClqBinary() {
  const char* binary = std::getenv("CLQ_BINARY");
  if (binary == nullptr) throw std::runtime_error("CLQ_BINARY is not set (run through ctest)");
  return binary;
}

// Runs a shell command line; returns its standard output and exit code.
inline ClqResult RunShell(const std::string& command) {
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

inline ClqResult RunClq(const std::string& arguments, const std::string& stdin_text = {}) {
  std::string command = ClqBinary() + " " + arguments + " 2>&1";
  if (!stdin_text.empty()) {
    command = "printf '%s' '" + stdin_text + "' | " + command;
  } else {
    command += " </dev/null";
  }
  return RunShell(command);
}

// Runs clq with its standard output redirected by `redirection` (a shell
// redirection such as ">/dev/full" or ">&-"); the result holds its stderr.
inline ClqResult RunClqWithStdout(const std::string& arguments, const std::string& redirection) {
  return RunShell(ClqBinary() + " " + arguments + " 2>&1 " + redirection + " </dev/null");
}

}  // namespace clq::testing
