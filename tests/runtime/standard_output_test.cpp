// A command whose standard output cannot be written (a full disk, a closed
// descriptor) says so on stderr and exits non-zero, whatever it printed.
#include <gtest/gtest.h>

#include <string>
#include <vector>

#include "tests/support/run_clq.hpp"
#include "tests/support/temp_dir.hpp"

namespace clq {
namespace {

using testing::ClqResult;
using testing::RunClqWithStdout;
using testing::TempDir;

void ExpectWriteError(const ClqResult& result, const std::string& reason, const std::string& what) {
  EXPECT_EQ(result.exit_code, 1) << what << ": " << result.output;
  EXPECT_NE(result.output.find("clq: error: writing standard output: " + reason), std::string::npos)
      << what << ": " << result.output;
}

// Large results fill stdio's buffer many times over; small ones are written
// only when the program flushes at its end: both must fail.
TEST(StandardOutputTest, QueryToAFullDeviceFails) {
  for (const std::string format : {"csv", "table", "json"}) {
    for (const std::string sql :
         {"SELECT * FROM tenktup1", "SELECT COUNT(*) FROM tenktup1 WHERE unique1 < 0"}) {
      const std::string arguments =
          "query --device 0 --rows 10K --format " + format + " \"" + sql + "\"";
      ExpectWriteError(RunClqWithStdout(arguments, ">/dev/full"), "No space left on device",
                       arguments);
    }
  }
}

TEST(StandardOutputTest, QueryToAClosedStdoutFails) {
  for (const std::string format : {"csv", "table"}) {
    const std::string arguments =
        "query --device 0 --rows 1K --format " + format + " \"SELECT * FROM tenktup1\"";
    ExpectWriteError(RunClqWithStdout(arguments, ">&-"), "Bad file descriptor", arguments);
  }
}

TEST(StandardOutputTest, OtherCommandsToAFullDeviceFail) {
  TempDir dir;
  const std::vector<std::string> commands = {
      "devices", "devices --format json", "gen --rows 1K --out " + (dir / "t.clq").string(),
      "bench --devices 0 --rows 1K --suite thesis --queries L2_projection --repeat 1 "
      "--peers none --check none"};
  for (const std::string& arguments : commands)
    ExpectWriteError(RunClqWithStdout(arguments, ">/dev/full"), "No space left on device",
                     arguments);
}

}  // namespace
}  // namespace clq
