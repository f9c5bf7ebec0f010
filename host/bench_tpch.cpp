#include "host/bench_tpch.hpp"

#include <charconv>
#include <cmath>
#include <filesystem>

#include "common/errors.hpp"
#include "storage/table_file.hpp"

namespace clq {
namespace {

constexpr const char* kTpchTables[] = {"region",   "nation",   "part",   "supplier",
                                       "partsupp", "customer", "orders", "lineitem"};
// Rows of orders per unit of scale factor (the TPC-H specification's 1.5M x SF).
constexpr double kOrdersPerScaleFactor = 1500000.0;

std::string FormatScaleFactor(double sf) {
  char text[32];
  const auto result = std::to_chars(text, text + sizeof text, sf);
  return std::string(text, result.ptr);
}

}  // namespace

TpchBenchData OpenTpchData(const std::string& dir, const std::string& scale_factor,
                           std::uint64_t host_memory) {
  if (dir.empty())
    throw InvalidInputError(
        "--suite tpch needs --tpch-dir DIR, a directory of the TPC-H tables as clq table files "
        "(scripts/tpch_data.sh SF DIR writes them)");
  TpchBenchData data;
  RowCount orders_rows = 0;
  for (const char* table : kTpchTables) {
    const std::string path = (std::filesystem::path(dir) / (std::string(table) + ".clq")).string();
    if (!std::filesystem::exists(path))
      throw InvalidInputError("--tpch-dir " + dir + ": no " + table +
                              ".clq (scripts/tpch_data.sh SF DIR writes the 8 tables)");
    TableFileInfo info = ReadTableFileInfo(path);
    if (std::string_view(table) == "orders") orders_rows = info.rows;
    if (std::string_view(table) == "lineitem") data.lineitem_rows = info.rows;
    data.catalog.Add(table, std::move(info.schema), [path, name = std::string(table), host_memory] {
      return ReadTableFile(path, name, host_memory);
    });
  }
  const double found = static_cast<double>(orders_rows) / kOrdersPerScaleFactor;
  if (scale_factor.empty()) {
    data.scale_factor = FormatScaleFactor(found);
    return data;
  }
  double wanted = 0;
  const auto [end, error] =
      std::from_chars(scale_factor.data(), scale_factor.data() + scale_factor.size(), wanted);
  if (error != std::errc() || end != scale_factor.data() + scale_factor.size() || !(wanted > 0))
    throw InvalidInputError("--sf '" + scale_factor + "': give a positive number, e.g. 0.01 or 10");
  if (std::llround(wanted * kOrdersPerScaleFactor) != static_cast<long long>(orders_rows))
    throw InvalidInputError("--tpch-dir " + dir + " holds SF " + FormatScaleFactor(found) +
                            " data (orders has " + std::to_string(orders_rows) + " rows), not SF " +
                            scale_factor);
  data.scale_factor = scale_factor;
  return data;
}

}  // namespace clq
