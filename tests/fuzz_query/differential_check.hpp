// Runs one SQL query on every target under test (the CPU reference and each
// device engine) and on SQLite, and says whether they disagree.
//
// Results must agree as multisets, or in order when ORDER BY fixes it
// (CompareResults: integers exactly, REAL within 1e-9 relative); each
// device must also agree with the CPU reference. Errors: where SQLite errs,
// clq must too. Where clq errs and SQLite does not, it is a failure unless
// the README documents the difference:
//  - integer overflow of + - * / (clq raises it, SQLite gives a REAL);
//  - SQLite's SUM failing on a partial sum whose total fits 64 bits;
//  - what a device rejects by design or cannot run yet (DeviceLimitError,
//    the device differential test's kOutsideDeviceSubset messages);
// each is tallied by message, so a run shows what it could not compare.
// A device and the CPU reference must agree on raising overflow.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "runtime/engine.hpp"
#include "storage/catalog.hpp"
#include "storage/table.hpp"
#include "tests/cpu_reference/sqlite_oracle.hpp"

namespace clq::fuzz_query {

struct Target {
  std::string name;  // "cpu-reference", "pocl_cpu_0", "pocl_cpu_0/gpu-paths"
  Engine* engine;    // null: the CPU reference
};

struct Verdict {
  // Empty when every target agrees; else what kind of failure (the shrinker
  // keeps a query only while its failure stays of the same kind) and details.
  std::string failure;
  std::string detail;
  bool device_ran = false;  // at least one device returned a result
};

class DifferentialCheck {
 public:
  explicit DifferentialCheck(std::vector<Target> targets) : targets_(std::move(targets)) {}

  // Replaces the tables the queries read.
  void LoadTables(const std::vector<TablePtr>& tables);
  Verdict Check(const std::string& sql, bool ordered);

  // Documented differences seen, by message, over every Check().
  const std::map<std::string, std::size_t>& documented() const { return documented_; }

 private:
  std::vector<Target> targets_;
  std::unique_ptr<cpu_reference_test::SqliteOracle> oracle_;
  std::unique_ptr<Catalog> catalog_;
  std::map<std::string, std::size_t> documented_;
};

}  // namespace clq::fuzz_query
