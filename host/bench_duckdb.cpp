#include "host/bench_duckdb.hpp"

#include <sys/wait.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <vector>

#include "host/bench_report.hpp"

namespace clq {
namespace {

std::string ShellQuote(const std::string& text) {
  std::string quoted = "'";
  for (char c : text) {
    if (c == '\'') {
      quoted += "'\\''";
    } else {
      quoted.push_back(c);
    }
  }
  return quoted + "'";
}

std::vector<std::string> SplitTabs(const std::string& line) {
  std::vector<std::string> fields;
  std::stringstream in(line);
  std::string field;
  while (std::getline(in, field, '\t'))
    fields.push_back(field);
  if (!line.empty() && line.back() == '\t') fields.emplace_back();
  return fields;
}

void MarkAll(BenchReport& report, const std::string& status, const std::string& why) {
  for (BenchCase& c : report.cases)
    if (c.duckdb.status == "off") c.duckdb = {status, why, {}};
}

// One "query rows status median min max error" line into its case.
void ReadResult(BenchReport& report, const std::string& line) {
  const std::vector<std::string> f = SplitTabs(line);
  if (f.size() < 7) return;
  for (BenchCase& c : report.cases) {
    if (c.query.id != f[0] || std::to_string(c.rows) != f[1]) continue;
    c.duckdb.status = f[2];
    c.duckdb.error = f[6];
    if (f[2] == "ok") {
      c.duckdb.time.median_ms = std::strtod(f[3].c_str(), nullptr);
      c.duckdb.time.min_ms = std::strtod(f[4].c_str(), nullptr);
      c.duckdb.time.max_ms = std::strtod(f[5].c_str(), nullptr);
    }
  }
}

}  // namespace

std::string DefaultDuckdbPeerScript() {
  return (std::filesystem::path(CLQ_SOURCE_DIR) / "scripts" / "peers" / "duckdb_peer.py").string();
}

void RunDuckdbPeer(BenchReport& report, const DuckdbPeerOptions& options) {
  const std::string script = options.script.empty() ? DefaultDuckdbPeerScript() : options.script;
  if (!std::filesystem::exists(script)) {
    MarkAll(report, "error", "no DuckDB peer script at " + script);
    return;
  }
  std::string path = (std::filesystem::temp_directory_path() / "clq-bench-XXXXXX.json").string();
  const int fd = ::mkstemps(path.data(), 5);
  if (fd < 0) {
    MarkAll(report, "error", "cannot create a temporary file for the DuckDB peer");
    return;
  }
  ::close(fd);
  std::ofstream(path) << RenderBenchJson(report);
  const std::string command = ShellQuote(options.python) + " " + ShellQuote(script) +
                              " --lines --report " + ShellQuote(path) + " --repeat " +
                              std::to_string(report.options.repeat) + " --threads " +
                              std::to_string(options.threads);
  std::FILE* pipe = ::popen(command.c_str(), "r");
  if (pipe == nullptr) {
    std::filesystem::remove(path);
    MarkAll(report, "error", "cannot run " + options.python);
    return;
  }
  std::string output;
  char buffer[4096];
  std::size_t got;
  while ((got = std::fread(buffer, 1, sizeof buffer, pipe)) > 0)
    output.append(buffer, got);
  const int status = ::pclose(pipe);
  std::error_code ignored;
  std::filesystem::remove(path, ignored);
  std::stringstream lines(output);
  std::string line;
  while (std::getline(lines, line)) {
    if (line.starts_with("# skipped ")) {
      MarkAll(report, "skipped", line.substr(10));
      return;
    }
    if (line.starts_with("# duckdb ")) {
      report.duckdb = line.substr(2);
      continue;
    }
    ReadResult(report, line);
  }
  if (status != 0)
    MarkAll(report, "error",
            script + " failed (" + options.python + ", exit status " +
                std::to_string(WIFEXITED(status) ? WEXITSTATUS(status) : -1) + ")");
}

}  // namespace clq
