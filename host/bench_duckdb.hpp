// DuckDB beside `clq bench` in the same run (--peers duckdb): the report so
// far is written to a temporary file and scripts/peers/duckdb_peer.py runs
// its queries on the same data (the Wisconsin rows it generates alike, or the
// tpch suite's .tbl files beside its .clq files), in a Python subprocess;
// its times become each case's `duckdb` peer result.
#pragma once

#include <cstdint>
#include <string>

#include "host/bench_runner.hpp"

namespace clq {

struct DuckdbPeerOptions {
  std::string python;         // the interpreter ($CLQ_PYTHON, else python3)
  std::string script;         // duckdb_peer.py; empty: the source tree's
  std::uint32_t threads = 0;  // DuckDB's threads; 0: its default (every core)
};

// The duckdb_peer.py of the source tree clq was built from.
std::string DefaultDuckdbPeerScript();

// Runs the peer on `report`'s cases and fills in their `duckdb` results.
// A peer that cannot run (no Python, no duckdb module, a failure) marks every
// case "skipped" or "error" with the reason; it does not fail the run.
void RunDuckdbPeer(BenchReport& report, const DuckdbPeerOptions& options);

}  // namespace clq
