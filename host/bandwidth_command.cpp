// `clq bandwidth`: the transfer and memory ceilings of a device.
#include <iostream>

#include "common/byte_size.hpp"
#include "common/errors.hpp"
#include "host/cli_common.hpp"
#include "host/commands.hpp"
#include "host/json_writer.hpp"
#include "host/text_table.hpp"
#include "runtime/bandwidth.hpp"

namespace clq {
namespace {

std::string RenderTable(const Engine& engine, const BandwidthReport& report) {
  std::vector<std::string> header{"size"};
  for (const std::string& test : report.tests)
    header.push_back(test);
  TextTable table(header);
  for (std::uint64_t size : report.sizes) {
    std::vector<std::string> row{FormatBytes(size)};
    for (const std::string& test : report.tests) {
      for (const BandwidthSample& s : report.samples)
        if (s.size == size && s.test == test) row.push_back(FormatFixed(s.median_gbps, 1));
    }
    table.AddRow(row);
  }
  std::vector<std::string> peak{"best"};
  for (const std::string& test : report.tests)
    peak.push_back(FormatFixed(report.Peak(test), 1));
  table.AddRow(peak);
  return "Bandwidth on " + engine.info().name + " (" + engine.info().platform_name +
         "), GB/s (1e9 bytes/s), median of repeats; copies count bytes read + written\n" +
         table.Render();
}

std::string RenderJson(const Engine& engine, const BandwidthReport& report) {
  JsonWriter json;
  json.BeginObject()
      .Key("device")
      .String(engine.info().name)
      .Key("platform")
      .String(engine.info().platform_name)
      .Key("samples")
      .BeginArray();
  for (const BandwidthSample& s : report.samples) {
    json.BeginObject()
        .Key("test")
        .String(s.test)
        .Key("bytes")
        .UInt(s.size)
        .Key("median_gbps")
        .Double(s.median_gbps)
        .Key("best_gbps")
        .Double(s.best_gbps)
        .EndObject();
  }
  json.EndArray().Key("peak_gbps").BeginObject();
  for (const std::string& test : report.tests)
    json.Key(test).Double(report.Peak(test));
  json.EndObject().EndObject();
  return json.str() + "\n";
}

}  // namespace

void RunBandwidthCommand(const BandwidthCommandOptions& options) {
  BandwidthOptions measure;
  measure.min_bytes = ParseSize(options.min_size, "--min-size");
  measure.max_bytes = ParseSize(options.max_size, "--max-size");
  measure.repeats = options.repeats;
  if (measure.min_bytes > measure.max_bytes)
    throw InvalidInputError("--min-size is larger than --max-size");
  for (auto& engine : OpenEngines(options.device, true)) {
    const BandwidthReport report = MeasureBandwidth(*engine, measure);
    WriteStandardOutput(options.format == "json" ? RenderJson(*engine, report)
                                                 : RenderTable(*engine, report));
  }
}

}  // namespace clq
