// Renders a `clq bench` report as an aligned text table (one row per query,
// size and device, then the devices and any errors), CSV (the same rows, every
// number unrounded) or JSON (everything: every run time, the devices with
// driver and version, copy bandwidth, date, clq version; the input of
// scripts/plot_bench.py). Pure functions.
#pragma once

#include <string>

#include "host/bench_runner.hpp"

namespace clq {

std::string RenderBenchTable(const BenchReport& report);
std::string RenderBenchCsv(const BenchReport& report);
std::string RenderBenchJson(const BenchReport& report);

}  // namespace clq
