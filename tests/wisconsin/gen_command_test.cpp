// `clq gen` through the binary: CSV rows against DeWitt's rules, table
// files, and usage errors.
#include <gtest/gtest.h>

#include <fcntl.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <csignal>
#include <cstring>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "common/errors.hpp"
#include "storage/table_file.hpp"
#include "tests/support/run_clq.hpp"
#include "tests/support/temp_dir.hpp"
#include "tests/wisconsin/naive_wisconsin.hpp"
#include "wisconsin/generator.hpp"

namespace clq {
namespace {

using testing::RunClq;
using testing::TempDir;

std::vector<std::string> SplitCsvLine(std::string line) {
  if (!line.empty() && line.back() == '\r') line.pop_back();
  std::vector<std::string> fields;
  std::stringstream stream(line);
  std::string field;
  while (std::getline(stream, field, ','))
    fields.push_back(field);
  return fields;
}

TEST(GenCommandTest, CsvRowsFollowDeWittsRules) {
  TempDir dir;
  const std::string out = (dir / "t.csv").string();
  const auto result = RunClq("gen --rows 10000 --format csv --out " + out);
  ASSERT_EQ(result.exit_code, 0) << result.output;
  std::ifstream file(out);
  std::string line;
  ASSERT_TRUE(std::getline(file, line));
  EXPECT_EQ(SplitCsvLine(line),
            (std::vector<std::string>{"unique1", "unique2", "two", "four", "ten", "twenty",
                                      "onePercent", "tenPercent", "twentyPercent", "fiftyPercent",
                                      "unique3", "evenOnePercent", "oddOnePercent", "stringu1",
                                      "stringu2", "string4"}));
  const int golden[] = {8800, 1891, 3420, 9850, 7164};
  for (int row = 0; row < 5; ++row) {
    ASSERT_TRUE(std::getline(file, line));
    const int u = golden[row];
    const std::vector<std::string> expected = {std::to_string(u),
                                               std::to_string(row),
                                               std::to_string(u % 2),
                                               std::to_string(u % 4),
                                               std::to_string(u % 10),
                                               std::to_string(u % 20),
                                               std::to_string(u % 100),
                                               std::to_string(u % 10),
                                               std::to_string(u % 5),
                                               std::to_string(u % 2),
                                               std::to_string(u),
                                               std::to_string(u % 100 * 2),
                                               std::to_string(u % 100 * 2 + 1),
                                               testing::NaiveCode(static_cast<std::uint32_t>(u)),
                                               testing::NaiveCode(static_cast<std::uint32_t>(row)),
                                               testing::NaiveString4(static_cast<RowCount>(row))};
    EXPECT_EQ(SplitCsvLine(line), expected) << "row " << row;
  }
  RowCount lines = 6;
  while (std::getline(file, line))
    ++lines;
  EXPECT_EQ(lines, 10001u);
}

TEST(GenCommandTest, TableFilesOfEachRelation) {
  TempDir dir;
  const TablePtr reference = GenerateWisconsinTable("reference", 20000);
  struct Case {
    const char* table;
    RowCount rows;
  };
  for (const Case& c : {Case{"tenktup1", 20000}, Case{"TENKTUP2", 20000}, Case{"onektup", 2000},
                        Case{"bprime", 2000}}) {
    const std::string out = (dir / (std::string(c.table) + ".clq")).string();
    const auto result = RunClq("gen --rows 20K --table " + std::string(c.table) + " --out " + out);
    ASSERT_EQ(result.exit_code, 0) << result.output;
    const TablePtr t = ReadTableFile(out);
    EXPECT_EQ(t->name(), LowercaseIdentifier(c.table));
    ASSERT_EQ(t->rows(), c.rows) << c.table;
    const TablePtr expected = std::string(c.table) == "onektup" ? GenerateWisconsinTable("x", 2000)
                                                                : reference->Slice("x", 0, c.rows);
    for (std::size_t col = 0; col < 16; ++col)
      EXPECT_EQ(std::memcmp(t->column(col).bytes(), expected->column(col).bytes(),
                            expected->column(col).byte_size()),
                0)
          << c.table << " column " << col;
  }
}

TEST(GenCommandTest, FormatFollowsTheExtensionUnlessGiven) {
  TempDir dir;
  ASSERT_EQ(RunClq("gen --rows 10 --out " + (dir / "a.csv").string()).exit_code, 0);
  std::ifstream csv(dir / "a.csv");
  std::string first;
  std::getline(csv, first);
  EXPECT_EQ(first.rfind("unique1,unique2", 0), 0u) << first;
  ASSERT_EQ(RunClq("gen --rows 10 --format clq --out " + (dir / "b.csv").string()).exit_code, 0);
  EXPECT_EQ(ReadTableFile((dir / "b.csv").string())->rows(), 10u);
}

TEST(GenCommandTest, TruncatedOutputIsDetected) {
  TempDir dir;
  const std::string out = (dir / "t.clq").string();
  ASSERT_EQ(RunClq("gen --rows 1000 --out " + out).exit_code, 0);
  std::filesystem::resize_file(out, std::filesystem::file_size(out) / 2);
  try {
    ReadTableFile(out);
    FAIL() << "no error";
  } catch (const FileError& e) {
    EXPECT_NE(std::string(e.what()).find(out + ": truncated"), std::string::npos) << e.what();
  }
}

TEST(GenCommandTest, BadArguments) {
  TempDir dir;
  const std::string out = " --out " + (dir / "x.clq").string();
  struct Case {
    std::string arguments;
    std::string message;
  };
  for (const Case& c :
       {Case{"--rows -5" + out, "-5"}, Case{"--rows abc" + out, "'abc' is not a row count"},
        Case{"--rows 3000000000" + out, "'3000000000' is not a row count"},
        Case{"--rows 5Q" + out, "'5Q'"}, Case{"--rows 10 --table nosuch" + out, "nosuch"},
        Case{"--rows 10 --format parquet" + out, "parquet"}, Case{"--rows 10", "--out"},
        Case{out, "--rows"},
        Case{"--rows 10 --out " + (dir / "missing" / "x.clq").string(),
             "cannot create " + (dir / "missing" / "x.clq").string() + ":"}}) {
    const auto result = RunClq("gen " + c.arguments);
    EXPECT_TRUE(result.exit_code == 1 || result.exit_code == 2) << c.arguments;
    EXPECT_NE(result.output.find(c.message), std::string::npos) << c.arguments << "\n"
                                                                << result.output;
  }
  EXPECT_FALSE(std::filesystem::exists(dir / "x.clq"));
}

// An error names the path the user gave, never the temporary file beside it.
TEST(GenCommandTest, ErrorsNameTheGivenPath) {
  const auto result = RunClq("gen --rows 10 --out /nonexistent-dir/x.clqt");
  EXPECT_EQ(result.exit_code, 1) << result.output;
  EXPECT_NE(result.output.find("cannot create /nonexistent-dir/x.clqt: No such file or directory"),
            std::string::npos)
      << result.output;
  EXPECT_EQ(result.output.find(".tmp"), std::string::npos) << result.output;
}

// `--out -` writes the table to standard output (CSV unless --format clq)
// and the summary to stderr; no file named '-' appears.
TEST(GenCommandTest, DashWritesToStandardOutput) {
  TempDir dir;
  const std::string gen = "cd " + dir.path().string() + " && " + testing::ClqBinary() + " gen ";
  const auto csv = testing::RunShell(gen + "--rows 10 --out - 2>/dev/null");
  ASSERT_EQ(csv.exit_code, 0) << csv.output;
  EXPECT_EQ(csv.output.rfind("unique1,unique2,two,", 0), 0u) << csv.output;
  EXPECT_EQ(std::count(csv.output.begin(), csv.output.end(), '\n'), 11) << csv.output;
  const auto summary = testing::RunShell(gen + "--rows 10 --out - 2>&1 >/dev/null");
  EXPECT_NE(summary.output.find("tenktup1: 10 rows -> standard output (csv)"), std::string::npos)
      << summary.output;
  const auto binary = testing::RunShell(gen + "--rows 10 --format clq --out - >t.clq 2>/dev/null");
  ASSERT_EQ(binary.exit_code, 0) << binary.output;
  EXPECT_EQ(ReadTableFile((dir / "t.clq").string())->rows(), 10u);
  EXPECT_FALSE(std::filesystem::exists(dir / "-"));
  const auto full = testing::RunClqWithStdout("gen --rows 10 --out -", ">/dev/full");
  EXPECT_EQ(full.exit_code, 1) << full.output;
  EXPECT_NE(full.output.find("writing standard output"), std::string::npos) << full.output;
}

std::vector<std::string> FileNames(const std::filesystem::path& dir) {
  std::vector<std::string> names;
  for (const auto& entry : std::filesystem::directory_iterator(dir))
    names.push_back(entry.path().filename().string());
  std::sort(names.begin(), names.end());
  return names;
}

// A gen stopped by SIGTERM or SIGINT while it writes removes its temporary
// file, and dies of the signal.
TEST(GenCommandTest, AnInterruptedGenLeavesNoTemporaryFile) {
  for (const int signal : {SIGTERM, SIGINT}) {
    TempDir dir;
    const std::string out = (dir / "t.clq").string();
    const pid_t pid = ::fork();
    ASSERT_GE(pid, 0);
    if (pid == 0) {
      const int null = ::open("/dev/null", O_RDWR);
      ::dup2(null, STDIN_FILENO);
      ::dup2(null, STDOUT_FILENO);
      ::dup2(null, STDERR_FILENO);
      const std::string binary = testing::ClqBinary();
      ::execl(binary.c_str(), binary.c_str(), "gen", "--rows", "2M", "--out", out.c_str(),
              static_cast<char*>(nullptr));
      ::_exit(127);
    }
    // Wait for the temporary file (the write starts after the generation).
    bool seen = false;
    int status = 0;
    for (int i = 0; i < 60000 && !seen; ++i) {
      for (const std::string& name : FileNames(dir.path()))
        seen |= name.rfind("t.clq.tmp", 0) == 0;
      if (!seen) ::usleep(1000);
      if (!seen && ::waitpid(pid, &status, WNOHANG) == pid) break;
    }
    ASSERT_TRUE(seen) << "no temporary file appeared";
    ::kill(pid, signal);
    ASSERT_EQ(::waitpid(pid, &status, 0), pid);
    EXPECT_TRUE(WIFSIGNALED(status) && WTERMSIG(status) == signal) << "status " << status;
    EXPECT_EQ(FileNames(dir.path()), std::vector<std::string>{}) << "signal " << signal;
  }
}

// The temporary files of writers that died without cleaning up (SIGKILL, a
// crash) are removed by the next write of the same path; a live process's
// is left alone.
TEST(GenCommandTest, StaleTemporaryFilesOfDeadProcessesAreRemoved) {
  TempDir dir;
  const pid_t child = ::fork();
  ASSERT_GE(child, 0);
  if (child == 0) ::_exit(0);
  ASSERT_EQ(::waitpid(child, nullptr, 0), child);
  const std::string dead = "t.clq.tmp" + std::to_string(child);
  const std::string live = "t.clq.tmp" + std::to_string(::getpid());
  const std::string other = "u.clq.tmp" + std::to_string(child);
  for (const std::string& name : {dead, live, other})
    std::ofstream(dir / name) << "partial";
  ASSERT_EQ(RunClq("gen --rows 10 --out " + (dir / "t.clq").string()).exit_code, 0);
  EXPECT_EQ(FileNames(dir.path()), (std::vector<std::string>{"t.clq", live, other}));
}

}  // namespace
}  // namespace clq
