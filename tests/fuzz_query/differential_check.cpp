#include "tests/fuzz_query/differential_check.hpp"

#include <algorithm>
#include <exception>
#include <optional>

#include "common/errors.hpp"
#include "operators/cpu_reference/cpu_executor.hpp"
#include "plan/query_executor.hpp"
#include "runtime/device_table.hpp"
#include "sql/binder.hpp"
#include "sql/parser.hpp"
#include "tests/cpu_reference/bound_builders.hpp"

namespace clq::fuzz_query {
namespace {

// What a device rejects by design (README "Not on devices"), as the device
// differential test lists them, and what it cannot run yet.
const std::vector<std::string> kDeviceRejections = {
    "cross joins are not supported",
    "are not supported on devices",
    "only comparisons of a CHAR column with a string literal are supported on devices",
    "not available in this build yet",
    "its ON may hold one equality",
    "its ON needs an equality",
};

bool Contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

// One target's answer: a result, or an error of one of these kinds.
struct Outcome {
  enum class Kind : std::uint8_t { kResult, kOverflow, kDeviceRejects, kUserError, kBug };
  Kind kind = Kind::kResult;
  QueryResult result;
  std::string error;
};

Outcome Run(const Target& target, const sql::BoundSelect& select) {
  Outcome outcome;
  try {
    if (target.engine == nullptr) {
      outcome.result = ExecuteOnCpu(select);
    } else {
      QueryExecutor executor(*target.engine);
      outcome.result = executor.Execute(select);
    }
    return outcome;
  } catch (const InternalError& e) {
    outcome.kind = Outcome::Kind::kBug;
    outcome.error = std::string("InternalError: ") + e.what();
  } catch (const DeviceLimitError& e) {
    outcome.kind = Outcome::Kind::kDeviceRejects;
    outcome.error = e.what();
  } catch (const Error& e) {
    outcome.error = e.what();
    outcome.kind = Contains(outcome.error, "integer overflow") ? Outcome::Kind::kOverflow
                                                               : Outcome::Kind::kUserError;
    if (target.engine != nullptr &&
        std::any_of(kDeviceRejections.begin(), kDeviceRejections.end(),
                    [&](const std::string& m) { return Contains(outcome.error, m); }))
      outcome.kind = Outcome::Kind::kDeviceRejects;
  } catch (const std::exception& e) {
    outcome.kind = Outcome::Kind::kBug;
    outcome.error = std::string("non-clq exception: ") + e.what();
  }
  return outcome;
}

std::string Describe(const Outcome& outcome) {
  return outcome.kind == Outcome::Kind::kResult
             ? cpu_reference_test::Render(outcome.result).substr(0, 300)
             : outcome.error;
}

// The leading words of an error, without the numbers and names that vary
// from query to query: the kind of a failure.
std::string Gist(const std::string& error) {
  std::string gist;
  for (char c : error.substr(0, 48)) {
    if (c == '\'' || c == '"' || c == '\n') break;
    if (c < '0' || c > '9') gist += c;
  }
  return gist;
}

}  // namespace

void DifferentialCheck::LoadTables(const std::vector<TablePtr>& tables) {
  oracle_ = std::make_unique<cpu_reference_test::SqliteOracle>();
  catalog_ = std::make_unique<Catalog>();
  for (const TablePtr& t : tables) {
    oracle_->Load(*t);
    catalog_->Add(t);
  }
  for (const Target& target : targets_)
    if (target.engine != nullptr) target.engine->tables().Clear();
}

Verdict DifferentialCheck::Check(const std::string& sql, bool ordered) {
  Verdict verdict;
  auto fail = [&](std::string failure, std::string detail) {
    verdict.failure = std::move(failure);
    verdict.detail = std::move(detail);
    return verdict;
  };
  std::optional<sql::BoundSelect> select;
  try {
    select = sql::Bind(sql::Parse(sql), *catalog_, sql).select;
  } catch (const InternalError& e) {
    return fail("front end: InternalError", e.what());
  } catch (const Error& e) {
    const std::string sqlite_error = oracle_->ErrorOf(sql);
    if (!sqlite_error.empty()) return verdict;  // both reject it
    return fail("clq rejects, SQLite accepts: " + Gist(e.what()), e.what());
  } catch (const std::exception& e) {
    return fail("front end: non-clq exception", e.what());
  }

  std::vector<sql::ValueType> types;
  for (std::size_t c = 0; c < select->visible_outputs; ++c)
    types.push_back(select->outputs[c].expr.type);
  const cpu_reference_test::OracleAnswer sqlite = oracle_->Query(sql, types);
  // SQLite's answer: fine, a REAL where clq types INTEGER (an overflow
  // turned into a REAL), SUM's integer overflow, or another error.
  const bool sqlite_real = Contains(sqlite.error, " is REAL in SQLite, INTEGER in the bound query");
  const bool sqlite_overflow = sqlite.error == "integer overflow";
  const bool sqlite_ok = sqlite.error.empty();
  const bool has_sum = Contains(sql, "SUM(");

  std::optional<Outcome> reference;
  for (const Target& target : targets_) {
    const Outcome outcome = Run(target, *select);
    const std::string who = target.name + ": ";
    switch (outcome.kind) {
      case Outcome::Kind::kBug:
        return fail(who + Gist(outcome.error), outcome.error);
      case Outcome::Kind::kDeviceRejects:
        ++documented_["device rejects: " + Gist(outcome.error)];
        continue;
      case Outcome::Kind::kUserError:
        if (sqlite_ok || sqlite_real)
          return fail(who + "clq errs, SQLite does not: " + Gist(outcome.error), outcome.error);
        break;
      case Outcome::Kind::kOverflow:
        if (sqlite_ok || sqlite_real)
          ++documented_["integer overflow (SQLite: a REAL)"];
        else if (!sqlite_overflow)
          return fail(who + "overflow, SQLite: " + Gist(sqlite.error), sqlite.error);
        break;
      case Outcome::Kind::kResult:
        if (target.engine != nullptr) verdict.device_ran = true;
        if (sqlite_overflow && has_sum) {
          ++documented_["SQLite's SUM overflows on a partial sum"];
        } else if (Contains(sqlite.error, "ORDER BY term out of range")) {
          // SQLite folds a term such as (0 AND x) into the integer 0 while
          // parsing, and then reads it as an output position.
          ++documented_["SQLite reads a folded ORDER BY term as a position"];
        } else if (!sqlite_ok) {
          return fail(who + "clq answers, SQLite: " + Gist(sqlite.error),
                      "SQLite: " + sqlite.error +
                          "\n  clq: " + cpu_reference_test::Render(outcome.result).substr(0, 600));
        } else {
          const std::string difference =
              CompareResults(sqlite.result, outcome.result, {.ignore_row_order = !ordered});
          if (!difference.empty())
            return fail(
                who + "differs from SQLite",
                difference +
                    "\n  SQLite: " + cpu_reference_test::Render(sqlite.result).substr(0, 600) +
                    "\n  clq:    " + cpu_reference_test::Render(outcome.result).substr(0, 600));
        }
        break;
    }
    if (!reference) {
      reference = outcome;  // the CPU reference, listed first
      continue;
    }
    if ((outcome.kind == Outcome::Kind::kResult) != (reference->kind == Outcome::Kind::kResult))
      return fail(who + "device and CPU reference disagree on erring",
                  "device: " + Describe(outcome) + "; CPU reference: " + Describe(*reference) +
                      "; SQLite: " +
                      (sqlite_ok ? cpu_reference_test::Render(sqlite.result).substr(0, 300)
                                 : sqlite.error));
    if (outcome.kind == Outcome::Kind::kResult) {
      const std::string difference =
          CompareResults(reference->result, outcome.result, {.ignore_row_order = !ordered});
      if (!difference.empty()) return fail(who + "differs from the CPU reference", difference);
    }
  }
  return verdict;
}

}  // namespace clq::fuzz_query
