#include "host/bench_report.hpp"

#include <filesystem>
#include <sstream>

#include "clq_version.hpp"
#include "host/json_writer.hpp"
#include "host/text_table.hpp"

namespace clq {
namespace {

constexpr std::size_t kDeviceNameWidth = 28;

std::string ShortDeviceName(const BenchDevice& device) {
  std::string name = device.info.name;
  if (name.size() > kDeviceNameWidth) name = name.substr(0, kDeviceNameWidth - 3) + "...";
  return device.info.PairSelector() + " " + name;
}

std::string Ms(double ms) {
  if (ms >= 100) return FormatFixed(ms, 1);
  if (ms >= 1) return FormatFixed(ms, 2);
  return FormatFixed(ms, 3);
}

std::string PeerCell(const PeerResult& peer) {
  if (peer.status == "ok") return Ms(peer.time.median_ms);
  if (peer.status == "off") return "";
  return peer.status;
}

std::string CsvField(const std::string& text) {
  if (text.find_first_of(",\"\n") == std::string::npos) return text;
  std::string quoted = "\"";
  for (char c : text) {
    if (c == '"') quoted += '"';
    quoted += c;
  }
  return quoted + "\"";
}

std::string Number(double value) {
  std::ostringstream out;
  out.precision(9);
  out << value;
  return out.str();
}

void WriteTimes(JsonWriter& json, const TimeStats& stats) {
  json.BeginObject().Key("median_ms").Double(stats.median_ms).Key("min_ms").Double(stats.min_ms);
  json.Key("max_ms").Double(stats.max_ms).Key("runs_ms").BeginArray();
  for (double ms : stats.runs_ms)
    json.Double(ms);
  json.EndArray().EndObject();
}

void WritePeer(JsonWriter& json, const PeerResult& peer) {
  json.BeginObject().Key("status").String(peer.status);
  if (!peer.error.empty()) json.Key("error").String(peer.error);
  if (peer.status == "ok") {
    json.Key("time");
    WriteTimes(json, peer.time);
  }
  json.EndObject();
}

bool RanDuckdb(const BenchReport& report) {
  for (const BenchCase& c : report.cases)
    if (c.duckdb.status != "off") return true;
  return false;
}

}  // namespace

std::string RenderBenchTable(const BenchReport& report) {
  const bool duckdb = RanDuckdb(report);
  std::vector<std::string> header{"query",   "rows",       "device",    "hot ms median [min-max]",
                                  "cold ms", "GB/s",       "% copy bw", "vs CPU ref",
                                  "agrees",  "CPU ref ms", "SQLite ms"};
  if (duckdb) header.push_back("DuckDB ms");
  TextTable table(header);
  std::string notes;
  for (const BenchCase& c : report.cases) {
    for (const DeviceResult& r : c.devices) {
      std::vector<std::string> row{c.query.id, std::to_string(c.rows),
                                   ShortDeviceName(report.devices.at(r.device))};
      if (r.status == "ok") {
        row.push_back(Ms(r.hot.median_ms) + " [" + Ms(r.hot.min_ms) + "-" + Ms(r.hot.max_ms) + "]");
        row.push_back(Ms(r.cold.median_ms));
        row.push_back(FormatFixed(r.gbps, 2));
        row.push_back(r.copy_fraction > 0 ? FormatFixed(100 * r.copy_fraction, 1) : "");
        row.push_back(r.speedup_vs_cpu > 0 ? FormatFixed(r.speedup_vs_cpu, 2) + "x" : "");
        row.push_back(c.reference_error.starts_with("not checked") ? "unchecked"
                      : !c.reference_error.empty()                 ? "no ref"
                      : r.agrees                                   ? "yes"
                                                                   : "NO");
        if (!r.agrees && !r.mismatch.empty())
          notes +=
              "  " + c.query.id + " at " + std::to_string(c.rows) + " rows: " + r.mismatch + "\n";
      } else {
        row.push_back(r.status);
        for (int i = 0; i < 5; ++i)
          row.push_back("");
        if (r.status == "error" || r.status == "refused")
          notes += "  " + c.query.id + " at " + std::to_string(c.rows) + " rows on " +
                   report.devices.at(r.device).info.PairSelector() + ": " + r.error + "\n";
      }
      row.push_back(PeerCell(c.cpu));
      row.push_back(PeerCell(c.sqlite));
      if (duckdb) row.push_back(PeerCell(c.duckdb));
      table.AddRow(std::move(row));
    }
  }
  std::string out =
      "clq bench, suite " + report.options.suite + ", " + std::to_string(report.options.repeat) +
      " timed runs each (hot: tables resident; cold: tablets evicted first), " + report.date + "\n";
  if (report.options.suite == "tpch")
    out += "TPC-H SF " + report.options.tpch_scale_factor + ", tables of " +
           report.options.tpch_dir + "\n";
  out += table.Render();
  out += "devices (copy bw: d2d-kernel copy GB/s, read + write, per size):\n";
  for (const BenchDevice& device : report.devices) {
    out += "  " + device.info.PairSelector() + "  " + device.info.name + " (" +
           device.info.platform_name + ", driver " + device.info.driver_version + ")  copy bw:";
    for (const CopyBandwidth& b : device.bandwidth)
      out += " " + std::to_string(b.rows) + " rows " + FormatFixed(b.d2d_kernel_gbps, 1);
    out += "\n";
  }
  if (!report.duckdb.empty()) out += "DuckDB peer: " + report.duckdb + "\n";
  if (!notes.empty()) out += "errors, refusals and differences:\n" + notes;
  return out;
}

std::string RenderBenchCsv(const BenchReport& report) {
  std::string out =
      "suite,query,rows,device,device_name,status,hot_median_ms,hot_min_ms,hot_max_ms,"
      "cold_median_ms,cold_min_ms,cold_max_ms,device_ms,bytes_read,bytes_output,gbps,"
      "copy_gbps,copy_fraction,cpu_ms,speedup_vs_cpu,sqlite_ms,sqlite_status,agrees,error,"
      "duckdb_ms,duckdb_status\n";
  for (const BenchCase& c : report.cases) {
    for (const DeviceResult& r : c.devices) {
      const BenchDevice& device = report.devices.at(r.device);
      const bool ok = r.status == "ok";
      const auto num = [ok](double v) { return ok ? Number(v) : std::string(); };
      std::vector<std::string> fields{
          c.query.suite,
          c.query.id,
          std::to_string(c.rows),
          device.info.PairSelector(),
          device.info.name,
          r.status,
          num(r.hot.median_ms),
          num(r.hot.min_ms),
          num(r.hot.max_ms),
          num(r.cold.median_ms),
          num(r.cold.min_ms),
          num(r.cold.max_ms),
          num(r.device_ms),
          std::to_string(c.bytes_read),
          std::to_string(c.bytes_output),
          num(r.gbps),
          Number(device.CopyGbps(c.rows)),
          num(r.copy_fraction),
          c.cpu.status == "ok" ? Number(c.cpu.time.median_ms) : "",
          ok && r.speedup_vs_cpu > 0 ? Number(r.speedup_vs_cpu) : "",
          c.sqlite.status == "ok" ? Number(c.sqlite.time.median_ms) : "",
          c.sqlite.status,
          ok && r.checked ? (r.agrees ? "yes" : "no") : "",
          ok ? r.mismatch : r.error,
          c.duckdb.status == "ok" ? Number(c.duckdb.time.median_ms) : "",
          c.duckdb.status};
      for (std::size_t i = 0; i < fields.size(); ++i)
        out += (i > 0 ? "," : "") + CsvField(fields[i]);
      out += "\n";
    }
  }
  return out;
}

std::string RenderBenchJson(const BenchReport& report) {
  JsonWriter json;
  json.BeginObject()
      .Key("clq_version")
      .String(kVersion)
      .Key("date")
      .String(report.date)
      .Key("suite")
      .String(report.options.suite);
  if (report.options.suite == "tpch")
    json.Key("tpch")
        .BeginObject()
        .Key("sf")
        .String(report.options.tpch_scale_factor)
        .Key("dir")
        .String(std::filesystem::absolute(report.options.tpch_dir).string())
        .EndObject();
  if (!report.duckdb.empty()) json.Key("duckdb").String(report.duckdb);
  json.Key("repeat")
      .UInt(report.options.repeat)
      .Key("real_relative_tolerance")
      .Double(kBenchRealTolerance)
      .Key("sqlite_row_limit")
      .UInt(kSqliteRowLimit)
      .Key("bytes_formula")
      .String(
          "bytes_read = sum over (table reference, column) scanned by a filter, join, "
          "group key or aggregate of rows x width, plus min(rows, result rows) x width for "
          "columns only in the output list; bytes_output = result rows x sum of result "
          "column widths (8 per number, the width for text); gbps = (bytes_read + "
          "bytes_output) / hot median")
      .Key("sizes")
      .BeginArray();
  for (RowCount n : report.sizes)
    json.UInt(n);
  json.EndArray().Key("devices").BeginArray();
  for (std::size_t d = 0; d < report.devices.size(); ++d) {
    const BenchDevice& device = report.devices[d];
    json.BeginObject()
        .Key("index")
        .UInt(d)
        .Key("selector")
        .String(device.info.PairSelector())
        .Key("name")
        .String(device.info.name)
        .Key("vendor")
        .String(device.info.vendor)
        .Key("platform")
        .String(device.info.platform_name)
        .Key("platform_version")
        .String(device.info.platform_version)
        .Key("driver_version")
        .String(device.info.driver_version)
        .Key("device_version")
        .String(device.info.device_version)
        .Key("compute_units")
        .UInt(device.info.compute_units)
        .Key("global_mem_bytes")
        .UInt(device.info.global_mem_bytes)
        .Key("tuning")
        .String(device.tuning)
        .Key("copies_tables")
        .Bool(device.copies_tables)
        .Key("copy_bandwidth")
        .BeginArray();
    for (const CopyBandwidth& b : device.bandwidth) {
      json.BeginObject()
          .Key("rows")
          .UInt(b.rows)
          .Key("bytes")
          .UInt(b.bytes)
          .Key("d2d_kernel_gbps")
          .Double(b.d2d_kernel_gbps)
          .Key("h2d_pinned_gbps")
          .Double(b.h2d_pinned_gbps)
          .EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray().Key("cases").BeginArray();
  for (const BenchCase& c : report.cases) {
    json.BeginObject()
        .Key("suite")
        .String(c.query.suite)
        .Key("query")
        .String(c.query.id)
        .Key("title")
        .String(c.query.title)
        .Key("sql")
        .String(c.query.sql)
        .Key("rows")
        .UInt(c.rows)
        .Key("tables")
        .BeginObject();
    for (const auto& [name, rows] : c.tables)
      json.Key(name).UInt(rows);
    json.EndObject()
        .Key("bytes_read")
        .UInt(c.bytes_read)
        .Key("bytes_output")
        .UInt(c.bytes_output)
        .Key("result_rows")
        .UInt(c.result_rows);
    if (!c.reference_error.empty()) json.Key("reference_error").String(c.reference_error);
    json.Key("peers").BeginObject().Key("cpu_reference");
    WritePeer(json, c.cpu);
    json.Key("sqlite");
    WritePeer(json, c.sqlite);
    json.Key("duckdb");
    WritePeer(json, c.duckdb);
    json.EndObject().Key("devices").BeginArray();
    for (const DeviceResult& r : c.devices) {
      json.BeginObject().Key("device").UInt(r.device).Key("status").String(r.status);
      if (!r.error.empty()) json.Key("error").String(r.error);
      if (r.status == "ok") {
        json.Key("hot");
        WriteTimes(json, r.hot);
        json.Key("cold");
        WriteTimes(json, r.cold);
        json.Key("device_ms")
            .Double(r.device_ms)
            .Key("gbps")
            .Double(r.gbps)
            .Key("copy_gbps")
            .Double(report.devices.at(r.device).CopyGbps(c.rows))
            .Key("copy_fraction")
            .Double(r.copy_fraction);
        if (r.speedup_vs_cpu > 0) json.Key("speedup_vs_cpu").Double(r.speedup_vs_cpu);
        if (c.reference_error.empty()) json.Key("agrees").Bool(r.agrees);
        if (!r.mismatch.empty()) json.Key("mismatch").String(r.mismatch);
      }
      json.EndObject();
    }
    json.EndArray().EndObject();
  }
  json.EndArray().EndObject();
  return json.str() + "\n";
}

}  // namespace clq
